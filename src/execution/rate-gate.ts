/**
 * A client-side gate that keeps one API bucket under every one of its rate-limit windows at once
 * (e.g. 5 per second AND 100 per minute). p-queue's `intervalCap`/`interval` knows a single window and
 * the wall clock only; this gate composes several sliding windows on an injected clock, and the
 * executor asks it before every request it sends.
 */
import { doubleArray } from '../core/arrays.js';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';

export interface RateWindowSpec {
  /** Requests allowed inside one window. */
  limit: number;
  /** Window length in ms (sliding). */
  windowMs: number;
  /** Name for logs (`1s`, `60s`); defaults to `${windowMs}ms`. */
  label?: string;
}

export class SlidingWindowGate {
  readonly #windows: readonly Required<RateWindowSpec>[];
  readonly #clock: Clock;
  readonly #longest: number;
  /** Send times, oldest first, kept only as long as the longest window. */
  readonly #times: number[] = doubleArray();
  #blockedUntil = 0;

  constructor(windows: readonly RateWindowSpec[], clock: Clock, where = 'limits') {
    this.#windows = windows.map((w, i) => {
      if (!Number.isSafeInteger(w.limit) || w.limit < 1) {
        throw new ConfigError(`${where}[${i}].limit`, `expected an integer >= 1, got ${String(w.limit)}`);
      }
      if (!Number.isFinite(w.windowMs) || w.windowMs <= 0) {
        throw new ConfigError(`${where}[${i}].windowMs`, `expected a positive number of ms, got ${String(w.windowMs)}`);
      }
      return { limit: w.limit, windowMs: w.windowMs, label: w.label ?? `${w.windowMs}ms` };
    });
    this.#clock = clock;
    this.#longest = Math.max(0, ...this.#windows.map((w) => w.windowMs));
  }

  get windows(): readonly Required<RateWindowSpec>[] {
    return this.#windows;
  }

  /**
   * Take a slot now if every window has room (returns 0), else return how many ms to wait before
   * asking again. Synchronous, so two callers can never both take the last slot.
   */
  tryTake(): number {
    const now = this.#clock.now();
    if (now < this.#blockedUntil) return this.#blockedUntil - now;
    this.#prune(now);
    let wait = 0;
    for (const w of this.#windows) {
      // The window is full when its limit-th latest send is still inside it; room opens when that
      // send leaves. A wait of zero or less means it has left already.
      if (this.#times.length >= w.limit) {
        const release = this.#times[this.#times.length - w.limit]!;
        wait = Math.max(wait, release + w.windowMs - now);
      }
    }
    if (wait > 0) return wait;
    this.#times.push(now);
    return 0;
  }

  /** The venue said 429 with a time to come back: nothing leaves this bucket before it. */
  blockUntil(ms: number): void {
    this.#blockedUntil = Math.max(this.#blockedUntil, ms);
  }

  #prune(now: number): void {
    let drop = 0;
    while (drop < this.#times.length && this.#times[drop]! <= now - this.#longest) drop += 1;
    if (drop > 0) this.#times.splice(0, drop);
  }
}
