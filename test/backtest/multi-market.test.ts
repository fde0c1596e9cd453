import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { BTC_1M, ETH_1M, REPO } from './helpers.js';

const SMA = path.join(REPO, 'strategies/sma-cross.ts');

describe('several markets in one backtest', () => {
  it('merges BTC and ETH minutes by time and trades both on one account', async () => {
    const from = Date.UTC(2021, 4, 18);
    const to = Date.UTC(2021, 4, 19);
    const { result, stats } = await runBacktest({
      markets: [
        { asset: 'BTC', file: BTC_1M },
        { asset: 'ETH', file: ETH_1M },
      ],
      strategies: [
        { use: SMA, name: 'sma-btc', params: { asset: 'BTC', period: '15m', amount: '2000' } },
        { use: SMA, name: 'sma-eth', params: { asset: 'ETH', period: '15m', amount: '2000' } },
      ],
      balance: new Dec(100000),
      from,
      to,
      risk: { scalping: { enabled: false } },
    });
    expect(stats.candles).toBe(2 * 1440);
    const markets = new Set(result.fills.map((f) => f.market));
    expect(markets).toEqual(new Set(['BTC', 'ETH']));
    const times = result.fills.map((f) => f.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(result.fills.every((f) => f.time >= from && f.time < to)).toBe(true);
    // Each market's fills come from its own strategy instance.
    for (const f of result.fills.filter((x) => x.intentId !== null)) {
      expect(f.intentId!.startsWith(f.market === 'BTC' ? 'sma-btc:' : 'sma-eth:')).toBe(true);
    }
    expect(result.prices?.map((p) => [p.market, p.candles.length])).toEqual([
      ['BTC', 1440],
      ['ETH', 1440],
    ]);
  });
});
