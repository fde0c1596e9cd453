import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamingCandles } from '../../src/report/downsample.js';

/** One source candle as the replay sends it: its prices in order, the first one starting it. */
type Source = { time: number; prices: bigint[] };

/**
 * What the thinned series must be: the source candles cut into groups of `per` from the first (per
 * the least power of two that leaves at most 2 × max groups), each group the open of its first, the
 * highest and lowest price of any, the close of its last.
 */
function expected(sources: Source[], max: number): { time: number; open: bigint; high: bigint; low: bigint; close: bigint }[] {
  let per = 1;
  while (Math.ceil(sources.length / per) > 2 * max) per *= 2;
  const out = [];
  for (let g = 0; g < sources.length; g += per) {
    const group = sources.slice(g, g + per);
    const all = group.flatMap((s) => s.prices);
    out.push({
      time: group[0]!.time,
      open: group[0]!.prices[0]!,
      high: all.reduce((a, b) => (b > a ? b : a)),
      low: all.reduce((a, b) => (b < a ? b : a)),
      close: group.at(-1)!.prices.at(-1)!,
    });
  }
  return out;
}

function stream(sources: Source[], max: number): ReturnType<typeof expected> {
  const series = new StreamingCandles(max);
  for (const s of sources) s.prices.forEach((p, i) => series.tick(s.time + i, p, i === 0));
  // fp9 Decimals back to integers: the comparison is exact.
  return series.candles().map((c) => ({
    time: c.time,
    open: BigInt(c.open.times(1e9).toFixed()),
    high: BigInt(c.high.times(1e9).toFixed()),
    low: BigInt(c.low.times(1e9).toFixed()),
    close: BigInt(c.close.times(1e9).toFixed()),
  }));
}

const INT64_MAX = (1n << 63n) - 1n;

function sourcesOf(prices: bigint[][]): Source[] {
  return prices.map((p, i) => ({ time: 1_600_000_000_000 + i * 60_000, prices: p }));
}

describe('StreamingCandles', () => {
  it('keeps each group of source candles whole: open, extremes and close exact, however often it halved', () => {
    const price = fc.bigInt({ min: 1n, max: 200_000n * 1_000_000_000n });
    fc.assert(
      fc.property(fc.array(fc.array(price, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 12 }), (prices, max) => {
        const sources = sourcesOf(prices);
        expect(stream(sources, max)).toEqual(expected(sources, max));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a price beyond a signed 64-bit integer exact, before and after it arrives', () => {
    const huge = INT64_MAX + 12_345n;
    const prices = Array.from({ length: 40 }, (_, i) => [BigInt(60_000 + i) * 1_000_000_000n, BigInt(59_000 + i) * 1_000_000_000n]);
    prices[25] = [huge, 1n, huge + 1n];
    const sources = sourcesOf(prices);
    const got = stream(sources, 4);
    expect(got).toEqual(expected(sources, 4));
    expect(got.some((c) => c.high === huge + 1n)).toBe(true);
  });

  it('keeps exact a price beyond int64 that arrives inside a candle, as its new high or its new low', () => {
    for (const wide of [INT64_MAX + 7n, -(INT64_MAX + 7n)]) {
      const prices = Array.from({ length: 12 }, (_, i) => [BigInt(100 + i) * 1_000_000_000n, BigInt(99 + i) * 1_000_000_000n]);
      // The candle opens at a price the arrays hold; the wide one comes second, then the close.
      prices[7] = [5n * 1_000_000_000n, wide, 6n * 1_000_000_000n];
      const sources = sourcesOf(prices);
      const got = stream(sources, 3);
      expect(got).toEqual(expected(sources, 3));
      expect(got.some((c) => c.high === wide || c.low === wide)).toBe(true);
    }
  });
});
