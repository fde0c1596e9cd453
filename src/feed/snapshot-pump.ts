/**
 * The replay side of the feed: after each step of the local engine, read its state through the
 * `Exchange` port (so exactly what a live poll would read) and push it into a `ManualFeed`. The
 * backtester and the paper runner call `publish()` once per price update; strategies downstream see
 * the same snapshot types as live, stamped with the virtual clock.
 */
import type { Clock } from '../core/clock.js';
import type { FeedExchange } from './polling-feed.js';
import { MarketIds } from './market-ids.js';
import type { ManualFeed } from './manual-feed.js';
import {
  accountEventsSnapshot,
  marketSnapshot,
  ordersSnapshot,
  positionsSnapshot,
  riskSnapshot,
} from './snapshots.js';

export interface SnapshotPumpOptions {
  feed: ManualFeed;
  exchange: FeedExchange;
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

export class SnapshotPump {
  readonly #options: SnapshotPumpOptions;
  readonly #marketIds: MarketIds;

  constructor(options: SnapshotPumpOptions) {
    this.#options = options;
    this.#marketIds = new MarketIds(options.exchange);
  }

  /**
   * Read the current state and push it: each account's risk, positions and orders first, then the
   * markets, so a strategy that decides on a market tick (a candle closing) sizes from current equity.
   */
  async publish(selection: PublishSelection = {}): Promise<void> {
    const { feed, exchange, clock, assets } = this.#options;
    const takenAt = clock.now();
    if (selection.accounts !== false) {
      for (const accountId of this.#options.accountIds ?? []) {
        feed.pushRisk(riskSnapshot(await exchange.getRiskStatus(accountId), takenAt));
        if (selection.books === false) continue;
        for (const asset of assets) {
          feed.pushPositions(positionsSnapshot(accountId, asset, await exchange.listActivePositions(accountId, asset), takenAt));
        }
        feed.pushOrders(ordersSnapshot(accountId, await exchange.listActiveOrders(accountId), takenAt));
      }
      if (this.#options.accountEvents && selection.books !== false) {
        feed.pushAccountEvents(accountEventsSnapshot((await exchange.listAccountEvents({ limit: 20 })).data, takenAt));
      }
    }
    if (selection.markets !== false) {
      for (const asset of assets) {
        const market = await exchange.getMarket(await this.#marketIds.of(asset));
        feed.pushMarket(marketSnapshot(market, takenAt));
      }
    }
  }
}
