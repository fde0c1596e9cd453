/**
 * When and how long to wait before sending a request again. Only `TransientFailure`s are retried; a
 * `VenueRefusal` is final. The delay grows exponentially with "equal jitter" (half fixed, half random)
 * so that many clients recovering at once do not hammer the venue in step, and a 429's `retryAt` is a
 * floor the delay never goes below.
 */
import { ConfigError } from '../core/errors.js';
import {
  ConnectionError,
  RateLimitError,
  RequestTimeoutError,
  TransientFailure,
} from '../api/errors.js';

export interface RetryPolicy {
  /** Attempts per request including the first (default 6). */
  maxAttempts: number;
  /** Delay cap of the first retry, ms (default 250). */
  baseDelayMs: number;
  /** Growth per attempt (default 2). */
  factor: number;
  /** Largest delay, ms (default 30 000). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 250, factor: 2, maxDelayMs: 30_000 };

export function validateRetryPolicy(p: RetryPolicy, where = 'retry'): RetryPolicy {
  if (!Number.isSafeInteger(p.maxAttempts) || p.maxAttempts < 1) {
    throw new ConfigError(`${where}.maxAttempts`, `expected an integer >= 1, got ${String(p.maxAttempts)}`);
  }
  for (const k of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(p[k]) || p[k] < 0) throw new ConfigError(`${where}.${k}`, `expected ms >= 0, got ${String(p[k])}`);
  }
  if (!Number.isFinite(p.factor) || p.factor < 1) {
    throw new ConfigError(`${where}.factor`, `expected a number >= 1, got ${String(p.factor)}`);
  }
  return p;
}

/** Delay before retry number `retry` (1 = the first retry). `random` returns [0, 1). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * policy.factor ** Math.max(0, retry - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/** How long to wait after `error` before retry number `retry`, or null when it must not be retried. */
export function retryDelay(
  policy: RetryPolicy,
  error: unknown,
  retry: number,
  now: number,
  random: () => number,
): number | null {
  if (!(error instanceof TransientFailure)) return null;
  const delay = backoffDelay(policy, retry, random);
  if (error instanceof RateLimitError && error.retryAt) {
    return Math.max(delay, error.retryAt.getTime() - now);
  }
  return delay;
}

/** The request may have been acted on: only reading (or an idempotent replay) can tell. */
export function isUnknownOutcome(error: unknown): boolean {
  return error instanceof RequestTimeoutError || error instanceof ConnectionError;
}

/** A small seeded PRNG (mulberry32) for reproducible jitter in tests and backtests. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
