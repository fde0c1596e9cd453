/**
 * The exchange port: every operation of the platform's API, once. The HTTP client (`HttpExchange`)
 * and the local engine (`LocalExchange`) both implement it, so the runtime swaps one for the other and
 * nothing above it can tell which it talks to. Errors are the classes of `./errors.ts` on both sides.
 */
import type {
  AccountEvent,
  ChartBucketsQuery,
  ChartEvent,
  ChartEventBucket,
  ChartEventsQuery,
  CreateOrderRequest,
  EditOrderRequest,
  EquityHistoryQuery,
  EquityPoint,
  Market,
  MarketQuery,
  Order,
  Page,
  PageQuery,
  Position,
  PositionEvent,
  RiskStatus,
  ScalpingCoefficient,
} from './types.js';

export interface WriteOptions {
  /** Sent as `x-idempotency-key`; generated when omitted (pass `null` to opt out of idempotency). */
  idempotencyKey?: string | null;
}

export interface IdempotencyInfo {
  /** The key the request carried; null when the caller opted out. */
  key: string | null;
  /** True when the venue replayed a stored response instead of acting (`X-Idempotency-Cached`). */
  replayed: boolean;
  /** When the stored response was first produced (`X-Idempotency-Timestamp`); null when not a replay. */
  storedAt: Date | null;
}

export interface Idempotent<T> {
  value: T;
  idempotency: IdempotencyInfo;
}

export interface Exchange {
  // Accounts
  getRiskStatus(accountId: string): Promise<RiskStatus>;
  listRiskStatuses(): Promise<RiskStatus[]>;
  getEquityHistory(accountId: string, query?: EquityHistoryQuery): Promise<EquityPoint[]>;
  closeAllAccount(accountId: string, options?: WriteOptions): Promise<Idempotent<void>>;
  listAccountEvents(query?: PageQuery): Promise<Page<AccountEvent>>;

  // Trading: positions and chart markers
  getScalpingCoefficient(accountId: string, asset: string): Promise<ScalpingCoefficient>;
  listChartEvents(accountId: string, asset: string, query: ChartEventsQuery): Promise<Page<ChartEvent>>;
  getChartEventBuckets(accountId: string, asset: string, query: ChartBucketsQuery): Promise<ChartEventBucket[]>;
  listActivePositions(accountId: string, asset: string): Promise<Position[]>;
  closeAllPositions(accountId: string, options?: WriteOptions): Promise<Idempotent<void>>;
  getPositionHistory(positionId: string): Promise<PositionEvent[]>;

  // Trading: orders
  listActiveOrders(accountId: string): Promise<Order[]>;
  listOrderHistory(accountId: string, asset: string, query?: PageQuery): Promise<Page<Order>>;
  createOrder(request: CreateOrderRequest, options?: WriteOptions): Promise<Idempotent<Order>>;
  editOrder(orderId: string, request: EditOrderRequest): Promise<Order>;
  cancelOrder(orderId: string): Promise<void>;

  // Config
  getMarket(marketId: string, query?: MarketQuery): Promise<Market>;
  listMarkets(): Promise<Market[]>;
}

/** The operation names of the port, for rate-limit bucketing, metrics and logs. */
export type ExchangeOperation = keyof Exchange;

/** Which rate-limit bucket an operation spends: writes change state, reads do not. */
export const OPERATION_BUCKET: Record<ExchangeOperation, 'read' | 'write'> = {
  getRiskStatus: 'read',
  listRiskStatuses: 'read',
  getEquityHistory: 'read',
  closeAllAccount: 'write',
  listAccountEvents: 'read',
  getScalpingCoefficient: 'read',
  listChartEvents: 'read',
  getChartEventBuckets: 'read',
  listActivePositions: 'read',
  closeAllPositions: 'write',
  getPositionHistory: 'read',
  listActiveOrders: 'read',
  listOrderHistory: 'read',
  createOrder: 'write',
  editOrder: 'write',
  cancelOrder: 'write',
  getMarket: 'read',
  listMarkets: 'read',
};

/** Walk every page of a paged read (limit/offset with totalCount). */
export async function* paginate<T>(
  fetchPage: (query: { limit: number; offset: number }) => Promise<Page<T>>,
  pageSize = 100,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (;;) {
    const page = await fetchPage({ limit: pageSize, offset });
    for (const item of page.data) yield item;
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.totalCount) return;
  }
}
