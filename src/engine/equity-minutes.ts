/**
 * An account's equity at the end of each minute, and the phase it was in, as the equity-history read
 * serves them, kept as runs of minutes that closed at the same equity in the same phase. The minutes
 * one price step spans all close at one equity (an hourly candle's four steps span 15 each), and so do
 * the hours an account holds nothing; kept one value a minute, an hourly backtest filled 60 a candle,
 * 8% of an hourly sweep's time. On 1-minute data a run is mostly a minute: 16 bytes where a minute
 * cost 12.
 */
import { BigIntColumn, Int32Column } from '../core/columns.js';

export class EquityMinutes {
  /** The first minute (an index from 0) of each run. */
  readonly #starts = new Int32Column();
  readonly #equity = new BigIntColumn();
  readonly #phase = new Int32Column();
  #length = 0;
  #lastEquity = 0n;
  #lastPhase = -1;
  /** The run the last read landed in: reads walk forward minute by minute. */
  #cursor = 0;

  /** Minutes kept. */
  get length(): number {
    return this.#length;
  }

  /** Runs kept: what the minutes cost. */
  get runs(): number {
    return this.#starts.length;
  }

  /** `count` more minutes, each closed at `equity` in phase `phase`. */
  pushRepeated(equity: bigint, phase: number, count: number): void {
    if (count <= 0) return;
    if (equity !== this.#lastEquity || phase !== this.#lastPhase) {
      this.#starts.push(this.#length);
      this.#equity.push(equity);
      this.#phase.push(phase);
      this.#lastEquity = equity;
      this.#lastPhase = phase;
    }
    this.#length += count;
  }

  /** The equity minute `index` closed at (0 ≤ index < length; not checked). */
  equityAt(index: number): bigint {
    return this.#equity.get(this.#runOf(index));
  }

  /** The phase of minute `index` (0 ≤ index < length; not checked). */
  phaseAt(index: number): number {
    return this.#phase.get(this.#runOf(index));
  }

  #runOf(index: number): number {
    const starts = this.#starts;
    const runs = starts.length;
    let k = this.#cursor;
    if (k >= runs || starts.get(k) > index) k = 0;
    // Forward from the last read (the next minute is mostly in the same run or the next one) ...
    for (let step = 0; step < 2 && k + 1 < runs && starts.get(k + 1) <= index; step += 1) k += 1;
    // ... else by halves: the last run starting at or before `index`.
    if (k + 1 < runs && starts.get(k + 1) <= index) {
      let lo = k + 1;
      let hi = runs - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (starts.get(mid) <= index) lo = mid;
        else hi = mid - 1;
      }
      k = lo;
    }
    this.#cursor = k;
    return k;
  }
}
