/**
 * The executor's retry policy: what is retried, how long it waits, and which settings it refuses. A
 * wait too short hammers a venue that asked for a pause (429 with `retryAt`); one too long or a retry
 * of a refusal loses the moment an intent was meant for.
 */
import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  IdempotencyInFlightError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  ValidationError,
} from '../../src/api/errors.js';
import { ConfigError } from '../../src/core/errors.js';
import { Engine } from '../../src/engine/index.js';
import { Executor } from '../../src/execution/executor.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, isUnknownOutcome, retryDelay, seededRandom, validateRetryPolicy } from '../../src/execution/retry.js';

const policy = { maxAttempts: 6, baseDelayMs: 200, factor: 3, maxDelayMs: 5_000 };
const init = { status: 500, code: 'x', message: 'x' };
const at = (v: number) => () => v;

describe('retry policy', () => {
  it('waits between half and all of base × factor^(retry − 1), capped at maxDelayMs', () => {
    // retry 1: 200, 2: 600, 3: 1800, 4: 5400 → capped at 5000
    expect([1, 2, 3, 4, 5].map((r) => backoffDelay(policy, r, at(0)))).toEqual([100, 300, 900, 2_500, 2_500]);
    expect([1, 2, 3, 4, 5].map((r) => backoffDelay(policy, r, at(0.999_999)))).toEqual([200, 600, 1_800, 5_000, 5_000]);
    expect(backoffDelay(policy, 2, at(0.5))).toBe(450);
    // A retry number below 1 waits as the first does.
    expect(backoffDelay(policy, 0, at(0))).toBe(100);
  });

  it('retries only transient failures, and never sooner than a 429 asked', () => {
    const now = 1_000_000;
    for (const E of [ServerError, RequestTimeoutError, ConnectionError, IdempotencyInFlightError]) {
      expect(retryDelay(policy, new E(init), 2, now, at(0)), E.name).toBe(300);
    }
    expect(retryDelay(policy, new ValidationError({ ...init, status: 400 }), 1, now, at(0))).toBeNull();
    expect(retryDelay(policy, new Error('plain'), 1, now, at(0))).toBeNull();
    const limited = (retryAt?: Date) => new RateLimitError({ ...init, status: 429, details: retryAt ? { retryAt } : {} });
    expect(retryDelay(policy, limited(new Date(now + 4_000)), 1, now, at(0))).toBe(4_000);
    // The backoff stands when it is the longer wait, or when the venue named no time.
    expect(retryDelay(policy, limited(new Date(now + 50)), 1, now, at(0))).toBe(100);
    expect(retryDelay(policy, limited(), 3, now, at(0))).toBe(900);
  });

  it('treats only a timeout or a dropped connection as an outcome to settle by reading', () => {
    expect(isUnknownOutcome(new RequestTimeoutError(init))).toBe(true);
    expect(isUnknownOutcome(new ConnectionError(init))).toBe(true);
    // A 5xx or 409 in flight answered: the request was not acted on, or will be told by the key's replay.
    expect(isUnknownOutcome(new ServerError(init))).toBe(false);
    expect(isUnknownOutcome(new IdempotencyInFlightError({ ...init, status: 409 }))).toBe(false);
  });

  it('refuses settings that would never send, wait a negative time or shrink the wait, naming the key', () => {
    const bad: [Partial<typeof policy>, string][] = [
      [{ maxAttempts: 0 }, 'executor.retry.maxAttempts: expected an integer >= 1, got 0'],
      [{ maxAttempts: 2.5 }, 'executor.retry.maxAttempts: expected an integer >= 1, got 2.5'],
      [{ baseDelayMs: -1 }, 'executor.retry.baseDelayMs: expected ms >= 0, got -1'],
      [{ maxDelayMs: Number.NaN }, 'executor.retry.maxDelayMs: expected ms >= 0, got NaN'],
      [{ factor: 0.5 }, 'executor.retry.factor: expected a number >= 1, got 0.5'],
      [{ factor: Number.POSITIVE_INFINITY }, 'executor.retry.factor: expected a number >= 1, got Infinity'],
    ];
    const engine = new Engine({ startMs: 0, seed: 'retry' });
    const exchange = engine.exchangeFor(engine.addUser());
    for (const [retry, message] of bad) {
      const build = () => new Executor({ exchange, retry });
      expect(build, message).toThrow(ConfigError);
      expect(build, message).toThrow(message);
    }
    // The bounds themselves are settings a user may want: one attempt, no wait, no growth.
    const edge = { maxAttempts: 1, baseDelayMs: 0, factor: 1, maxDelayMs: 0 };
    expect(validateRetryPolicy(edge)).toEqual(edge);
    expect(validateRetryPolicy(DEFAULT_RETRY_POLICY)).toEqual(DEFAULT_RETRY_POLICY);
  });

  it('seeded jitter repeats for a seed, differs between seeds and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const xs = Array.from({ length: 1_000 }, () => a());
    expect(Array.from({ length: 1_000 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 1_000 }, () => c())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    // Spread over the interval, not stuck in a corner of it.
    expect(xs.filter((x) => x < 0.5).length).toBeGreaterThan(400);
    expect(xs.filter((x) => x < 0.5).length).toBeLessThan(600);
  });
});
