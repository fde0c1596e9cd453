/**
 * Which fields an order request may carry, for which order type. Shared by the client (which refuses to
 * send a misplaced field), the sandbox's body decoder (unknown fields) and the engine (fields that do not
 * apply to the order type).
 *
 * Stricter than the spec, on purpose: the spec says `positionId` is "ignored for increase orders" and is
 * silent on the other misplaced fields, which the engine would otherwise drop. On a trading API a typo
 * (`trigerPrice`) or a stop-loss sent on the wrong order type would then be accepted and do nothing, and
 * the trader learns of it when the position runs without protection. So a misplaced field is a 400
 * `invalid_request_body` naming it. Where the spec has its own code for a misuse (`triggerPrice` on a
 * `market` order, `sizeMode`/`baseSize` on a close order), that check answers instead, with the spec's code.
 */
import { ValidationError } from './errors.js';
import {
  CLOSE_ORDER_TYPES,
  CREATABLE_ORDER_TYPES,
  INCREASE_ORDER_TYPES,
  type CreatableOrderType,
  type CreateOrderRequest,
  type EditOrderRequest,
} from './types.js';

/** The optional fp9 fields of a `POST /orders` body (`amount` is required). */
export const CREATE_ORDER_FP9_FIELDS = [
  'expectedAmount',
  'leverage',
  'triggerPrice',
  'stopTriggerPrice',
  'takeTriggerPrice',
  'trailingStopActivationPrice',
  'trailingStopOffset',
  'trailingStopOffsetPercent',
  'stopLimitPrice',
  'baseSize',
] as const satisfies readonly (keyof CreateOrderRequest)[];

/** Every field of a `POST /orders` body. */
export const CREATE_ORDER_FIELDS = [
  'accountId',
  'marketId',
  'type',
  'direction',
  'positionId',
  'amount',
  'sizeMode',
  ...CREATE_ORDER_FP9_FIELDS,
] as const satisfies readonly (keyof CreateOrderRequest)[];

/** Every field of a `PATCH /orders/{orderId}` body. */
export const EDIT_ORDER_FIELDS = ['triggerPrice', 'amount', 'expectedAmount', 'baseSize'] as const satisfies readonly (keyof EditOrderRequest)[];

const ALL_BUT_TRAILING = CREATABLE_ORDER_TYPES.filter((t) => t !== 'trailing_stop');

/** The order types a field applies to; fields not listed apply to every type (or have a spec code of their own). */
const CREATE_ONLY_FOR: Partial<Record<(typeof CREATE_ORDER_FIELDS)[number], readonly CreatableOrderType[]>> = {
  positionId: CLOSE_ORDER_TYPES,
  leverage: INCREASE_ORDER_TYPES,
  expectedAmount: INCREASE_ORDER_TYPES,
  stopTriggerPrice: INCREASE_ORDER_TYPES,
  takeTriggerPrice: INCREASE_ORDER_TYPES,
  triggerPrice: ALL_BUT_TRAILING,
  trailingStopActivationPrice: ['trailing_stop'],
  trailingStopOffset: ['trailing_stop'],
  trailingStopOffsetPercent: ['trailing_stop'],
  stopLimitPrice: ['stop_limit'],
};

/** PATCH: a trailing stop keeps its trail (no trigger to set), a close order has no slippage tolerance. */
const EDIT_ONLY_FOR: Partial<Record<(typeof EDIT_ORDER_FIELDS)[number], readonly string[]>> = {
  triggerPrice: ALL_BUT_TRAILING,
  expectedAmount: INCREASE_ORDER_TYPES,
};

/** A field counts as sent when it holds a value; null and undefined both mean "not set". */
const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/** Own keys of `body` that are not among `known`, in the body's order. */
export function unknownFields(body: object, known: readonly string[]): string[] {
  return Object.keys(body).filter((k) => !known.includes(k));
}

/** The fields of `only` that `body` sets although `type` is not among theirs. */
function misplaced(only: readonly (readonly [string, readonly string[]])[], body: object, type: string): string[] {
  const values = body as Record<string, unknown>;
  const out: string[] = [];
  for (const [field, types] of only) if (isSet(values[field]) && !types.includes(type)) out.push(field);
  return out;
}

/** The two tables' entries, listed once: every order request is checked against them. */
const CREATE_ONLY_ENTRIES = Object.entries(CREATE_ONLY_FOR) as [string, readonly string[]][];
const EDIT_ONLY_ENTRIES = Object.entries(EDIT_ONLY_FOR) as [string, readonly string[]][];

/** Fields set on a create request that do not apply to its type. */
export function misplacedCreateFields(req: CreateOrderRequest): string[] {
  return misplaced(CREATE_ONLY_ENTRIES, req, req.type);
}

/** Fields set on an edit that do not apply to the type of the order being edited. */
export function misplacedEditFields(orderType: string, req: EditOrderRequest): string[] {
  return misplaced(EDIT_ONLY_ENTRIES, req, orderType);
}

/**
 * The 400 for unknown or misplaced fields: `invalid_request_body`, `field` the first of them and
 * `fields` all of them. `clientSide` marks a refusal by the client before anything was sent.
 */
export function fieldsRefusal(
  request: string,
  fields: readonly string[],
  problem: 'unknown' | { orderType: string },
  clientSide = false,
): ValidationError {
  const list = fields.join(', ');
  const s = fields.length > 1 ? 's' : '';
  const message =
    problem === 'unknown'
      ? `unknown field${s} ${list} (a misspelt field would otherwise be dropped silently)`
      : `field${s} ${list} ${fields.length > 1 ? 'do' : 'does'} not apply to a ${problem.orderType} order`;
  return new ValidationError({
    status: 400,
    code: 'invalid_request_body',
    request,
    message,
    details: { field: fields[0], fields: [...fields], ...(clientSide ? { clientSide: true } : {}) },
  });
}
