/**
 * One channel's outgoing messages: a bounded queue drained by one sender, paced by the executor's
 * sliding-window rate gate and retried with its backoff policy. `push` never waits and never throws,
 * so a slow or dead receiver can not hold up trading; when the queue is full the oldest message is
 * dropped (the newest says most about the account now) and counted in `/metrics`.
 */
import { WallClock, type Clock } from '../../core/clock.js';
import { SlidingWindowGate, type RateWindowSpec } from '../../execution/rate-gate.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../execution/retry.js';
import type { PipelineMetrics } from '../metrics.js';
import type { NotifyEvent } from './config.js';

export interface OutboxMessage {
  readonly event: NotifyEvent;
  /** Unix ms, by the pipeline's clock. */
  readonly at: number;
  /** One or a few lines for a human. */
  readonly text: string;
  /** The figures, for a machine. */
  readonly data: Record<string, unknown>;
}

/** A failed send: `retryAfterMs` set when the receiver said when to come back. */
export class SendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface Transport {
  readonly name: string;
  /** Resolves once the receiver accepted the message; throws `SendError`. */
  send(message: OutboxMessage, signal: AbortSignal): Promise<void>;
}

export interface OutboxLogger {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface OutboxOptions {
  readonly transport: Transport;
  readonly queueSize: number;
  readonly rate: RateWindowSpec;
  readonly attempts: number;
  readonly timeoutMs: number;
  readonly metrics?: PipelineMetrics;
  readonly logger?: OutboxLogger;
  /** Wall time: notifications go out in real time even when the pipeline's clock is virtual. */
  readonly clock?: Clock;
  readonly retry?: Partial<RetryPolicy>;
}

export class Outbox {
  readonly #o: OutboxOptions;
  readonly #queue: OutboxMessage[] = [];
  readonly #gate: SlidingWindowGate;
  readonly #policy: RetryPolicy;
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #closed = false;
  #drops = 0;

  constructor(options: OutboxOptions) {
    this.#o = options;
    this.#gate = new SlidingWindowGate([options.rate], options.clock ?? new WallClock(), `notify.${options.transport.name}.rate`);
    this.#policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 500, maxDelayMs: 60_000, ...options.retry, maxAttempts: options.attempts };
    this.#gauge();
  }

  get name(): string {
    return this.#o.transport.name;
  }

  get queued(): number {
    return this.#queue.length;
  }

  push(message: OutboxMessage): void {
    if (this.#closed) return this.#count('dropped');
    this.#queue.push(message);
    while (this.#queue.length > this.#o.queueSize) {
      const dropped = this.#queue.shift()!;
      this.#count('dropped');
      this.#drops += 1;
      // A dead receiver drops one message per event: the log says so once, then every hundredth time.
      if (this.#drops === 1 || this.#drops % 100 === 0) {
        this.#o.logger?.warn({ event: 'notify_drop', channel: this.name, dropped: dropped.event, drops: this.#drops }, `notify ${this.name}: queue full, dropped the oldest message (${this.#drops} so far)`);
      }
    }
    this.#gauge();
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
  }

  /** Stop: send what is queued for at most `graceMs`, then drop the rest (counted). */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    const timer = setTimeout(() => this.#stop.abort(), graceMs);
    try {
      await this.#running;
    } finally {
      clearTimeout(timer);
    }
    while (this.#queue.length > 0) {
      this.#queue.shift();
      this.#count('dropped');
    }
    this.#gauge();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 && !this.#stop.signal.aborted) {
      const message = this.#queue.shift()!;
      this.#gauge();
      await this.#deliver(message);
    }
  }

  async #deliver(message: OutboxMessage): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      for (let wait = this.#gate.tryTake(); wait > 0; wait = this.#gate.tryTake()) {
        if (!(await this.#sleep(wait))) return this.#count('dropped');
      }
      try {
        await this.#o.transport.send(message, AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#o.timeoutMs)]));
        this.#count('sent');
        return;
      } catch (error) {
        const e = error instanceof SendError ? error : new SendError(error instanceof Error ? error.message : String(error), true);
        if (this.#stop.signal.aborted) return this.#count('dropped');
        if (!e.retryable || attempt >= this.#policy.maxAttempts) {
          this.#count('failed');
          this.#o.logger?.warn({ event: 'notify_failed', channel: this.name, message: message.event, attempts: attempt, error: e.message }, `notify ${this.name}: gave up on a ${message.event} message: ${e.message}`);
          return;
        }
        const delay = Math.max(backoffDelay(this.#policy, attempt, Math.random), e.retryAfterMs ?? 0);
        this.#o.logger?.debug({ event: 'notify_retry', channel: this.name, attempt, delayMs: delay, error: e.message }, `notify ${this.name}: retrying in ${delay} ms`);
        if (!(await this.#sleep(delay))) return this.#count('dropped');
      }
    }
  }

  /** Resolves false when stopped meanwhile. */
  #sleep(ms: number): Promise<boolean> {
    const signal = this.#stop.signal;
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #count(outcome: 'sent' | 'failed' | 'dropped'): void {
    this.#o.metrics?.notifications.inc({ channel: this.name, outcome });
  }

  #gauge(): void {
    this.#o.metrics?.notifyQueue.set({ channel: this.name }, this.#queue.length);
  }
}
