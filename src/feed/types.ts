/**
 * The snapshot streams every strategy and the risk guard consume. Live, pollers over the HTTP client
 * produce them; in backtests and paper runs a replay of candles through the local engine does. A
 * consumer can not tell the two apart except by the clock.
 */
import type { Decimal } from 'decimal.js';
import type { Observable } from 'rxjs';
import type { AccountEvent, Market, Order, Position, RiskStatus } from '../api/types.js';

export interface Snapshot<T> {
  readonly data: T;
  /** When the snapshot was taken, by the pipeline's clock (unix ms). */
  readonly takenAt: number;
  /**
   * True when no fresh snapshot arrived within the stream's configured maximum age: the stream then
   * re-emits the last data marked stale, and emits fresh data unmarked as soon as it has some.
   */
  readonly stale: boolean;
}

export interface MarketSnapshot extends Snapshot<Market> {
  readonly asset: string;
  readonly marketId: string;
  /** `data.state.indexPrice`, lifted for convenience. */
  readonly price: Decimal;
}

export interface RiskSnapshot extends Snapshot<RiskStatus> {
  readonly accountId: string;
}

export interface PositionsSnapshot extends Snapshot<Position[]> {
  readonly accountId: string;
  readonly asset: string;
}

export interface OrdersSnapshot extends Snapshot<Order[]> {
  readonly accountId: string;
}

export interface AccountEventsSnapshot extends Snapshot<AccountEvent[]> {}

export const CANDLE_PERIODS = ['1m', '5m', '15m', '30m', '1h', '4h', '1D'] as const;
export type CandlePeriod = (typeof CANDLE_PERIODS)[number];
export const CANDLE_PERIOD_MS: Record<CandlePeriod, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1D': 86_400_000,
};

/** A candle of index prices, built from snapshots; emitted once, after its period has ended. */
export interface Candle {
  readonly asset: string;
  readonly period: CandlePeriod;
  /** Period start, unix ms, on a UTC boundary. */
  readonly openTime: number;
  /** Period end (exclusive), unix ms. */
  readonly closeTime: number;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
  /** Number of snapshots that built it. */
  readonly ticks: number;
}

/**
 * The latest snapshot of each stream, read by intent builders: kept by the runner's own
 * subscriptions (made before any strategy's), or by a feed that keeps them as it pushes.
 */
export interface LatestSnapshots {
  market(asset: string): MarketSnapshot | undefined;
  risk(accountId: string): RiskSnapshot | undefined;
  positions(accountId: string, asset: string): PositionsSnapshot | undefined;
  orders(accountId: string): OrdersSnapshot | undefined;
}

/** The streams of one pipeline. Each call for the same key returns the same shared stream. */
export interface MarketFeed {
  market$(asset: string): Observable<MarketSnapshot>;
  risk$(accountId: string): Observable<RiskSnapshot>;
  positions$(accountId: string, asset: string): Observable<PositionsSnapshot>;
  orders$(accountId: string): Observable<OrdersSnapshot>;
  accountEvents$(): Observable<AccountEventsSnapshot>;
}
