/**
 * `propbot run`: a pipeline that runs until it is told to stop. Paper mode replays a candle file through
 * the local engine, paced to the wall clock; sandbox and live modes poll the API over HTTP. Around the
 * pipeline the daemon keeps the store, records what it sees, reconciles with the venue at start, serves
 * the status endpoint, and shuts down cleanly on SIGINT/SIGTERM (a second signal exits at once; the
 * store stays consistent because every batch is one sqlite transaction).
 */
import type { Logger } from 'pino';
import { Subject, Subscription } from 'rxjs';
import type { Exchange } from '../api/exchange.js';
import { HttpExchange } from '../api/client.js';
import { ConnectionError, RateLimitError, TransientFailure, UnauthorizedError } from '../api/errors.js';
import { INCREASE_ORDER_TYPES } from '../api/types.js';
import { WallClock } from '../core/clock.js';
import { Dec } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { configKeyLine, locateConfigError } from '../core/config-file.js';
import { createLogger, registerSecret } from '../core/logger.js';
import { isLoopbackHost } from '../core/net.js';
import { didYouMean } from '../core/suggest.js';
import { Executor } from '../execution/executor.js';
import { inDoubt } from '../execution/journal.js';
import type { IntentState } from '../execution/types.js';
import { PollingFeed } from '../feed/polling-feed.js';
import { RiskGuard } from '../risk/guard.js';
import type { Store } from '../store/store.js';
import { Store as SqliteStore } from '../store/store.js';
import { loadStrategy, requireDistinctNames, type LoadedStrategy } from '../strategy/loader.js';
import { StrategyRunner } from '../strategy/runner.js';
import type { StrategyState, StrategyStateStore } from '../strategy/state.js';
import type { PositionEvent } from '../api/types.js';
import type { Origin } from '../report/origin.js';
import { Attribution } from './attribution.js';
import { Cockpit } from './cockpit/cockpit.js';
import type { CockpitVenue } from './cockpit/types.js';
import { instrumentExchange } from './instrumented-exchange.js';
import { LocalSession } from './local-session.js';
import { PipelineMetrics } from './metrics.js';
import { Notifier } from './notify/notifier.js';
import { Pipeline } from './pipeline.js';
import type { LoadedRunConfig, RunConfig } from './run-config.js';
import { scenarioMarkets } from './scenario.js';
import { humanLogStream } from './human-log.js';
import { RunSummary } from './run-summary.js';
import { startStatusServer, type StatusServer } from './status-server.js';

/** Position events that are executions. */
const FILL_EVENTS: ReadonlySet<string> = new Set(['increasePosition', 'closePosition', 'liquidate', 'forceClose']);

export interface DaemonOptions {
  readonly env?: Record<string, string | undefined>;
  /** Where log lines go; stdout by default. */
  readonly logDestination?: NodeJS.WritableStream;
  /** Install SIGINT/SIGTERM handlers (the CLI does; tests driving `stop()` need not). */
  readonly handleSignals?: boolean;
  /** Overrides the config's `log.format` (`propbot run --log-format`). */
  readonly logFormat?: 'json' | 'pretty' | 'auto';
  /** Called once the pipeline runs (status URL known). */
  readonly onReady?: (info: { statusUrl: string | null; accounts: readonly string[] }) => void;
}

/** What the cockpit watches, and what the daemon needs beside it to run and record. */
interface Venue extends CockpitVenue {
  readonly exchange: Exchange;
  /** Names the origin of each fill (strategy intent, stop, liquidation, kill switch, …). */
  readonly attribution: Attribution;
  /** Runs until the data ends (paper) or `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export class Daemon {
  readonly #loaded: LoadedRunConfig;
  readonly #options: DaemonOptions;
  readonly #abort = new AbortController();
  readonly #subs = new Subscription();
  #log!: Logger;
  #store: Store | undefined;
  #status: StatusServer | undefined;
  #venue: Venue | undefined;
  #stopping = false;
  #signals = 0;
  readonly #metrics = new PipelineMetrics();
  /** Every position event seen (engine events on paper, new versions from polls live), for the cockpit. */
  readonly #positionEvents = new Subject<{ readonly event: PositionEvent; readonly origin: Origin }>();
  #cockpit: Cockpit | undefined;
  #notifier: Notifier | undefined;
  readonly #summaries = new Map<string, RunSummary>();

  constructor(loaded: LoadedRunConfig, options: DaemonOptions = {}) {
    this.#loaded = loaded;
    this.#options = options;
  }

  /** Ask the daemon to stop; `run()` then shuts down and resolves. */
  stop(reason = 'stop requested'): void {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#log?.warn({ event: 'shutdown', reason }, `shutting down: ${reason}`);
    this.#abort.abort(reason);
  }

  /** Start everything, run, shut down; resolves to the exit code. */
  async run(): Promise<number> {
    const { config } = this.#loaded;
    const env = this.#options.env ?? process.env;
    const apiKey = config.mode === 'paper' ? undefined : readApiKey(config, env, this.#loaded.source);
    // Hidden from every log line and everything the CLI prints, in any mode (a paper run's plugin may read it too).
    registerSecret(apiKey ?? env[config.connection?.apiKeyEnv ?? 'PROPBOT_API_KEY']);
    const controlToken = readControlToken(config, env, this.#loaded.source);
    registerSecret(controlToken);
    const ownSecrets = [apiKey, controlToken].filter((s): s is string => s !== undefined);
    // Built before the logger so its tokens are scrubbed from the log too (it registers them); it logs
    // through #log once that exists.
    this.#notifier = config.notify
      ? newNotifier({ config: config.notify, env, secrets: ownSecrets, metrics: this.#metrics, logger: { warn: (o, m) => this.#log.warn(o, m), debug: (o, m) => this.#log.debug(o, m) } }, this.#loaded.source)
      : undefined;
    // Human lines on a terminal (or when asked), JSON lines otherwise; both carry the market time.
    const destination = this.#options.logDestination ?? process.stdout;
    const format = this.#options.logFormat ?? config.log.format;
    const human = format === 'pretty' || (format === 'auto' && (destination as NodeJS.WriteStream).isTTY === true);
    this.#log = createLogger({
      level: config.log.level,
      format: 'json',
      secrets: this.#notifier?.secrets ?? ownSecrets,
      destination: human ? humanLogStream(destination) : destination,
      name: 'propbot',
      mixin: () => (this.#venue ? { mt: this.#venue.clock.now() } : {}),
    });
    const removeSignals = this.#options.handleSignals ? this.#installSignals() : () => undefined;
    let started = false;
    try {
      // Strategies first: a plugin or a parameter refused leaves no store file behind.
      const strategies = await this.#loadStrategies();
      this.#store = await SqliteStore.open({ file: config.store.file });
      const states = await this.#strategyStates(strategies, config);
      this.#venue =
        config.mode === 'paper' ? await this.#paperVenue(strategies, states) : await this.#remoteVenue(strategies, states, apiKey!);
      this.#record(this.#venue);
      const cockpit = (this.#cockpit = new Cockpit({
        mode: config.mode,
        venue: this.#venue,
        external: this.#external,
        store: this.#store,
        logger: this.#log,
        metrics: this.#metrics,
        positionEvents$: this.#positionEvents,
        ...(controlToken !== undefined ? { controlToken } : {}),
        pushIntervalMs: config.status.pushIntervalMs,
        stopping: () => this.#stopping,
      }).start());
      this.#notifier?.connect({ guard: this.#venue.guard, fills$: cockpit.tracker.fills$, days$: cockpit.tracker.days$, failures$: cockpit.tracker.failures$ });
      if (config.status.enabled) {
        const control = cockpit.controlRoutes;
        this.#status = await startStatusServer({
          port: config.status.port,
          ...(config.status.host !== undefined ? { host: config.status.host, allowNonLoopback: true } : {}),
          allowedHosts: config.status.allowedHosts,
          metrics: this.#metrics,
          health: () => ({ healthy: !this.#stopping, detail: { mode: config.mode, stopping: this.#stopping } }),
          status: () => (this.#venue ? cockpit.status() : { status: 'stopped' }),
          dashboard: cockpit.dashboardRoutes,
          ...(control ? { control } : {}),
        });
        if (config.status.host !== undefined && !isLoopbackHost(config.status.host)) {
          this.#log.warn({ event: 'status_exposed', host: config.status.host }, `the status server listens on ${config.status.host}: whoever reaches it sees the account${control ? ' (controls still need the token)' : ''}`);
        }
      }
      this.#log.info(
        { event: 'ready', mode: config.mode, accounts: this.#venue.accounts, strategies: strategies.map((s, i) => config.strategies[i]?.name ?? s.strategy.name), status: this.#status?.url ?? null, store: config.store.file },
        `propbot ${config.mode} running ${strategies.length} strateg${strategies.length === 1 ? 'y' : 'ies'} on ${this.#venue.accounts.length} account(s)${this.#status ? `; status at ${this.#status.url}/status` : ''}`,
      );
      this.#options.onReady?.({ statusUrl: this.#status?.url ?? null, accounts: this.#venue.accounts });
      started = true;
      this.#notifier?.send({ event: 'daemon', at: Date.now(), text: `propbot ${config.mode} started: ${strategies.length} strateg${strategies.length === 1 ? 'y' : 'ies'} on ${this.#venue.accounts.length} account(s)`, data: { state: 'started', mode: config.mode, accounts: this.#venue.accounts } });
      await this.#venue.run(this.#abort.signal);
      if (!this.#stopping) this.stop(config.mode === 'paper' ? 'the paper data has ended' : 'the pipeline ended');
      await this.#shutdown();
      return 0;
    } catch (error) {
      await this.#shutdown({ started }).catch(() => undefined);
      throw started ? error : this.#startupError(error);
    } finally {
      removeSignals();
    }
  }

  /**
   * A start-up failure as the user should read it: a config error names the config file and the key's
   * line; the venue refusing the API key names the variable it came from and quotes the venue's answer.
   */
  #startupError(error: unknown): unknown {
    const { config, source } = this.#loaded;
    if (error instanceof UnauthorizedError && config.connection) {
      const { baseUrl, apiKeyEnv } = config.connection;
      error = new ConfigError('connection.apiKeyEnv', `${baseUrl} refused the API key in ${apiKeyEnv}: ${error.message}`, { cause: error });
    } else if (error instanceof ConnectionError && config.connection) {
      // Nothing answered at all, through every retry: the address is the first thing to check.
      const { baseUrl } = config.connection;
      const url = new URL(baseUrl);
      const sandbox = config.mode === 'sandbox' && isLoopbackHost(url.hostname);
      const hint = sandbox ? `; is the sandbox running? start it with \`propbot sandbox --port ${url.port || (url.protocol === 'https:' ? 443 : 80)}\`` : '';
      error = new ConfigError('connection.baseUrl', `nothing answered at ${baseUrl}: ${error.message}${hint}`, { cause: error });
    }
    return locateConfigError(error, source);
  }

  #installSignals(): () => void {
    const onSignal = (signal: NodeJS.Signals): void => {
      this.#signals += 1;
      if (this.#signals === 1) {
        this.stop(`${signal} received`);
        return;
      }
      // A second signal: leave now. Every store batch is one sqlite transaction, so the file stays consistent.
      this.#log?.error({ event: 'shutdown', signal }, `${signal} again: exiting at once`);
      process.exit(130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  }

  async #loadStrategies(): Promise<LoadedStrategy[]> {
    const { config, source, baseDir } = this.#loaded;
    const loaded: LoadedStrategy[] = [];
    for (const [i, s] of config.strategies.entries()) {
      loaded.push(await loadStrategy(s.use, { params: s.params, cwd: baseDir, configFile: source, configPath: `strategies.${i}.params`, usePath: `strategies.${i}.use` }));
    }
    requireDistinctNames(loaded.map((l, i) => ({ name: config.strategies[i]!.name ?? l.strategy.name, key: `strategies.${i}` })), source);
    return loaded;
  }

  /** Strategy state lives in the store, read once at start so `get` stays synchronous. */
  async #strategyStates(strategies: readonly LoadedStrategy[], config: RunConfig): Promise<StrategyStateStore> {
    const store = this.#store!;
    const byName = new Map<string, StrategyState>();
    for (const [i, s] of strategies.entries()) {
      const name = config.strategies[i]?.name ?? s.strategy.name;
      byName.set(name, (await store.strategyState(name)) as StrategyState);
    }
    return {
      stateFor: (strategy: string) => {
        const state = byName.get(strategy);
        if (!state) throw new Error(`no persisted state was prepared for strategy ${strategy}`);
        return state;
      },
    };
  }

  async #paperVenue(strategies: readonly LoadedStrategy[], states: StrategyStateStore): Promise<Venue> {
    const { config, source } = this.#loaded;
    const paper = config.paper!;
    const session = await LocalSession.create({
      markets: scenarioMarkets({ markets: paper.markets, preset: paper.preset }),
      strategies: strategies.map((s, i) => ({ ...s, ...(config.strategies[i]?.name ? { name: config.strategies[i]!.name } : {}) })),
      balance: new Dec(paper.balance),
      accountType: paper.accountType,
      // Every paper run is a fresh engine, but the store outlives it: the run's start time keeps this
      // run's intent ids (and so its idempotency keys) apart from those of earlier runs.
      seed: `${paper.seed}:${Date.now()}`,
      logger: this.#log,
      store: this.#store!,
      metrics: this.#metrics,
      states,
      configFile: source,
      wrapExchange: (e) => instrumentExchange(e, this.#metrics),
      ...(paper.phase !== undefined ? { phase: paper.phase } : {}),
      ...(paper.from !== undefined ? { from: paper.from } : {}),
      ...(paper.to !== undefined ? { to: paper.to } : {}),
      ...(config.risk !== undefined ? { risk: config.risk } : {}),
      warmupCandles: paper.warmup,
      rangeKeys: (i) => ({ from: 'paper.from', to: 'paper.to', market: `paper.markets.${i}.file` }),
    });
    // Closed trades reach the guard straight from the engine (stops and takes fill there).
    // The engine reports every order change and position event as it happens: the store keeps them
    // all (a live run only sees what its polls catch, see #record).
    const store = this.#store!;
    const attribution = new Attribution(session.executor);
    const assetOf = new Map([...session.markets.values()].map((m) => [m.marketId, m.asset]));
    // A market order fills inside its create request: its events are attributed after the step.
    let unattributed: PositionEvent[] = [];
    const flushFills = (): void => {
      for (const p of unattributed) this.#recordFill(p, attribution.origin(p), assetOf.get(p.market));
      unattributed = [];
    };
    const unsubscribe = session.engine.onEvent((e) => {
      if (e.kind === 'order' && e.order.trader === session.accountId) {
        store.recordOrder(e.order, e.at);
        attribution.observeOrder(e.order);
      }
      if (e.kind !== 'position' || e.event.trader !== session.accountId) return;
      unattributed.push(e.event);
      const p = e.event;
      if (p.eventName === 'closePosition' || p.eventName === 'liquidate' || p.eventName === 'forceClose') {
        if (p.status !== 'opened') session.guard.recordTrade({ accountId: session.accountId, realizedPnl: p.pnl ?? p.pnlInEvent, at: e.at });
      }
    });
    const speed = paper.speed;
    let wallStart = 0;
    let virtualStart = 0;
    return {
      clock: session.clock,
      exchange: session.exchange,
      feed: session.feed,
      pipeline: session.pipeline,
      guard: session.guard,
      executor: session.executor,
      runner: session.runner,
      attribution,
      accounts: [session.accountId],
      assets: [...session.markets.keys()],
      run: async (signal) => {
        try {
          const stats = await session.run({
            signal,
            afterStep: flushFills,
            onWarmedUp: ({ candles, until }) =>
              this.#log.info({ event: 'warmup', candles, until }, `indicators warmed up on ${candles} candles before ${new Date(until).toISOString().slice(0, 16).replace('T', ' ')}; trading from here`),
            ...(speed > 0
              ? {
                  pace: async (step) => {
                    if (wallStart === 0) {
                      wallStart = performance.now();
                      virtualStart = step.time;
                    }
                    const due = wallStart + (step.time - virtualStart) / speed;
                    await sleep(due - performance.now(), signal);
                  },
                }
              : {}),
          });
          this.#log.info({ event: 'replay_end', ...stats }, `replayed ${stats.candles} candles${stats.aborted ? ' (stopped early)' : ''}`);
        } finally {
          flushFills();
          unsubscribe();
        }
      },
    };
  }

  /**
   * Every asset a strategy trades is a market of the venue. Otherwise the first read of its positions
   * fails with the venue's "no market for ticker", which names neither the strategy nor its key.
   */
  async #requireListed(exchange: Exchange, strategies: readonly LoadedStrategy[]): Promise<void> {
    const listed = (await this.#retrying('listMarkets', () => exchange.listMarkets())).map((m) => m.config.baseAsset);
    for (const [i, loaded] of strategies.entries()) {
      const missing = loaded.assets.find((a) => !listed.includes(a));
      if (missing === undefined) continue;
      throw new ConfigError(
        `strategies.${i}`,
        `strategy ${loaded.strategy.name} trades ${missing}, which ${this.#loaded.config.connection!.baseUrl} does not list (its markets: ${listed.join(', ') || 'none'})${didYouMean(missing, listed)}`,
        { file: this.#loaded.source },
      );
    }
  }

  async #remoteVenue(strategies: readonly LoadedStrategy[], states: StrategyStateStore, apiKey: string): Promise<Venue> {
    const { config } = this.#loaded;
    const connection = config.connection!;
    const clock = new WallClock();
    const exchange = instrumentExchange(
      new HttpExchange({ baseUrl: connection.baseUrl, apiKey, timeoutMs: connection.timeoutMs, logger: this.#log.child({ part: 'http' }) }),
      this.#metrics,
    );
    const accounts = config.accounts?.map((a) => a.id) ?? (await this.#retrying('listRiskStatuses', () => exchange.listRiskStatuses())).map((r) => r.accountId);
    if (accounts.length === 0) throw new ConfigError('accounts', 'the API key may trade no account (none has api_trading enabled)');
    const feed = new PollingFeed({
      exchange,
      clock,
      ...(config.feed.intervalMs ? { intervalMs: config.feed.intervalMs } : {}),
      ...(config.feed.maxAgeMs ? { maxAgeMs: config.feed.maxAgeMs } : {}),
    });
    const runner = new StrategyRunner({ feed, clock, logger: this.#log, states, accountId: accounts[0]! });
    const assets = new Set<string>();
    const assetsByAccount = new Map<string, Set<string>>();
    for (const [i, loaded] of strategies.entries()) {
      const entry = config.strategies[i]!;
      const accountId = entry.account ?? accounts[0]!;
      if (!accounts.includes(accountId)) {
        throw new ConfigError(`strategies.${i}.account`, `account ${accountId} is not among the accounts traded (${accounts.join(', ')})`, { file: this.#loaded.source });
      }
      runner.add(loaded, { accountId, ...(entry.name ? { name: entry.name } : {}) });
      for (const a of loaded.assets) {
        assets.add(a);
        if (!assetsByAccount.has(accountId)) assetsByAccount.set(accountId, new Set());
        assetsByAccount.get(accountId)!.add(a);
      }
    }
    await this.#requireListed(exchange, strategies);
    const guard = new RiskGuard({ clock, logger: this.#log, ...(config.risk !== undefined ? { config: config.risk } : {}) });
    const executor = new Executor({
      exchange,
      clock,
      journal: this.#store!,
      // Filled by reconciliation below; left empty when the config says to manage external positions.
      ...(config.reconcile.manageExternal ? {} : { untouchable: this.#external }),
      ...(config.executor.limits ? { limits: config.executor.limits } : {}),
      ...(config.executor.maxQueueWaitMs ? { maxQueueWaitMs: config.executor.maxQueueWaitMs } : {}),
      ...(config.executor.maxQueuedEntries ? { maxQueuedEntries: config.executor.maxQueuedEntries } : {}),
    });
    const pipeline = new Pipeline({
      clock,
      feed,
      runner,
      guard,
      executor,
      accounts: accounts.map((accountId) => ({ accountId, assets: [...(assetsByAccount.get(accountId) ?? assets)] })),
      store: this.#store!,
      metrics: this.#metrics,
      logger: this.#log,
      onFinal: (s) => this.#recordTrades(guard, s),
    });
    await this.#reconcile(exchange, executor, accounts, [...assets]);
    return {
      clock,
      exchange,
      feed,
      pipeline,
      guard,
      executor,
      runner,
      attribution: new Attribution(executor),
      accounts,
      assets: [...assets],
      run: async (signal) => {
        pipeline.start();
        await new Promise<void>((resolve) => {
          if (signal.aborted) return resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      },
    };
  }

  /**
   * Before trading: finish what the store thought in flight (the executor re-sends with the stored
   * keys or settles by reading), then look at what the venue holds. Orders and positions the daemon
   * did not place are adopted as external: logged, shown in /status, and left alone.
   */
  async #reconcile(exchange: Exchange, executor: Executor, accounts: readonly string[], assets: readonly string[]): Promise<void> {
    const resumed = await executor.resume();
    if (resumed.length > 0) {
      this.#log.warn({ event: 'reconcile', resumed: resumed.map((s) => ({ intentId: s.intent.id, status: s.status })) }, `settled ${resumed.length} intent(s) left in flight by the last run`);
    }
    // A request whose answer was lost and whose settling reads failed now too stays in the store in
    // doubt, for the next start to settle by reading. Said here, or a start would look settled.
    const doubt = resumed.flatMap((s) => s.requests.filter(inDoubt).map((r) => ({ key: r.key, intentId: s.intent.id, step: r.step, operation: r.operation })));
    if (doubt.length > 0) {
      this.#log.warn(
        { event: 'in_doubt', requests: doubt },
        `${doubt.length} request(s) still in doubt: their answer was lost and the reads that would settle them failed; the next start settles them by reading the venue`,
      );
    }
    const known = new Set<string>();
    for (const s of resumed) for (const o of s.orders) known.add(o.id);
    for (const id of await this.#store!.claimedOrderIds(0)) known.add(id);
    for (const accountId of accounts) {
      await this.#retrying('reconcile', () => executor.reconcile(accountId));
      const active = await this.#retrying('listActiveOrders', () => exchange.listActiveOrders(accountId));
      const external = active.filter((o) => !known.has(o.id) && !(o.parentOrderId && known.has(o.parentOrderId)));
      for (const o of external) this.#external.orders.add(o.id);
      for (const asset of assets) {
        for (const p of await this.#retrying('listActivePositions', () => exchange.listActivePositions(accountId, asset))) {
          const ours = active.some((o) => o.positionId === p.idx && known.has(o.id));
          if (!ours) this.#external.positions.add(p.idx);
        }
      }
      if (external.length > 0 || this.#external.positions.size > 0) {
        this.#log.warn(
          { event: 'reconcile', accountId, externalOrders: external.map((o) => o.id), externalPositions: [...this.#external.positions] },
          `account ${accountId}: ${external.length} order(s) and ${this.#external.positions.size} position(s) not placed by propbot; ${this.#loaded.config.reconcile.manageExternal ? 'managed' : 'left alone'}`,
        );
      }
    }
  }

  /** Ids of what propbot did not place, found at start; the executor leaves them alone. */
  readonly #external = { orders: new Set<string>(), positions: new Set<string>() };

  /**
   * A read outside the executor (start-up reconciliation, shutdown): a transient failure (5xx, 429,
   * a dropped connection) is retried with backoff, as the executor's own reads are, instead of killing
   * the daemon at start. Anything else, or too many failures, is thrown.
   */
  async #retrying<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const attempts = 8;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await fn();
      } catch (error) {
        // The executor ends its reads with its own error type; what counts is whether the cause was transient.
        const transient = error instanceof TransientFailure || (error as { status?: string; code?: string })?.code === 'retries_exhausted';
        if (!transient || attempt >= attempts || this.#stopping) throw error;
        const backoff = Math.min(5_000, 100 * 2 ** (attempt - 1));
        const retryAt = error instanceof RateLimitError ? (error.retryAt?.getTime() ?? 0) - Date.now() : 0;
        const delayMs = Math.max(backoff, retryAt);
        // The error is in `err` (a terminal's line shows its message once); the text says what happens next.
        this.#log.warn({ event: 'retry', what, attempt, attempts, delayMs, err: error }, `${what} failed; trying again in ${delayMs} ms`);
        await sleep(delayMs, this.#abort.signal);
      }
    }
  }

  #recordTrades(guard: RiskGuard, state: IntentState): void {
    for (const o of state.orders) {
      if (o.order.status === 'executed' && o.order.realizedPnl !== null) {
        guard.recordTrade({ accountId: state.intent.accountId, realizedPnl: o.order.realizedPnl, at: o.order.createdAt.getTime() });
      }
    }
  }

  /** Recorded for later replay and for the metrics: market snapshots, equity once a minute. */
  #record(venue: Venue): void {
    const { config } = this.#loaded;
    const store = this.#store!;
    if (config.store.recordSnapshots) {
      for (const asset of venue.assets) {
        this.#subs.add(
          venue.feed.market$(asset).subscribe((s) => {
            // The warm-up is history replayed before the session starts: not part of what it saw.
            if (!s.stale && s.price.gt(0) && !venue.pipeline.warmingUp) store.recordSnapshot(s);
          }),
        );
      }
    }
    if (config.mode !== 'paper') this.#recordPolled(venue);
    // The guard logs its own actions; the store keeps them with the figures that tripped them.
    this.#subs.add(venue.guard.actions$.subscribe((a) => store.recordGuardAction(a)));
    // The guard logs each divergence itself; here it is counted, so a drift shows on a dashboard.
    this.#subs.add(venue.guard.divergence$.subscribe((d) => this.#metrics.divergences.inc({ account: d.accountId })));
    for (const accountId of venue.accounts) {
      this.#metrics.divergences.inc({ account: accountId }, 0);
      let lastMinute = -1;
      this.#subs.add(
        venue.feed.risk$(accountId).subscribe((r) => {
          if (venue.pipeline.warmingUp) return;
          if (!r.stale) this.#summaryOf(accountId).observeEquity(r.data.currentEquity);
          this.#metrics.equity.set({ account: accountId }, r.data.currentEquity.toNumber());
          const view = venue.guard.accountView(accountId);
          for (const f of view?.floors ?? []) this.#metrics.headroom.set({ account: accountId, rule: f.rule }, f.headroom.toNumber());
          const minute = Math.floor(r.takenAt / 60_000);
          if (minute === lastMinute || r.stale) return;
          lastMinute = minute;
          store.recordEquity({ accountId, at: r.takenAt, equity: r.data.currentEquity, balance: r.data.currentBalance });
        }),
      );
    }
  }

  /**
   * Orders and position events as the polls see them: each new order status, and each new position
   * version (the Position record is its latest event). Events between two polls are in the venue's
   * position history; the store keeps what this daemon saw.
   */
  #recordPolled(venue: Venue): void {
    const store = this.#store!;
    const orderStatus = new Map<string, string>();
    const positionVersion = new Map<string, number>();
    for (const accountId of venue.accounts) {
      this.#subs.add(
        venue.feed.orders$(accountId).subscribe((snap) => {
          if (snap.stale) return;
          for (const o of snap.data) {
            if (orderStatus.get(o.id) === o.status) continue;
            orderStatus.set(o.id, o.status);
            store.recordOrder(o, snap.takenAt);
          }
        }),
      );
      for (const asset of venue.assets) {
        this.#subs.add(
          venue.feed.positions$(accountId, asset).subscribe((snap) => {
            if (snap.stale) return;
            for (const p of snap.data) {
              if ((positionVersion.get(p.idx) ?? -1) >= p.version) continue;
              const event: PositionEvent = { ...p, order: null };
              const origin = venue.attribution.origin(event);
              // A poll may see a fill before the request that made it has returned: ask again next poll.
              if (origin.kind === 'external' && venue.pipeline.busy) continue;
              positionVersion.set(p.idx, p.version);
              this.#recordFill(event, origin, asset);
            }
          }),
        );
      }
    }
  }

  /** A position event, with its origin, to the store and the log (funding at debug, fills at info). */
  #recordFill(p: PositionEvent, origin: Origin, asset: string | undefined): void {
    this.#store!.recordPositionEvent(p, origin);
    this.#positionEvents.next({ event: p, origin });
    const execution = FILL_EVENTS.has(p.eventName) && !p.exchangedBase.isZero();
    const closing = execution && p.eventName !== 'increasePosition';
    if (closing && p.status !== 'opened') this.#summaryOf(p.trader).recordClose(p.pnl ?? p.pnlInEvent, origin.kind);
    const line = {
      event: 'fill',
      positionId: p.idx,
      eventName: p.eventName,
      asset: asset ?? p.market,
      // What a trader reads: open / increase / reduce / close, at quote over base.
      action: !execution ? p.eventName : closing ? (p.status === 'opened' ? 'reduce' : 'close') : p.version <= 1 ? 'open' : 'increase',
      ...(execution ? { price: p.exchangedQuote.div(p.exchangedBase).toDecimalPlaces(2).toFixed() } : {}),
      direction: p.direction,
      size: p.exchangedBase.toString(),
      quote: p.exchangedQuote.toString(),
      pnl: p.pnlInEvent.toString(),
      closing,
      origin: origin.kind,
      ...(origin.intentId !== undefined ? { intentId: origin.intentId, strategy: origin.strategy } : {}),
      ...(origin.reason !== undefined ? { reason: origin.reason } : {}),
    };
    const msg = `${p.eventName} ${p.direction} ${p.idx} by ${origin.kind}${origin.intentId ? ` (intent ${origin.intentId})` : ''}${origin.reason ? `: ${origin.reason}` : ''}`;
    if (origin.kind === 'funding') this.#log.debug(line, msg);
    else this.#log.info(line, msg);
  }

  /**
   * Stop everything that was started. After a failed start-up (`started` false) it says nothing: there
   * was no run to summarise, and the error is the one line the user should read.
   */
  async #shutdown({ started = true }: { started?: boolean } = {}): Promise<void> {
    const { config } = this.#loaded;
    const venue = this.#venue;
    if (venue) {
      venue.pipeline.stopStrategies();
      if (config.shutdown.pending === 'cancel') venue.executor.dropQueued('shutdown');
      // The drain timer is cleared once drained: a pending timer would keep the process alive that long after "bye".
      const drainTimer = new AbortController();
      const drained = await Promise.race([
        venue.pipeline.idle().then(() => true),
        sleep(config.shutdown.drainTimeoutMs, drainTimer.signal).then(() => false),
      ]).finally(() => drainTimer.abort());
      if (!drained) this.#log.warn({ event: 'shutdown' }, `intents still in flight after ${config.shutdown.drainTimeoutMs} ms; their keys are stored and the next start settles them`);
      if (config.shutdown.cancelOpenEntries) await this.#cancelEntries(venue);
      for (const accountId of started ? venue.accounts : []) {
        const summary = this.#summaryOf(accountId).figures(venue.guard.accountView(accountId));
        this.#log.info({ event: 'summary', summary }, `run summary of account ${accountId}`);
      }
      venue.pipeline.close();
      this.#cockpit?.stop();
      venue.guard.close();
      venue.attribution.close();
      this.#venue = undefined;
    }
    this.#subs.unsubscribe();
    if (this.#notifier) {
      this.#notifier.send({ event: 'daemon', at: Date.now(), text: `propbot ${config.mode} stopped`, data: { state: 'stopped', mode: config.mode } });
      await this.#notifier.close();
      this.#notifier = undefined;
    }
    await this.#status?.close();
    this.#status = undefined;
    if (this.#store) {
      await this.#store.close();
      this.#store = undefined;
      if (started) this.#log.info({ event: 'stopped' }, 'store flushed and closed; bye');
    }
  }

  #summaryOf(accountId: string): RunSummary {
    let summary = this.#summaries.get(accountId);
    if (!summary) this.#summaries.set(accountId, (summary = new RunSummary(accountId)));
    return summary;
  }

  /** Cancel resting entry orders placed by propbot; stops and takes stay to protect open positions. */
  async #cancelEntries(venue: Venue): Promise<void> {
    const entryTypes: ReadonlySet<string> = new Set(INCREASE_ORDER_TYPES);
    for (const accountId of venue.accounts) {
      const active = await this.#retrying('listActiveOrders', () => venue.exchange.listActiveOrders(accountId)).catch((err: unknown) => {
        this.#log.warn({ event: 'shutdown', accountId, err }, 'could not list the active orders to cancel entries');
        return [];
      });
      for (const o of active) {
        if (!entryTypes.has(o.type) || this.#external.orders.has(o.id)) continue;
        await venue.exchange.cancelOrder(o.id).catch((err: unknown) => this.#log.warn({ event: 'shutdown', orderId: o.id, err }, 'could not cancel an entry order'));
      }
    }
  }
}

function readApiKey(config: RunConfig, env: Record<string, string | undefined>, source: string): string {
  const name = config.connection!.apiKeyEnv;
  const key = env[name];
  if (key === undefined || key.trim() === '') {
    // A file that names no apiKeyEnv is pointed at its connection block, where the key would go.
    if (configKeyLine(source, ['connection', 'apiKeyEnv']) === undefined) {
      const line = configKeyLine(source, ['connection']);
      throw new ConfigError('connection.apiKeyEnv', `the API key is read from the environment variable ${name} (the default; set connection.apiKeyEnv to read another), which is not set`, {
        file: source,
        ...(line !== undefined ? { line } : {}),
      });
    }
    throw locateConfigError(new ConfigError('connection.apiKeyEnv', `the API key is read from the environment variable ${name}, which is not set`), source);
  }
  return key.trim();
}

/** The control token, when the config names its variable; a named but unset variable is an error. */
function readControlToken(config: RunConfig, env: Record<string, string | undefined>, source: string): string | undefined {
  const name = config.status.controlTokenEnv;
  if (name === undefined) return undefined;
  const token = env[name]?.trim();
  const fail = (message: string): never => {
    throw locateConfigError(new ConfigError('status.controlTokenEnv', message), source);
  };
  if (token === undefined || token === '') return fail(`the control token is read from the environment variable ${name}, which is not set (remove the key for a read-only dashboard)`);
  if (token.length < 16) return fail(`the control token in ${name} is ${token.length} characters; use at least 16`);
  return token;
}

/** A notifier; a channel's missing environment variable is reported at its config line. */
function newNotifier(options: ConstructorParameters<typeof Notifier>[0], source: string): Notifier {
  try {
    return new Notifier(options);
  } catch (error) {
    throw locateConfigError(error, source);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
