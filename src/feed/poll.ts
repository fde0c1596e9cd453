/**
 * One polled resource as a snapshot stream: fetch, emit, wait, fetch again. A failed fetch is reported
 * on the side and retried after an exponential, capped back-off; the stream itself never errors or
 * completes because of it, so a strategy subscribed to it survives an outage of the venue. When no
 * fresh snapshot arrived within `maxAgeMs`, the last one is emitted again marked `stale`.
 */
import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { RateLimitError } from '../api/errors.js';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { markStale } from './snapshots.js';
import type { Snapshot } from './types.js';

/** Retry timing after failed polls: `initialMs × factor^(failures − 1)`, never above `maxMs`. */
export interface BackoffOptions {
  /** Delay after the first failure, ms. Default: the resource's poll interval. */
  initialMs?: number;
  /** Upper bound of the delay, ms. Default 60 000 (or the interval when that is longer). */
  maxMs?: number;
  /** Growth per consecutive failure. Default 2. */
  factor?: number;
}

export interface PollFailure {
  readonly error: unknown;
  /** Consecutive failures so far, 1 for the first. */
  readonly attempt: number;
  /** When the next try is due, ms from now. */
  readonly retryInMs: number;
}

export interface PollOptions<T, S extends Snapshot<unknown>> {
  /** One read of the resource. */
  fetch: () => Promise<T>;
  /** Wrap fresh data in its snapshot type. */
  snapshot: (data: T, takenAt: number) => S;
  /** Time from the start of one poll to the start of the next, ms. */
  intervalMs: number;
  /** Longest a snapshot stays fresh, ms; then the last data is re-emitted with `stale: true`. */
  maxAgeMs: number;
  backoff?: BackoffOptions;
  /** Stamps `takenAt`. */
  clock: Clock;
  /** Schedules the waits; a virtual-time scheduler in tests. */
  scheduler: SchedulerLike;
  onError: (failure: PollFailure) => void;
}

export function backoffDelay(options: Required<BackoffOptions>, attempt: number): number {
  const raw = options.initialMs * options.factor ** Math.max(0, attempt - 1);
  return Math.min(options.maxMs, raw);
}

/** Fill back-off defaults from the interval and check every number; `path` names the option in errors. */
export function resolveBackoff(intervalMs: number, backoff: BackoffOptions | undefined, path: string): Required<BackoffOptions> {
  const initialMs = backoff?.initialMs ?? intervalMs;
  const maxMs = backoff?.maxMs ?? Math.max(60_000, intervalMs);
  const factor = backoff?.factor ?? 2;
  requirePositive(initialMs, `${path}.initialMs`);
  requirePositive(maxMs, `${path}.maxMs`);
  if (!Number.isFinite(factor) || factor < 1) {
    throw new ConfigError(`${path}.factor`, `expected a number ≥ 1, got ${String(factor)}`);
  }
  if (maxMs < initialMs) throw new ConfigError(`${path}.maxMs`, `must not be below initialMs (${initialMs}), got ${maxMs}`);
  return { initialMs, maxMs, factor };
}

export function requirePositive(value: unknown, path: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(path, `expected a positive number of milliseconds, got ${typeof value === 'number' ? value : typeof value}`);
  }
}

/**
 * A cold stream that polls while subscribed. Share it (the feed does) so that several subscribers
 * cost one request per interval.
 */
export function pollSnapshots<T, S extends Snapshot<unknown>>(options: PollOptions<T, S>): Observable<S> {
  const backoff = resolveBackoff(options.intervalMs, options.backoff, 'backoff');
  requirePositive(options.intervalMs, 'intervalMs');
  requirePositive(options.maxAgeMs, 'maxAgeMs');
  const { scheduler, clock } = options;

  return new Observable<S>((subscriber) => {
    let closed = false;
    let failures = 0;
    let last: S | undefined;
    let pending: Subscription | undefined;
    let staleTimer: Subscription | undefined;

    const armStaleTimer = (): void => {
      staleTimer?.unsubscribe();
      staleTimer = scheduler.schedule(() => {
        if (closed || last === undefined || last.stale) return;
        last = markStale(last);
        subscriber.next(last);
      }, options.maxAgeMs);
    };

    const poll = (): void => {
      const startedAt = scheduler.now();
      let request: Promise<T>;
      try {
        request = options.fetch();
      } catch (error) {
        request = Promise.reject(error);
      }
      request.then(
        (data) => {
          if (closed) return;
          failures = 0;
          last = options.snapshot(data, clock.now());
          armStaleTimer();
          subscriber.next(last);
          const wait = Math.max(0, startedAt + options.intervalMs - scheduler.now());
          pending = scheduler.schedule(poll, wait);
        },
        (error: unknown) => {
          if (closed) return;
          failures += 1;
          let retryInMs = backoffDelay(backoff, failures);
          // The venue said when to come back; earlier would only spend more of the budget.
          if (error instanceof RateLimitError && error.retryAt) {
            retryInMs = Math.max(retryInMs, error.retryAt.getTime() - clock.now());
          }
          options.onError({ error, attempt: failures, retryInMs });
          pending = scheduler.schedule(poll, retryInMs);
        },
      );
    };

    poll();
    return () => {
      closed = true;
      pending?.unsubscribe();
      staleTimer?.unsubscribe();
    };
  });
}
