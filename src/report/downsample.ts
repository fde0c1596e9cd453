/**
 * Thinning long series for the HTML page, so a month of minutes stays a light page:
 * - candles: `k` consecutive candles are merged into one (open of the first, highest high, lowest
 *   low, close of the last), `k = ceil(n / maxCandles)`; highs and lows survive;
 * - lines of the equity chart (equity, drawdown, floors): the equity samples are cut into buckets
 *   of `k = ceil(n / (maxPoints / 2))` consecutive samples and each bucket becomes two points, at the
 *   times of its first two samples. Equity and drawdown keep the bucket's lowest and highest value
 *   (in the order they happened), so peaks and the drawdown's trough stay on the chart; floors keep
 *   the value in force mid-bucket and at its end. All lines share the buckets, so the chart (which
 *   spaces its bars evenly) stays evenly spread in time.
 * The figures of report.json are always computed from the full series; only the page is thinned.
 * Output values are JS numbers: they are pixels on a chart, never money math.
 */
import type { Decimal } from 'decimal.js';
import { fromFp9Raw } from '../core/fp9.js';
import type { PriceCandle } from './types.js';

export type PlotPoint = readonly [time: number, value: number];
export type PlotCandle = readonly [time: number, open: number, high: number, low: number, close: number];

export function downsampleCandles(candles: readonly PriceCandle[], maxCandles: number): { candles: PlotCandle[]; factor: number } {
  const k = Math.max(1, Math.ceil(candles.length / Math.max(1, maxCandles)));
  const out: PlotCandle[] = [];
  for (let i = 0; i < candles.length; i += k) {
    const first = candles[i]!;
    let high: Decimal = first.high;
    let low: Decimal = first.low;
    let last = first;
    for (let j = i + 1; j < Math.min(i + k, candles.length); j++) {
      const c = candles[j]!;
      if (c.high.gt(high)) high = c.high;
      if (c.low.lt(low)) low = c.low;
      last = c;
    }
    out.push([first.time, first.open.toNumber(), high.toNumber(), low.toNumber(), last.close.toNumber()]);
  }
  return { candles: out, factor: k };
}

/**
 * The sample buckets of a series of `n` samples thinned to about `maxPoints` points: buckets of `k`
 * consecutive samples, each drawn as two points at the times of its first two samples. Every line
 * of one chart is thinned on the same buckets, so the chart's bars (which the chart spaces evenly)
 * stay evenly spread in time.
 */
export function sampleBuckets(n: number, maxPoints: number): { k: number; starts: number[] } {
  const k = n <= maxPoints ? 1 : Math.ceil(n / Math.max(1, Math.floor(maxPoints / 2)));
  const starts: number[] = [];
  for (let i = 0; i < n; i += k) starts.push(i);
  return { k, starts };
}

/** A line thinned on `sampleBuckets`: each bucket keeps its lowest and highest value in time order. */
export function thinMinMax(times: ArrayLike<number>, values: ArrayLike<number>, maxPoints: number): PlotPoint[] {
  const { k, starts } = sampleBuckets(times.length, maxPoints);
  if (k === 1) return Array.from(times, (t, i) => [t, values[i]!] as PlotPoint);
  const out: PlotPoint[] = [];
  for (const i of starts) {
    const end = Math.min(i + k, times.length);
    let lo = i;
    let hi = i;
    for (let j = i + 1; j < end; j++) {
      if (values[j]! < values[lo]!) lo = j;
      if (values[j]! > values[hi]!) hi = j;
    }
    if (end - i === 1) {
      out.push([times[i]!, values[i]!]);
      continue;
    }
    const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
    out.push([times[i]!, values[a]!], [times[i + 1]!, values[b]!]);
  }
  return out;
}

/**
 * A step line (floors) thinned on `sampleBuckets`: the value in force mid-bucket and at its end.
 * null, undefined or NaN: no floor at that sample (nothing drawn).
 */
export function thinSteps(times: ArrayLike<number>, values: ArrayLike<number | null>, maxPoints: number): PlotPoint[] {
  const { k, starts } = sampleBuckets(times.length, maxPoints);
  const out: PlotPoint[] = [];
  const push = (t: number, v: number | null | undefined) => {
    if (v !== null && v !== undefined && !Number.isNaN(v)) out.push([t, v]);
  };
  if (k === 1) {
    for (let i = 0; i < times.length; i++) push(times[i]!, values[i]);
    return out;
  }
  for (const i of starts) {
    const end = Math.min(i + k, times.length);
    if (end - i === 1) {
      push(times[i]!, values[i]);
      continue;
    }
    push(times[i]!, values[i + Math.floor((end - i) / 2) - 1]);
    push(times[i + 1]!, values[end - 1]);
  }
  return out;
}

/** Unix ms to the chart's seconds, keeping one point per second (the last) in ascending order. */
export function toChartTime(points: readonly PlotPoint[]): PlotPoint[] {
  const out: PlotPoint[] = [];
  for (const [ms, v] of points) {
    const t = Math.floor(ms / 1000);
    const prev = out.at(-1);
    if (prev && prev[0] === t) out[out.length - 1] = [t, v];
    else if (!prev || t > prev[0]) out.push([t, v]);
  }
  return out;
}

/**
 * A price series thinned while it streams, so a backtest's memory does not grow with its length:
 * at most `2 × maxCandles` candles are kept; once full, neighbours merge pairwise (each kept candle
 * then stands for twice as many), keeping the open of the first, the highest high, the lowest low and
 * the close of the last, as `downsampleCandles` does. Prices stay fp9 integers until `candles()`.
 */
export class StreamingCandles {
  readonly #max: number;
  readonly #time: number[] = [];
  readonly #open: bigint[] = [];
  readonly #high: bigint[] = [];
  readonly #low: bigint[] = [];
  readonly #close: bigint[] = [];
  /** Source candles per kept candle, and how many the last kept one holds so far. */
  #per = 1;
  #inLast = 0;

  constructor(maxCandles = 2000) {
    this.#max = 2 * Math.max(1, maxCandles);
  }

  /** One price: the first of a source candle at `candleStart`, else a move inside the current one. */
  tick(time: number, priceFp9: bigint, candleStart: boolean): void {
    const n = this.#time.length;
    if (n === 0 || (candleStart && this.#inLast >= this.#per)) {
      if (n === this.#max) this.#halve();
      this.#time.push(time);
      this.#open.push(priceFp9);
      this.#high.push(priceFp9);
      this.#low.push(priceFp9);
      this.#close.push(priceFp9);
      this.#inLast = 1;
      return;
    }
    const i = n - 1;
    if (candleStart) this.#inLast += 1;
    if (priceFp9 > this.#high[i]!) this.#high[i] = priceFp9;
    if (priceFp9 < this.#low[i]!) this.#low[i] = priceFp9;
    this.#close[i] = priceFp9;
  }

  #halve(): void {
    const n = this.#time.length;
    let w = 0;
    for (let r = 0; r < n; r += 2, w += 1) {
      const s = r + 1 < n ? r + 1 : r;
      this.#time[w] = this.#time[r]!;
      this.#open[w] = this.#open[r]!;
      this.#high[w] = this.#high[r]! > this.#high[s]! ? this.#high[r]! : this.#high[s]!;
      this.#low[w] = this.#low[r]! < this.#low[s]! ? this.#low[r]! : this.#low[s]!;
      this.#close[w] = this.#close[s]!;
    }
    for (const a of [this.#time, this.#open, this.#high, this.#low, this.#close]) a.length = w;
    this.#per *= 2;
    // the last kept candle is full: the next source candle starts a new one
    this.#inLast = this.#per;
  }

  candles(): PriceCandle[] {
    return this.#time.map((time, i) => ({
      time,
      open: fromFp9Raw(this.#open[i]!),
      high: fromFp9Raw(this.#high[i]!),
      low: fromFp9Raw(this.#low[i]!),
      close: fromFp9Raw(this.#close[i]!),
    }));
  }
}
