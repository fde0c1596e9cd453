import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { REPO } from '../backtest/helpers.js';
import { COINBASE_BTC_1H } from '../data.js';

const PROBE = path.join(REPO, 'test/fixtures/warmup-probe.mjs');
const HOUR = 3_600_000;
const T = Date.UTC(2018, 2, 10);
const N = 10;

function probe(options: { from: number; to: number; window?: { from: number; to?: number }; reportFrom?: number }) {
  return runBacktest({
    markets: [{ asset: 'BTC', file: COINBASE_BTC_1H }],
    strategies: [{ use: PROBE, params: { candles: N }, ...(options.window ? { window: options.window } : {}) }],
    balance: new Dec(100_000),
    keepPrices: false,
    from: options.from,
    to: options.to,
    ...(options.reportFrom !== undefined ? { reportFrom: options.reportFrom } : {}),
  });
}

describe('trading windows and warm-up', () => {
  it('a warmed slice trades from its first candle; a cold one only once its indicators fill; nothing asked during warm-up is sent', async () => {
    const cold = await probe({ from: T, to: T + 24 * HOUR });
    const warm = await probe({ from: T - N * HOUR, to: T + 24 * HOUR, window: { from: T }, reportFrom: T });
    const coldFirst = cold.result.fills[0]!.time;
    const warmFirst = warm.result.fills[0]!.time;
    // cold: the probe waits for half its warm-up of candles after the start
    expect(coldFirst).toBeGreaterThanOrEqual(T + (N / 2) * HOUR);
    // warmed: at the first candle of the slice (decided at T, filled at the next price)
    expect(warmFirst).toBeGreaterThanOrEqual(T);
    expect(warmFirst).toBeLessThan(T + HOUR);
    // the probe was asking from T − N/2 hours on: every one of those intents was held back
    expect(warm.result.fills.every((f) => f.time >= T)).toBe(true);
    expect(warm.result.denials).toHaveLength(0);
    // the reported run starts at the slice, not at the warm-up
    expect(warm.result.startTime).toBe(T);
    expect(warm.result.equity.at(0)!.time).toBeGreaterThanOrEqual(T);
  });

  it('flattens the account once at the window end and sends nothing after it', async () => {
    const end = T + 12 * HOUR;
    const r = await probe({ from: T - N * HOUR, to: T + 36 * HOUR, window: { from: T, to: end }, reportFrom: T });
    const after = r.result.fills.filter((f) => f.time >= end);
    // only the closing fill of the flatten, at the first price of the next hour
    expect(after).toHaveLength(1);
    expect(after[0]!.action).toBe('close');
    expect(after[0]!.time).toBeLessThan(end + HOUR);
    expect(r.result.trades.every((t) => t.closedAt !== null && t.closedAt < end + HOUR)).toBe(true);
  });
});
