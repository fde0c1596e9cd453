/**
 * Step 1 of order validation (the spec's "shape for the type"), in the spec's order and with exactly its
 * codes, plus the typed errors every later step throws. Pure: no engine state is read here.
 */
import type { Decimal } from 'decimal.js';
import {
  AccountAccessDeniedError,
  ApiTradingNotEnabledError,
  ChallengeClosedError,
  ForbiddenError,
  FundedLimitTradingLockedError,
  InvalidLeverageError,
  MarketCloseOnlyError,
  MarketPausedError,
  NotFoundError,
  OrderNotActiveError,
  ValidationError,
} from '../api/errors.js';
import type { CreateOrderRequest, CreatableOrderType, Direction, SizeMode } from '../api/types.js';
import { CREATABLE_ORDER_TYPES, DIRECTIONS, SIZE_MODES } from '../api/types.js';
import { fieldsRefusal, misplacedCreateFields } from '../api/order-fields.js';
import { decToRaw, rawHuman } from './fixed.js';

export const INCREASE_TYPES: ReadonlySet<string> = new Set(['market', 'limit', 'stop_market', 'stop_limit']);
export const CLOSE_TYPES: ReadonlySet<string> = new Set(['stop', 'take', 'trailing_stop']);

export function invalid(code: string, message: string, request = 'POST /orders'): ValidationError {
  return new ValidationError({ status: 400, code, message, request });
}

export function forbidden(
  code: string,
  message: string,
  request: string,
):
  | AccountAccessDeniedError
  | ApiTradingNotEnabledError
  | ChallengeClosedError
  | FundedLimitTradingLockedError
  | MarketPausedError
  | MarketCloseOnlyError
  | OrderNotActiveError
  | ForbiddenError {
  const init = { status: 403, code, message, request };
  switch (code) {
    case 'account_access_denied':
      return new AccountAccessDeniedError(init);
    case 'api_trading_not_enabled':
      return new ApiTradingNotEnabledError(init);
    case 'challenge_closed':
      return new ChallengeClosedError(init);
    case 'funded_limit_trading_locked':
      return new FundedLimitTradingLockedError(init);
    case 'market_paused':
      return new MarketPausedError(init);
    case 'market_close_only':
      return new MarketCloseOnlyError(init);
    case 'order_not_active':
      return new OrderNotActiveError(init);
    default:
      return new ForbiddenError(init);
  }
}

export function notFound(what: string, id: string, request: string): NotFoundError {
  return new NotFoundError({ status: 404, code: 'not_found', message: `no ${what} ${JSON.stringify(id)}`, request });
}

export function invalidLeverage(leverage: bigint, bound: 'minLeverage' | 'maxLeverage', value: bigint): InvalidLeverageError {
  return new InvalidLeverageError({
    status: 400,
    code: 'invalid_leverage',
    message: `leverage: ${rawHuman(leverage)} is ${bound === 'minLeverage' ? 'below the market minimum' : 'above the maximum'} ${rawHuman(value)}`,
    request: 'POST /orders',
    details: { leverage: leverage.toString(), [bound]: value.toString() },
  });
}

/** The request with its numbers as fp9 integers (0 for absent), after step 1. */
export interface OrderShape {
  type: CreatableOrderType;
  direction: Direction;
  isIncrease: boolean;
  amount: bigint;
  expectedAmount: bigint;
  leverage: bigint;
  /** Absent trigger: null; `0` only on stop/take (no trigger). */
  trigger: bigint | null;
  stopTrigger: bigint;
  takeTrigger: bigint;
  trailActivation: bigint;
  trailOffset: bigint;
  trailOffsetPct: bigint;
  stopLimitPrice: bigint;
  sizeMode: SizeMode;
  baseSize: bigint | null;
  positionId: string | null;
}

const raw = (v: Decimal | null | undefined): bigint | null => (v === null || v === undefined ? null : decToRaw(v));

/** Step 1: shape for the type. Throws ValidationError with the spec's code. */
export function checkShape(req: CreateOrderRequest): OrderShape {
  if (!(CREATABLE_ORDER_TYPES as readonly string[]).includes(req.type)) {
    throw invalid('order_type_not_accepted', `type: expected one of ${CREATABLE_ORDER_TYPES.join(', ')}, got ${JSON.stringify(req.type)}`);
  }
  if (!(DIRECTIONS as readonly string[]).includes(req.direction)) {
    throw invalid('direction_invalid', `direction: expected long or short, got ${JSON.stringify(req.direction)}`);
  }
  const sizeMode = req.sizeMode ?? 'quote';
  if (!(SIZE_MODES as readonly string[]).includes(sizeMode)) {
    throw invalid('size_mode_invalid', `sizeMode: expected quote or base, got ${JSON.stringify(sizeMode)}`);
  }
  const misplaced = misplacedCreateFields(req);
  if (misplaced.length > 0) throw fieldsRefusal('POST /orders', misplaced, { orderType: req.type });
  const isIncrease = INCREASE_TYPES.has(req.type);
  const long = req.direction === 'long';

  // size
  const amount = raw(req.amount);
  if (amount === null || amount <= 0n) throw invalid('amount_not_positive', `amount: must be above 0, got ${req.amount?.toString() ?? 'nothing'}`);
  const baseSize = raw(req.baseSize);
  if (sizeMode === 'base') {
    if (!isIncrease) throw invalid('base_size_not_allowed', `sizeMode base: only increase orders may be sized in base units, not ${req.type}`);
    if (baseSize === null || baseSize === 0n) throw invalid('base_size_required', 'baseSize: required (above 0) when sizeMode is base');
    if (baseSize < 0n) throw invalid('base_size_negative', `baseSize: must not be negative, got ${req.baseSize!.toString()}`);
  } else if (baseSize !== null && baseSize !== 0n) {
    throw invalid('base_size_not_allowed', 'baseSize: only allowed with sizeMode base on increase orders');
  }
  const expectedAmount = isIncrease ? (raw(req.expectedAmount) ?? 0n) : 0n;
  if (expectedAmount < 0n) throw invalid('expected_amount_negative', `expectedAmount: must not be negative, got ${req.expectedAmount!.toString()}`);

  // leverage
  let leverage = 0n;
  if (isIncrease) {
    const l = raw(req.leverage);
    if (l === null || l === 0n) throw invalid('leverage_required', `leverage: required for ${req.type} orders`);
    if (l < 0n) throw invalid('leverage_negative', `leverage: must not be negative, got ${req.leverage!.toString()}`);
    leverage = l;
  }

  // trigger
  let trigger = raw(req.triggerPrice);
  if (req.type === 'market') {
    if (trigger !== null && trigger !== 0n) throw invalid('trigger_price_not_allowed', 'triggerPrice: a market order takes no trigger');
    trigger = null;
  } else if (req.type === 'trailing_stop') {
    trigger = null;
  } else {
    const zeroAllowed = req.type === 'stop' || req.type === 'take';
    if (trigger === null || (trigger === 0n && !zeroAllowed)) throw invalid('trigger_price_required', `triggerPrice: required for ${req.type} orders`);
    if (trigger < 0n) throw invalid('trigger_price_negative', `triggerPrice: must not be negative, got ${req.triggerPrice!.toString()}`);
  }

  // attached protections (increase orders)
  let stopTrigger = 0n;
  let takeTrigger = 0n;
  if (isIncrease) {
    stopTrigger = raw(req.stopTriggerPrice) ?? 0n;
    takeTrigger = raw(req.takeTriggerPrice) ?? 0n;
    if (stopTrigger < 0n) throw invalid('stop_trigger_price_negative', `stopTriggerPrice: must not be negative, got ${req.stopTriggerPrice!.toString()}`);
    if (takeTrigger < 0n) throw invalid('take_trigger_price_negative', `takeTriggerPrice: must not be negative, got ${req.takeTriggerPrice!.toString()}`);
    if (trigger !== null) checkProtections(long, trigger, stopTrigger, takeTrigger, 'POST /orders');
  }

  // stop-limit
  let stopLimitPrice = 0n;
  if (req.type === 'stop_limit') {
    const p = raw(req.stopLimitPrice);
    if (p === null || p === 0n) throw invalid('stop_limit_price_required', 'stopLimitPrice: required for stop_limit orders');
    if (p < 0n) throw invalid('stop_limit_price_negative', `stopLimitPrice: must not be negative, got ${req.stopLimitPrice!.toString()}`);
    if (long && p > trigger!) throw invalid('stop_limit_price_gt_trigger_price', 'stopLimitPrice: must be at or below triggerPrice for a long stop_limit');
    if (!long && p < trigger!) throw invalid('stop_limit_price_lt_trigger_price', 'stopLimitPrice: must be at or above triggerPrice for a short stop_limit');
    stopLimitPrice = p;
  }

  // trailing stop
  let trailActivation = 0n;
  let trailOffset = 0n;
  let trailOffsetPct = 0n;
  if (req.type === 'trailing_stop') {
    trailActivation = raw(req.trailingStopActivationPrice) ?? 0n;
    trailOffset = raw(req.trailingStopOffset) ?? 0n;
    trailOffsetPct = raw(req.trailingStopOffsetPercent) ?? 0n;
    if (trailActivation < 0n) throw invalid('trailing_stop_activation_price_negative', 'trailingStopActivationPrice: must not be negative');
    if (trailOffset === 0n && trailOffsetPct === 0n) {
      throw invalid('trailing_stop_offset_required', 'trailing_stop: one of trailingStopOffset and trailingStopOffsetPercent is required');
    }
    if (trailOffset !== 0n && trailOffsetPct !== 0n) {
      throw invalid('trailing_stop_offset_conflict', 'trailing_stop: give trailingStopOffset or trailingStopOffsetPercent, not both');
    }
    if (trailOffset < 0n) throw invalid('trailing_stop_offset_negative', 'trailingStopOffset: must not be negative');
    if (trailOffsetPct < 0n) throw invalid('trailing_stop_offset_percent_negative', 'trailingStopOffsetPercent: must not be negative');
    if (trailOffsetPct >= 1_000_000_000n) throw invalid('trailing_stop_offset_percent_gte_one', 'trailingStopOffsetPercent: must be below 1 (100%)');
  }

  // close orders
  const positionId = isIncrease ? null : (req.positionId ?? null);
  if (!isIncrease && !positionId) throw invalid('position_id_required', `positionId: required for ${req.type} orders`);

  return {
    type: req.type,
    direction: req.direction,
    isIncrease,
    amount,
    expectedAmount,
    leverage,
    trigger,
    stopTrigger,
    takeTrigger,
    trailActivation,
    trailOffset,
    trailOffsetPct,
    stopLimitPrice,
    sizeMode,
    baseSize: sizeMode === 'base' ? baseSize : null,
    positionId,
  };
}

/** Attached stop-loss below / take-profit above the entry for a long, mirrored for a short. */
export function checkProtections(long: boolean, entry: bigint, stop: bigint, take: bigint, request: string): void {
  if (long) {
    if (stop > 0n && stop >= entry) throw invalid('stop_trigger_price_gt_trigger_price', 'stopTriggerPrice: must be below the entry trigger for a long', request);
    if (take > 0n && take <= entry) throw invalid('take_trigger_price_lt_trigger_price', 'takeTriggerPrice: must be above the entry trigger for a long', request);
  } else {
    if (stop > 0n && stop <= entry) throw invalid('stop_trigger_price_lt_trigger_price', 'stopTriggerPrice: must be above the entry trigger for a short', request);
    if (take > 0n && take >= entry) throw invalid('take_trigger_price_gt_trigger_price', 'takeTriggerPrice: must be below the entry trigger for a short', request);
  }
}
