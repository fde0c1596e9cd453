/**
 * A pipeline on the local engine, fed by a replay of candle files: what `propbot backtest` runs at full
 * speed and what paper mode runs paced to the wall clock. The strategies, the guard, the executor and
 * the candle builder are the very objects a live run uses; here the clock is virtual, the feed is
 * published from the engine after every price, and the exchange is the engine itself.
 */
import type { Decimal } from 'decimal.js';
import type { Logger } from 'pino';
import type { AccountType, MarketCategory } from '../api/types.js';
import type { Exchange } from '../api/exchange.js';
import { VirtualClock, type Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { SeededIds } from '../core/ids.js';
import { silentLogger } from '../core/logger.js';
import { Engine, type PresetOverrides } from '../engine/index.js';
import { Executor } from '../execution/executor.js';
import { readCandleFile } from '../feed/files/candle-file.js';
import { describePeriod } from '../feed/files/to-candle.js';
import { isSqliteFile, StoreSnapshotReader } from '../feed/files/store-snapshots.js';
import { mergeByTime, mergeByTimeSync, SourceOrder, type MergedRow } from '../feed/files/merge.js';
import type { CandleRow, Diagnostic, FileLayout, ReadSummary, ReplayRow } from '../feed/files/types.js';
import { CandleStreams } from '../feed/candles.js';
import { ManualFeed } from '../feed/manual-feed.js';
import { CANDLE_PERIOD_MS, type Candle, type CandlePeriod } from '../feed/types.js';
import type { Observable } from 'rxjs';
import { SnapshotPump, type PublishSelection } from '../feed/snapshot-pump.js';
import { RiskGuard } from '../risk/guard.js';
import type { RiskGuardConfigInput } from '../risk/config.js';
import type { Store } from '../store/store.js';
import { loadStrategy, requireDistinctNames, type LoadedStrategy } from '../strategy/loader.js';
import { StrategyRunner } from '../strategy/runner.js';
import { withinWindow, type TradingWindow } from '../strategy/window.js';
import type { StrategyStateStore } from '../strategy/state.js';
import type { PipelineMetrics } from './metrics.js';
import { flagRangeKeys, noCandlesError, type RangeKeys } from './no-candles.js';
import { Pipeline, type PipelineOptions } from './pipeline.js';
import { TickInterleaver, type ReplayMarket, type ReplayStep } from './replay.js';

/** Rows of one market, with what the read found (gaps, bad rows, the period). */
export type CandleSource = AsyncIterable<CandleRow> & {
  readonly summary: ReadSummary;
  /** Start a read and hand its rows over, synchronously where the source can (see CandleFileReader.open). */
  open?(): Promise<Iterable<CandleRow> | AsyncIterable<CandleRow>>;
  /** `open` for a replay, whose rows may carry no texts (see CandleFileReader.openReplay); preferred to `open`. */
  openReplay?(): Promise<Iterable<ReplayRow> | AsyncIterable<ReplayRow>>;
};

/** Rows a replay takes as they are (a file's rows already read, see recorded-candles.ts). */
export interface ReplaySource {
  readonly summary: ReadSummary;
  openReplay(): Promise<Iterable<ReplayRow> | AsyncIterable<ReplayRow>>;
}

export interface LocalMarketSource {
  /** Base asset ticker the market is created with. */
  readonly asset: string;
  /** Candle file (any layout the readers detect), or a daemon's store file (its recorded snapshots). */
  readonly file: string;
  readonly category?: MarketCategory;
  /** Engine market preset; default the category's (`crypto`/`rwa`), or `zero-cost`. */
  readonly preset?: string;
  readonly layout?: FileLayout;
  /** The file's rows already read (see recorded-candles.ts), replayed instead of reading `file`. */
  readonly source?: CandleSource | ReplaySource;
}

export interface LocalStrategySpec {
  /** File path or package name of the plugin. */
  readonly use: string;
  readonly params?: unknown;
  readonly name?: string;
  /** Where in the config the strategy came from, for errors (e.g. `strategies.0`); a flag (`--param`): the command line's. */
  readonly configPath?: string;
  /** The parameters a command-line flag gave over the config's (name → `--param` or `--params`), named by it in errors. */
  readonly paramFlags?: Readonly<Record<string, string>>;
  /** Trade only inside this window (research runs: warm-up before it, flatten at its end). */
  readonly window?: TradingWindow;
}

export interface LocalSessionOptions {
  readonly markets: readonly LocalMarketSource[];
  /** Plugins to load, or already loaded ones; `name` tells two instances of one strategy apart. */
  readonly strategies: readonly (LocalStrategySpec | (LoadedStrategy & { readonly name?: string }))[];
  readonly balance: Decimal;
  readonly accountType?: AccountType;
  readonly phase?: string;
  /** Engine preset overrides (fees, rules, …). */
  readonly presets?: PresetOverrides;
  readonly risk?: RiskGuardConfigInput;
  /** Only candles opening at or after this time (unix ms). */
  readonly from?: number;
  /** Only candles opening before this time (unix ms). */
  readonly to?: number;
  /**
   * Candles replayed before `from` to warm the strategies' indicators up, as Freqtrade's
   * `startup_candle_count` does: at full speed, their intents not executed. Without `from` there is
   * no history before the run and no warm-up. Default 0.
   */
  readonly warmupCandles?: number;
  /** The config keys of `from`, `to` and market `index`'s file, for an error; default: `--from`, `--to`, `markets.ASSET`. */
  readonly rangeKeys?: (index: number) => RangeKeys;
  readonly seed?: string;
  /** A logger, or one made on the session's virtual clock (to log in market time). Default silent. */
  readonly logger?: Logger | ((clock: Clock) => Logger);
  readonly store?: Store;
  readonly metrics?: PipelineMetrics;
  /** Strategy state; default in memory. */
  readonly states?: StrategyStateStore;
  readonly cwd?: string;
  readonly configFile?: string;
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
  readonly onDecision?: PipelineOptions['onDecision'];
  readonly onFinal?: PipelineOptions['onFinal'];
  /** Wraps the engine's exchange (metrics); every read and write of the session goes through it. */
  readonly wrapExchange?: (exchange: Exchange) => Exchange;
  /**
   * Quiet steps (default false; backtests turn them on): a price step is not published when nothing
   * would take it but the candle builders and the guard, and neither needs it as a snapshot. Its price
   * still reaches the engine, the candle builders (directly), the guard's market book (the price
   * alone) and the report; the guard is first asked whether a snapshot at that price could move it
   * (`RiskGuard.quietAt`). Any other step is published as ever: one that ends a strategy's candle
   * (15-minute candles from 1-minute rows: one step in 60), one after an engine event (a fill, a
   * trigger, funding), the first of a new day, one where the highest equity rose, and every step while
   * a strategy or recorder subscribes to the market or risk streams itself, the exchange is wrapped,
   * the replay is paced, or it replays more than one market or a market with a trading schedule.
   * The results are the same to the byte; only the time differs.
   */
  readonly quietSteps?: boolean;
}

/**
 * The step a hook is handed is the replay's own object, written again for a later step once this
 * one has been played (one object a step showed in a backtest's allocations): read it during the
 * call (or, for `pace`, until its promise settles), and copy what you keep.
 */
export interface RunHooks {
  /** Paper mode: wait until the wall clock allows this step. */
  readonly pace?: (step: ReplayStep) => Promise<void>;
  /** After each step, once it has been published (or found quiet) and the pipeline is idle. */
  readonly afterStep?: (step: ReplayStep) => void;
  /** Stop early (shutdown). */
  readonly signal?: AbortSignal;
  /** Once, at the first step after the warm-up, with the number of candles it replayed. */
  readonly onWarmedUp?: (warmup: { candles: number; until: number }) => void;
  /**
   * A synchronous replay lets the event loop turn at least this often (ms; default 50), so timers,
   * progress bars and signal handlers run during a long backtest. Checked every 1,024 candles.
   */
  readonly yieldMs?: number;
}

/** The hooks the replay reads: RunHooks but for the signal, which `run` turns into a flag. */
type ReplayHooks = Omit<RunHooks, 'signal'>;

export interface RunStats {
  /** Candles replayed after the warm-up. */
  readonly candles: number;
  readonly ticks: number;
  /** Of `ticks`, the quiet steps (see `LocalSessionOptions.quietSteps`). */
  readonly quiet: number;
  readonly firstTime: number | null;
  readonly lastTime: number | null;
  readonly aborted: boolean;
}

const USER = 'paper-trader';
const DAY_MS = 86_400_000;
const ACCOUNT = '00000000-0000-4000-8000-00000000a001';

/** What a replay step publishes (one object each, not one per step). */
const EVERYTHING: PublishSelection = Object.freeze({});
const RISK_AND_MARKETS: PublishSelection = Object.freeze({ books: false });
const MARKETS_ONLY: PublishSelection = Object.freeze({ accounts: false });

export class LocalSession {
  readonly engine: Engine;
  readonly clock: VirtualClock;
  readonly exchange: Exchange;
  readonly feed: ManualFeed;
  readonly pipeline: Pipeline;
  readonly runner: StrategyRunner;
  readonly guard: RiskGuard;
  readonly executor: Executor;
  readonly accountId: string;
  readonly markets: ReadonlyMap<string, ReplayMarket>;
  readonly readers: ReadonlyMap<string, CandleSource | ReplaySource>;
  /** Steps before this time are warm-up (unix ms); null without one. */
  readonly warmupEnd: number | null;
  readonly #pump: SnapshotPump;
  readonly #syncReads: boolean;
  /** An engine event touched the account since its snapshots were last published. */
  #dirty = true;
  /** Every market's rows: one market's as they are, several merged; synchronous when every source is (candle files are). */
  readonly #rows: ReplayRows;
  readonly #candles: PeriodCheckedCandles;
  readonly #quietSteps: boolean;
  /** The account's highest equity at the end of the last published step. */
  #maxEquity: bigint | null | undefined;
  /** By asset, whether the market and risk streams have no subscriber but the builders and the guard; worked out again when the feed's audience changes. */
  readonly #unwatched = new Map<string, boolean>();
  #audience = -1;

  private constructor(init: {
    engine: Engine;
    clock: VirtualClock;
    exchange: Exchange;
    feed: ManualFeed;
    pipeline: Pipeline;
    runner: StrategyRunner;
    guard: RiskGuard;
    executor: Executor;
    markets: Map<string, ReplayMarket>;
    readers: Map<string, CandleSource | ReplaySource>;
    pump: SnapshotPump;
    syncReads: boolean;
    rows: ReplayRows;
    candles: PeriodCheckedCandles;
    warmupEnd: number | null;
    quietSteps: boolean;
  }) {
    this.engine = init.engine;
    this.clock = init.clock;
    this.exchange = init.exchange;
    this.feed = init.feed;
    this.pipeline = init.pipeline;
    this.runner = init.runner;
    this.guard = init.guard;
    this.executor = init.executor;
    this.markets = init.markets;
    this.readers = init.readers;
    this.accountId = ACCOUNT;
    this.#pump = init.pump;
    this.#syncReads = init.syncReads;
    this.#rows = init.rows;
    this.#candles = init.candles;
    this.warmupEnd = init.warmupEnd;
    this.#quietSteps = init.quietSteps;
  }

  static async create(options: LocalSessionOptions): Promise<LocalSession> {
    if (options.markets.length === 0) throw new ConfigError('markets', 'at least one market with a data file is needed');
    if (options.strategies.length === 0) throw new ConfigError('strategies', 'at least one strategy is needed');
    const assets = new Set<string>();
    for (const [i, m] of options.markets.entries()) {
      if (assets.has(m.asset)) throw new ConfigError(`markets.${i}.asset`, `market ${m.asset} is listed twice`);
      assets.add(m.asset);
    }
    const seed = options.seed ?? 'propbot';

    // Load strategies first: a bad plugin or parameter fails before any file is read.
    const loaded: Array<LoadedStrategy & { readonly name?: string }> = [];
    for (const [i, s] of options.strategies.entries()) {
      if ('strategy' in s) {
        loaded.push(s);
        continue;
      }
      // A config key gets `.params` appended; a command-line flag (`--param`) is named as it is.
      const where = s.configPath ?? `strategies.${i}`;
      const flags = where.startsWith('--');
      const loadOptions: Parameters<typeof loadStrategy>[1] = {
        params: s.params ?? {},
        configPath: flags ? where : `${where}.params`,
        usePath: flags ? '--strategy' : `${where}.use`,
        ...(s.paramFlags !== undefined ? { paramFlags: s.paramFlags } : {}),
      };
      if (options.cwd !== undefined) loadOptions.cwd = options.cwd;
      if (options.configFile !== undefined) loadOptions.configFile = options.configFile;
      const plugin = await loadStrategy(s.use, loadOptions);
      loaded.push({ ...(s.window ? withinWindow(plugin, s.window) : plugin), ...(s.name !== undefined ? { name: s.name } : {}) });
    }
    requireDistinctNames(
      loaded.map((l, i) => {
        const s = options.strategies[i]!;
        return { name: l.name ?? l.strategy.name, key: ('configPath' in s ? s.configPath : undefined) ?? `strategies.${i}` };
      }),
      options.configFile,
    );
    for (const l of loaded) {
      for (const a of l.assets) {
        if (!assets.has(a)) {
          const key = parameterHolding(l, a);
          const fix = key === undefined ? '' : `; set its parameter ${key} to ${assets.size === 1 ? [...assets][0] : `one of them`}, or give ${a}'s data`;
          throw new ConfigError('strategies', `strategy ${l.strategy.name} trades ${a}${key === undefined ? '' : ` (its parameter ${key})`}, but no data file is given for ${a} (markets: ${[...assets].join(', ')})${fix}`);
        }
      }
    }

    // Open every file and read its first row: the engine starts at the earliest candle, and each
    // market's candle period is known before the first tick.
    const readers = new Map<string, CandleSource | ReplaySource>();
    const sources: Array<{ key: string; rows: Iterable<ReplayRow> | AsyncIterable<ReplayRow> }> = [];
    const periods = new Map<string, number>();
    let start = Number.POSITIVE_INFINITY;
    for (const [index, m] of options.markets.entries()) {
      let reader: CandleSource | ReplaySource;
      if (m.source) reader = m.source;
      else if (m.layout === 'propbot-store' || (m.layout === undefined && (await isSqliteFile(m.file)))) {
        reader = new StoreSnapshotReader(m.file, { asset: m.asset });
      } else {
        const fileOptions: Parameters<typeof readCandleFile>[1] = {};
        if (m.layout !== undefined) fileOptions.layout = m.layout;
        if (options.onDiagnostic) fileOptions.onDiagnostic = options.onDiagnostic;
        reader = readCandleFile(m.file, fileOptions);
      }
      const warmup = options.warmupCandles ?? 0;
      const from = options.from === undefined ? undefined : () => options.from! - warmup * (reader.summary.periodMs ?? 0);
      const rows = await replayRowsOf(reader);
      let first: ReplayRow | undefined;
      let rest: Iterator<ReplayRow> | AsyncIterable<ReplayRow>;
      if (Symbol.iterator in rows) {
        const iterator = withinRangeSync(rows, from, options.to);
        first = iterator.next().value ?? undefined;
        rest = iterator;
      } else {
        const iterator = withinRange(rows, from, options.to);
        first = (await iterator.next()).value ?? undefined;
        rest = { [Symbol.asyncIterator]: () => iterator };
      }
      if (first === undefined) {
        const keys = options.rangeKeys?.(index) ?? flagRangeKeys(m.asset);
        throw noCandlesError(m.file, reader.summary, options.from, options.to, keys, options.configFile !== undefined && options.rangeKeys ? { file: options.configFile } : {});
      }
      const periodMs = reader.summary.periodMs;
      if (periodMs === null || periodMs <= 0) throw new ConfigError(`markets.${m.asset}`, `cannot tell the candle period of ${m.file}`);
      periods.set(m.asset, periodMs);
      start = Math.min(start, first.time);
      readers.set(m.asset, reader);
      sources.push({ key: m.asset, rows: prepend(first, rest) });
    }

    const engine = new Engine({ startMs: start, seed, ...(options.presets ? { presets: options.presets } : {}) });
    engine.addUser(USER);
    const markets = new Map<string, ReplayMarket>();
    let scheduled = false;
    for (const m of options.markets) {
      const spec: Parameters<Engine['addMarket']>[0] = { baseAsset: m.asset };
      if (m.category !== undefined) spec.category = m.category;
      if (m.preset !== undefined) spec.preset = m.preset;
      const market = engine.addMarket(spec);
      scheduled ||= market.schedule !== null;
      markets.set(m.asset, { asset: m.asset, marketId: market.id, periodMs: periods.get(m.asset)! });
    }
    const accountSpec: Parameters<Engine['openAccount']>[0] = {
      userId: USER,
      accountId: ACCOUNT,
      type: options.accountType ?? 'real',
      initialBalance: options.balance,
      apiTrading: true,
    };
    if (options.phase !== undefined) accountSpec.phase = options.phase;
    engine.openAccount(accountSpec);

    const clock = new VirtualClock(start);
    const logger = typeof options.logger === 'function' ? options.logger(clock) : (options.logger ?? silentLogger);
    const local = engine.exchangeFor(USER, { viaApiKey: true });
    const exchange = options.wrapExchange ? options.wrapExchange(local) : local;
    // Unwrapped, the replay publishes through the engine's synchronous reads; a wrapper (metrics)
    // sees every read, so then they go through it.
    const feed = new ManualFeed();
    const ids = new SeededIds(`${seed}:intents`);
    const candles = new PeriodCheckedCandles(feed, markets, options.markets, loaded);
    const runner = new StrategyRunner({
      feed,
      candles,
      clock,
      accountId: ACCOUNT,
      logger,
      newId: () => ids.next(),
      latest: feed.latest,
      ...(options.states ? { states: options.states } : {}),
    });
    for (const l of loaded) runner.add(l, l.name !== undefined ? { name: l.name } : {});
    const guardIds = new SeededIds(`${seed}:guard`);
    const guard = new RiskGuard({
      clock,
      logger,
      newId: () => guardIds.next(),
      ...(options.risk !== undefined ? { config: options.risk } : {}),
    });
    let jitter = 0;
    const executor = new Executor({
      exchange,
      clock,
      // The engine answers at once and never rate-limits; the executor still runs every request
      // through its queues so the code path is the live one.
      limits: { read: [], write: [] },
      sleep: async (ms) => clock.advance(ms),
      random: () => ((jitter = (jitter * 9301 + 49297) % 233280) / 233280),
      ...(options.store ? { journal: options.store } : {}),
    });
    const allAssets = [...markets.keys()];
    const pipeline = new Pipeline({
      clock,
      feed,
      runner,
      guard,
      executor,
      accounts: [{ accountId: ACCOUNT, assets: allAssets }],
      logger,
      ...(options.store ? { store: options.store } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.onDecision ? { onDecision: options.onDecision } : {}),
      ...(options.onFinal ? { onFinal: options.onFinal } : {}),
    });
    const pump = new SnapshotPump({ feed, exchange, clock, assets: allAssets, accountIds: [ACCOUNT], ...(exchange === local ? { reads: local.now } : {}) });
    return new LocalSession({
      engine,
      clock,
      exchange,
      feed,
      pipeline,
      runner,
      guard,
      executor,
      markets,
      readers,
      pump,
      syncReads: exchange === local,
      rows: replayRows(sources),
      candles,
      warmupEnd: options.warmupCandles && options.from !== undefined ? options.from : null,
      // A trading schedule moves a market's snapshot without an engine event (its pauses), which the
      // guard's book must see as published: such markets publish every step.
      quietSteps: (options.quietSteps ?? false) && !scheduled,
    });
  }

  /**
   * Replay every candle: per tick, move the clock, apply the price in the engine, publish the
   * snapshots (strategies and the guard react synchronously), then wait for the executor to finish
   * whatever they asked before the next price, as a live run would between two polls. With the
   * engine's synchronous reads a step costs no promise unless the executor has work in flight.
   */
  async run(given: RunHooks = {}): Promise<RunStats> {
    // One shape for every run's hooks. A caller's object is often built by a spread (`{ afterStep,
    // ...rest }`), and V8 (Node 20) gives each such object a map of its own: the replay's compiled
    // code, which reads the hooks on every step, met a new map each run and was thrown away and
    // compiled again, run after run of a sweep. The signal is read by its event for the same reason
    // (each signal has a map of its own, and `aborted` was read at every step).
    const hooks: ReplayHooks = { pace: given.pace, afterStep: given.afterStep, onWarmedUp: given.onWarmedUp, yieldMs: given.yieldMs };
    const signal = given.signal;
    const abort = { stopped: signal?.aborted === true };
    const stop = (): void => {
      abort.stopped = true;
    };
    signal?.addEventListener('abort', stop, { once: true });
    try {
      return await this.#replay(hooks, abort);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  async #replay(hooks: ReplayHooks, abort: { stopped: boolean }): Promise<RunStats> {
    // Account snapshots are read again only when they can have changed: after an engine event on the
    // account (an order, a fill, funding, a lifecycle change), while a position is open (equity moves
    // with the price), and when a new UTC day starts (day-start equity). Reading them on every price
    // would cost most of a backtest's time and tell the strategies nothing new.
    this.#dirty = true;
    const open = new Set<string>();
    const unsubscribe = this.engine.onEvent((e) => {
      if (e.kind === 'order') this.#dirty ||= e.order.trader === this.accountId;
      else if (e.kind === 'position') {
        if (e.event.trader !== this.accountId) return;
        this.#dirty = true;
        if (e.event.status === 'opened') open.add(e.event.idx);
        else open.delete(e.event.idx);
      } else this.#dirty ||= e.event.accountId === this.accountId;
    });
    let day = Math.floor(this.clock.now() / DAY_MS);
    let warming = this.warmupEnd !== null;
    let warmupCandles = 0;
    this.pipeline.warmingUp = warming;
    this.pipeline.start();
    // Accounts only: no market has a price before the first tick, and a snapshot of price 0 would
    // reach strategies and recorders as if it were a quote.
    await this.#publish({ markets: false });
    this.#candles.check();
    this.#dirty = false;
    let candles = 0;
    let ticks = 0;
    let quietTicks = 0;
    let firstTime: number | null = null;
    let lastTime: number | null = null;
    // One market only: a step publishes every market's snapshot, and another market's builders count
    // (and may end a candle on) a step of this one.
    const quiet = this.#quietSteps && this.#syncReads && hooks.pace === undefined && this.markets.size === 1;
    this.#published();
    const apply = (step: ReplayStep): Promise<void> | undefined => {
      if (warming && step.time >= this.warmupEnd!) {
        warming = false;
        this.pipeline.warmingUp = false;
        // The account as the session starts, for whoever records it.
        this.#dirty = true;
        hooks.onWarmedUp?.({ candles: warmupCandles, until: this.warmupEnd! });
      }
      const market = step.market;
      if (step.candleStart) {
        if (warming) warmupCandles += 1;
        else candles += 1;
      }
      ticks += 1;
      firstTime ??= step.time;
      lastTime = step.time;
      this.clock.set(step.time);
      this.engine.setIndexPriceFp9(market.marketId, step.priceFp9, step.time);
      const today = Math.floor(step.time / DAY_MS);
      // Positions and orders change only by engine events; risk also moves with the price while a
      // position is open, and at a new day.
      const books = this.#dirty;
      if (quiet && !books && today === day && !this.pipeline.busy && this.#quiet(step, open.size > 0)) {
        quietTicks += 1;
        hooks.afterStep?.(step);
        this.#candles.check();
        return undefined;
      }
      const accounts = books || open.size > 0 || today !== day;
      day = today;
      this.#dirty = false;
      const published = this.#publish(books ? EVERYTHING : accounts ? RISK_AND_MARKETS : MARKETS_ONLY);
      if (published !== undefined || this.pipeline.busy) return this.#settle(published, step, hooks);
      this.#published();
      hooks.afterStep?.(step);
      this.#candles.check();
      return undefined;
    };
    /**
     * Plays `steps` from `i` in order: true when done, false once the run is aborted, or a promise of
     * either when a step has to wait (pacing, async reads, the executor). No promise otherwise.
     */
    const play = (steps: readonly ReplayStep[], i: number): boolean | Promise<boolean> => {
      for (; i < steps.length; i += 1) {
        const step = steps[i]!;
        if (abort.stopped) return false;
        // Warm-up candles go at full speed; pacing starts with the first candle of the run.
        if (hooks.pace && !(warming && step.time < this.warmupEnd!)) {
          const next = i + 1;
          return hooks.pace(step).then(async () => {
            await apply(step);
            return play(steps, next);
          });
        }
        const pending = apply(step);
        if (pending !== undefined) {
          const next = i + 1;
          return pending.then(() => play(steps, next));
        }
      }
      return true;
    };
    const interleaver = new TickInterleaver(this.markets, { reuseSteps: true });
    let aborted = false;
    const rows = this.#rows;
    if ('key' in rows || Symbol.iterator in rows) {
      let sinceYield = 0;
      let yieldedAt = performance.now();
      /**
       * A synchronous replay would hold the event loop for the whole run: a progress bar would not
       * redraw and a signal handler (Ctrl-C, SIGTERM) would not run until the end (see yieldMs).
       */
      const breathe = (): true | Promise<true> => {
        if (++sinceYield < 1024) return true;
        sinceYield = 0;
        if (performance.now() - yieldedAt < (hooks.yieldMs ?? 50)) return true;
        return new Promise<true>((resolve) =>
          setImmediate(() => {
            yieldedAt = performance.now();
            resolve(true);
          }),
        );
      };
      /** Plays one row's due steps: false once the run is aborted; a promise only when a step waits. */
      const take = (key: string, source: number, row: ReplayRow): boolean | Promise<boolean> => {
        const done = play(interleaver.add(key, source, row), 0);
        if (done === false) return false;
        return done === true ? breathe() : done.then((d) => d && breathe());
      };
      /** Takes each item's row in turn, awaiting only a step that waits: false once the run is aborted. */
      const drive = async <T>(items: Iterable<T>, takeItem: (item: T) => boolean | Promise<boolean>): Promise<boolean> => {
        for (const item of items) {
          let done = takeItem(item);
          if (done !== true && done !== false) done = await done;
          // Leaving the loop closes the source (its file).
          if (!done) return false;
        }
        return true;
      };
      if ('key' in rows) {
        // One market: its rows straight from the reader, without the merge's object per row.
        const { key } = rows;
        const order = new SourceOrder(key);
        aborted = !(await drive(rows.rows, (row) => {
          order.check(row.time);
          return take(key, 0, row);
        }));
      } else {
        aborted = !(await drive(rows, ({ key, source, row }) => take(key, source, row)));
      }
    } else {
      for await (const { key, source, row } of rows) {
        if (!(await play(interleaver.add(key, source, row), 0))) {
          aborted = true;
          break;
        }
      }
    }
    if (!aborted) aborted = !(await play(interleaver.flush(), 0));
    unsubscribe();
    return { candles, ticks, quiet: quietTicks, firstTime, lastTime, aborted };
  }

  /**
   * Whether `step` can go unpublished (see `LocalSessionOptions.quietSteps`); when it can, its price
   * has been handed to the candle builders and the guard's market book. `holding`: the account has a position open, so a
   * published step would carry its risk status.
   */
  #quiet(step: ReplayStep, holding: boolean): boolean {
    const { asset } = step.market;
    if (!this.#onlyBuildersAndGuard(asset)) return false;
    // A new highest equity moves the trailing floor: the guard reads it from the risk status.
    if (holding && this.engine.accountMaxEquity(this.accountId) !== this.#maxEquity) return false;
    if (!this.guard.quietAt(asset, step.priceFp9) || !this.#candles.quietTick(asset, step.time, step.priceFp9)) return false;
    // The guard's market book moves as the snapshot would have moved it: a risk read of the next
    // published step (pushed before that step's market) meets this price, as when every step is published.
    this.guard.quietPrice(asset, step.priceFp9);
    return true;
  }

  /**
   * Every subscriber of the streams a step of `asset` would push to is a candle builder or the guard
   * (the risk stream's too: while a position is open a step pushes the risk status).
   */
  #onlyBuildersAndGuard(asset: string): boolean {
    const audience = this.feed.audience;
    if (audience !== this.#audience) {
      this.#unwatched.clear();
      this.#audience = audience;
    }
    let unwatched = this.#unwatched.get(asset);
    if (unwatched === undefined) {
      unwatched =
        this.feed.observers('market', asset) === this.guard.observing('market', asset) + this.#candles.observing(asset) &&
        this.feed.observers('risk', this.accountId) === this.guard.observing('risk', this.accountId);
      this.#unwatched.set(asset, unwatched);
    }
    return unwatched;
  }

  /** What a quiet step compares with: the engine as the last published step left it. */
  #published(): void {
    this.#maxEquity = this.engine.accountMaxEquity(this.accountId);
  }

  /** Publish through the synchronous reads when the engine is unwrapped (undefined: done). */
  #publish(selection: PublishSelection): Promise<void> | undefined {
    if (this.#syncReads) {
      this.#pump.publishNow(selection);
      return undefined;
    }
    return this.#pump.publish(selection);
  }

  /** The rest of a step that has to wait: async reads, or the executor finishing what was asked. */
  async #settle(published: Promise<void> | undefined, step: ReplayStep, hooks: ReplayHooks): Promise<void> {
    if (published !== undefined) await published;
    // What the executor did is visible before the next price, and what that makes the guard or a
    // strategy ask (a kill switch flattening after a fill) is done before it too: a live run would
    // see both before its next poll. Until nothing is in flight.
    while (this.pipeline.busy) {
      await this.pipeline.idle();
      if (this.#dirty) {
        this.#dirty = false;
        await this.#publish({ markets: false });
      }
    }
    this.#published();
    hooks.afterStep?.(step);
    this.#candles.check();
  }

  /** Stop strategies and wait for the executor. */
  async finish(): Promise<void> {
    this.pipeline.stopStrategies();
    await this.pipeline.idle();
    this.pipeline.close();
    this.guard.close();
  }
}

/** A source's rows as a replay reads them: its replay read where it has one, else its read. */
async function replayRowsOf(source: CandleSource | ReplaySource): Promise<Iterable<ReplayRow> | AsyncIterable<ReplayRow>> {
  if (source.openReplay !== undefined) return source.openReplay();
  const rows = source as CandleSource;
  return rows.open ? rows.open() : rows;
}

/** Whether a row is before `from()` (asked at the first row, once the file's period is known), inside, or at `to` and after. */
export function rangeCheck(from: (() => number) | undefined, to: number | undefined): (row: Pick<CandleRow, 'time'>) => 'before' | 'inside' | 'after' {
  let lower: number | undefined;
  return (row) => {
    lower ??= from?.() ?? Number.NEGATIVE_INFINITY;
    if (row.time < lower) return 'before';
    return to !== undefined && row.time >= to ? 'after' : 'inside';
  };
}

async function* withinRange<R extends ReplayRow>(rows: AsyncIterable<R>, from: (() => number) | undefined, to: number | undefined): AsyncGenerator<R> {
  const where = rangeCheck(from, to);
  for await (const row of rows) {
    const w = where(row);
    if (w === 'after') return;
    if (w === 'inside') yield row;
  }
}

/** The rows inside the range; without one, the rows' own iterator (no layer per row). */
export function withinRangeSync<R extends ReplayRow>(rows: Iterable<R>, from: (() => number) | undefined, to: number | undefined): Iterator<R> {
  if (from === undefined && to === undefined) return rows[Symbol.iterator]();
  return rowsInside(rows, rangeCheck(from, to));
}

/**
 * One generator function for every run: each closure of a generator function has a prototype of
 * its own for its generators, so a generator made inside `withinRangeSync` had another map in each
 * run, and the replay's compiled row loop was thrown away once a sweep's run ("wrong map").
 */
function* rowsInside<R extends ReplayRow>(rows: Iterable<R>, where: ReturnType<typeof rangeCheck>): Generator<R> {
  for (const row of rows) {
    const w = where(row);
    if (w === 'after') return;
    if (w === 'inside') yield row;
  }
}

/** `first`, then the rest of the rows, synchronous if they are. */
function prepend<T>(first: T, rest: Iterator<T> | AsyncIterable<T>): Iterable<T> | AsyncIterable<T> {
  if (!(Symbol.asyncIterator in rest)) return new Prepended(first, rest);
  return (async function* () {
    yield first;
    yield* rest;
  })();
}

/**
 * `first`, then `rest`'s own results: a replay takes every row of a file through this, and a
 * generator's `yield*` cost a frame per row.
 */
class Prepended<T> implements IterableIterator<T> {
  #first: { value: T } | undefined;
  readonly #rest: Iterator<T>;

  constructor(first: T, rest: Iterator<T>) {
    this.#first = { value: first };
    this.#rest = rest;
  }

  next(): IteratorResult<T> {
    const first = this.#first;
    if (first === undefined) return this.#rest.next();
    this.#first = undefined;
    return { value: first.value, done: false };
  }

  /** Stopped early (an aborted run): the source closes its file. */
  return(value?: unknown): IteratorResult<T> {
    this.#first = undefined;
    return this.#rest.return?.(value) ?? { value: undefined, done: true };
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this;
  }
}

/** What a session replays: one market's rows as they are, several markets' merged by time. */
type ReplayRows = SingleRows | Iterable<MergedRow<ReplayRow>> | AsyncIterable<MergedRow<ReplayRow>>;

interface SingleRows {
  readonly key: string;
  readonly rows: Iterable<ReplayRow>;
}

function replayRows(sources: ReadonlyArray<{ key: string; rows: Iterable<ReplayRow> | AsyncIterable<ReplayRow> }>): ReplayRows {
  const sync = sources.filter((src): src is { key: string; rows: Iterable<ReplayRow> } => Symbol.iterator in src.rows);
  if (sync.length < sources.length) return mergeByTime(sources.map((src) => ({ key: src.key, rows: toAsync(src.rows) })));
  return sync.length === 1 ? sync[0]! : mergeByTimeSync(sync);
}

async function* toAsync<T>(rows: Iterable<T> | AsyncIterable<T>): AsyncGenerator<T> {
  yield* rows;
}

/**
 * Candle streams that refuse a period finer than the data's: 15-minute candles built from hourly
 * rows would be one price each, and a strategy tuned on them would trade on nothing. The request is
 * recorded where it is made (inside a strategy's setup or later) and the run stops at the next step.
 */
class PeriodCheckedCandles extends CandleStreams {
  readonly #markets: ReadonlyMap<string, ReplayMarket>;
  readonly #files: ReadonlyMap<string, string>;
  readonly #strategies: ReadonlyArray<LoadedStrategy & { readonly name?: string }>;
  #fault: ConfigError | undefined;

  constructor(feed: ManualFeed, markets: ReadonlyMap<string, ReplayMarket>, sources: readonly LocalMarketSource[], strategies: ReadonlyArray<LoadedStrategy & { readonly name?: string }>) {
    super((asset) => feed.market$(asset));
    this.#markets = markets;
    this.#files = new Map(sources.map((m) => [m.asset, m.file]));
    this.#strategies = strategies;
  }

  override candles$(asset: string, period: CandlePeriod): Observable<Candle> {
    const market = this.#markets.get(asset);
    const ms = CANDLE_PERIOD_MS[period];
    if (market && ms !== undefined && ms < market.periodMs && this.#fault === undefined) {
      const rows = describePeriod(market.periodMs);
      // The strategy that asked is not known here; one whose parameter holds the period is named with it.
      const asking = this.#strategies.flatMap((l) => {
        const key = parameterHolding(l, period);
        return key === undefined ? [] : [{ name: l.name ?? l.strategy.name, key }];
      });
      const names = asking.length > 0 ? asking.map((a) => a.name) : this.#strategies.map((l) => l.name ?? l.strategy.name);
      const fix = asking.length === 1 ? `Set its parameter ${asking[0]!.key} to ${rows} or longer` : `Use a period of ${rows} or longer`;
      this.#fault = new ConfigError(
        `strategies`,
        `${names.join(', ')} asks for ${period} candles of ${asset}, but ${this.#files.get(asset) ?? 'its data'} holds ${rows} candles: ` +
          `a ${period} candle cannot be built from ${rows} rows. ${fix}, or give finer data.`,
      );
    }
    return super.candles$(asset, period);
  }

  /** Throw the first refusal, if a strategy asked for too fine a period. */
  check(): void {
    if (this.#fault) throw this.#fault;
  }
}

/** The one parameter of a strategy whose value is `value` (its `asset`, its `period`), to name in a message. */
function parameterHolding(l: LoadedStrategy, value: string): string | undefined {
  const keys = Object.entries(l.params).filter(([, v]) => v === value).map(([k]) => k);
  return keys.length === 1 ? keys[0] : undefined;
}
