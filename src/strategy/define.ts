/**
 * The strategy plugin contract. A plugin module's default export is `defineStrategy({...})`: a name,
 * a version, typed parameters (a zod object with defaults), the markets it trades, and `setup`, which
 * receives the context and the validated parameters and returns the stream of intents. Streams in,
 * intents out: the same code runs live, on paper and in backtests.
 */
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { ConfigError, describeValue } from '../core/errors.js';
import type {
  AccountEventsSnapshot,
  Candle,
  CandlePeriod,
  MarketSnapshot,
  OrdersSnapshot,
  PositionsSnapshot,
  RiskSnapshot,
} from '../feed/types.js';
import type { IntentBuilders } from './intent-builders.js';
import type { OrderIntent } from './intents.js';
import type { ParamsSchema } from './params.js';
import type { StrategyState } from './state.js';

/**
 * Version of the plugin interface. A plugin made for another major version is refused at load time
 * with a message saying so, instead of failing strangely at run time.
 */
export const STRATEGY_API_VERSION = 1;

const BRAND = Symbol.for('propbot.strategy');

/** The feed streams of the strategy's own account. Stream errors never reach them: see `MarketFeed`. */
export interface AccountFeed {
  /** Market snapshots; `asset` defaults to the strategy's only asset. */
  market$(asset?: string): Observable<MarketSnapshot>;
  risk$(): Observable<RiskSnapshot>;
  positions$(asset?: string): Observable<PositionsSnapshot>;
  orders$(): Observable<OrdersSnapshot>;
  /** Lifecycle events of this account only. */
  accountEvents$(): Observable<AccountEventsSnapshot>;
}

/** A per-candle callback of `ctx.onCandle`: it returns nothing, one intent, or several (emitted in order). */
export type CandleDecision = (candle: Candle) => OrderIntent | readonly OrderIntent[] | null | undefined | void;

export interface StrategyContext {
  /** Instance name; every intent carries it as `strategy`. */
  readonly name: string;
  readonly version: string;
  readonly accountId: string;
  /** Base assets this instance trades. */
  readonly assets: readonly string[];
  readonly clock: Clock;
  /** pino child logger bound to `{ strategy: name }`. */
  readonly log: Logger;
  /** Small persisted key-value state. */
  readonly state: StrategyState;
  readonly feed: AccountFeed;
  /** Completed candles built from the market snapshots; `asset` defaults to the only asset. */
  candles(asset: string | undefined, period: CandlePeriod): Observable<Candle>;
  /**
   * The callback style over the same stream: `decide` runs on each completed candle and returns the
   * intents to emit (one, several, or nothing). `ctx.onCandle(a, p, fn)` emits what
   * `ctx.candles(a, p).pipe(concatMap(c => [fn(c)].flat()))` emits, without an inner subscription per
   * candle; return it from `setup`.
   */
  onCandle(asset: string | undefined, period: CandlePeriod, decide: CandleDecision): Observable<OrderIntent>;
  /** Latest snapshots seen (undefined before the first). */
  readonly latest: {
    market(asset?: string): MarketSnapshot | undefined;
    risk(): RiskSnapshot | undefined;
    positions(asset?: string): PositionsSnapshot | undefined;
    orders(): OrdersSnapshot | undefined;
  };
  readonly intents: IntentBuilders;
}

export interface StrategyDefinition<S extends ParamsSchema = ParamsSchema> {
  /** Letters, digits, `.`, `_`, `-`; used in intent ids, logs and the store. */
  readonly name: string;
  /** The plugin's own version (semver), recorded with every run. */
  readonly version: string;
  readonly description?: string;
  /** Parameters with defaults and validation. Omitted: the strategy takes none. */
  readonly params?: S;
  /** Base assets traded, or a function of the parameters (e.g. `(p) => [p.asset]`). */
  readonly assets: readonly string[] | ((params: z.output<S>) => readonly string[]);
  /** Build the intent stream. Called once per run; throwing here fails this strategy only. */
  setup(ctx: StrategyContext, params: z.output<S>): Observable<OrderIntent>;
  /**
   * How much history the strategy needs before its first decision is sound (its longest indicator,
   * plus one candle to see a cross). Research tools use it: walk-forward refuses windows shorter than
   * this and feeds every test slice this much earlier data, with trading held back, before it starts.
   */
  readonly warmup?: (params: z.output<S>) => Warmup;
}

/** A warm-up: this many candles of this period. */
export interface Warmup {
  readonly candles: number;
  readonly period: CandlePeriod;
}

export interface Strategy<S extends ParamsSchema = ParamsSchema> extends StrategyDefinition<S> {
  readonly params: S;
  readonly apiVersion: number;
  readonly [BRAND]: true;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const VERSION_PATTERN = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/** Make a strategy plugin; the default export of a plugin module. Checks the definition's shape. */
export function defineStrategy<S extends ParamsSchema = z.ZodObject<{}>>(definition: StrategyDefinition<S>): Strategy<S> {
  const where = (key: string) => `defineStrategy(${typeof definition?.name === 'string' ? JSON.stringify(definition.name) : ''}).${key}`;
  if (!definition || typeof definition !== 'object') {
    throw new ConfigError('defineStrategy', `expected a strategy definition object, got ${describeValue(definition)}`);
  }
  if (typeof definition.name !== 'string' || !NAME_PATTERN.test(definition.name)) {
    throw new ConfigError(where('name'), `expected 1-64 letters, digits, ".", "_" or "-", got ${describeValue(definition.name)}`);
  }
  if (typeof definition.version !== 'string' || !VERSION_PATTERN.test(definition.version)) {
    throw new ConfigError(where('version'), `expected a semver version like "1.0.0", got ${describeValue(definition.version)}`);
  }
  const params = definition.params ?? (z.object({}) as unknown as S);
  // Duck-typed: a plugin may carry its own copy of zod.
  const p = params as unknown as { safeParse?: unknown; strict?: unknown; shape?: unknown };
  if (typeof p.safeParse !== 'function' || typeof p.strict !== 'function' || typeof p.shape !== 'object') {
    throw new ConfigError(where('params'), 'expected a zod object schema: z.object({ ... })');
  }
  const assets = definition.assets;
  if (typeof assets !== 'function' && (!Array.isArray(assets) || assets.some((a) => typeof a !== 'string' || a.length === 0))) {
    throw new ConfigError(where('assets'), 'expected an array of base asset tickers or a function of the parameters returning one');
  }
  if (definition.warmup !== undefined && typeof definition.warmup !== 'function') {
    throw new ConfigError(where('warmup'), `expected a function (params) => ({ candles, period }), got ${describeValue(definition.warmup)}`);
  }
  if (typeof definition.setup !== 'function') {
    throw new ConfigError(where('setup'), `expected a function (ctx, params) => Observable<OrderIntent>, got ${describeValue(definition.setup)}`);
  }
  return Object.freeze({ ...definition, params, apiVersion: STRATEGY_API_VERSION, [BRAND]: true as const });
}

/** Whether a value was made by `defineStrategy` (of any copy of propbot loaded in the process). */
export function isStrategy(value: unknown): value is Strategy {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** The assets a strategy trades with these parameters, checked. */
export function resolveAssets<S extends ParamsSchema>(strategy: Strategy<S>, params: z.output<S>): readonly string[] {
  const raw = typeof strategy.assets === 'function' ? strategy.assets(params) : strategy.assets;
  if (!Array.isArray(raw) || raw.length === 0 || raw.some((a) => typeof a !== 'string' || a.length === 0)) {
    throw new ConfigError(`strategy "${strategy.name}".assets`, `expected a non-empty list of base asset tickers, got ${describeValue(raw)}`);
  }
  return [...new Set(raw as string[])];
}
