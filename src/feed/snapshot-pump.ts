/**
 * The replay side of the feed: after each step of the local engine, read its state through the
 * `Exchange` port (so exactly what a live poll would read) and push it into a `ManualFeed`. The
 * backtester and the paper runner call `publish()` once per price update; strategies downstream see
 * the same snapshot types as live, stamped with the virtual clock.
 *
 * An in-process engine can also answer without a promise (`reads`): `publishNow()` then reads and
 * pushes synchronously, so a backtest step costs no microtask round trips. Both read the same views
 * in the same order.
 */
import type { AccountEvent, Market, Order, Page, PageQuery, Position, RiskStatus } from '../api/types.js';
import type { Clock } from '../core/clock.js';
import type { FeedExchange } from './polling-feed.js';
import { MarketIds, UnknownAssetError } from './market-ids.js';
import type { ManualFeed } from './manual-feed.js';
import {
  accountEventsSnapshot,
  marketSnapshot,
  ordersSnapshot,
  positionsSnapshot,
  riskSnapshot,
} from './snapshots.js';

/** The reads of a `FeedExchange`, answered at once (the local engine's `LocalExchange.now`). */
export interface SyncFeedReads {
  getRiskStatus(accountId: string): RiskStatus;
  listActivePositions(accountId: string, asset: string): Position[];
  listActiveOrders(accountId: string): Order[];
  listAccountEvents(query?: PageQuery): Page<AccountEvent>;
  getMarket(marketId: string): Market;
  listMarkets(): Market[];
}

export interface SnapshotPumpOptions {
  feed: ManualFeed;
  exchange: FeedExchange;
  /** The same exchange's synchronous reads, for `publishNow()`. */
  reads?: SyncFeedReads;
  /** Stamps `takenAt`: the virtual clock of the replay. */
  clock: Clock;
  /** Markets to publish, by base asset. */
  assets: readonly string[];
  /** Accounts whose risk, positions and orders to publish. */
  accountIds?: readonly string[];
  /** Also publish account events (one extra read per step). Default false. */
  accountEvents?: boolean;
}

/** What one `publish()` should read; all true by default. */
export interface PublishSelection {
  markets?: boolean;
  /** Account resources: risk, positions, orders (and events when enabled). */
  accounts?: boolean;
  /** With `accounts`: also positions, orders and events; false reads the risk status only. Default true. */
  books?: boolean;
}

/** One publish's worth of reads, pushed in the order `publish` documents. */
interface Reads {
  risk(accountId: string): RiskStatus | Promise<RiskStatus>;
  positions(accountId: string, asset: string): Position[] | Promise<Position[]>;
  orders(accountId: string): Order[] | Promise<Order[]>;
  events(): Page<AccountEvent> | Promise<Page<AccountEvent>>;
  market(asset: string): Market | Promise<Market>;
}

export class SnapshotPump {
  readonly #options: SnapshotPumpOptions;
  readonly #marketIds: MarketIds;
  /** Asset → market id, for the synchronous reads (listed once). */
  #syncIds: Map<string, string> | undefined;
  #nowReads: Reads | undefined;

  constructor(options: SnapshotPumpOptions) {
    this.#options = options;
    this.#marketIds = new MarketIds(options.exchange);
  }

  /**
   * Read the current state and push it: each account's risk, positions and orders first, then the
   * markets, so a strategy that decides on a market tick (a candle closing) sizes from current equity.
   */
  async publish(selection: PublishSelection = {}): Promise<void> {
    const { exchange } = this.#options;
    const reads: Reads = {
      risk: (id) => exchange.getRiskStatus(id),
      positions: (id, asset) => exchange.listActivePositions(id, asset),
      orders: (id) => exchange.listActiveOrders(id),
      events: () => exchange.listAccountEvents({ limit: 20 }),
      market: async (asset) => exchange.getMarket(await this.#marketIds.of(asset)),
    };
    const steps = this.#steps(selection, reads);
    for (let next = steps.next(); !next.done; ) next = steps.next(await next.value);
  }

  /** `publish()` through the synchronous reads: every subscriber has seen the state when it returns. */
  publishNow(selection: PublishSelection = {}): void {
    const now = this.#options.reads;
    if (now === undefined) throw new Error('SnapshotPump.publishNow: no synchronous reads were given (options.reads)');
    this.#nowReads ??= {
      risk: (id) => now.getRiskStatus(id),
      positions: (id, asset) => now.listActivePositions(id, asset),
      orders: (id) => now.listActiveOrders(id),
      events: () => now.listAccountEvents({ limit: 20 }),
      market: (asset) => now.getMarket(this.#syncId(now, asset)),
    };
    const reads = this.#nowReads;
    // The sequence of `#steps`, without a generator: a backtest publishes on every price.
    const { feed, clock, assets } = this.#options;
    const takenAt = clock.now();
    if (selection.accounts !== false) {
      for (const accountId of this.#options.accountIds ?? []) {
        feed.pushRisk(riskSnapshot(reads.risk(accountId) as RiskStatus, takenAt));
        if (selection.books === false) continue;
        for (const asset of assets) feed.pushPositions(positionsSnapshot(accountId, asset, reads.positions(accountId, asset) as Position[], takenAt));
        feed.pushOrders(ordersSnapshot(accountId, reads.orders(accountId) as Order[], takenAt));
      }
      if (this.#options.accountEvents && selection.books !== false) {
        feed.pushAccountEvents(accountEventsSnapshot((reads.events() as Page<AccountEvent>).data, takenAt));
      }
    }
    if (selection.markets !== false) {
      for (const asset of assets) feed.pushMarket(marketSnapshot(reads.market(asset) as Market, takenAt));
    }
  }

  /**
   * The publish sequence once, for both paths: it yields each read and is resumed with its answer
   * (awaited by `publish`, handed straight back by `publishNow`), then pushes the snapshot.
   */
  *#steps(selection: PublishSelection, reads: Reads): Generator<unknown, void, unknown> {
    const { feed, clock, assets } = this.#options;
    const takenAt = clock.now();
    if (selection.accounts !== false) {
      for (const accountId of this.#options.accountIds ?? []) {
        feed.pushRisk(riskSnapshot((yield reads.risk(accountId)) as RiskStatus, takenAt));
        if (selection.books === false) continue;
        for (const asset of assets) {
          feed.pushPositions(positionsSnapshot(accountId, asset, (yield reads.positions(accountId, asset)) as Position[], takenAt));
        }
        feed.pushOrders(ordersSnapshot(accountId, (yield reads.orders(accountId)) as Order[], takenAt));
      }
      if (this.#options.accountEvents && selection.books !== false) {
        feed.pushAccountEvents(accountEventsSnapshot(((yield reads.events()) as Page<AccountEvent>).data, takenAt));
      }
    }
    if (selection.markets !== false) {
      for (const asset of assets) feed.pushMarket(marketSnapshot((yield reads.market(asset)) as Market, takenAt));
    }
  }

  #syncId(now: SyncFeedReads, asset: string): string {
    this.#syncIds ??= new Map(now.listMarkets().map((m) => [m.config.baseAsset, m.id]));
    const id = this.#syncIds.get(asset);
    if (id === undefined) throw new UnknownAssetError(asset, [...this.#syncIds.keys()]);
    return id;
  }
}
