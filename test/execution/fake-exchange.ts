/**
 * A small in-memory Exchange for the executor's tests: it records every call (operation, arguments,
 * idempotency key, virtual time) and can inject the faults a real venue can not be made to produce on
 * demand: a 500, a timeout after acting, a timeout before acting, a 429 with retryAt, a 409 in flight,
 * a refusal, or a hold (the call blocks until released). Faults are the one legitimate stub here.
 * Idempotency: a key seen before, inside the replay window, returns the stored answer with
 * `replayed: true`; a key whose first call still runs answers 409.
 */
import type { Exchange, Idempotent, WriteOptions } from '../../src/api/exchange.js';
import {
  apiError,
  IdempotencyInFlightError,
  NotFoundError,
  OrderNotActiveError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
} from '../../src/api/errors.js';
import type { CreateOrderRequest, EditOrderRequest, Market, Order, Page, PageQuery, Position } from '../../src/api/types.js';
import type { VirtualClock } from '../../src/core/clock.js';
import { ZERO } from '../../src/core/decimal.js';
import { makeMarket, makeOrder, makePosition } from './fixtures.js';

export type Fault =
  | { kind: 'server' }
  | { kind: 'timeout-before' }
  | { kind: 'timeout-after' }
  | { kind: 'rate'; retryAt: number; bucket?: 'read' | 'write' }
  | { kind: 'in-flight' }
  | { kind: 'refuse'; status: number; code: string }
  | { kind: 'hold'; until: Promise<void>; after?: boolean }
  /** Neither a refusal nor a transient failure: a bug in an adapter, thrown before anything is sent. */
  | { kind: 'bug' };

export interface Call {
  op: string;
  args: unknown[];
  key: string | null;
  at: number;
}

type Op = keyof Exchange;

export class FakeExchange implements Exchange {
  readonly calls: Call[] = [];
  readonly orders = new Map<string, Order>();
  readonly positions: Position[] = [];
  readonly markets: Market[];
  readonly #clock: VirtualClock;
  readonly #faults = new Map<Op, Fault[]>();
  readonly #replay = new Map<string, { at: number; value: unknown } | 'in-flight'>();
  #seq = 0;
  /** Set false to behave like a venue that ignores the header (or a window that has passed). */
  idempotency = true;
  replayWindowMs = 60 * 60_000;

  constructor(clock: VirtualClock, markets: Market[] = [makeMarket('m-btc', 'BTC', '100')]) {
    this.#clock = clock;
    this.markets = markets;
  }

  /** Queue faults for the next calls of `op`, in order. */
  fail(op: Op, ...faults: Fault[]): this {
    this.#faults.set(op, [...(this.#faults.get(op) ?? []), ...faults]);
    return this;
  }

  callsOf(op: Op): Call[] {
    return this.calls.filter((c) => c.op === op);
  }

  addPosition(p: Partial<Position> & { direction: 'long' | 'short'; size: Position['size'] }, trader = 'acc-1'): Position {
    const pos = makePosition({ idx: `pos-${++this.#seq}`, trader, market: this.markets[0]!.id, openedAt: new Date(this.#clock.now()), ...p });
    this.positions.push(pos);
    return pos;
  }

  addOrder(p: Partial<Order> & Pick<Order, 'type' | 'direction' | 'amount'>, trader = 'acc-1'): Order {
    const o = makeOrder({ id: `ord-${++this.#seq}`, trader, market: this.markets[0]!.id, createdAt: new Date(this.#clock.now()), ...p });
    this.orders.set(o.id, o);
    return o;
  }

  async #enter(op: Op, args: unknown[], key: string | null): Promise<Fault | undefined> {
    this.calls.push({ op, args, key, at: this.#clock.now() });
    const fault = this.#faults.get(op)?.shift();
    if (!fault) return undefined;
    switch (fault.kind) {
      case 'server':
        throw new ServerError({ status: 500, code: 'server_error', message: 'injected 500' });
      case 'timeout-before':
        throw new RequestTimeoutError({ status: 0, code: 'request_timeout', message: 'injected timeout (not acted)' });
      case 'rate':
        throw new RateLimitError({
          status: 429,
          code: 'api_key_rate_limit_exceeded',
          message: 'injected 429',
          details: { bucket: fault.bucket ?? 'write', window: '1s', limit: 1, retryAt: new Date(fault.retryAt) },
        });
      case 'in-flight':
        throw new IdempotencyInFlightError({ status: 409, code: 'idempotency_key_in_flight', message: 'injected 409' });
      case 'refuse':
        throw apiError({ status: fault.status, code: fault.code, message: `injected ${fault.status} ${fault.code}` });
      case 'hold':
        if (!fault.after) await fault.until;
        return fault;
      case 'bug':
        throw new TypeError('injected adapter bug');
      case 'timeout-after':
        return fault;
    }
  }

  /** Run `act` under the key's idempotency, then apply an after-acting fault. */
  async #keyed<T>(op: Op, args: unknown[], options: WriteOptions | undefined, act: () => T): Promise<Idempotent<T>> {
    const key = options?.idempotencyKey ?? null;
    const fault = await this.#enter(op, args, key);
    const stored = key && this.idempotency ? this.#replay.get(key) : undefined;
    if (stored === 'in-flight') {
      throw new IdempotencyInFlightError({ status: 409, code: 'idempotency_key_in_flight', message: 'key in flight' });
    }
    if (stored && this.#clock.now() - stored.at <= this.replayWindowMs) {
      await this.#after(fault);
      return { value: stored.value as T, idempotency: { key, replayed: true, storedAt: new Date(stored.at) } };
    }
    if (key && this.idempotency) this.#replay.set(key, 'in-flight');
    let value: T;
    try {
      value = act();
    } catch (e) {
      if (key) this.#replay.delete(key);
      throw e;
    }
    if (key && this.idempotency) this.#replay.set(key, { at: this.#clock.now(), value });
    await this.#after(fault);
    return { value, idempotency: { key, replayed: false, storedAt: null } };
  }

  async #after(fault: Fault | undefined): Promise<void> {
    if (fault?.kind === 'hold' && fault.after) await fault.until;
    if (fault?.kind === 'timeout-after') {
      throw new RequestTimeoutError({ status: 0, code: 'request_timeout', message: 'injected timeout (acted)' });
    }
  }

  // ── writes ──

  createOrder(request: CreateOrderRequest, options?: WriteOptions): Promise<Idempotent<Order>> {
    return this.#keyed('createOrder', [request], options, () => {
      if (request.amount.lte(0)) throw apiError({ status: 400, code: 'amount_not_positive', message: 'amount' });
      const now = this.#clock.now();
      const atMarket = request.type === 'market' || ((request.type === 'take' || request.type === 'stop') && (request.triggerPrice ?? ZERO).isZero());
      const market = this.markets.find((m) => m.id === request.marketId);
      if (!market) throw new NotFoundError({ status: 404, code: 'not_found', message: 'market' });
      const order = makeOrder({
        id: `ord-${++this.#seq}`,
        trader: request.accountId,
        market: request.marketId,
        type: request.type,
        direction: request.direction,
        amount: request.amount,
        triggerPrice: request.triggerPrice ?? ZERO,
        stopTriggerPrice: request.stopTriggerPrice ?? ZERO,
        takeTriggerPrice: request.takeTriggerPrice ?? ZERO,
        trailingStopOffset: request.trailingStopOffset ?? ZERO,
        trailingStopOffsetPercent: request.trailingStopOffsetPercent ?? ZERO,
        trailingStopActivationPrice: request.trailingStopActivationPrice ?? ZERO,
        leverage: request.leverage ?? null,
        positionId: request.positionId ?? null,
        sizeMode: request.sizeMode ?? 'quote',
        baseSize: request.baseSize ?? null,
        reservedAmount: request.sizeMode === 'base' ? request.amount : null,
        createdAt: new Date(now),
        status: atMarket ? 'executed' : 'active',
        indexPrice: atMarket ? market.state.indexPrice : null,
      });
      this.orders.set(order.id, order);
      if (atMarket && order.positionId) {
        const pos = this.positions.find((p) => p.idx === order.positionId);
        if (pos) {
          const left = pos.size.minus(order.amount);
          Object.assign(pos, left.lte(0) ? { size: ZERO, status: 'closed' } : { size: left });
        }
      }
      return order;
    });
  }

  async editOrder(orderId: string, request: EditOrderRequest): Promise<Order> {
    const fault = await this.#enter('editOrder', [orderId, request], null);
    const old = this.orders.get(orderId);
    if (!old) throw new NotFoundError({ status: 404, code: 'not_found', message: 'order' });
    if (old.status !== 'active') throw new OrderNotActiveError({ status: 403, code: 'forbidden', message: 'not active' });
    this.orders.set(orderId, { ...old, status: 'canceled_by_update' });
    const fresh: Order = {
      ...old,
      id: `ord-${++this.#seq}`,
      triggerPrice: request.triggerPrice ?? old.triggerPrice,
      amount: request.amount ?? old.amount,
      createdAt: new Date(this.#clock.now()),
    };
    fresh.txId = fresh.id;
    fresh.index = fresh.id;
    this.orders.set(fresh.id, fresh);
    await this.#after(fault);
    return fresh;
  }

  async cancelOrder(orderId: string): Promise<void> {
    const fault = await this.#enter('cancelOrder', [orderId], null);
    const o = this.orders.get(orderId);
    if (!o) throw new NotFoundError({ status: 404, code: 'not_found', message: 'order' });
    if (o.status !== 'active') throw new OrderNotActiveError({ status: 403, code: 'forbidden', message: 'not active' });
    this.orders.set(orderId, { ...o, status: 'canceled' });
    await this.#after(fault);
  }

  closeAllAccount(accountId: string, options?: WriteOptions): Promise<Idempotent<void>> {
    return this.#keyed('closeAllAccount', [accountId], options, () => {
      for (const o of this.orders.values()) if (o.trader === accountId && o.status === 'active') this.orders.set(o.id, { ...o, status: 'canceled' });
      this.#closePositions(accountId);
    });
  }

  closeAllPositions(accountId: string, options?: WriteOptions): Promise<Idempotent<void>> {
    return this.#keyed('closeAllPositions', [accountId], options, () => this.#closePositions(accountId));
  }

  #closePositions(accountId: string): void {
    for (const p of this.positions) {
      if (p.trader === accountId && p.status === 'opened') Object.assign(p, { status: 'closed', size: ZERO });
    }
  }

  // ── reads ──

  async listActiveOrders(accountId: string): Promise<Order[]> {
    await this.#enter('listActiveOrders', [accountId], null);
    return [...this.orders.values()]
      .filter((o) => o.trader === accountId && o.status === 'active')
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  async listOrderHistory(accountId: string, asset: string, query: PageQuery = {}): Promise<Page<Order>> {
    await this.#enter('listOrderHistory', [accountId, asset, query], null);
    const market = this.markets.find((m) => m.config.baseAsset === asset);
    if (!market) throw new NotFoundError({ status: 404, code: 'not_found', message: 'ticker' });
    const all = [...this.orders.values()]
      .filter((o) => o.trader === accountId && o.market === market.id && o.status !== 'active' && o.status !== 'canceled_by_update')
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const offset = query.offset ?? 0;
    return { data: all.slice(offset, offset + (query.limit ?? 20)), totalCount: all.length };
  }

  async listActivePositions(accountId: string, asset: string): Promise<Position[]> {
    await this.#enter('listActivePositions', [accountId, asset], null);
    const market = this.markets.find((m) => m.config.baseAsset === asset);
    return this.positions.filter((p) => p.trader === accountId && p.market === market?.id && p.status === 'opened');
  }

  async listMarkets(): Promise<Market[]> {
    await this.#enter('listMarkets', [], null);
    return this.markets;
  }

  // ── not used by the executor ──
  getRiskStatus(): never {
    throw new Error('FakeExchange: getRiskStatus not implemented');
  }
  listRiskStatuses(): never {
    throw new Error('FakeExchange: listRiskStatuses not implemented');
  }
  getEquityHistory(): never {
    throw new Error('FakeExchange: getEquityHistory not implemented');
  }
  listAccountEvents(): never {
    throw new Error('FakeExchange: listAccountEvents not implemented');
  }
  getScalpingCoefficient(): never {
    throw new Error('FakeExchange: getScalpingCoefficient not implemented');
  }
  listChartEvents(): never {
    throw new Error('FakeExchange: listChartEvents not implemented');
  }
  getChartEventBuckets(): never {
    throw new Error('FakeExchange: getChartEventBuckets not implemented');
  }
  getPositionHistory(): never {
    throw new Error('FakeExchange: getPositionHistory not implemented');
  }
  getMarket(): never {
    throw new Error('FakeExchange: getMarket not implemented');
  }
}

/** A sleep that moves the virtual clock instead of waiting. */
export function virtualSleep(clock: VirtualClock): (ms: number) => Promise<void> {
  return async (ms: number) => {
    clock.advance(Math.max(0, Math.ceil(ms)));
    await new Promise<void>((r) => setImmediate(r));
  };
}

/** A promise with its resolver, for holds. */
export function gate(): { until: Promise<void>; release: () => void } {
  let release!: () => void;
  const until = new Promise<void>((r) => (release = r));
  return { until, release };
}
