import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { rawHuman } from '../../src/engine/fixed.js';
import type { CandleRow } from '../../src/feed/files/types.js';
import { candleTicks, exactFp9, TickInterleaver, type ReplayMarket } from '../../src/runtime/replay.js';

const row = (time: number, open: string, high: string, low: string, close: string): CandleRow => ({ time, open, high, low, close, volume: '1', line: 2 });

describe('candle → ticks', () => {
  it('reads a plain price of up to 9 places straight to fp9, and nothing else', () => {
    // Up to 21 digits: both sides of the 15-digit line where the digits stop fitting a double exactly.
    const plain = fc
      .tuple(fc.stringMatching(/^[0-9]{1,12}$/), fc.option(fc.stringMatching(/^[0-9]{1,9}$/)))
      .map(([i, f]) => (f === null ? i : `${i}.${f}`));
    fc.assert(
      fc.property(plain, (text) => {
        expect(exactFp9(text)).toBe(BigInt(new Dec(text).times(1e9).toFixed(0)));
      }),
      { numRuns: 500 },
    );
    for (const [text, fp9] of [['999999.999999999', 999999999999999n], ['9999999.99999999', 9999999999999990n], ['9007199.254740993', 9007199254740993n], ['0.000000001', 1n], ['000123', 123000000000n]] as const) {
      expect(exactFp9(text)).toBe(fp9);
    }
    for (const bad of ['', '.5', '5.', '1.0000000001', '1e3', '-1', '1.2.3', ' 1', '1,5']) expect(exactFp9(bad)).toBeUndefined();
  });

  it('a rising candle goes open, low, high, close; a falling one open, high, low, close', () => {
    const up = candleTicks(row(0, '10', '15', '8', '12'), 60_000).map((t) => rawHuman(t.priceFp9));
    expect(up).toEqual(['10', '8', '15', '12']);
    const down = candleTicks(row(0, '10', '15', '8', '9'), 60_000).map((t) => rawHuman(t.priceFp9));
    expect(down).toEqual(['10', '15', '8', '9']);
  });

  it('keeps every tick inside the period, in time order, and skips repeated prices but never the open', () => {
    const ticks = candleTicks(row(1_000_000, '10', '10', '10', '10'), 60_000);
    expect(ticks).toEqual([{ time: 1_000_000, priceFp9: 10_000_000_000n }]);
    const full = candleTicks(row(1_000_000, '10', '15', '8', '12'), 60_000);
    expect(full.map((t) => t.time)).toEqual([1_000_000, 1_020_000, 1_040_000, 1_059_999]);
  });

  it('reads prices exactly as fp9; more than 9 places round half-even, repeats judged on the exact values', () => {
    expect(candleTicks(row(0, '0.000000001', '0.000000003', '0.000000001', '0.000000002'), 60_000).map((t) => t.priceFp9)).toEqual([1n, 3n, 2n]);
    // 10.0000000005 and 10.0000000015 both have 10 places: they round to 10.000000000 and 10.000000002,
    // and the low (10.0000000004) differs from the open as a value, so it is sent though it rounds alike.
    const long = candleTicks(row(0, '10.0000000005', '10.0000000015', '10.0000000004', '10.0000000015'), 60_000);
    expect(long.map((t) => rawHuman(t.priceFp9))).toEqual(['10', '10', '10.000000002']);
  });

  it('interleaves markets of different periods by time, markets in order on ties', () => {
    const markets = new Map<string, ReplayMarket>([
      ['H', { asset: 'H', marketId: 'h', periodMs: 3_600_000 }],
      ['M', { asset: 'M', marketId: 'm', periodMs: 60_000 }],
    ]);
    const rows = [
      { key: 'H', source: 0, row: row(0, '1', '2', '0.5', '1.5') },
      { key: 'M', source: 1, row: row(0, '10', '11', '9', '10.5') },
      { key: 'M', source: 1, row: row(60_000, '10.5', '11', '10', '10.8') },
      { key: 'H', source: 0, row: row(3_600_000, '1.5', '1.6', '1.4', '1.45') },
    ];
    const interleaver = new TickInterleaver(markets);
    const steps = [...rows.flatMap((r) => interleaver.add(r.key, r.source, r.row)), ...interleaver.flush()];
    const times = steps.map((s) => s.tick.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // At time 0 both markets open; H (listed first) goes first.
    expect(steps.slice(0, 2).map((s) => s.market.asset)).toEqual(['H', 'M']);
    // The hour candle's close (at 3_599_999) comes after both minute candles.
    const hClose = steps.findIndex((s) => s.market.asset === 'H' && s.tick.time === 3_599_999);
    const lastMinute = steps.findLastIndex((s) => s.market.asset === 'M');
    expect(hClose).toBeGreaterThan(lastMinute);
    expect(steps.filter((s) => s.candleStart).length).toBe(4);
  });
});
