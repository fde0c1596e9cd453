/**
 * Snapshot constructors. Pollers, the manual (replay) feed and tests build snapshots only through
 * these, so every stream carries the same shape whichever source produced it.
 */
import type { AccountEvent, Market, Order, Position, RiskStatus } from '../api/types.js';
import type {
  AccountEventsSnapshot,
  MarketSnapshot,
  OrdersSnapshot,
  PositionsSnapshot,
  RiskSnapshot,
  Snapshot,
} from './types.js';

export function marketSnapshot(market: Market, takenAt: number, stale = false): MarketSnapshot {
  return {
    data: market,
    takenAt,
    stale,
    asset: market.config.baseAsset,
    marketId: market.id,
    price: market.state.indexPrice,
  };
}

export function riskSnapshot(status: RiskStatus, takenAt: number, stale = false): RiskSnapshot {
  return { data: status, takenAt, stale, accountId: status.accountId };
}

export function positionsSnapshot(
  accountId: string,
  asset: string,
  positions: Position[],
  takenAt: number,
  stale = false,
): PositionsSnapshot {
  return { data: positions, takenAt, stale, accountId, asset };
}

export function ordersSnapshot(accountId: string, orders: Order[], takenAt: number, stale = false): OrdersSnapshot {
  return { data: orders, takenAt, stale, accountId };
}

export function accountEventsSnapshot(events: AccountEvent[], takenAt: number, stale = false): AccountEventsSnapshot {
  return { data: events, takenAt, stale };
}

/**
 * The same snapshot marked stale. `takenAt` keeps the time the data was really taken, so a consumer
 * can tell how old it is.
 */
export function markStale<S extends Snapshot<unknown>>(snapshot: S): S {
  return snapshot.stale ? snapshot : Object.assign({}, snapshot, { stale: true });
}
