/**
 * Thinning long series for the HTML page, so a month of minutes stays a light page:
 * - candles: `k` consecutive candles are merged into one (open of the first, highest high, lowest
 *   low, close of the last), `k = ceil(n / maxCandles)`; highs and lows survive;
 * - lines of the equity chart (equity, drawdown, floors), thinned as the samples are read: they are cut into buckets
 *   of `k = ceil(n / (maxPoints / 2))` consecutive samples and each bucket becomes two points, at the
 *   times of its first two samples. Equity and drawdown keep the bucket's lowest and highest value
 *   (in the order they happened), so peaks and the drawdown's trough stay on the chart; floors keep
 *   the value in force mid-bucket and at its end. All lines share the buckets, so the chart (which
 *   spaces its bars evenly) stays evenly spread in time.
 * The figures of report.json are always computed from the full series; only the page is thinned.
 * Output values are JS numbers: they are pixels on a chart, never money math.
 */
import type { Decimal } from 'decimal.js';
import { decGreater, decLess, fp9Decimal } from '../core/fp9.js';
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
      if (decGreater(c.high, high)) high = c.high;
      if (decLess(c.low, low)) low = c.low;
      last = c;
    }
    // Prices a backtest kept carry their fp9 integer: compared and turned into numbers from it.
    out.push([first.time, first.open.toNumber(), high.toNumber(), low.toNumber(), last.close.toNumber()]);
  }
  return { candles: out, factor: k };
}

/**
 * Samples per bucket when a series of `n` samples is thinned to about `maxPoints` points: buckets of
 * `k` consecutive samples, each drawn as two points at the times of its first two samples. Every line
 * of one chart is thinned on the same buckets, so the chart's bars (which the chart spaces evenly)
 * stay evenly spread in time.
 */
export function bucketSize(n: number, maxPoints: number): number {
  return n <= maxPoints ? 1 : Math.ceil(n / Math.max(1, Math.floor(maxPoints / 2)));
}

/**
 * A line thinned one sample at a time, for a series whose length is known before it is read: a run's
 * equity series is as long as the run (a sample a minute), and only its thinned lines reach the page.
 */
abstract class ThinnedLine {
  protected readonly k: number;
  readonly #n: number;
  protected readonly out: PlotPoint[] = [];
  /** Samples added so far. */
  #added = 0;

  constructor(n: number, maxPoints: number) {
    this.#n = n;
    this.k = bucketSize(n, maxPoints);
  }

  add(time: number, value: number | null | undefined): void {
    const at = this.#added % this.k;
    this.sample(at, Math.min(this.k, this.#n - (this.#added - at)), time, value);
    this.#added += 1;
  }

  points(): PlotPoint[] {
    return this.out;
  }

  /** Sample `at` (0-based) of a bucket of `size` samples; the bucket is drawn at its last sample. */
  protected abstract sample(at: number, size: number, time: number, value: number | null | undefined): void;
}

/** A bucket's lowest and highest value and at which of its samples they came (see `minMaxAdd`). */
export class MinMax {
  lo = 0;
  hi = 0;
  loAt = 0;
  hiAt = 0;
}

/** Sample `at` (0-based) of a bucket into its lowest and highest value. */
export function minMaxAdd(m: MinMax, at: number, v: number): void {
  if (at === 0) {
    m.lo = m.hi = v;
    m.loAt = m.hiAt = 0;
    return;
  }
  if (v < m.lo) {
    m.lo = v;
    m.loAt = at;
  }
  if (v > m.hi) {
    m.hi = v;
    m.hiAt = at;
  }
}

/** A bucket of two samples or more as two points at its first two times, in the order its lowest and highest value came. */
export function minMaxClose(m: MinMax, t0: number, t1: number, out: PlotPoint[]): void {
  if (m.loAt <= m.hiAt) out.push([t0, m.lo], [t1, m.hi]);
  else out.push([t0, m.hi], [t1, m.lo]);
}

/** A step line's point, or nothing where the line does not apply (null, undefined or NaN: no floor there). */
export function pushStepPoint(out: PlotPoint[], t: number, v: number | null | undefined): void {
  if (v !== null && v !== undefined && !Number.isNaN(v)) out.push([t, v]);
}

/** Each bucket keeps its lowest and highest value, in time order (see `thinMinMax`). */
export class MinMaxLine extends ThinnedLine {
  #t0 = 0;
  #t1 = 0;
  readonly #bucket = new MinMax();

  protected sample(at: number, size: number, time: number, value: number): void {
    if (this.k === 1) {
      this.out.push([time, value]);
      return;
    }
    if (at === 0) this.#t0 = time;
    else if (at === 1) this.#t1 = time;
    minMaxAdd(this.#bucket, at, value);
    if (at < size - 1) return;
    if (size === 1) this.out.push([this.#t0, value]);
    else minMaxClose(this.#bucket, this.#t0, this.#t1, this.out);
  }
}

/**
 * A step line (floors): each bucket keeps the value in force mid-bucket and at its end (see
 * `thinSteps`). null, undefined or NaN: no floor at that sample (nothing drawn).
 */
export class StepLine extends ThinnedLine {
  #t0 = 0;
  #t1 = 0;
  #mid: number | null | undefined;

  protected sample(at: number, size: number, time: number, value: number | null | undefined): void {
    if (this.k === 1 || size === 1) {
      pushStepPoint(this.out, time, value);
      return;
    }
    if (at === 0) this.#t0 = time;
    if (at === 1) this.#t1 = time;
    if (at === Math.floor(size / 2) - 1) this.#mid = value;
    if (at < size - 1) return;
    pushStepPoint(this.out, this.#t0, this.#mid);
    pushStepPoint(this.out, this.#t1, value);
  }
}

/** A line thinned on buckets of consecutive samples: each keeps its lowest and highest value in time order. */
export function thinMinMax(times: ArrayLike<number>, values: ArrayLike<number>, maxPoints: number): PlotPoint[] {
  const line = new MinMaxLine(times.length, maxPoints);
  for (let i = 0; i < times.length; i++) line.add(times[i]!, values[i]!);
  return line.points();
}

/** A step line (floors) thinned on the same buckets: the value in force mid-bucket and at its end. */
export function thinSteps(times: ArrayLike<number>, values: ArrayLike<number | null>, maxPoints: number): PlotPoint[] {
  const line = new StepLine(times.length, maxPoints);
  for (let i = 0; i < times.length; i++) line.add(times[i]!, values[i]);
  return line.points();
}

/** Unix ms to the chart's seconds, keeping one point per second (the last) in ascending order. */
export function toChartTime(points: readonly PlotPoint[]): PlotPoint[] {
  const out: PlotPoint[] = [];
  // Indexed, without destructuring each point: the report runs this once, in cold code, where a
  // destructured pair costs an iterator (~8 ms of a fresh month's ~80 ms report).
  let last = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < points.length; i += 1) {
    const p = points[i]!;
    const t = Math.floor(p[0] / 1000);
    if (t === last) out[out.length - 1] = [t, p[1]];
    else if (t > last) {
      out.push([t, p[1]]);
      last = t;
    }
  }
  return out;
}

/**
 * A price series thinned while it streams, so a backtest's memory does not grow with its length:
 * at most `2 × maxCandles` candles are kept; once full, neighbours merge pairwise (each kept candle
 * then stands for twice as many), keeping the open of the first, the highest high, the lowest low and
 * the close of the last, as `downsampleCandles` does. Prices stay fp9 integers until `candles()`.
 *
 * The kept candles live in typed arrays made once: in arrays of bigints every price kept was a heap
 * object that outlived two young-generation collections, so the collector copied and promoted them
 * (and the arrays' growth) a few hundred kilobytes per collection, and those survivors are what made
 * V8 double its young generation on a long run. A price outside int64 (above ~9.2 billion) turns the
 * series into plain bigint arrays, so no price is ever cut.
 */
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export class StreamingCandles {
  readonly #max: number;
  #n = 0;
  readonly #time: Float64Array;
  #open: BigInt64Array | bigint[];
  #high: BigInt64Array | bigint[];
  #low: BigInt64Array | bigint[];
  #close: BigInt64Array | bigint[];
  /**
   * Source candles per kept candle (set in the constructor, so stored twice: a field stored once is
   * a constant to V8 until its first halving), and how many the last kept one holds so far.
   */
  #per: number;
  #inLast = 0;
  /** The last kept candle's high and low, also in the arrays: a typed array's read makes a new bigint. */
  #lastHigh = 0n;
  #lastLow = 0n;

  constructor(maxCandles = 2000) {
    this.#max = 2 * Math.max(1, maxCandles);
    this.#per = 1;
    this.#time = new Float64Array(this.#max);
    this.#open = new BigInt64Array(this.#max);
    this.#high = new BigInt64Array(this.#max);
    this.#low = new BigInt64Array(this.#max);
    this.#close = new BigInt64Array(this.#max);
  }

  /** One price: the first of a source candle at `candleStart`, else a move inside the current one. */
  tick(time: number, priceFp9: bigint, candleStart: boolean): void {
    const n = this.#n;
    if (n === 0 || (candleStart && this.#inLast >= this.#per)) {
      this.#fit(priceFp9);
      if (n === this.#max) this.#halve();
      const w = this.#n;
      this.#time[w] = time;
      this.#open[w] = priceFp9;
      this.#high[w] = priceFp9;
      this.#low[w] = priceFp9;
      this.#close[w] = priceFp9;
      this.#n = w + 1;
      this.#inLast = 1;
      this.#lastHigh = priceFp9;
      this.#lastLow = priceFp9;
      return;
    }
    const i = n - 1;
    if (candleStart) this.#inLast += 1;
    // A price the arrays cannot hold is a new high or low of the candle: most steps need no check.
    if (priceFp9 > this.#lastHigh) {
      this.#fit(priceFp9);
      this.#high[i] = this.#lastHigh = priceFp9;
    }
    if (priceFp9 < this.#lastLow) {
      this.#fit(priceFp9);
      this.#low[i] = this.#lastLow = priceFp9;
    }
    this.#close[i] = priceFp9;
  }

  /** Bigint arrays from here on if `priceFp9` is outside int64 (a BigInt64Array would wrap it). */
  #fit(priceFp9: bigint): void {
    if ((priceFp9 < INT64_MIN || priceFp9 > INT64_MAX) && this.#open instanceof BigInt64Array) this.#widen();
  }

  #widen(): void {
    this.#open = Array.from(this.#open);
    this.#high = Array.from(this.#high);
    this.#low = Array.from(this.#low);
    this.#close = Array.from(this.#close);
  }

  #halve(): void {
    const n = this.#n;
    const time = this.#time;
    const open = this.#open;
    const high = this.#high;
    const low = this.#low;
    const close = this.#close;
    let w = 0;
    for (let r = 0; r < n; r += 2, w += 1) {
      const s = r + 1 < n ? r + 1 : r;
      time[w] = time[r]!;
      open[w] = open[r]!;
      high[w] = high[r]! > high[s]! ? high[r]! : high[s]!;
      low[w] = low[r]! < low[s]! ? low[r]! : low[s]!;
      close[w] = close[s]!;
    }
    this.#n = w;
    this.#per *= 2;
    // the last kept candle is full: the next source candle starts a new one
    this.#inLast = this.#per;
  }

  candles(): PriceCandle[] {
    const out: PriceCandle[] = [];
    for (let i = 0; i < this.#n; i++) {
      out.push({
        time: this.#time[i]!,
        open: fp9Decimal(this.#open[i]!),
        high: fp9Decimal(this.#high[i]!),
        low: fp9Decimal(this.#low[i]!),
        close: fp9Decimal(this.#close[i]!),
      });
    }
    return out;
  }
}
