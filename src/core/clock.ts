/**
 * Time as the pipeline sees it. Live runs read the wall clock; backtests advance a virtual one, so a
 * strategy, the guard and the executor can not tell the two apart except by the time they read.
 */
export interface Clock {
  /** Current time, unix milliseconds. */
  now(): number;
}

export class WallClock implements Clock {
  now(): number {
    return Date.now();
  }
}

/** A clock that only moves when told to, and never backwards. */
export class VirtualClock implements Clock {
  #now: number;
  constructor(startMs: number) {
    this.#now = startMs;
  }
  now(): number {
    return this.#now;
  }
  /** Move to `ms`; moving backwards is a programming error. */
  set(ms: number): void {
    if (ms < this.#now) throw new RangeError(`VirtualClock: cannot move back from ${this.#now} to ${ms}`);
    this.#now = ms;
  }
  advance(ms: number): void {
    this.set(this.#now + ms);
  }
}
