/**
 * Fault injection for reliability tests: a share of API requests is answered 500/502/503, delayed,
 * dropped without an answer (writes sometimes AFTER acting, so the client faces an unknown outcome),
 * or caught in a 429 storm. Off by default. Every kind draws from its own seeded generator, once per
 * API request in arrival order, so a run repeats exactly with the same seed and request sequence, and
 * enabling one kind does not shift the choices of another.
 */
import { SeededRandom } from './prng.js';
import type { RateBucket } from './rate-limiter.js';

/** The fault settings (all shares are probabilities 0..1 per API request). */
export interface FaultOptions {
  /** Master switch; nothing is injected while false. */
  enabled: boolean;
  /** Seed of the fault generators; the same seed repeats the same faults. */
  seed: string;
  serverErrors: {
    /** Share of requests answered with one of `statuses` (before acting). */
    rate: number;
    statuses: number[];
  };
  latency: {
    /** Share of requests delayed. */
    rate: number;
    minMs: number;
    maxMs: number;
  };
  drop: {
    /** Share of requests whose connection is destroyed without a response. */
    rate: number;
    /** Of dropped writes, the share dropped after the engine acted (the outcome is then unknown to the client). */
    afterActShare: number;
  };
  rateLimitStorm: {
    /** Share of requests that start a storm. */
    rate: number;
    /** How many API requests (this one included) the storm answers 429. */
    requests: number;
    /** `Retry-After` the storm announces, ms. */
    retryAfterMs: number;
  };
}

export const NO_FAULTS: FaultOptions = {
  enabled: false,
  seed: 'faults',
  serverErrors: { rate: 0, statuses: [500, 502, 503] },
  latency: { rate: 0, minMs: 0, maxMs: 0 },
  drop: { rate: 0, afterActShare: 0.5 },
  rateLimitStorm: { rate: 0, requests: 5, retryAfterMs: 1000 },
};

/** What happens to one request. `none` proceeds normally (after `delayMs`). */
export type FaultAction =
  | { kind: 'none' }
  | { kind: 'server_error'; status: number }
  | { kind: 'drop_before' }
  | { kind: 'drop_after' }
  | { kind: 'storm'; retryAfterMs: number };

export interface FaultDecision {
  /** Sequence number of the API request (1-based), in arrival order. */
  seq: number;
  method: string;
  route: string;
  delayMs: number;
  action: FaultAction;
}

export class FaultInjector {
  #options: FaultOptions;
  #seq = 0;
  #stormLeft = 0;
  #rng!: Record<'errors' | 'latency' | 'drop' | 'storm', SeededRandom>;
  readonly #log: FaultDecision[] = [];
  readonly #logLimit: number;

  constructor(options: FaultOptions, logLimit = 10_000) {
    this.#options = options;
    this.#logLimit = logLimit;
    this.#reseed();
  }

  get options(): FaultOptions {
    return this.#options;
  }

  /** Replace the settings and restart the sequence (same seed → same faults again). */
  configure(options: FaultOptions): void {
    this.#options = options;
    this.#seq = 0;
    this.#stormLeft = 0;
    this.#log.length = 0;
    this.#reseed();
  }

  /** Decide the fate of the next API request. */
  decide(method: string, route: string, bucket: RateBucket): FaultDecision {
    this.#seq += 1;
    const o = this.#options;
    const decision: FaultDecision = { seq: this.#seq, method, route, delayMs: 0, action: { kind: 'none' } };
    if (!o.enabled) return decision;
    // Draw every generator once per request whatever the outcome, so sequences stay aligned.
    const errorRoll = this.#rng.errors.nextFloat();
    const errorPick = this.#rng.errors.nextFloat();
    const latencyRoll = this.#rng.latency.nextFloat();
    const latencyPick = this.#rng.latency.nextFloat();
    const dropRoll = this.#rng.drop.nextFloat();
    const dropAfterRoll = this.#rng.drop.nextFloat();
    const stormRoll = this.#rng.storm.nextFloat();

    if (latencyRoll < o.latency.rate) {
      const span = Math.max(0, o.latency.maxMs - o.latency.minMs);
      decision.delayMs = Math.round(o.latency.minMs + latencyPick * span);
    }
    if (this.#stormLeft > 0) {
      this.#stormLeft -= 1;
      decision.action = { kind: 'storm', retryAfterMs: o.rateLimitStorm.retryAfterMs };
    } else if (stormRoll < o.rateLimitStorm.rate) {
      this.#stormLeft = Math.max(0, o.rateLimitStorm.requests - 1);
      decision.action = { kind: 'storm', retryAfterMs: o.rateLimitStorm.retryAfterMs };
    } else if (dropRoll < o.drop.rate) {
      decision.action = bucket === 'write' && dropAfterRoll < o.drop.afterActShare ? { kind: 'drop_after' } : { kind: 'drop_before' };
    } else if (errorRoll < o.serverErrors.rate && o.serverErrors.statuses.length > 0) {
      const status = o.serverErrors.statuses[Math.floor(errorPick * o.serverErrors.statuses.length)]!;
      decision.action = { kind: 'server_error', status };
    }
    if (decision.action.kind !== 'none' || decision.delayMs > 0) {
      this.#log.push(decision);
      if (this.#log.length > this.#logLimit) this.#log.shift();
    }
    return decision;
  }

  /** The injected faults so far (requests that got one), oldest first. */
  log(): readonly FaultDecision[] {
    return this.#log;
  }

  /** How many API requests were seen since the last (re)configuration. */
  get requests(): number {
    return this.#seq;
  }

  #reseed(): void {
    const seed = this.#options.seed;
    this.#rng = {
      errors: SeededRandom.derive(seed, 'errors'),
      latency: SeededRandom.derive(seed, 'latency'),
      drop: SeededRandom.derive(seed, 'drop'),
      storm: SeededRandom.derive(seed, 'storm'),
    };
  }
}
