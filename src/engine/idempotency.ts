/**
 * Idempotency of write operations, as the platform keeps it: a key seen again on the same route inside
 * its window replays the stored response without acting; a key whose first call still runs is refused
 * with 409 `idempotency_key_in_flight`. Failed calls store nothing, so a retry acts again.
 */
import type { Idempotent } from '../api/exchange.js';
import { IdempotencyInFlightError } from '../api/errors.js';

type Entry<T> = { inFlight: true } | { inFlight: false; value: T; storedAt: number; expiresAt: number };

export class IdempotencyStore {
  readonly #entries = new Map<string, Entry<unknown>>();
  #lastSweep = 0;

  /**
   * Run `act` once per (`scope`, `key`) within `windowMs` of engine time `now()`. `beforeAct` runs after
   * the key is marked in flight and before acting (tests use it to hold a call open).
   */
  async run<T>(
    scope: string,
    key: string | null,
    windowMs: number,
    now: () => number,
    beforeAct: (() => Promise<void>) | undefined,
    act: () => T,
  ): Promise<Idempotent<T>> {
    if (key === null) {
      if (beforeAct) await beforeAct();
      return { value: act(), idempotency: { key: null, replayed: false, storedAt: null } };
    }
    const id = `${scope}\u0000${key}`;
    this.#sweep(now(), windowMs);
    const entry = this.#entries.get(id) as Entry<T> | undefined;
    if (entry?.inFlight) {
      throw new IdempotencyInFlightError({
        status: 409,
        code: 'idempotency_key_in_flight',
        message: `a call with idempotency key ${JSON.stringify(key)} is still running on ${scope}; retry after it finishes`,
        request: scope,
      });
    }
    if (entry && now() < entry.expiresAt) {
      return { value: entry.value, idempotency: { key, replayed: true, storedAt: new Date(entry.storedAt) } };
    }
    this.#entries.set(id, { inFlight: true });
    try {
      if (beforeAct) await beforeAct();
      const value = act();
      const storedAt = now();
      this.#entries.set(id, { inFlight: false, value, storedAt, expiresAt: storedAt + windowMs });
      return { value, idempotency: { key, replayed: false, storedAt: null } };
    } catch (err) {
      this.#entries.delete(id);
      throw err;
    }
  }

  /**
   * Drop expired responses now and then. Each entry carries its own expiry: routes keep keys for
   * different windows, so the window of the call that happens to sweep says nothing about the others.
   */
  #sweep(now: number, windowMs: number): void {
    if (now - this.#lastSweep < windowMs) return;
    this.#lastSweep = now;
    for (const [k, e] of this.#entries) {
      if (!e.inFlight && now >= e.expiresAt) this.#entries.delete(k);
    }
  }
}
