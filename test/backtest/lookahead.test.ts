import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { rx } from '../../src/strategy/index.js';
import { defineStrategy } from '../../src/strategy/define.js';
import type { LoadedStrategy } from '../../src/strategy/loader.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { risingCandles, tempDir, writeCandles } from './helpers.js';

interface Seen {
  openTime: number;
  closeTime: number;
  close: string;
  now: number;
  price: string | undefined;
}

/** A strategy that writes down, for every candle, when it got it and what the market showed then. */
function peeking(seen: Seen[], buyOnCandle: number): LoadedStrategy {
  const strategy = defineStrategy({
    name: 'peek',
    version: '1.0.0',
    assets: ['BTC'],
    setup(ctx) {
      return ctx.candles('BTC', '1m').pipe(
        rx.mergeMap((c) => {
          seen.push({ openTime: c.openTime, closeTime: c.closeTime, close: c.close.toString(), now: ctx.clock.now(), price: ctx.latest.market('BTC')?.price.toString() });
          return seen.length === buyOnCandle ? [ctx.intents.openLong({ size: { quote: '1000' }, leverage: 1 })] : [];
        }),
      );
    },
  });
  return { strategy, params: {}, assets: ['BTC'], source: 'test' };
}

describe('no look-ahead in backtests', () => {
  it('a candle reaches the strategy only after its period ended, and a market order fills at the next open', async () => {
    const candles = risingCandles(10);
    const file = writeCandles(tempDir(), 'btc.csv', candles);
    const seen: Seen[] = [];
    const { result } = await runBacktest({
      markets: [{ asset: 'BTC', file, preset: 'zero-cost' }],
      strategies: [peeking(seen, 3)],
      balance: new Dec(100000),
      risk: { scalping: { enabled: false } },
    });
    // Every candle but the last (nothing came after its end) was delivered, each once, in order.
    expect(seen.map((s) => s.openTime)).toEqual(candles.slice(0, -1).map((c) => c.time));
    for (const [i, s] of seen.entries()) {
      expect(s.now).toBeGreaterThanOrEqual(s.closeTime);
      // What the market showed when the candle arrived is the next candle's open, never its own close.
      expect(s.price).toBe(candles[i + 1]!.open);
      expect(s.close).toBe(candles[i]!.close);
    }
    // Decided on the third candle (close 105), filled at the fourth candle's open (106) at zero cost.
    const entry = result.fills.find((f) => f.action === 'open');
    // The execution price is quote over base (the spec's definition), so it carries the size's fp9 rounding.
    expect(entry!.price.minus(candles[3]!.open).abs().lte('0.000001')).toBe(true);
    expect(entry!.price.minus(candles[2]!.close).abs().gte('0.9')).toBe(true);
    expect(entry?.time).toBe(candles[3]!.time);
    expect(entry?.fee.toString()).toBe('0');
  });
});
