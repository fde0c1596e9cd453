/**
 * The sandbox's time: the engine clock follows wall time (speed 1), an accelerated wall time
 * (speed × elapsed wall time), or moves only when told (`manual`). `advance(ms)` jumps ahead in every
 * mode (POST /_sandbox/advance). Never moves backwards, even if the wall clock does.
 */
import type { Clock } from '../core/clock.js';

export type ClockMode = 'wall' | 'accelerated' | 'manual';

export class SandboxClock implements Clock {
  readonly mode: ClockMode;
  readonly speed: number;
  readonly #startMs: number;
  readonly #wallStart: number;
  readonly #wall: () => number;
  #offset = 0;
  #last: number;

  /**
   * @param startMs sandbox time at the start, unix ms
   * @param wall the wall clock (injected for tests of the clock itself)
   */
  constructor(mode: ClockMode, speed: number, startMs: number, wall: () => number = Date.now) {
    this.mode = mode;
    this.speed = mode === 'wall' ? 1 : speed;
    this.#startMs = startMs;
    this.#wall = wall;
    this.#wallStart = wall();
    this.#last = startMs;
  }

  now(): number {
    const elapsed = this.mode === 'manual' ? 0 : Math.floor((this.#wall() - this.#wallStart) * this.speed);
    const t = this.#startMs + Math.max(0, elapsed) + this.#offset;
    if (t > this.#last) this.#last = t;
    return this.#last;
  }

  /** Jump ahead by `ms` (≥ 0). */
  advance(ms: number): number {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`advance: expected a non-negative integer of ms, got ${ms}`);
    this.#offset += ms;
    return this.now();
  }
}
