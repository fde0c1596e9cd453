/**
 * What the report reads of a whole equity series (the deepest drawdown, each UTC day's range), worked
 * out one sample at a time. A report would scan its series (a sample a minute of the run) once it is
 * over, in code run once and so never optimised; a backtest's series keeps these as its samples are pushed (`Fp9EquitySeries`), so the report
 * reads a few numbers a day instead of cold loops over the whole run. The scans and the series use
 * the very same trackers, so both give the same figures.
 */
import type { Decimal } from 'decimal.js';
import { objectArray } from '../core/arrays.js';
import { ZERO } from '../core/decimal.js';
import { fp9Decimal } from '../core/fp9.js';

const DAY_MS = 86_400_000;

export interface Drawdown {
  /** Largest drawdown, percent of the peak. */
  readonly pct: Decimal;
  readonly amount: Decimal;
  readonly peakAt: number | null;
  readonly troughAt: number | null;
}

/**
 * The largest drawdown from the running peak of equity, the initial balance counting as the first
 * peak: `(peak − equity) / peak` in Decimals, the first of equal ones kept. Compared as fp9 integers;
 * Decimals only at a new deepest ratio.
 */
export class DrawdownTracker {
  #peak: bigint;
  #peakAt: number | null = null;
  /** Under one peak the deepest point is the lowest equity: a ratio is worth working out only at new lows. */
  #trough: bigint | null = null;
  // The best's exact ratio, amount over peak. Rounding is monotone, so a drawdown whose exact ratio
  // is not above it cannot round above the best's percentage: its Decimals are not worth building.
  #bestAmount = 0n;
  #bestPeak = 1n;
  best: Drawdown = { pct: ZERO, amount: ZERO, peakAt: null, troughAt: null };

  constructor(initialRaw: bigint) {
    this.#peak = initialRaw;
  }

  add(time: number, equity: bigint): void {
    const peakRaw = this.#peak;
    if (equity > peakRaw) {
      this.#peak = equity;
      this.#peakAt = time;
      this.#trough = null;
      return;
    }
    if (this.#trough !== null && equity >= this.#trough) return;
    this.#trough = equity;
    if (peakRaw <= 0n || (peakRaw - equity) * this.#bestPeak <= this.#bestAmount * peakRaw) return;
    const peak = fp9Decimal(peakRaw);
    const amount = peak.minus(fp9Decimal(equity));
    const pct = amount.div(peak).times(100);
    if (pct.gt(this.best.pct)) {
      this.best = { pct, amount, peakAt: this.#peakAt, troughAt: time };
      this.#bestAmount = peakRaw - equity;
      this.#bestPeak = peakRaw;
    }
  }
}

/** One UTC day with samples: its start (the day before's close, the initial balance first), low, high and close, fp9. */
export interface EquityDay {
  /** Days since the epoch. */
  readonly day: number;
  /** Index of the day's first sample in the series. */
  readonly first: number;
  readonly start: bigint;
  low: bigint;
  high: bigint;
  close: bigint;
}

/** Each UTC day's range of equity; the range counts the day's start. */
export class DayTracker {
  readonly days: EquityDay[] = objectArray();
  #previousClose: bigint;
  #samples = 0;

  constructor(initialRaw: bigint) {
    this.#previousClose = initialRaw;
  }

  add(time: number, equity: bigint): void {
    const d = Math.floor(time / DAY_MS);
    const n = this.days.length;
    // Not `days[length - 1]` when empty: a read at -1 looks up a property named "-1", and the compiled
    // code that met it read every later day the slow way.
    let last = n > 0 ? this.days[n - 1] : undefined;
    if (last === undefined || last.day !== d) {
      if (last !== undefined) this.#previousClose = last.close;
      const start = this.#previousClose;
      last = { day: d, first: this.#samples, start, low: start, high: start, close: start };
      this.days.push(last);
    }
    this.#samples += 1;
    if (equity < last.low) last.low = equity;
    if (equity > last.high) last.high = equity;
    last.close = equity;
  }
}

/** Both trackers, fed together: what a series keeps as it grows. */
export class EquityTally {
  readonly initialRaw: bigint;
  readonly drawdown: DrawdownTracker;
  readonly days: DayTracker;

  constructor(initialRaw: bigint) {
    this.initialRaw = initialRaw;
    this.drawdown = new DrawdownTracker(initialRaw);
    this.days = new DayTracker(initialRaw);
  }

  add(time: number, equity: bigint): void {
    this.drawdown.add(time, equity);
    this.days.add(time, equity);
  }
}
