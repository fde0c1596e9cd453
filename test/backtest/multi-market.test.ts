import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { COINBASE_BTC_1H, shippedCandles } from '../data.js';
import { REPO } from './helpers.js';

const SMA = path.join(REPO, 'strategies/sma-cross.ts');

describe('several markets in one backtest', () => {
  // Two markets fed by real hourly candles: the shipped BTC file, and the same candles as a second
  // market (XBT), so the two streams tie at every hour and the merge order is tested on every candle.
  it('merges two markets hour by hour and trades both on one account', async () => {
    const from = Date.UTC(2018, 0, 1);
    const to = Date.UTC(2018, 1, 1);
    const hours = (await shippedCandles(COINBASE_BTC_1H)).filter((c) => c.time >= from && c.time < to).length;
    const { result, stats } = await runBacktest({
      markets: [
        { asset: 'BTC', file: COINBASE_BTC_1H },
        { asset: 'XBT', file: COINBASE_BTC_1H },
      ],
      strategies: [
        { use: SMA, name: 'sma-btc', params: { asset: 'BTC', period: '4h', amount: '2000' } },
        { use: SMA, name: 'sma-xbt', params: { asset: 'XBT', period: '4h', amount: '2000', fast: 5, slow: 12 } },
      ],
      balance: new Dec(100000),
      from,
      to,
      risk: { scalping: { enabled: false } },
    });
    expect(hours).toBeGreaterThan(700);
    expect(stats.candles).toBe(2 * hours);
    const markets = new Set(result.fills.map((f) => f.market));
    expect(markets).toEqual(new Set(['BTC', 'XBT']));
    const times = result.fills.map((f) => f.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(result.fills.every((f) => f.time >= from && f.time < to)).toBe(true);
    // Each market's fills come from its own strategy instance.
    for (const f of result.fills.filter((x) => x.intentId !== null)) {
      expect(f.intentId!.startsWith(f.market === 'BTC' ? 'sma-btc:' : 'sma-xbt:')).toBe(true);
    }
    expect(result.prices?.map((p) => [p.market, p.candles.length])).toEqual([
      ['BTC', hours],
      ['XBT', hours],
    ]);
  });
});
