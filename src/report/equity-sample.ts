/**
 * An equity sample held as its fp9 integer. A backtest keeps one a minute of market time, so a year of
 * 1-minute data is half a million of them: as plain `{ time, equity: Decimal }` objects they were most of
 * a long run's memory (a Decimal, its digit array and its tag for every minute). The Decimal is built
 * when it is read, exact and equal to the engine's figure.
 */
import type { Decimal } from 'decimal.js';
import { fp9Decimal } from '../core/fp9.js';
import type { EquitySample } from './types.js';

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
    const negative = this.#raw < 0;
    const digits = (negative ? -this.#raw : this.#raw).toString().padStart(10, '0');
    const fraction = digits.slice(-9).replace(/0+$/, '');
    return `${negative ? '-' : ''}${digits.slice(0, -9)}${fraction ? `.${fraction}` : ''}`;
  }

  /** Serialised like the plain sample it stands for. */
  toJSON(): { time: number; equity: Decimal } {
    return { time: this.time, equity: this.equity };
  }
}

/** The sample's exact equity text, as `money` writes it. */
export function equityText(sample: EquitySample): string {
  return sample instanceof Fp9EquitySample ? sample.equityText() : sample.equity.toFixed();
}

/** The sample's equity as a number, as `Decimal#toNumber` gives it (the nearest double to the exact text). */
export function equityNumber(sample: EquitySample): number {
  return Number(equityText(sample));
}
