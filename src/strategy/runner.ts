/**
 * Runs several strategies on one feed and merges their intents into `intents$`. Each strategy runs
 * inside a wrapper: a throw in its `setup`, in an operator of its stream, in a callback it subscribed
 * itself, or an invalid intent it emits, is logged with its name and stops that strategy only (its
 * intent stream completes, its subscriptions end); the others and the process carry on.
 */
import type { Decimal } from 'decimal.js';
import type { Logger } from 'pino';
import { catchError, EMPTY, isObservable, Observable, Subject, Subscription } from 'rxjs';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { newId as randomId } from '../core/ids.js';
import { silentLogger } from '../core/logger.js';
import { CandleStreams } from '../feed/candles.js';
import type { LatestSnapshots, MarketFeed, MarketSnapshot, OrdersSnapshot, PositionsSnapshot, RiskSnapshot } from '../feed/types.js';
import { createStrategyContext } from './context.js';
import { isStrategy, resolveAssets, type Strategy } from './define.js';
import { errorLocation } from './error-location.js';
import { GuardedObservable, type GuardScope } from './guarded.js';
import type { OrderIntent } from './intents.js';
import type { LoadedStrategy } from './loader.js';
import { parseParams } from './params.js';
import { IntentError } from './sizing.js';
import { MemoryStateStore, type StrategyStateStore } from './state.js';

export interface StrategyRunnerOptions {
  feed: MarketFeed;
  clock: Clock;
  /** Default account of added strategies. */
  accountId?: string;
  /** Parent logger; each strategy gets a child `{ strategy: name }`. Default: silent. */
  logger?: Logger;
  /** Where strategies keep their state. Default: in memory. */
  states?: StrategyStateStore;
  /** Id generator for intents (a seeded one makes replays reproducible). Default: random UUIDs. */
  newId?: () => string;
  /** Candle streams to share with other consumers; default: built on `feed`. */
  candles?: CandleStreams;
  /** Extra reserve on base-size orders' default `maxAmount` (0.01 = 1%). Default 0.01. */
  reserveBuffer?: Decimal;
  /**
   * The feed's own latest snapshots, when it keeps them as it pushes (a `ManualFeed`: each is its
   * latest before any subscriber sees it). The runner then reads them there instead of keeping its
   * own copies through subscriptions of its own: a replay pushes a market and a risk snapshot on
   * every price step, and two fewer subscribers is two fewer calls a push. Default: the runner keeps them.
   */
  latest?: LatestSnapshots;
}

export interface AddStrategyOptions {
  /** Raw parameters (validated here) when adding a bare strategy; ignored for a `LoadedStrategy`. */
  params?: unknown;
  accountId?: string;
  /** Instance name, when one strategy runs twice; default the strategy's name. */
  name?: string;
}

export type StrategyRunState = 'pending' | 'running' | 'completed' | 'failed' | 'stopped';

export interface StrategyStatus {
  readonly name: string;
  readonly strategy: string;
  readonly version: string;
  readonly accountId: string;
  readonly assets: readonly string[];
  readonly state: StrategyRunState;
  /** Intents emitted so far. */
  readonly intents: number;
  readonly startedAt: number | null;
  readonly endedAt: number | null;
  /** Why it failed. */
  readonly error: string | null;
  /** Where it failed: `in setup`, `in its stream`, or `emitted an invalid intent`. */
  readonly failedIn: string | null;
  /** `file:line:column` of the throw in the strategy's own code, when the stack shows it. */
  readonly errorLocation: string | null;
}

const INTENT_KINDS = new Set(['open', 'close', 'protect', 'cancel', 'close_all']);

interface Instance {
  name: string;
  strategy: Strategy;
  params: Record<string, unknown>;
  accountId: string;
  assets: readonly string[];
  state: StrategyRunState;
  intents: number;
  startedAt: number | null;
  endedAt: number | null;
  error: string | null;
  failedIn: string | null;
  errorLocation: string | null;
  /** File the plugin was loaded from, to find its frame in a stack. */
  source: string | undefined;
  bag: Subscription;
  log: Logger;
}

export class StrategyRunner {
  readonly #options: StrategyRunnerOptions;
  readonly #log: Logger;
  readonly #states: StrategyStateStore;
  readonly #newId: () => string;
  readonly #candles: CandleStreams;
  readonly #instances = new Map<string, Instance>();
  readonly #intents = new Subject<OrderIntent>();
  readonly #status = new Subject<StrategyStatus>();
  readonly #trackers = new Subscription();
  readonly #seenIds = new Set<string>();
  readonly #latest = {
    market: new Map<string, MarketSnapshot>(),
    risk: new Map<string, RiskSnapshot>(),
    positions: new Map<string, PositionsSnapshot>(),
    orders: new Map<string, OrdersSnapshot>(),
  };
  #started = false;

  /** Every intent of every strategy, in emission order. Hot: subscribe before `start()`. */
  readonly intents$: Observable<OrderIntent> = this.#intents.asObservable();
  /** A status each time a strategy's state changes. */
  readonly status$: Observable<StrategyStatus> = this.#status.asObservable();

  constructor(options: StrategyRunnerOptions) {
    if (!options?.feed) throw new ConfigError('runner.feed', 'expected a MarketFeed');
    if (!options.clock) throw new ConfigError('runner.clock', 'expected a Clock');
    this.#options = options;
    this.#log = options.logger ?? silentLogger;
    this.#states = options.states ?? new MemoryStateStore();
    this.#newId = options.newId ?? randomId;
    this.#candles = options.candles ?? new CandleStreams((asset) => options.feed.market$(asset));
  }

  /** Add a strategy (a bare one with raw params, or one from `loadStrategy`). Before `start()` only. */
  add(entry: Strategy | LoadedStrategy, options: AddStrategyOptions = {}): StrategyStatus {
    if (this.#started) throw new Error('StrategyRunner.add: the runner has started; add strategies before start()');
    const loaded = isStrategy(entry) ? undefined : entry;
    const strategy = loaded ? loaded.strategy : (entry as Strategy);
    if (!isStrategy(strategy)) throw new ConfigError('strategy', 'not a strategy made with defineStrategy()');
    const name = options.name ?? strategy.name;
    if (this.#instances.has(name)) {
      throw new ConfigError(`strategies.${name}`, `two strategies named "${name}"; give one a distinct name`);
    }
    const accountId = options.accountId ?? this.#options.accountId;
    if (!accountId) throw new ConfigError(`strategies.${name}.accountId`, 'no account: pass accountId to add() or to the runner');
    const params = (loaded ? loaded.params : parseParams(name, strategy.params, options.params)) as Record<string, unknown>;
    const assets = loaded ? loaded.assets : resolveAssets(strategy, params);
    const instance: Instance = {
      name,
      strategy,
      params,
      accountId,
      assets,
      state: 'pending',
      intents: 0,
      startedAt: null,
      endedAt: null,
      error: null,
      failedIn: null,
      errorLocation: null,
      source: loaded?.source,
      bag: new Subscription(),
      log: this.#log.child({ strategy: name }),
    };
    this.#instances.set(name, instance);
    return this.#snapshot(instance);
  }

  /** Start every added strategy. Subscribe to `intents$` first: intents may come during start. */
  start(): void {
    if (this.#started) throw new Error('StrategyRunner.start: already started');
    this.#started = true;
    this.#track();
    for (const instance of this.#instances.values()) this.#startOne(instance);
    this.#completeIfDone();
  }

  /** Stop one strategy by name, or all of them. Its intent stream completes. */
  stop(name?: string): void {
    const targets = name === undefined ? [...this.#instances.values()] : [this.#instances.get(name)];
    for (const instance of targets) {
      if (!instance) throw new Error(`StrategyRunner.stop: no strategy named ${JSON.stringify(name)}`);
      this.#end(instance, 'stopped', null);
    }
    this.#completeIfDone();
  }

  status(): StrategyStatus[] {
    return [...this.#instances.values()].map((i) => this.#snapshot(i));
  }

  // Latest snapshots are kept by subscriptions made before any strategy subscribes, so a strategy
  // reacting to a snapshot (or a candle it closed) sizes from that very snapshot. A feed that keeps
  // them itself sets each before any subscriber sees it: the same snapshots, no subscriptions.
  #track(): void {
    if (this.#options.latest !== undefined) return;
    const { feed } = this.#options;
    const assets = new Set<string>();
    const accounts = new Set<string>();
    const pairs = new Set<string>();
    for (const i of this.#instances.values()) {
      accounts.add(i.accountId);
      for (const a of i.assets) {
        assets.add(a);
        pairs.add(`${i.accountId}\u0000${a}`);
      }
    }
    const keep = <T>(stream: Observable<T>, put: (v: T) => void): void => {
      this.#trackers.add(stream.subscribe({ next: put, error: (error: unknown) => this.#log.error({ err: error }, 'feed stream failed') }));
    };
    for (const accountId of accounts) {
      keep(feed.risk$(accountId), (s) => this.#latest.risk.set(accountId, s));
      keep(feed.orders$(accountId), (s) => this.#latest.orders.set(accountId, s));
    }
    for (const pair of pairs) {
      const [accountId, asset] = pair.split('\u0000') as [string, string];
      keep(feed.positions$(accountId, asset), (s) => this.#latest.positions.set(pair, s));
    }
    for (const asset of assets) keep(feed.market$(asset), (s) => this.#latest.market.set(asset, s));
  }

  #latestView(): LatestSnapshots {
    if (this.#options.latest !== undefined) return this.#options.latest;
    return {
      market: (asset) => this.#latest.market.get(asset),
      risk: (accountId) => this.#latest.risk.get(accountId),
      positions: (accountId, asset) => this.#latest.positions.get(`${accountId}\u0000${asset}`),
      orders: (accountId) => this.#latest.orders.get(accountId),
    };
  }

  #startOne(instance: Instance): void {
    const { strategy } = instance;
    const fault = (error: unknown): void => this.#fail(instance, error, 'in its stream');
    const scope: GuardScope = { fault, bag: instance.bag };
    instance.state = 'running';
    instance.startedAt = this.#options.clock.now();
    this.#status.next(this.#snapshot(instance));
    instance.log.info({ version: strategy.version, accountId: instance.accountId, assets: instance.assets }, 'strategy started');

    let intents$: unknown;
    try {
      const ctx = createStrategyContext({
        name: instance.name,
        version: strategy.version,
        accountId: instance.accountId,
        assets: instance.assets,
        clock: this.#options.clock,
        log: instance.log,
        state: this.#states.stateFor(instance.name, instance.accountId),
        feed: this.#options.feed,
        candles: this.#candles,
        latest: this.#latestView(),
        scope,
        newId: this.#newId,
        ...(this.#options.reserveBuffer !== undefined ? { reserveBuffer: this.#options.reserveBuffer } : {}),
      });
      intents$ = strategy.setup(ctx, instance.params);
    } catch (error) {
      this.#fail(instance, error, 'in setup');
      return;
    }
    if (instance.state !== 'running') return;
    if (!isObservable(intents$)) {
      this.#fail(instance, new TypeError(`setup must return an Observable<OrderIntent>, got ${typeof intents$}`), 'in setup');
      return;
    }
    const stream = new GuardedObservable<OrderIntent>(scope, intents$ as Observable<OrderIntent>).pipe(
      catchError((error: unknown) => {
        this.#fail(instance, error, 'in its stream');
        return EMPTY;
      }),
    );
    // A plain observer, so the guard also turns a throw in these callbacks into a fault.
    instance.bag.add(
      stream.subscribe({
        next: (intent) => {
          if (instance.state !== 'running') return;
          try {
            this.#check(instance, intent);
          } catch (error) {
            this.#fail(instance, error, 'emitted an invalid intent');
            return;
          }
          instance.intents += 1;
          this.#intents.next(intent);
        },
        complete: () => {
          if (instance.state === 'running') {
            this.#end(instance, 'completed', null);
            this.#completeIfDone();
          }
        },
      }),
    );
  }

  #check(instance: Instance, intent: OrderIntent): void {
    if (typeof intent !== 'object' || intent === null || !INTENT_KINDS.has((intent as { kind?: string }).kind ?? '')) {
      throw new IntentError('intent', `expected an OrderIntent (kind open, close, protect, cancel or close_all); use ctx.intents to build one`);
    }
    if (typeof intent.id !== 'string' || intent.id.length === 0) throw new IntentError('intent.id', 'missing');
    if (this.#seenIds.has(intent.id)) throw new IntentError('intent.id', `${intent.id} was emitted before; every intent needs a new id`);
    if (intent.strategy !== instance.name) {
      throw new IntentError('intent.strategy', `expected "${instance.name}", got ${JSON.stringify(intent.strategy)}`);
    }
    if (intent.accountId !== instance.accountId) {
      throw new IntentError('intent.accountId', `expected the strategy's account ${instance.accountId}, got ${JSON.stringify(intent.accountId)}`);
    }
    this.#seenIds.add(intent.id);
  }

  #fail(instance: Instance, error: unknown, where: string): void {
    if (instance.state !== 'running' && instance.state !== 'pending') return;
    const message = error instanceof Error ? error.message : String(error);
    instance.failedIn = where;
    instance.errorLocation = errorLocation(error, instance.source);
    const at = instance.errorLocation ? ` (${instance.errorLocation})` : '';
    instance.log.error({ err: error }, `strategy ${instance.name} failed ${where}; stopped: ${message}${at}`);
    this.#end(instance, 'failed', message);
    this.#completeIfDone();
  }

  #end(instance: Instance, state: StrategyRunState, error: string | null): void {
    if (instance.state !== 'running' && instance.state !== 'pending') return;
    // A strategy that never started (the daemon failed before it could) has nothing to say it ended.
    const started = instance.state === 'running';
    instance.state = state;
    instance.error = error;
    instance.endedAt = this.#options.clock.now();
    if (state !== 'failed' && started) instance.log.info({ intents: instance.intents }, `strategy ${state}`);
    this.#status.next(this.#snapshot(instance));
    // At once, even in the middle of an emission: no callback of a failed strategy may run after this.
    instance.bag.unsubscribe();
  }

  #completeIfDone(): void {
    if (!this.#started) return;
    for (const i of this.#instances.values()) if (i.state === 'running' || i.state === 'pending') return;
    this.#trackers.unsubscribe();
    this.#intents.complete();
    this.#status.complete();
  }

  #snapshot(i: Instance): StrategyStatus {
    return {
      name: i.name,
      strategy: i.strategy.name,
      version: i.strategy.version,
      accountId: i.accountId,
      assets: i.assets,
      state: i.state,
      intents: i.intents,
      startedAt: i.startedAt,
      endedAt: i.endedAt,
      error: i.error,
      failedIn: i.failedIn,
      errorLocation: i.errorLocation,
    };
  }
}
