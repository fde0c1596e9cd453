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

/** One read of a publish and the push of its answer. */
interface PublishStep {
  read(reads: Reads): unknown;
  push(value: unknown, takenAt: number): void;
}

export class SnapshotPump {
  readonly #options: SnapshotPumpOptions;
  /**
   * The options' clock and synchronous reads, read on every published step, held here rather than
   * read from the options: those are a literal a backtest makes once a run, whose second object
   * widens its fields (performance log, eighteenth round).
   */
  readonly #clock: Clock;
  readonly #reads: SyncFeedReads | undefined;
  readonly #marketIds: MarketIds;
  /** Asset → market id, for the synchronous reads (listed once). */
  #syncIds: Map<string, string> | undefined;
  #nowReads: Reads | undefined;
  /** `#plan` by selection. */
  readonly #plans = new Map<number, readonly PublishStep[]>();

  constructor(options: SnapshotPumpOptions) {
    this.#options = options;
    this.#clock = options.clock;
    this.#reads = options.reads;
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
    const takenAt = this.#clock.now();
    for (const step of this.#plan(selection)) step.push(await step.read(reads), takenAt);
  }

  /** `publish()` through the synchronous reads: every subscriber has seen the state when it returns. */
  publishNow(selection: PublishSelection = {}): void {
    const now = this.#reads;
    if (now === undefined) throw new Error('SnapshotPump.publishNow: no synchronous reads were given (options.reads)');
    this.#nowReads ??= {
      risk: (id) => now.getRiskStatus(id),
      positions: (id, asset) => now.listActivePositions(id, asset),
      orders: (id) => now.listActiveOrders(id),
      events: () => now.listAccountEvents({ limit: 20 }),
      market: (asset) => now.getMarket(this.#syncId(now, asset)),
    };
    const reads = this.#nowReads;
    const takenAt = this.#clock.now();
    for (const step of this.#plan(selection)) step.push(step.read(reads), takenAt);
  }

  /**
   * The publish sequence once, for both paths, as read-then-push steps (built once per selection): a
   * backtest publishes on every price, and a loop over these costs a fraction of resuming a generator.
   */
  #plan(selection: PublishSelection): readonly PublishStep[] {
    const accounts = selection.accounts !== false;
    const books = accounts && selection.books !== false;
    const markets = selection.markets !== false;
    const key = +accounts | (+books << 1) | (+markets << 2);
    let plan = this.#plans.get(key);
    if (plan !== undefined) return plan;
    const { feed, assets } = this.#options;
    const steps: PublishStep[] = [];
    const step = <T>(read: (r: Reads) => T | Promise<T>, push: (value: T, takenAt: number) => void): void => {
      steps.push({ read, push: push as PublishStep['push'] });
    };
    if (accounts) {
      for (const accountId of this.#options.accountIds ?? []) {
        step((r) => r.risk(accountId), (v, t) => feed.pushRisk(riskSnapshot(v, t)));
        if (!books) continue;
        for (const asset of assets) step((r) => r.positions(accountId, asset), (v, t) => feed.pushPositions(positionsSnapshot(accountId, asset, v, t)));
        step((r) => r.orders(accountId), (v, t) => feed.pushOrders(ordersSnapshot(accountId, v, t)));
      }
      if (this.#options.accountEvents && books) step((r) => r.events(), (v, t) => feed.pushAccountEvents(accountEventsSnapshot(v.data, t)));
    }
    if (markets) for (const asset of assets) step((r) => r.market(asset), (v, t) => feed.pushMarket(marketSnapshot(v, t)));
    plan = steps;
    this.#plans.set(key, plan);
    return plan;
  }

  #syncId(now: SyncFeedReads, asset: string): string {
    this.#syncIds ??= new Map(now.listMarkets().map((m) => [m.config.baseAsset, m.id]));
    const id = this.#syncIds.get(asset);
    if (id === undefined) throw new UnknownAssetError(asset, [...this.#syncIds.keys()]);
    return id;
  }
}
