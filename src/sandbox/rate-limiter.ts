/**
 * Per-key rate limits with separate `read` and `write` buckets, each with one or more sliding windows
 * (e.g. 20 per second and 600 per minute). A request is admitted only when every window of its bucket
 * has room; admitted requests are counted, refused ones are not. Time is the wall clock of requests
 * (injected, so tests can not depend on it drifting), never the engine's accelerated clock.
 */
export type RateBucket = 'read' | 'write';

export interface RateWindow {
  /** Requests admitted per window. */
  limit: number;
  /** Window length in ms. */
  windowMs: number;
  /** How the window is named in the 429 body (e.g. `1s`, `60s`). */
  label: string;
}

export interface RateLimitRefusal {
  bucket: RateBucket;
  window: string;
  limit: number;
  /** Wall time (unix ms) at which the tripped window has room again. */
  retryAtMs: number;
}

export class RateLimiter {
  readonly #windows: Record<RateBucket, readonly RateWindow[]>;
  /** Per bucket, the longest window: how long an admitted time must be kept. */
  readonly #longest: Record<RateBucket, number>;
  /** key → bucket → admitted request times, oldest first, kept only as long as the longest window. */
  readonly #log = new Map<string, Record<RateBucket, number[]>>();

  constructor(windows: Record<RateBucket, readonly RateWindow[]>) {
    this.#windows = windows;
    const longest = (list: readonly RateWindow[]) => Math.max(0, ...list.map((w) => w.windowMs));
    this.#longest = { read: longest(windows.read), write: longest(windows.write) };
  }

  /** Admit (and count) a request, or say which window refused it and when to come back. */
  take(key: string, bucket: RateBucket, nowMs: number): RateLimitRefusal | null {
    const windows = this.#windows[bucket];
    if (windows.length === 0) return null;
    let logs = this.#log.get(key);
    if (!logs) {
      logs = { read: [], write: [] };
      this.#log.set(key, logs);
    }
    const times = logs[bucket];
    const longest = this.#longest[bucket];
    let drop = 0;
    while (drop < times.length && times[drop]! <= nowMs - longest) drop += 1;
    if (drop > 0) times.splice(0, drop);

    let refusal: RateLimitRefusal | null = null;
    for (const w of windows) {
      const from = nowMs - w.windowMs;
      // Times are sorted; the ones inside the window are a suffix.
      let first = times.length;
      while (first > 0 && times[first - 1]! > from) first -= 1;
      const inWindow = times.length - first;
      if (inWindow >= w.limit) {
        // Room opens when enough of the oldest admitted requests in the window leave it.
        const release = times[times.length - w.limit]!;
        const retryAtMs = release + w.windowMs;
        if (!refusal || retryAtMs > refusal.retryAtMs) {
          refusal = { bucket, window: w.label, limit: w.limit, retryAtMs };
        }
      }
    }
    if (refusal) return refusal;
    times.push(nowMs);
    return null;
  }

  /** Forget every key's history (admin reset between test cases). */
  reset(): void {
    this.#log.clear();
  }
}
