/**
 * Names the origin of every position event (see `report/origin.ts`): which order produced it, which
 * intent that order (or the order it was spawned from) belongs to, and so whether a strategy, a
 * protective order, the platform or the risk guard ended a trade. The backtester, the paper daemon
 * and the live daemon ask this one object.
 *
 * The executor reports each order it tracks with its intent; the engine (or the order polls, live)
 * reports every order with its parent and position. A market order fills inside its create request,
 * before the executor has tracked it, so an event is attributed once the request has returned (after
 * the step, in a replay), not from inside the engine's listener.
 */
import type { Subscription } from 'rxjs';
import type { Order, PositionEvent } from '../api/types.js';
import type { Executor } from '../execution/executor.js';
import { fillOrigin, type IntentRef, type Origin } from '../report/origin.js';

const PROTECTIVE: ReadonlySet<string> = new Set(['stop', 'take', 'trailing_stop']);

/**
 * What attributing a position event reads of it. `runBacktest` attributes its fills once the run has
 * ended, so it keeps one of these per fill, not the whole event and its order view.
 */
export type AttributedEvent = Pick<
  PositionEvent,
  'idx' | 'eventName' | 'closeReason' | 'market' | 'direction' | 'trader' | 'timestamp' | 'exchangedBase' | 'exchangedQuote'
> & { readonly order: Pick<Order, 'id' | 'type' | 'triggerPrice'> | null };

/** The fields of `event` that `Attribution.origin` reads. */
export function attributedEvent(event: AttributedEvent): AttributedEvent {
  const { idx, eventName, closeReason, market, direction, trader, timestamp, exchangedBase, exchangedQuote, order } = event;
  return {
    idx, eventName, closeReason, market, direction, trader, timestamp, exchangedBase, exchangedQuote,
    order: order === null ? null : { id: order.id, type: order.type, triggerPrice: order.triggerPrice },
  };
}

export class Attribution {
  readonly #intentOfOrder = new Map<string, IntentRef>();
  readonly #orders = new Map<string, Pick<Order, 'type' | 'parentOrderId' | 'positionId' | 'triggerPrice' | 'market' | 'direction' | 'status'>>();
  /**
   * Close-all intents per account, newest last: the venue closes the positions with orders of its own
   * that no answer returns, so a market close nobody tracked, made after one, is that intent's.
   */
  readonly #closeAlls = new Map<string, Array<{ readonly ref: IntentRef; readonly at: number }>>();
  readonly #sub: Subscription;

  constructor(executor: Executor) {
    this.#sub = executor.updates$.subscribe(({ state }) => {
      const { id, strategy, cause, note } = state.intent;
      const ref: IntentRef = { id, strategy, ...(cause !== undefined ? { cause } : {}), ...(note ? { note } : {}) };
      for (const o of state.orders) {
        this.#intentOfOrder.set(o.id, ref);
        this.observeOrder(o.order);
      }
      if (state.intent.kind === 'close_all' && state.requests.length > 0) {
        const list = this.#closeAlls.get(state.intent.accountId) ?? [];
        if (!list.some((c) => c.ref.id === id)) list.push({ ref, at: state.intent.createdAt });
        this.#closeAlls.set(state.intent.accountId, list);
      }
    });
  }

  /** An order as the engine or a poll shows it. */
  observeOrder(order: Order): void {
    const { type, parentOrderId, positionId, triggerPrice, market, direction, status } = order;
    this.#orders.set(order.id, { type, parentOrderId, positionId, triggerPrice, market, direction, status });
  }

  /** The intent an order belongs to, through the orders it was spawned from. */
  intentOf(orderId: string | undefined): IntentRef | undefined {
    let id = orderId;
    for (let hops = 0; id !== undefined && id !== null && hops < 8; hops += 1) {
      const intent = this.#intentOfOrder.get(id);
      if (intent) return intent;
      id = this.#orders.get(id)?.parentOrderId ?? undefined;
    }
    return undefined;
  }

  /** The origin of a position event; `order` may be null (a polled position record). */
  origin(event: AttributedEvent): Origin {
    const orderId = event.order?.id ?? (event.order === null ? this.#closingOrder(event) : undefined);
    const order = event.order ?? (orderId !== undefined ? this.#orders.get(orderId) : undefined);
    const ref = order === undefined ? undefined : { type: order.type, triggered: !order.triggerPrice.isZero() };
    return fillOrigin(event, ref, this.intentOf(orderId) ?? (ref?.triggered === false ? this.#closeAllBefore(event) : undefined));
  }

  #closeAllBefore(event: AttributedEvent): IntentRef | undefined {
    const at = event.timestamp.getTime();
    const list = this.#closeAlls.get(event.trader) ?? [];
    for (let i = list.length - 1; i >= 0; i -= 1) if (list[i]!.at <= at) return list[i]!.ref;
    return undefined;
  }

  /**
   * A polled position record carries no order. An increase: the latest executed increase order of ours
   * on its market and side. A close: one of ours that closed this position, else the protective order
   * whose trigger lies nearest the exit price.
   */
  #closingOrder(event: AttributedEvent): string | undefined {
    if (event.eventName === 'increasePosition') {
      let latest: string | undefined;
      for (const [id, o] of this.#orders) {
        if (o.positionId === null && o.market === event.market && o.direction === event.direction && o.status === 'executed' && this.#intentOfOrder.has(id)) latest = id;
      }
      return latest;
    }
    if (event.eventName !== 'closePosition') return undefined;
    let nearest: { id: string; distance: number } | undefined;
    const exit = event.exchangedBase.isZero() ? undefined : event.exchangedQuote.div(event.exchangedBase);
    for (const [id, o] of this.#orders) {
      if (o.positionId !== event.idx) continue;
      const protective = PROTECTIVE.has(o.type) && !o.triggerPrice.isZero();
      if (!protective && this.#intentOfOrder.has(id)) return id;
      if (protective && exit !== undefined) {
        const distance = o.triggerPrice.minus(exit).abs().toNumber();
        if (nearest === undefined || distance < nearest.distance) nearest = { id, distance };
      }
    }
    return nearest?.id;
  }

  close(): void {
    this.#sub.unsubscribe();
  }
}
