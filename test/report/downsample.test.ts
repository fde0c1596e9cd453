import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { bucketSize, downsampleCandles, MinMaxLine, StepLine, thinMinMax, thinSteps } from '../../src/report/downsample.js';

// 11 samples thinned to about 8 points: buckets of ceil(11 / 4) = 3 samples, the last one of 2.
const times = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const values = [5, 9, 1, 4, 4, 2, 7, 3, 8, 6, 6];

describe('thinned lines', () => {
  it('keep each bucket’s low and high, in time order, at the times of its first two samples', () => {
    // buckets [5 9 1] [4 4 2] [7 3 8] [6 6]: a high before the low, the first of equal highs, ...
    expect(thinMinMax(times, values, 8)).toEqual([[0, 9], [1, 1], [3, 4], [4, 2], [6, 3], [7, 8], [9, 6], [10, 6]]);
  });

  it('are the same whether the samples come as arrays or one at a time', () => {
    const minMax = new MinMaxLine(times.length, 8);
    const steps = new StepLine(times.length, 8);
    times.forEach((t, i) => {
      minMax.add(t, values[i]!);
      steps.add(t, i === 4 ? null : values[i]!);
    });
    expect(minMax.points()).toEqual(thinMinMax(times, values, 8));
    expect(steps.points()).toEqual(thinSteps(times, values.map((v, i) => (i === 4 ? null : v)), 8));
  });

  it('keep a step line’s value mid-bucket and at the bucket’s end, and draw nothing where it is missing', () => {
    const line = values.map((v, i) => (i === 4 ? null : v));
    // buckets [5 9 1] [4 null 2] [7 3 8] [6 6]: mid is sample floor(size / 2) - 1 of the bucket
    expect(thinSteps(times, line, 8)).toEqual([[0, 5], [1, 1], [3, 4], [4, 2], [6, 7], [7, 8], [9, 6], [10, 6]]);
  });

  it('order a bucket’s low and high by the first sample of each value, and draw no NaN step', () => {
    // buckets of 3: [5 3 5] (the first 5 is the high, before the low) and [1 4 1] (the first 1 is the low, before the high)
    expect(thinMinMax([0, 1, 2, 3, 4, 5], [5, 3, 5, 1, 4, 1], 4)).toEqual([[0, 5], [1, 3], [3, 1], [4, 4]]);
    expect(thinSteps([0, 1, 2], [5, Number.NaN, 7], 8)).toEqual([[0, 5], [2, 7]]);
  });

  it('leave a short series whole, and a series of exactly the points asked for', () => {
    expect(thinMinMax([0, 1], [3, 2], 8)).toEqual([[0, 3], [1, 2]]);
    expect(bucketSize(8, 8)).toBe(1);
    expect(bucketSize(9, 8)).toBe(3);
    // Whole, a missing floor is still not drawn.
    expect(thinSteps([0, 1, 2, 3], [4, null, Number.NaN, 5], 8)).toEqual([[0, 4], [3, 5]]);
  });
});

describe('thinned candles', () => {
  const candle = (time: number, o: number, h: number, l: number, c: number) => ({ time, open: new Dec(o), high: new Dec(h), low: new Dec(l), close: new Dec(c) });

  it('merge k at a time: the first open and time, the highest high, the lowest low wherever they come, the last close', () => {
    // 7 candles to at most 3: k = ceil(7 / 3) = 3, the last bucket of one.
    const candles = [
      candle(0, 10, 12, 9, 11), candle(1, 11, 15, 10, 14), candle(2, 14, 14, 7, 8),
      candle(3, 8, 9, 5, 6), candle(4, 6, 20, 6, 19), candle(5, 19, 19, 18, 18),
      candle(6, 18, 18, 17, 17),
    ];
    expect(downsampleCandles(candles, 3)).toEqual({
      candles: [
        [0, 10, 15, 7, 8],
        [3, 8, 20, 5, 18],
        [6, 18, 18, 17, 17],
      ],
      factor: 3,
    });
    expect(downsampleCandles(candles, 7).factor).toBe(1);
    expect(downsampleCandles(candles, 7).candles[2]).toEqual([2, 14, 14, 7, 8]);
  });
});

