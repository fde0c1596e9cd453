/**
 * The API requests an intent turns into, and how to recognise, among the orders the venue lists, the
 * one a request produced when its answer was lost. Pure functions: no I/O, no clock.
 */
import type { CreateOrderRequest, Order, Position } from '../api/types.js';
import { ZERO } from '../core/decimal.js';
import type { CloseIntent, OpenIntent, TrailingStopSpec } from '../strategy/intents.js';
import type { Decimal } from 'decimal.js';

/** `POST /orders` body of an open intent. Optional fields are left out rather than sent as null. */
export function openRequest(intent: OpenIntent, marketId: string): CreateOrderRequest {
  const req: CreateOrderRequest = {
    accountId: intent.accountId,
    marketId,
    type: intent.entry.type,
    direction: intent.direction,
    amount: intent.sizing.kind === 'quote' ? intent.sizing.amount : intent.sizing.maxAmount,
    leverage: intent.leverage,
  };
  if (intent.sizing.kind === 'base') {
    req.sizeMode = 'base';
    req.baseSize = intent.sizing.size;
  }
  const entry = intent.entry;
  if (entry.type === 'limit') req.triggerPrice = entry.price;
  if (entry.type === 'stop_market') req.triggerPrice = entry.trigger;
  if (entry.type === 'stop_limit') {
    req.triggerPrice = entry.trigger;
    req.stopLimitPrice = entry.limit;
  }
  if (intent.stopLoss !== undefined) req.stopTriggerPrice = intent.stopLoss;
  if (intent.takeProfit !== undefined) req.takeTriggerPrice = intent.takeProfit;
  if (intent.minSize !== undefined) req.expectedAmount = intent.minSize;
  return req;
}

/** A close at market: a `take` without trigger (see HELPERS.md) for the base size to close. */
export function closeRequest(intent: CloseIntent, position: Position): CreateOrderRequest {
  return {
    accountId: intent.accountId,
    marketId: position.market,
    type: 'take',
    direction: position.direction,
    positionId: position.idx,
    amount: intent.size ?? position.size,
    triggerPrice: ZERO,
  };
}

/** A protective `stop` or `take` for the whole position. */
export function protectiveRequest(
  accountId: string,
  position: Position,
  type: 'stop' | 'take',
  trigger: Decimal,
): CreateOrderRequest {
  return {
    accountId,
    marketId: position.market,
    type,
    direction: position.direction,
    positionId: position.idx,
    amount: position.size,
    triggerPrice: trigger,
  };
}

export function trailingRequest(accountId: string, position: Position, spec: TrailingStopSpec): CreateOrderRequest {
  const req: CreateOrderRequest = {
    accountId,
    marketId: position.market,
    type: 'trailing_stop',
    direction: position.direction,
    positionId: position.idx,
    amount: position.size,
  };
  if (spec.offset !== undefined) req.trailingStopOffset = spec.offset;
  if (spec.offsetPercent !== undefined) req.trailingStopOffsetPercent = spec.offsetPercent;
  if (spec.activationPrice !== undefined) req.trailingStopActivationPrice = spec.activationPrice;
  return req;
}

/** Whether an existing trailing stop already is what `spec` asks for. */
export function sameTrailing(order: Order, spec: TrailingStopSpec): boolean {
  const eq = (a: Decimal, b: Decimal | undefined) => a.eq(b ?? ZERO);
  return (
    eq(order.trailingStopOffset, spec.offset) &&
    eq(order.trailingStopOffsetPercent, spec.offsetPercent) &&
    eq(order.trailingStopActivationPrice, spec.activationPrice)
  );
}

const CLOSE_TYPES = new Set(['stop', 'take', 'trailing_stop']);

/**
 * Whether `order` is what `req` would have produced: same account, market, type, direction, size
 * (the reserve for quote sizing, base size and reserve for base sizing, base size for close orders),
 * same position and trigger, and created no earlier than `sinceMs`.
 */
export function orderMatchesRequest(order: Order, req: CreateOrderRequest, sinceMs: number): boolean {
  if (order.trader !== req.accountId || order.market !== req.marketId) return false;
  if (order.type !== req.type || order.direction !== req.direction) return false;
  if (order.createdAt.getTime() < sinceMs) return false;
  if (CLOSE_TYPES.has(req.type)) {
    if ((req.positionId ?? null) !== order.positionId) return false;
    if (!order.amount.eq(req.amount)) return false;
  } else if (req.sizeMode === 'base') {
    if (!req.baseSize || !order.baseSize || !order.baseSize.eq(req.baseSize)) return false;
    if (!(order.reservedAmount ?? order.amount).eq(req.amount)) return false;
  } else if (!order.amount.eq(req.amount)) {
    return false;
  }
  const trigger = req.triggerPrice ?? ZERO;
  if (!trigger.isZero() && !order.triggerPrice.eq(trigger) && !(order.requestedTriggerPrice?.eq(trigger) ?? false)) {
    return false;
  }
  return true;
}

/**
 * What is known of the order an edit replaces: all of it while the edit runs and, after a restart,
 * what its request stored (`RequestRecord.editedOrder`; only the id and type for a request an older
 * propbot stored). Fields left out are not compared.
 */
export type EditedOrder = Pick<Order, 'id' | 'type'> & Partial<Pick<Order, 'trader' | 'market' | 'positionId'>>;

/** The order an edit produced: same position and type, the new trigger, created since the edit was stored. */
export function orderMatchesEdit(order: Order, original: EditedOrder, trigger: Decimal, sinceMs: number): boolean {
  return (
    order.id !== original.id &&
    (original.trader === undefined || order.trader === original.trader) &&
    (original.market === undefined || order.market === original.market) &&
    order.type === original.type &&
    (original.positionId === undefined || order.positionId === original.positionId) &&
    order.createdAt.getTime() >= sinceMs &&
    (order.triggerPrice.eq(trigger) || (order.requestedTriggerPrice?.eq(trigger) ?? false))
  );
}
