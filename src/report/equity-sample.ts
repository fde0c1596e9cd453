/**
 * Equity samples held as fp9 integers. A backtest keeps one a minute of market time, so a year of
 * 1-minute data is half a million of them: as `{ time, equity: Decimal }` objects (or even as small
 * objects holding the integer) they were most of a long run's memory and made it grow with the run.
 * The series keeps them in typed-array columns; a sample and its Decimal are built when read, exact
 * and equal to the engine's figure.
 */
import type { Decimal } from 'decimal.js';
import { BigIntColumn, Float64Column } from '../core/columns.js';
import { fp9Decimal, fp9Text, toFp9Raw } from '../core/fp9.js';
import { EquityTally } from './equity-tally.js';
import type { EquitySample, EquitySeries } from './types.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export class Fp9EquitySample implements EquitySample {
  readonly time: number;
  /** The fp9 integer, as a number while it is one exactly (a heap bigint costs more than the sample). */
  readonly #raw: number | bigint;

  constructor(time: number, raw: bigint) {
    this.time = time;
    this.#raw = raw <= MAX_SAFE && raw >= -MAX_SAFE ? Number(raw) : raw;
  }

  get equity(): Decimal {
    return fp9Decimal(this.raw);
  }

  /** The equity as its fp9 integer (value × 10^9). */
  get raw(): bigint {
    return typeof this.#raw === 'bigint' ? this.#raw : BigInt(this.#raw);
  }

  /** `equity.toFixed()` (the exact text), written from the integer: a report writes one a minute of the run. */
  equityText(): string {
    return fp9Text(this.raw);
  }

  /** Serialised like the plain sample it stands for. */
  toJSON(): { time: number; equity: Decimal } {
    return { time: this.time, equity: this.equity };
  }
}

/**
 * The fp9 integer of a sample's equity, read off an `Fp9EquitySample` without building its Decimal
 * (the report's scans compare every sample of the run); a plain sample's Decimal is an fp9 figure too
 * and converts exactly.
 */
export function equityRaw(sample: EquitySample): bigint {
  return sample instanceof Fp9EquitySample ? sample.raw : toFp9Raw(sample.equity, 'exact', 'equity');
}

/** The sample's exact equity text, as `money` writes it. */
export function equityText(sample: EquitySample): string {
  return sample instanceof Fp9EquitySample ? sample.equityText() : sample.equity.toFixed();
}

/** The sample's equity as a number, as `Decimal#toNumber` gives it (the nearest double to the exact text). */
export function equityNumber(sample: EquitySample): number {
  return Number(equityText(sample));
}

/**
 * A run's equity series in two columns (time, fp9 equity): 16 bytes a sample whatever its length.
 * Given the run's initial balance, it also keeps the report's drawdown and daily ranges as samples
 * arrive (see `EquityTally`).
 */
export class Fp9EquitySeries implements EquitySeries {
  readonly #time = new Float64Column();
  readonly #raw = new BigIntColumn();
  readonly #tally: EquityTally | undefined;

  constructor(initialRaw?: bigint) {
    this.#tally = initialRaw === undefined ? undefined : new EquityTally(initialRaw);
  }

  get length(): number {
    return this.#time.length;
  }

  push(time: number, raw: bigint): void {
    this.#time.push(time);
    this.#raw.push(raw);
    this.#tally?.add(time, raw);
  }

  /** The tally kept since the first sample, when this series was made with an initial balance. */
  get tally(): EquityTally | undefined {
    return this.#tally;
  }

  at(index: number): Fp9EquitySample | undefined {
    const i = index < 0 ? this.length + index : index;
    return i >= 0 && i < this.length ? new Fp9EquitySample(this.#time.get(i), this.#raw.get(i)) : undefined;
  }

  /** The time of sample `index` (0 ≤ index < length; not checked). */
  timeAt(index: number): number {
    return this.#time.get(index);
  }

  /** The fp9 equity of sample `index` (0 ≤ index < length; not checked). */
  rawAt(index: number): bigint {
    return this.#raw.get(index);
  }

  /** Each sample's time and fp9 integer, oldest first, read off the columns: no sample is built. */
  forEachRaw(fn: (time: number, raw: bigint) => void): void {
    for (let i = 0; i < this.length; i++) fn(this.#time.get(i), this.#raw.get(i));
  }

  *[Symbol.iterator](): Iterator<Fp9EquitySample> {
    for (let i = 0; i < this.length; i++) yield new Fp9EquitySample(this.#time.get(i), this.#raw.get(i));
  }

  /** Serialised like the array of plain samples it stands for. */
  toJSON(): Array<{ time: number; equity: Decimal }> {
    return Array.from(this, (s) => s.toJSON());
  }
}

/**
 * Each sample's time and fp9 integer, oldest first. The report scans the whole series several times
 * (a sample a minute of the run); on the columns a backtest keeps, a scan builds no sample object.
 */
export function forEachEquityRaw(series: EquitySeries, fn: (time: number, raw: bigint) => void): void {
  if (series instanceof Fp9EquitySeries) series.forEachRaw(fn);
  else for (const s of series) fn(s.time, equityRaw(s));
}

/**
 * The drawdown and daily ranges of `series` from `initialBalance`: the tally it kept as it grew
 * (a backtest's), else the same trackers run over it now.
 */
export function equityTally(series: EquitySeries, initialBalance: Decimal): EquityTally {
  const kept = tallyOf(series, initialBalance);
  if (kept !== undefined) return kept;
  const tally = new EquityTally(toFp9Raw(initialBalance, 'exact', 'initialBalance'));
  forEachEquityRaw(series, (time, raw) => tally.add(time, raw));
  return tally;
}

/** The tally `series` kept from `initialBalance`, if it kept one from that very balance. */
export function tallyOf(series: EquitySeries, initialBalance: Decimal): EquityTally | undefined {
  if (!(series instanceof Fp9EquitySeries) || series.tally === undefined) return undefined;
  const initial = exactFp9Raw(initialBalance);
  return initial === series.tally.initialRaw ? series.tally : undefined;
}

function exactFp9Raw(value: Decimal): bigint | undefined {
  try {
    return toFp9Raw(value, 'exact');
  } catch {
    return undefined;
  }
}

/**
 * The time of the first sample at or above `least` (fp9), or null. With a tally from
 * `initialBalance`, only the days whose range reaches `least` are read sample by sample.
 */
export function firstAtOrAbove(series: EquitySeries, initialBalance: Decimal, least: bigint): number | null {
  const tally = tallyOf(series, initialBalance);
  if (tally === undefined || !(series instanceof Fp9EquitySeries)) {
    let found: number | null = null;
    forEachEquityRaw(series, (time, raw) => {
      if (found === null && raw >= least) found = time;
    });
    return found;
  }
  const days = tally.days.days;
  for (let d = 0; d < days.length; d++) {
    if (days[d]!.high < least) continue;
    const end = d + 1 < days.length ? days[d + 1]!.first : series.length;
    for (let i = days[d]!.first; i < end; i++) if (series.rawAt(i) >= least) return series.timeAt(i);
  }
  return null;
}
