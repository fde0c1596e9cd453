/**
 * The `Exchange` port over the local engine, acting as one user. It enforces what the platform enforces
 * for a caller (the common access rules, `api_trading_not_enabled` for API-key callers, 404s) and
 * idempotency, and throws the same error classes as the HTTP client, so the two are interchangeable.
 */
import type { Exchange, Idempotent, WriteOptions } from '../api/exchange.js';
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
} from '../api/types.js';
import type { EngineCore } from './core.js';
import * as reads from './reads.js';
import * as requests from './requests.js';
import { notFound } from './validation.js';
import { riskStatusView } from './views.js';

export interface LocalExchangeOptions {
  /** Act as an API-key caller: accounts with `api_trading` disabled refuse (`api_trading_not_enabled`). Default false. */
  viaApiKey?: boolean;
  /**
   * Runs inside an idempotent write after its key is marked in flight and before it acts; a second call
   * with the same key meanwhile gets `IdempotencyInFlightError`. For tests of that race.
   */
  beforeAct?: () => Promise<void>;
}

/**
 * The reads a replay publishes after every step, answered at once: the engine is in process, so a
 * backtest needs no promise per step. Same access checks and views as the async port (which calls
 * these), so what a replay publishes is exactly what a poll of the port would read.
 */
export class LocalReads {
  readonly #core: EngineCore;
  readonly #user: string;
  readonly #api: boolean;

  constructor(core: EngineCore, userId: string, viaApiKey: boolean) {
    this.#core = core;
    this.#user = userId;
    this.#api = viaApiKey;
  }

  #account(accountId: string, request: string) {
    return this.#core.account(this.#user, this.#api, accountId, request);
  }

  getRiskStatus(accountId: string): RiskStatus {
    return riskStatusView(this.#account(accountId, `GET /accounts/${accountId}/risk-status`));
  }

  listActivePositions(accountId: string, asset: string): Position[] {
    const R = `GET /positions/${accountId}/${asset}/active`;
    const a = this.#account(accountId, R);
    return reads.activePositions(a, this.#core.marketOf(asset, R));
  }

  listActiveOrders(accountId: string): Order[] {
    return reads.activeOrders(this.#account(accountId, `GET /orders/${accountId}/active`));
  }

  listAccountEvents(query?: PageQuery): Page<AccountEvent> {
    const R = 'GET /accounts/events';
    this.#core.checkUser(this.#user, R);
    return reads.accountEvents(this.#core, this.#user, this.#api, query, R);
  }

  getMarket(marketId: string, query?: MarketQuery): Market {
    const R = `GET /v2/markets/${marketId}`;
    const core = this.#core;
    core.checkUser(this.#user, R);
    const m = core.markets.get(marketId);
    if (!m) throw notFound('market', marketId, R);
    if (query?.accountId === undefined) return reads.marketFor(core, m, undefined, undefined);
    const a = this.#account(query.accountId, R);
    if (a.category !== null && a.category !== m.config.category) throw notFound('market', marketId, R);
    return reads.marketFor(core, m, a, core.maxLeverage(a, m));
  }

  listMarkets(): Market[] {
    this.#core.checkUser(this.#user, 'GET /v2/markets');
    return reads.sortedMarkets(this.#core).map((m) => reads.marketFor(this.#core, m, undefined, undefined));
  }
}

export class LocalExchange implements Exchange {
  readonly #core: EngineCore;
  readonly #user: string;
  readonly #api: boolean;
  readonly #beforeAct: (() => Promise<void>) | undefined;
  /** The same reads without a promise (replays publish through them). */
  readonly now: LocalReads;

  constructor(core: EngineCore, userId: string, options: LocalExchangeOptions = {}) {
    this.#core = core;
    this.#user = userId;
    this.#api = options.viaApiKey ?? false;
    this.#beforeAct = options.beforeAct;
    this.now = new LocalReads(core, userId, this.#api);
  }

  #account(accountId: string, request: string) {
    return this.#core.account(this.#user, this.#api, accountId, request);
  }

  #key(options: WriteOptions | undefined): string | null {
    if (options?.idempotencyKey === undefined) return `local-${this.#core.idemKeys.next()}`;
    return options.idempotencyKey;
  }

  // Accounts
  async getRiskStatus(accountId: string): Promise<RiskStatus> {
    return this.now.getRiskStatus(accountId);
  }

  async listRiskStatuses(): Promise<RiskStatus[]> {
    this.#core.checkUser(this.#user, 'GET /accounts/risk-status');
    return this.#core.accountList
      .filter((a) => a.userId === this.#user && (!this.#api || a.apiTrading))
      .map(riskStatusView);
  }

  async getEquityHistory(accountId: string, query?: EquityHistoryQuery): Promise<EquityPoint[]> {
    const R = `GET /accounts/${accountId}/equity-history`;
    return reads.equityHistory(this.#core, this.#account(accountId, R), query, R);
  }

  async closeAllAccount(accountId: string, options?: WriteOptions): Promise<Idempotent<void>> {
    const R = `POST /accounts/${accountId}/close-all`;
    this.#account(accountId, R);
    const core = this.#core;
    return core.idempotency.run(`${this.#user} ${R}`, this.#key(options), core.presets.limits.closeAllIdempotencyMs, () => core.now, this.#beforeAct, () =>
      requests.closeAllAccount(core, this.#user, this.#api, accountId),
    );
  }

  async listAccountEvents(query?: PageQuery): Promise<Page<AccountEvent>> {
    return this.now.listAccountEvents(query);
  }

  // Trading: positions and chart markers
  async getScalpingCoefficient(accountId: string, asset: string): Promise<ScalpingCoefficient> {
    const R = `GET /positions/${accountId}/${asset}/scalping-coefficient`;
    const a = this.#account(accountId, R);
    return reads.scalpingCoefficient(a, this.#core.marketOf(asset, R), this.#core.now);
  }

  async listChartEvents(accountId: string, asset: string, query: ChartEventsQuery): Promise<Page<ChartEvent>> {
    const R = `GET /positions/${accountId}/${asset}/chart-events`;
    const a = this.#account(accountId, R);
    return reads.chartEvents(this.#core, a, this.#core.marketOf(asset, R), query, R);
  }

  async getChartEventBuckets(accountId: string, asset: string, query: ChartBucketsQuery): Promise<ChartEventBucket[]> {
    const R = `GET /positions/${accountId}/${asset}/chart-events/buckets`;
    const a = this.#account(accountId, R);
    return reads.chartBuckets(this.#core, a, this.#core.marketOf(asset, R), query, R);
  }

  async listActivePositions(accountId: string, asset: string): Promise<Position[]> {
    return this.now.listActivePositions(accountId, asset);
  }

  async closeAllPositions(accountId: string, options?: WriteOptions): Promise<Idempotent<void>> {
    const R = `POST /positions/${accountId}/close-all`;
    this.#account(accountId, R);
    const core = this.#core;
    return core.idempotency.run(`${this.#user} ${R}`, this.#key(options), core.presets.limits.closeAllIdempotencyMs, () => core.now, this.#beforeAct, () =>
      requests.closeAllPositions(core, this.#user, this.#api, accountId),
    );
  }

  async getPositionHistory(positionId: string): Promise<PositionEvent[]> {
    const R = `GET /positions/${positionId}/history`;
    this.#core.checkUser(this.#user, R);
    const pos = this.#core.positions.get(positionId);
    if (!pos) throw notFound('position', positionId, R);
    this.#account(pos.account.id, R);
    return reads.positionHistory(this.#core, positionId);
  }

  // Trading: orders
  async listActiveOrders(accountId: string): Promise<Order[]> {
    return this.now.listActiveOrders(accountId);
  }

  async listOrderHistory(accountId: string, asset: string, query?: PageQuery): Promise<Page<Order>> {
    const R = `GET /orders/${accountId}/${asset}/history`;
    const a = this.#account(accountId, R);
    return reads.orderHistory(this.#core, a, this.#core.marketOf(asset, R), query, R);
  }

  async createOrder(request: CreateOrderRequest, options?: WriteOptions): Promise<Idempotent<Order>> {
    const core = this.#core;
    core.checkUser(this.#user, 'POST /orders');
    return core.idempotency.run(`${this.#user} POST /orders`, this.#key(options), core.presets.limits.orderIdempotencyMs, () => core.now, this.#beforeAct, () =>
      requests.createOrder(core, this.#user, this.#api, request),
    );
  }

  async editOrder(orderId: string, request: EditOrderRequest): Promise<Order> {
    return requests.editOrder(this.#core, this.#user, this.#api, orderId, request);
  }

  async cancelOrder(orderId: string): Promise<void> {
    requests.cancelOrder(this.#core, this.#user, this.#api, orderId);
  }

  // Config
  async getMarket(marketId: string, query?: MarketQuery): Promise<Market> {
    return this.now.getMarket(marketId, query);
  }

  async listMarkets(): Promise<Market[]> {
    return this.now.listMarkets();
  }
}
