/**
 * Notifications: turns what happens in the pipeline into short messages and hands each to the
 * channels that asked for its kind. Every message is scrubbed of the known secrets (API key, control
 * token, channel tokens) before it is queued, whatever produced it.
 */
import { Subscription, type Observable } from 'rxjs';
import { redactText, registerSecret } from '../../core/logger.js';
import type { RiskGuard } from '../../risk/guard.js';
import type { StrategyStatus } from '../../strategy/runner.js';
import type { DaySummary, FillView } from '../cockpit/types.js';
import type { PipelineMetrics } from '../metrics.js';
import { describeIntent } from '../pipeline.js';
import { createTransport } from './channels.js';
import type { NotifyConfig, NotifyEvent } from './config.js';
import { Outbox, type OutboxLogger, type OutboxMessage, type Transport } from './outbox.js';

export interface NotifierOptions {
  readonly config: NotifyConfig;
  readonly env: Record<string, string | undefined>;
  /** Secrets of the run (API key, control token) that must never appear in a message. */
  readonly secrets: readonly string[];
  readonly metrics?: PipelineMetrics;
  readonly logger?: OutboxLogger;
  /** Tests: transports by channel index instead of HTTP. */
  readonly transports?: readonly Transport[];
}

export interface NotifySources {
  readonly guard: RiskGuard;
  readonly fills$: Observable<FillView>;
  readonly days$: Observable<DaySummary>;
  readonly failures$: Observable<StrategyStatus>;
}

interface Channel {
  readonly outbox: Outbox;
  readonly events: ReadonlySet<NotifyEvent>;
  readonly denialCodes: ReadonlySet<string>;
}

export class Notifier {
  readonly #channels: Channel[] = [];
  readonly #secrets: string[];
  readonly #subs = new Subscription();

  constructor(options: NotifierOptions) {
    const collected = { secrets: [] as string[] };
    const { config } = options;
    for (const [i, c] of config.channels.entries()) {
      const transport = options.transports?.[i] ?? createTransport(c, i, options.env, collected);
      this.#channels.push({
        outbox: new Outbox({
          transport,
          queueSize: config.queueSize,
          rate: { limit: config.rate.limit, windowMs: config.rate.windowMs },
          attempts: config.attempts,
          timeoutMs: config.timeoutMs,
          ...(options.metrics ? { metrics: options.metrics } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        }),
        events: new Set(c.events),
        denialCodes: new Set(c.denialCodes ?? []),
      });
    }
    this.#secrets = [...options.secrets, ...collected.secrets].filter((s) => s.length >= 4);
    // Registered with the logger's redaction: hidden from every log line as from every message.
    for (const s of this.#secrets) registerSecret(s);
  }

  /** Secrets the channels read from the environment (for the logger's scrubbing). */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /** Follow the pipeline's events. */
  connect(s: NotifySources): void {
    this.#subs.add(s.fills$.subscribe((f) => this.send(fillMessage(f))));
    this.#subs.add(
      s.guard.state$.subscribe((c) =>
        this.send({ event: 'guard_state', at: c.at, text: `Guard ${short(c.accountId)}: ${c.from} → ${c.to}\n${c.reason}`, data: { ...c } }),
      ),
    );
    this.#subs.add(
      s.guard.intents$.subscribe((i) =>
        this.send({ event: 'kill_switch', at: i.createdAt, text: `Kill switch on ${short(i.accountId)}: cancelling every order and closing every position\n${i.note ?? ''}`.trim(), data: { accountId: i.accountId, intentId: i.id, note: i.note ?? null } }),
      ),
    );
    this.#subs.add(
      s.guard.decisions$.subscribe((d) => {
        if (d.verdict !== 'denied') return;
        this.send({
          event: 'denial',
          at: d.at,
          text: `Denied (${d.code}) ${d.intent.strategy}: ${describeIntent(d.intent)}\n${d.reason}`,
          data: { accountId: d.intent.accountId, strategy: d.intent.strategy, intentId: d.intent.id, code: d.code, rule: d.rule, reason: d.reason },
        });
      }),
    );
    this.#subs.add(
      s.failures$.subscribe((st) =>
        this.send({ event: 'strategy_failed', at: st.endedAt ?? Date.now(), text: `Strategy ${st.name} failed and stopped: ${st.error ?? 'unknown error'}`, data: { strategy: st.name, accountId: st.accountId, error: st.error } }),
      ),
    );
    this.#subs.add(
      s.days$.subscribe((d) =>
        this.send({
          event: 'daily_summary',
          at: Date.parse(`${d.day}T23:59:59.999Z`),
          text: `${d.day} ${short(d.accountId)}: pnl ${d.pnl.toFixed(2)} (equity ${d.startEquity.toFixed(2)} → ${d.endEquity.toFixed(2)}), ${d.fills} fills, ${d.trades} trades closed (${d.totalTrades} since start)`,
          data: { ...d },
        }),
      ),
    );
  }

  /** Queue a message on every channel that wants it. Never throws, never waits. */
  send(message: OutboxMessage): void {
    const clean = this.#scrub(message);
    for (const c of this.#channels) {
      if (!c.events.has(clean.event)) continue;
      if (clean.event === 'denial' && !c.denialCodes.has(String(clean.data['code']))) continue;
      c.outbox.push(clean);
    }
  }

  /** Stop following events; give the queues `graceMs` to empty. */
  async close(graceMs = 3000): Promise<void> {
    this.#subs.unsubscribe();
    await Promise.all(this.#channels.map((c) => c.outbox.close(graceMs)));
  }

  #scrub(m: OutboxMessage): OutboxMessage {
    return { event: m.event, at: m.at, text: redactText(m.text), data: JSON.parse(redactText(JSON.stringify(m.data))) as Record<string, unknown> };
  }
}

function fillMessage(f: FillView): OutboxMessage {
  const pnl = f.realisedPnl === null ? '' : `, pnl ${f.realisedPnl.toFixed(2)}`;
  return {
    event: 'fill',
    at: f.at,
    text: `Fill ${f.asset} ${f.action} ${f.direction} ${f.size.toString()} @ ${f.price.toFixed(2)}${pnl} (${f.origin}${f.strategy ? `: ${f.strategy}` : ''})`,
    data: { ...f },
  };
}

/** First block of an account id: enough to tell accounts apart in a chat. */
function short(accountId: string): string {
  return accountId.length > 8 ? `${accountId.slice(0, 8)}…` : accountId;
}
