/**
 * The trading requests of the API against the engine state: `POST /orders` validated in the spec's order
 * (steps 2–7 here, step 1 in validation.ts), `PATCH` by replacement, `DELETE`, and both close-alls.
 * Execution itself (fills, children, rules) belongs to EngineCore.
 */
import { fieldsRefusal, misplacedEditFields } from '../api/order-fields.js';
import { LOCKED_STATUSES } from '../api/types.js';
import type { CreateOrderRequest, EditOrderRequest, Order } from '../api/types.js';
import type { EngineCore } from './core.js';
import { S, ceilDiv, decToRaw, divFloor, mulCeil, mulFloor, rawHuman } from './fixed.js';
import { fillQuote, quoteSizing, refreshLiquidationPrice } from './pricing.js';
import { activeOrdersStart } from './reads.js';
import type { AccountRt, MarketRt, OrderRt, PositionRt } from './state.js';
import { trailInit } from './triggers.js';
import { checkProtections, checkShape, forbidden, invalid, invalidLeverage, notFound, type OrderShape } from './validation.js';
import { orderView } from './views.js';

/** `POST /orders`, validated in the spec's order. */
export function createOrder(core: EngineCore, userId: string, viaApiKey: boolean, req: CreateOrderRequest): Order {
  const R = 'POST /orders';
  core.checkUser(userId, R);
  // 1. shape
  const sh = checkShape(req);
  // 2. leverage: its bounds depend on the market and the account's type and phase
  const known = core.accounts.get(req.accountId);
  if (!known) throw notFound('account', req.accountId, R);
  const m = core.markets.get(req.marketId);
  if (!m) throw notFound('market', req.marketId, R);
  if (sh.isIncrease) {
    if (sh.leverage < m.minLeverage) throw invalidLeverage(sh.leverage, 'minLeverage', m.minLeverage);
    const max = core.maxLeverage(known, m);
    if (sh.leverage > max) throw invalidLeverage(sh.leverage, 'maxLeverage', max);
  }
  // 3. account: the caller's, API trading when by key, a trading status, free balance for increases
  const a = core.account(userId, viaApiKey, req.accountId, R);
  tradingStatus(a, sh.isIncrease, R);
  if (sh.isIncrease && sh.amount > core.free(a)) {
    throw invalid('insufficient_free_balance', `amount: ${rawHuman(sh.amount)} exceeds the free balance ${rawHuman(core.free(a))} of account ${a.id}`);
  }
  // 4. market
  marketOpen(m, R);
  if (a.category !== null && m.config.category !== a.category) {
    throw forbidden('market_not_available', `account ${a.id} may trade ${a.category} markets only; ${m.asset} is ${m.config.category}`, R);
  }
  if (m.isCloseOnly && !(sh.type === 'take' && sh.trigger === 0n)) {
    throw forbidden('market_close_only', `market ${m.asset} is close-only: only a take order without a trigger price is accepted`, R);
  }
  // 5. position
  let pos: PositionRt | undefined;
  if (!sh.isIncrease) {
    pos = core.positions.get(sh.positionId!);
    if (!pos) throw invalid('position_not_found', `positionId: no position ${sh.positionId}`);
    if (pos.status !== 'opened' || pos.account !== a || pos.market !== m || pos.direction !== sh.direction) {
      throw invalid('position_not_available', `positionId: position ${pos.id} is not an open ${sh.direction} position of account ${a.id} on ${m.asset}`);
    }
  }
  // 6. trigger
  const o = orderFrom(core, a, m, sh);
  checkTrigger(core, o, m, pos, sh, R);
  // 7. notional
  if (sh.isIncrease) checkNotional(core, a, m, o, R);

  if (sh.isIncrease) {
    o.reserve = o.amount;
    a.reserved += o.reserve;
  }
  core.orders.set(o.id, o);
  a.orders.push(o);
  if (o.type === 'market') {
    core.emitOrder(o);
    const err = core.executeIncrease(o);
    if (err) core.finish(o, 'canceled_by_error', null, err);
  } else if (o.noTrigger) {
    core.emitOrder(o);
    core.executeCloseOrder(o);
    m.orders = m.orders.filter((x) => x.status === 'active');
  } else {
    m.orders.push(o);
    if (o.type === 'trailing_stop') trailInit(o);
    core.emitOrder(o);
  }
  core.checkDirty();
  return orderView(o);
}



function tradingStatus(a: AccountRt, growing: boolean, request: string): void {
  if (a.status === 'active') return;
  if (LOCKED_STATUSES.includes(a.status)) {
    if (growing) throw forbidden('funded_limit_trading_locked', `account ${a.id} is locked by the managed capital limit (${a.status}): only closing is allowed`, request);
    return;
  }
  throw forbidden('challenge_closed', `trading on account ${a.id} is over in status ${a.status}`, request);
}

function marketOpen(m: MarketRt, request: string): void {
  if (m.isClosed) throw forbidden('market_closed', `market ${m.asset} is closed`, request);
  if (m.isPaused || m.inPause) throw forbidden('market_paused', `market ${m.asset} is paused`, request);
}

function orderFrom(core: EngineCore, a: AccountRt, m: MarketRt, sh: OrderShape): OrderRt {
  const o = core.newOrder(a, m, {
    type: sh.type,
    direction: sh.direction,
    amount: sh.amount,
    positionId: sh.positionId,
    leverage: sh.isIncrease ? sh.leverage : null,
    isIncrease: sh.isIncrease,
  });
  o.trigger = sh.trigger ?? 0n;
  o.noTrigger = (sh.type === 'stop' || sh.type === 'take') && sh.trigger === 0n;
  if (sh.type === 'stop_market') {
    o.stopPrice = o.trigger;
    o.limitPrice = o.trigger;
  } else if (sh.type === 'stop_limit') {
    o.stopPrice = o.trigger;
    o.limitPrice = sh.stopLimitPrice;
  } else o.limitPrice = o.trigger;
  o.stopTrigger = sh.stopTrigger;
  o.takeTrigger = sh.takeTrigger;
  o.trailActivation = sh.trailActivation;
  o.trailOffset = sh.trailOffset;
  o.trailOffsetPct = sh.trailOffsetPct;
  o.expectedAmount = sh.expectedAmount;
  o.sizeMode = sh.sizeMode;
  o.baseSize = sh.baseSize;
  o.reservedAmount = sh.sizeMode === 'base' ? sh.amount : null;
  return o;
}

/** Step 6: trigger against the current price, the minimum stop distance, the liquidation price. */
function checkTrigger(core: EngineCore, o: OrderRt, m: MarketRt, pos: PositionRt | undefined, sh: OrderShape, request: string): void {
  const needsPrice = o.type !== 'trailing_stop' || o.trailActivation === 0n;
  if (!m.hasPrice && needsPrice) throw invalid('market_price_unavailable', `market ${m.asset} has no current price`, request);
  const I = m.price;
  const long = o.direction === 'long';
  const t = o.trigger;
  const gt = () => invalid('trigger_price_gt_current', `triggerPrice: ${rawHuman(t)} is above the current price ${rawHuman(I)}`, request);
  const lt = () => invalid('trigger_price_lt_current', `triggerPrice: ${rawHuman(t)} is below the current price ${rawHuman(I)}`, request);
  switch (o.type) {
    case 'limit':
      if (long && t > I) throw gt();
      if (!long && t < I) throw lt();
      break;
    case 'stop_market':
    case 'stop_limit':
      if (long && t < I) throw lt();
      if (!long && t > I) throw gt();
      break;
    case 'stop':
      if (o.noTrigger) break;
      if (long && t > I) throw gt();
      if (!long && t < I) throw lt();
      core.pushOut(o, long, m);
      checkLiquidation(o.trigger, pos!.liqPrice, long, request);
      break;
    case 'take':
      if (o.noTrigger) break;
      if (long && t < I) throw lt();
      if (!long && t > I) throw gt();
      checkLiquidation(o.trigger, pos!.liqPrice, long, request);
      break;
    case 'market':
      if (o.stopTrigger > 0n || o.takeTrigger > 0n) {
        checkProtections(long, I, o.stopTrigger, o.takeTrigger, request);
        const liq = projectedLiq(core, o, m, sh, request);
        if (o.stopTrigger > 0n) checkLiquidation(o.stopTrigger, liq, long, request);
      }
      break;
    default:
      break;
  }
}

function checkLiquidation(trigger: bigint, liq: bigint, long: boolean, request: string): void {
  if (long && trigger < liq) throw invalid('trigger_price_lt_liquidation', `triggerPrice: ${rawHuman(trigger)} is below the liquidation price ${rawHuman(liq)}`, request);
  if (!long && trigger > liq) throw invalid('trigger_price_gt_liquidation', `triggerPrice: ${rawHuman(trigger)} is above the liquidation price ${rawHuman(liq)}`, request);
}

/** Liquidation price the position would have after a market order filled now. */
function projectedLiq(core: EngineCore, o: OrderRt, m: MarketRt, sh: OrderShape, request: string): bigint {
  const a = o.account;
  const buy = o.direction === 'long';
  let size: bigint;
  let notional: bigint;
  let margin: bigint;
  if (sh.sizeMode === 'base') {
    if (sh.baseSize === null) throw invalid('order_validation_invariant', 'baseSize missing for the liquidation projection', request);
    size = sh.baseSize;
    const q = fillQuote(m, core.multiplier(a, m), buy, mulFloor(size, m.price));
    notional = buy ? mulCeil(size, q.price) : mulFloor(size, q.price);
    margin = ceilDiv(notional * S, sh.leverage);
  } else {
    const sz = quoteSizing(sh.amount, sh.leverage, m.fee);
    const q = fillQuote(m, core.multiplier(a, m), buy, sz.notional);
    notional = sz.notional;
    margin = sz.margin;
    size = divFloor(notional, q.price);
  }
  if (size <= 0n || notional <= 0n) {
    throw invalid('order_validation_invariant', `the order's size at the current price is zero; cannot project its liquidation price`, request);
  }
  const existing = a.positions.find((x) => x.market === m && x.direction === o.direction);
  const probe = {
    direction: o.direction,
    market: m,
    size: size + (existing?.size ?? 0n),
    notional: notional + (existing?.notional ?? 0n),
    margin: margin + (existing?.margin ?? 0n),
    liqPrice: 0n,
  } as PositionRt;
  refreshLiquidationPrice(probe);
  return probe.liqPrice;
}

/** Step 7: (amount − fee) × leverage within the market's max open notional on the side. */
function checkNotional(core: EngineCore, a: AccountRt, m: MarketRt, o: OrderRt, request: string): void {
  const cap = o.direction === 'long' ? m.maxOpenLong : m.maxOpenShort;
  if (cap === 0n) return;
  const n = o.sizeMode === 'base' && o.baseSize !== null && m.hasPrice ? mulCeil(o.baseSize, m.price) : quoteSizing(o.amount, o.leverage!, m.fee).notional;
  const open = core.openNotional(a, m, o.direction);
  if (open + n > cap) {
    throw invalid('order_exceeds_max_open_notional', `notional ${rawHuman(n)} on top of the open ${rawHuman(open)} exceeds the market's max open ${o.direction} notional ${rawHuman(cap)}`, request);
  }
}

/** `PATCH /orders/{id}`: replace the order by a new one. */
export function editOrder(core: EngineCore, userId: string, viaApiKey: boolean, orderId: string, req: EditOrderRequest): Order {
  const R = `PATCH /orders/${orderId}`;
  core.checkUser(userId, R);
  const o = core.orders.get(orderId);
  if (!o) throw notFound('order', orderId, R);
  const a = core.account(userId, viaApiKey, o.account.id, R);
  if (o.type === 'market' || o.type === 'liquidation' || o.noTrigger) {
    throw invalid('order_not_updatable', `order ${o.id} (${o.noTrigger ? `${o.type} without a trigger` : o.type}) cannot be edited`, R);
  }
  if (o.status !== 'active') throw forbidden('order_not_active', `order ${o.id} is ${o.status}, not active`, R);
  tradingStatus(a, false, R);
  const m = o.market;
  marketOpen(m, R);
  if (m.isCloseOnly) throw forbidden('market_close_only', `market ${m.asset} is close-only`, R);
  const misplaced = misplacedEditFields(o.type, req);
  if (misplaced.length > 0) throw fieldsRefusal(R, misplaced, { orderType: o.type });
  const has = (v: unknown) => v !== undefined && v !== null;
  if (!has(req.triggerPrice) && !has(req.amount) && !has(req.expectedAmount) && !has(req.baseSize)) return orderView(o);

  const trigger = has(req.triggerPrice) ? decToRaw(req.triggerPrice!) : null;
  const amount = has(req.amount) ? decToRaw(req.amount!) : null;
  const expected = has(req.expectedAmount) ? decToRaw(req.expectedAmount!) : null;
  const baseSize = has(req.baseSize) ? decToRaw(req.baseSize!) : null;
  if (trigger !== null) {
    if (trigger === 0n && o.trigger > 0n && o.type !== 'trailing_stop') throw invalid('trigger_price_reset_forbidden', 'triggerPrice: a set trigger cannot be reset to 0', R);
    if (trigger < 0n) throw invalid('trigger_price_negative', 'triggerPrice: must not be negative', R);
  }
  if (amount !== null && amount <= 0n) throw invalid('amount_not_positive', `amount: must be above 0, got ${req.amount!.toString()}`, R);
  if (baseSize !== null) {
    if (o.sizeMode !== 'base') throw invalid('base_size_not_allowed', 'baseSize: only orders created with sizeMode base take a baseSize', R);
    if (amount === null) throw invalid('base_size_requires_amount', 'amount: required together with baseSize on a base-sized order', R);
    if (baseSize === 0n) throw invalid('base_size_required', 'baseSize: must be above 0', R);
    if (baseSize < 0n) throw invalid('base_size_negative', 'baseSize: must not be negative', R);
  }
  if (expected !== null && expected < 0n) throw invalid('expected_amount_negative', 'expectedAmount: must not be negative', R);

  const n = core.newOrder(a, m, { type: o.type, direction: o.direction, amount: amount ?? o.amount, positionId: o.positionId, leverage: o.leverage, isIncrease: o.isIncrease });
  n.parentOrderId = o.parentOrderId;
  n.trigger = trigger ?? (o.requestedTrigger ?? o.trigger);
  n.stopTrigger = o.stopTrigger;
  n.takeTrigger = o.takeTrigger;
  n.trailActivation = o.trailActivation;
  n.trailOffset = o.trailOffset;
  n.trailOffsetPct = o.trailOffsetPct;
  n.trailActive = o.trailActive;
  n.trailExtreme = o.trailExtreme;
  n.sizeMode = o.sizeMode;
  n.baseSize = baseSize ?? o.baseSize;
  n.reservedAmount = o.sizeMode === 'base' ? (amount ?? o.reservedAmount) : null;
  n.expectedAmount = expected ?? o.expectedAmount;
  if (o.type === 'stop_market') {
    n.stopPrice = n.trigger;
    n.limitPrice = n.trigger;
  } else if (o.type === 'stop_limit') {
    n.stopPrice = n.trigger;
    n.limitPrice = o.limitPrice;
    if (n.direction === 'long' && n.limitPrice > n.trigger) throw invalid('stop_limit_price_gt_trigger_price', 'stopLimitPrice: must be at or below the new triggerPrice', R);
    if (n.direction === 'short' && n.limitPrice < n.trigger) throw invalid('stop_limit_price_lt_trigger_price', 'stopLimitPrice: must be at or above the new triggerPrice', R);
  } else if (o.type === 'trailing_stop') {
    n.trigger = o.trigger;
  } else n.limitPrice = n.trigger;
  if (o.isIncrease) checkProtections(o.direction === 'long', n.trigger, n.stopTrigger, n.takeTrigger, R);
  const pos = o.positionId ? core.positions.get(o.positionId) : undefined;
  if (o.type !== 'trailing_stop') {
    const sh = { sizeMode: n.sizeMode, baseSize: n.baseSize, amount: n.amount, leverage: n.leverage ?? 0n } as OrderShape;
    checkTrigger(core, n, m, pos, sh, R);
  }
  if (o.isIncrease) {
    checkNotional(core, a, m, n, R);
    const grow = n.amount - o.reserve;
    if (grow > 0n) {
      if (LOCKED_STATUSES.includes(a.status)) throw forbidden('funded_limit_trading_locked', `account ${a.id} is locked by the managed capital limit: the reserve cannot grow`, R);
      if (grow > core.free(a)) throw invalid('insufficient_free_balance', `amount: growing the reserve by ${rawHuman(grow)} exceeds the free balance ${rawHuman(core.free(a))}`, R);
    }
  }
  core.finish(o, 'canceled_by_update', null, null);
  if (o.isIncrease) {
    n.reserve = n.amount;
    a.reserved += n.reserve;
  }
  m.orders = m.orders.filter((x) => x.status === 'active');
  core.orders.set(n.id, n);
  a.orders.push(n);
  m.orders.push(n);
  core.emitOrder(n);
  return orderView(n);
}

/** `DELETE /orders/{id}`. */
export function cancelOrder(core: EngineCore, userId: string, viaApiKey: boolean, orderId: string): void {
  const R = `DELETE /orders/${orderId}`;
  core.checkUser(userId, R);
  const o = core.orders.get(orderId);
  if (!o) throw notFound('order', orderId, R);
  const a = core.account(userId, viaApiKey, o.account.id, R);
  if (o.status !== 'active') throw forbidden('order_not_active', `order ${o.id} is ${o.status}, not active`, R);
  tradingStatus(a, false, R);
  const m = o.market;
  marketOpen(m, R);
  if (m.isCloseOnly) throw forbidden('market_close_only', `market ${m.asset} is close-only`, R);
  core.finish(o, 'canceled', null, null);
  m.orders = m.orders.filter((x) => x.status === 'active');
}

/** `POST /accounts/{id}/close-all`: cancel every active order, then close every position at market. */
export function closeAllAccount(core: EngineCore, userId: string, viaApiKey: boolean, accountId: string): void {
  const a = core.account(userId, viaApiKey, accountId, `POST /accounts/${accountId}/close-all`);
  for (let i = activeOrdersStart(a); i < a.orders.length; i += 1) {
    const o = a.orders[i]!;
    if (o.status === 'active') core.finish(o, 'canceled', null, null);
  }
  for (const m of core.marketList) m.orders = m.orders.filter((o) => o.status === 'active');
  closeAllPositionsOf(core, a);
  core.checkDirty();
}

/** `POST /positions/{id}/close-all`: close every position; their stop/take end `canceled_by_position`. */
export function closeAllPositions(core: EngineCore, userId: string, viaApiKey: boolean, accountId: string): void {
  const a = core.account(userId, viaApiKey, accountId, `POST /positions/${accountId}/close-all`);
  closeAllPositionsOf(core, a);
  core.checkDirty();
}

/** Each close is a `take` without a trigger (a close at market), executed at once. */
function closeAllPositionsOf(core: EngineCore, a: AccountRt): void {
  for (const pos of [...a.positions]) {
    const m = pos.market;
    if (m.isClosed || m.isPaused || m.inPause || !m.hasPrice) continue;
    const o = core.newOrder(a, m, { type: 'take', direction: pos.direction, amount: pos.size, positionId: pos.id, leverage: null, isIncrease: false });
    o.noTrigger = true;
    core.orders.set(o.id, o);
    a.orders.push(o);
    core.emitOrder(o);
    core.executeCloseOrder(o);
  }
}
