/**
 * The live `MarketFeed`: pollers over the `Exchange` port (the HTTP client live, or the local engine
 * for a paper run that polls like a live one). Every resource key has one shared poller, so any number
 * of strategies and the risk guard cost one request per interval; a late subscriber gets the latest
 * snapshot at once. Poll failures go to `errors$` and never end a stream.
 */
import { asyncScheduler, Observable, ReplaySubject, share, Subject, type SchedulerLike } from 'rxjs';
import { NotFoundError } from '../api/errors.js';
import type { Exchange } from '../api/exchange.js';
import { WallClock, type Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { MarketIds } from './market-ids.js';

export { UnknownAssetError } from './market-ids.js';
import { pollSnapshots, requirePositive, type BackoffOptions, type PollFailure } from './poll.js';
import {
  accountEventsSnapshot,
  marketSnapshot,
  ordersSnapshot,
  positionsSnapshot,
  riskSnapshot,
} from './snapshots.js';
import type {
  AccountEventsSnapshot,
  MarketFeed,
  MarketSnapshot,
  OrdersSnapshot,
  PositionsSnapshot,
  RiskSnapshot,
  Snapshot,
} from './types.js';

export const FEED_RESOURCES = ['market', 'risk', 'positions', 'orders', 'accountEvents'] as const;
export type FeedResource = (typeof FEED_RESOURCES)[number];

/** Default poll intervals, ms. Markets move fastest; account events change rarely. */
export const DEFAULT_POLL_INTERVALS: Readonly<Record<FeedResource, number>> = {
  market: 1_000,
  risk: 2_000,
  positions: 2_000,
  orders: 2_000,
  accountEvents: 30_000,
};

/** The reads a polling feed needs; any `Exchange` has them. */
export type FeedExchange = Pick<
  Exchange,
  'getMarket' | 'listMarkets' | 'getRiskStatus' | 'listActivePositions' | 'listActiveOrders' | 'listAccountEvents'
>;

export interface PollingFeedOptions {
  exchange: FeedExchange;
  /** Stamps `takenAt` on every snapshot. Default: the wall clock. */
  clock?: Clock;
  /** Schedules polls, back-offs and staleness; pass a virtual-time scheduler in tests. Default `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Poll interval per resource, ms (defaults: `DEFAULT_POLL_INTERVALS`). */
  intervalMs?: Partial<Record<FeedResource, number>>;
  /** Longest a snapshot stays fresh per resource, ms. Default: three intervals. */
  maxAgeMs?: Partial<Record<FeedResource, number>>;
  /** Retry timing after failures, for every resource. */
  backoff?: BackoffOptions;
  /** Sent as `accountId` with market reads so leverage bounds are the account's. */
  marketAccountId?: string;
  /** Page size of the account-events read (1..100). Default 20, the API's default. */
  accountEventsLimit?: number;
}

/** A failed poll, reported on `errors$`. The stream of that resource keeps going. */
export interface FeedError {
  readonly resource: FeedResource;
  /** Asset, account id or `account:asset`; `*` for account events. */
  readonly key: string;
  readonly error: unknown;
  readonly message: string;
  readonly attempt: number;
  readonly retryInMs: number;
  /** Clock time of the failure, unix ms. */
  readonly at: number;
}

export class PollingFeed implements MarketFeed {
  readonly #exchange: FeedExchange;
  readonly #clock: Clock;
  readonly #scheduler: SchedulerLike;
  readonly #interval: Record<FeedResource, number>;
  readonly #maxAge: Record<FeedResource, number>;
  readonly #backoff: BackoffOptions | undefined;
  readonly #marketAccountId: string | undefined;
  readonly #eventsLimit: number;
  readonly #streams = new Map<string, Observable<Snapshot<unknown>>>();
  readonly #errors = new Subject<FeedError>();
  readonly #marketIds: MarketIds;

  /** Every failed poll, whichever stream it belongs to. Never errors or completes by itself. */
  readonly errors$: Observable<FeedError> = this.#errors.asObservable();

  constructor(options: PollingFeedOptions) {
    if (!options || typeof options.exchange !== 'object' || options.exchange === null) {
      throw new ConfigError('feed.exchange', 'expected an Exchange (the HTTP client or a local exchange)');
    }
    this.#exchange = options.exchange;
    this.#marketIds = new MarketIds(options.exchange);
    this.#clock = options.clock ?? new WallClock();
    this.#scheduler = options.scheduler ?? asyncScheduler;
    this.#backoff = options.backoff;
    this.#marketAccountId = options.marketAccountId;
    this.#interval = { ...DEFAULT_POLL_INTERVALS };
    this.#maxAge = { ...DEFAULT_POLL_INTERVALS };
    for (const resource of FEED_RESOURCES) {
      const interval = options.intervalMs?.[resource] ?? DEFAULT_POLL_INTERVALS[resource];
      requirePositive(interval, `feed.intervalMs.${resource}`);
      const maxAge = options.maxAgeMs?.[resource] ?? interval * 3;
      requirePositive(maxAge, `feed.maxAgeMs.${resource}`);
      this.#interval[resource] = interval;
      this.#maxAge[resource] = maxAge;
    }
    for (const key of Object.keys(options.intervalMs ?? {})) {
      if (!(FEED_RESOURCES as readonly string[]).includes(key)) {
        throw new ConfigError(`feed.intervalMs.${key}`, `unknown resource; expected one of ${FEED_RESOURCES.join(', ')}`);
      }
    }
    for (const key of Object.keys(options.maxAgeMs ?? {})) {
      if (!(FEED_RESOURCES as readonly string[]).includes(key)) {
        throw new ConfigError(`feed.maxAgeMs.${key}`, `unknown resource; expected one of ${FEED_RESOURCES.join(', ')}`);
      }
    }
    const limit = options.accountEventsLimit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new ConfigError('feed.accountEventsLimit', `expected an integer 1..100, got ${String(limit)}`);
    }
    this.#eventsLimit = limit;
  }

  market$(asset: string): Observable<MarketSnapshot> {
    requireKey(asset, 'asset');
    return this.#stream('market', asset, async () => {
      const id = await this.#marketIds.of(asset);
      try {
        const query = this.#marketAccountId ? { accountId: this.#marketAccountId } : undefined;
        return await this.#exchange.getMarket(id, query);
      } catch (error) {
        // A relisted market gets a new id; look it up again next time.
        if (error instanceof NotFoundError) this.#marketIds.forget(asset);
        throw error;
      }
    }, (market, takenAt) => marketSnapshot(market, takenAt));
  }

  risk$(accountId: string): Observable<RiskSnapshot> {
    requireKey(accountId, 'accountId');
    return this.#stream('risk', accountId, () => this.#exchange.getRiskStatus(accountId), (status, takenAt) =>
      riskSnapshot(status, takenAt),
    );
  }

  positions$(accountId: string, asset: string): Observable<PositionsSnapshot> {
    requireKey(accountId, 'accountId');
    requireKey(asset, 'asset');
    return this.#stream(
      'positions',
      `${accountId}:${asset}`,
      () => this.#exchange.listActivePositions(accountId, asset),
      (positions, takenAt) => positionsSnapshot(accountId, asset, positions, takenAt),
    );
  }

  orders$(accountId: string): Observable<OrdersSnapshot> {
    requireKey(accountId, 'accountId');
    return this.#stream('orders', accountId, () => this.#exchange.listActiveOrders(accountId), (orders, takenAt) =>
      ordersSnapshot(accountId, orders, takenAt),
    );
  }

  accountEvents$(): Observable<AccountEventsSnapshot> {
    return this.#stream(
      'accountEvents',
      '*',
      async () => (await this.#exchange.listAccountEvents({ limit: this.#eventsLimit })).data,
      (events, takenAt) => accountEventsSnapshot(events, takenAt),
    );
  }

  #stream<T, S extends Snapshot<unknown>>(
    resource: FeedResource,
    key: string,
    fetch: () => Promise<T>,
    snapshot: (data: T, takenAt: number) => S,
  ): Observable<S> {
    const cacheKey = `${resource}|${key}`;
    const existing = this.#streams.get(cacheKey);
    if (existing) return existing as Observable<S>;
    const stream = pollSnapshots<T, S>({
      fetch,
      snapshot,
      intervalMs: this.#interval[resource],
      maxAgeMs: this.#maxAge[resource],
      backoff: this.#backoff,
      clock: this.#clock,
      scheduler: this.#scheduler,
      onError: (failure) => this.#report(resource, key, failure),
    }).pipe(
      // Polling stops with the last subscriber and resumes with the next; the latest snapshot is
      // replayed to late subscribers so nobody waits a full interval for a first value.
      share({
        connector: () => new ReplaySubject<S>(1),
        resetOnRefCountZero: true,
        resetOnError: true,
        resetOnComplete: true,
      }),
    );
    this.#streams.set(cacheKey, stream as Observable<Snapshot<unknown>>);
    return stream;
  }

  #report(resource: FeedResource, key: string, failure: PollFailure): void {
    const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
    this.#errors.next({ resource, key, message, ...failure, at: this.#clock.now() });
  }
}

function requireKey(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${name}: expected a non-empty string, got ${typeof value === 'string' ? '""' : typeof value}`);
  }
}
