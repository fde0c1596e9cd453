/**
 * One trading pipeline: strategies → risk guard → executor → exchange, with the store and metrics
 * listening. The same object runs live, on paper and in backtests; only the clock, the feed and the
 * exchange handed to it differ. It owns the order of things: an intent is recorded, then judged, the
 * decision recorded, and only an approved intent reaches the executor.
 */
import type { Logger } from 'pino';
import { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.js';
import { silentLogger } from '../core/logger.js';
import type { Executor } from '../execution/executor.js';
import type { IntentState, IntentUpdate } from '../execution/types.js';
import type { MarketFeed } from '../feed/types.js';
import type { RiskGuard } from '../risk/guard.js';
import type { Decision, GuardState, GuardStateChange } from '../risk/types.js';
import type { Store } from '../store/store.js';
import type { OrderIntent } from '../strategy/intents.js';
import type { StrategyRunner } from '../strategy/runner.js';
import type { PipelineMetrics } from './metrics.js';

export interface PipelineAccount {
  readonly accountId: string;
  /** Markets the guard watches for this account (every asset its strategies trade). */
  readonly assets: readonly string[];
}

export interface PipelineOptions {
  readonly clock: Clock;
  readonly feed: MarketFeed;
  readonly runner: StrategyRunner;
  readonly guard: RiskGuard;
  readonly executor: Executor;
  readonly accounts: readonly PipelineAccount[];
  readonly store?: Store;
  readonly metrics?: PipelineMetrics;
  readonly logger?: Logger;
  /** Called with every decision after it is recorded (reports collect denials through it). */
  readonly onDecision?: (decision: Decision) => void;
  /** Called with every final intent state. */
  readonly onFinal?: (state: IntentState) => void;
}

const GUARD_STATE_VALUE: Record<GuardState, number> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

export class Pipeline {
  readonly #o: PipelineOptions;
  readonly #log: Logger;
  readonly #subs = new Subscription();
  /** Submitted intents whose executor promise has not settled. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #started = false;
  #accepting = true;
  /**
   * While the replay warms indicators up, strategies run but their intents are not executed (the
   * account must start the run as configured). Like a denial, the strategy sees no position appear.
   */
  warmingUp = false;
  #intents = 0;
  #approved = 0;
  #denied = 0;

  constructor(options: PipelineOptions) {
    this.#o = options;
    this.#log = options.logger ?? silentLogger;
  }

  /** Intents submitted to the executor and not yet final. */
  get busy(): boolean {
    return this.#inFlight.size > 0;
  }

  get counts(): { intents: number; approved: number; denied: number; inFlight: number } {
    return { intents: this.#intents, approved: this.#approved, denied: this.#denied, inFlight: this.#inFlight.size };
  }

  /** Wire the streams and start the strategies. The guard watches the feed before any strategy runs. */
  start(): void {
    if (this.#started) throw new Error('Pipeline.start: already started');
    this.#started = true;
    const { guard, runner, executor, feed } = this.#o;
    for (const account of this.#o.accounts) {
      this.#subs.add(guard.connect(feed, { accountId: account.accountId, assets: account.assets }));
      // Every account has a sample from the start, so an alert on the gauge sees ACTIVE before any change.
      this.#o.metrics?.guardState.set({ account: account.accountId }, GUARD_STATE_VALUE[guard.state(account.accountId)]);
    }
    this.#subs.add(guard.state$.subscribe((change) => this.#onGuardState(change)));
    this.#subs.add(guard.intents$.subscribe((intent) => this.#onIntent(intent)));
    this.#subs.add(executor.updates$.subscribe((update) => this.#onUpdate(update)));
    this.#subs.add(runner.intents$.subscribe((intent) => this.#onIntent(intent)));
    runner.start();
  }

  /** Resolves once every submitted intent has reached a final state. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /**
   * Stop taking intents: strategies stop, nothing new reaches the executor. Intents already submitted
   * keep going (the caller drains them with `idle()` or cancels what they placed).
   */
  stopStrategies(): void {
    this.#accepting = false;
    this.#o.runner.stop();
  }

  /** Unsubscribe everything. Call after `idle()`. */
  close(): void {
    this.#accepting = false;
    this.#subs.unsubscribe();
  }

  /**
   * An intent from outside the strategies (the cockpit's controls): recorded, judged by the guard and
   * executed exactly as a strategy's. Returns the guard's decision, or undefined once shutdown began.
   */
  submit(intent: OrderIntent): Decision | undefined {
    return this.#onIntent(intent);
  }

  #onIntent(intent: OrderIntent): Decision | undefined {
    const { guard, executor, store, metrics } = this.#o;
    if (!this.#accepting) {
      this.#log.warn({ intentId: intent.id, strategy: intent.strategy }, 'intent after shutdown began: not executed');
      return undefined;
    }
    if (this.warmingUp) {
      if (this.#log.isLevelEnabled('debug')) {
        this.#log.debug({ event: 'warmup_intent', intentId: intent.id, strategy: intent.strategy }, `warm-up, not executed: ${describeIntent(intent)}`);
      }
      return;
    }
    this.#intents += 1;
    metrics?.intents.inc({ strategy: intent.strategy, kind: intent.kind });
    // The lines below are built only for a log that prints them: a backtest logs at warn by default,
    // and describing every intent three times was a measurable part of its order path.
    const info = this.#log.isLevelEnabled('info');
    const what = info ? describeIntent(intent) : '';
    if (info) {
      const at = new Date(this.#o.clock.now()).toISOString().slice(0, 19).replace('T', ' ');
      // The intent itself goes into the JSON line (its Decimals serialise as exact strings).
      this.#log.info({ event: 'intent', at, intent }, `[${at}] ${intent.strategy}: ${what}`);
    }
    const decision = guard.check(intent);
    store?.recordDecision(decision);
    metrics?.decisions.inc({ verdict: decision.verdict, code: decision.verdict === 'approved' ? 'approved' : decision.code });
    this.#o.onDecision?.(decision);
    if (decision.verdict === 'denied') {
      this.#denied += 1;
      if (info) {
        this.#log.info(
          { event: 'decision', intentId: intent.id, strategy: intent.strategy, what, verdict: 'denied', code: decision.code, rule: decision.rule, reason: decision.reason },
          `denied ${intent.kind} ${intent.id}: ${decision.code}`,
        );
      }
      return decision;
    }
    this.#approved += 1;
    if (info) {
      this.#log.info({ event: 'decision', intentId: intent.id, strategy: intent.strategy, what, verdict: 'approved' }, `approved ${intent.kind} ${intent.id}`);
    }
    const done = executor.submit(intent).then(
      (state) => state,
      (err: unknown) => {
        // The executor records its own failures; a rejection here is a bug worth a loud line.
        this.#log.error({ event: 'executor_error', intentId: intent.id, err }, 'executor failed an intent');
      },
    );
    this.#inFlight.add(done);
    void done.finally(() => this.#inFlight.delete(done));
    return decision;
  }

  #onUpdate(update: IntentUpdate): void {
    if (this.#log.isLevelEnabled('info')) this.#logUpdate(update);
    if (update.kind === 'final') this.#o.onFinal?.(update.state);
  }

  #logUpdate(update: IntentUpdate): void {
    const { state } = update;
    if (update.kind === 'request') {
      const last = state.requests[state.requests.length - 1];
      if (last) {
        this.#log.info(
          { event: 'request', intentId: state.intent.id, step: last.step, operation: last.operation, outcome: last.outcome, attempts: last.attempts, code: last.errorCode ?? null },
          `request ${last.operation} ${last.outcome}`,
        );
      }
      return;
    }
    if (update.kind !== 'final') return;
    this.#log.info(
      {
        event: 'result',
        intentId: state.intent.id,
        strategy: state.intent.strategy,
        what: describeIntent(state.intent),
        status: state.status,
        code: state.code,
        reason: state.reason,
        orders: state.orders.map((o) => ({ id: o.id, type: o.order.type, status: o.order.status })),
      },
      `intent ${state.intent.id} ${state.status}${state.code ? ` (${state.code})` : ''}`,
    );
  }

  #onGuardState(change: GuardStateChange): void {
    this.#o.store?.recordGuardState(change);
    this.#o.metrics?.guardState.set({ account: change.accountId }, GUARD_STATE_VALUE[change.to]);
    this.#log.warn({ event: 'guard_state', ...change }, `guard ${change.accountId}: ${change.from} → ${change.to}: ${change.reason}`);
  }
}

/** One line a trader reads at a glance: `open short BTC market, quote 5000 x2, stop 5737.67`. */
export function describeIntent(intent: OrderIntent): string {
  switch (intent.kind) {
    case 'open': {
      const size = intent.sizing.kind === 'quote' ? `quote ${intent.sizing.amount.toString()}` : `size ${intent.sizing.size.toString()}`;
      const entry = intent.entry.type === 'market' ? 'market' : intent.entry.type === 'limit' ? `limit ${intent.entry.price.toString()}` : `${intent.entry.type} ${intent.entry.trigger.toString()}`;
      const protect = [intent.stopLoss ? `stop ${intent.stopLoss.toDecimalPlaces(2).toString()}` : '', intent.takeProfit ? `take ${intent.takeProfit.toDecimalPlaces(2).toString()}` : ''].filter(Boolean).join(', ');
      return `open ${intent.direction} ${intent.asset} ${entry}, ${size} x${intent.leverage.toString()}${protect ? `, ${protect}` : ''}`;
    }
    case 'close':
      return `close ${intent.size ? intent.size.toString() : 'all'} of ${intent.direction} ${intent.asset}`;
    case 'protect': {
      const parts = [
        intent.stopLoss === null ? 'remove stop' : intent.stopLoss ? `stop ${intent.stopLoss.toString()}` : '',
        intent.takeProfit === null ? 'remove take' : intent.takeProfit ? `take ${intent.takeProfit.toString()}` : '',
        intent.trailingStop === null ? 'remove trailing stop' : intent.trailingStop ? 'trailing stop' : '',
      ].filter(Boolean);
      return `protect ${intent.direction} ${intent.asset}: ${parts.join(', ') || 'no change'}`;
    }
    case 'cancel':
      return `cancel order ${intent.orderId}`;
    case 'close_all':
      return intent.scope === 'account' ? 'cancel every order and close every position' : 'close every position';
  }
}
