/**
 * Builds the `ctx` a strategy's `setup` receives: its account's feed streams (guarded, see
 * `guarded.ts`), candles, the clock, a child logger, its state and the intent builders.
 */
import type { Logger } from 'pino';
import { map, type Observable } from 'rxjs';
import type { Clock } from '../core/clock.js';
import type { CandleStreams } from '../feed/candles.js';
import type { Candle, CandlePeriod, LatestSnapshots, MarketFeed } from '../feed/types.js';
import { candleDecisions } from './candle-decisions.js';
import type { AccountFeed, CandleDecision, StrategyContext } from './define.js';
import type { OrderIntent } from './intents.js';
import { guard, type GuardScope } from './guarded.js';
import { IntentBuilders, pickAsset } from './intent-builders.js';
import type { StrategyState } from './state.js';
import type { Decimal } from 'decimal.js';

export interface ContextInit {
  name: string;
  version: string;
  accountId: string;
  assets: readonly string[];
  clock: Clock;
  log: Logger;
  state: StrategyState;
  feed: MarketFeed;
  candles: CandleStreams;
  latest: LatestSnapshots;
  scope: GuardScope;
  newId: () => string;
  reserveBuffer?: Decimal;
}

export function createStrategyContext(init: ContextInit): StrategyContext {
  const { accountId, assets, feed, scope } = init;
  const pick = (asset: string | undefined, what: string): string => pickAsset(assets, asset, what);
  const g = <T>(source: Observable<T>): Observable<T> => guard(scope, source);

  const accountFeed: AccountFeed = {
    market$: (asset) => g(feed.market$(pick(asset, 'market$'))),
    risk$: () => g(feed.risk$(accountId)),
    positions$: (asset) => g(feed.positions$(accountId, pick(asset, 'positions$'))),
    orders$: () => g(feed.orders$(accountId)),
    accountEvents$: () =>
      g(feed.accountEvents$().pipe(map((s) => ({ ...s, data: s.data.filter((e) => e.accountId === accountId) })))),
  };

  const intents = new IntentBuilders({
    strategy: init.name,
    accountId,
    assets,
    clock: init.clock,
    newId: init.newId,
    latestMarket: (asset) => init.latest.market(asset),
    latestRisk: () => init.latest.risk(accountId),
    ...(init.reserveBuffer !== undefined ? { reserveBuffer: init.reserveBuffer } : {}),
  });

  const candleStream = (asset: string | undefined, period: CandlePeriod): Observable<Candle> => init.candles.candles$(pick(asset, 'candles'), period);
  const candles = (asset: string | undefined, period: CandlePeriod): Observable<Candle> => g(candleStream(asset, period));

  return Object.freeze({
    name: init.name,
    version: init.version,
    accountId,
    assets,
    clock: init.clock,
    log: init.log,
    state: init.state,
    feed: accountFeed,
    candles,
    onCandle: (asset: string | undefined, period: CandlePeriod, decide: CandleDecision) =>
      g(candleDecisions(candleStream(asset, period), decide)),
    latest: {
      market: (asset?: string) => init.latest.market(pick(asset, 'latest.market')),
      risk: () => init.latest.risk(accountId),
      positions: (asset?: string) => init.latest.positions(accountId, pick(asset, 'latest.positions')),
      orders: () => init.latest.orders(accountId),
    },
    intents,
  });
}

