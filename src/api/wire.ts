/**
 * The wire format of the platform's API, both ways.
 *
 * - Decoders (`decodeOrder`, `decodeOrders`, …) turn response JSON into the domain types of `./types.ts`:
 *   fp9 strings become Decimals, date-times become Dates, enums are checked. Anything missing or mistyped
 *   is a `ResponseShapeError` naming the field's path (`orders[3].triggerPrice`).
 * - Encoders (`encodeOrder`, …) turn domain objects back into wire JSON with the spec's field names:
 *   Decimals become fp9 strings ('exact': a value with more than 9 places is a bug upstream, not
 *   something to round silently), Dates become ISO strings.
 * - Request bodies go both ways too: the client encodes `CreateOrderRequest` / `EditOrderRequest`; the
 *   sandbox server decodes them, and a bad body is a 400 `ValidationError` (code `invalid_request_body`)
 *   naming the field.
 *
 * The spec's quirks are accepted on decode: fields declared as arrays but meaning one nullable value
 * (`positionId`, `parentOrderId`, `error`, `errorCode`, `idx`, `txId`, `holdingTimeMs`, `closeReason`,
 * `consistencyRuleMet`) may arrive as the value, a one-element array, or null. Encoders emit the value.
 */
import { z } from 'zod';
import { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { PropbotError, describeValue } from '../core/errors.js';
import { FP9_PATTERN, decodeFp9, encodeFp9 } from '../core/fp9.js';
import { RateLimitError, ValidationError, type ApiError } from './errors.js';
import { CREATE_ORDER_FIELDS, CREATE_ORDER_FP9_FIELDS, EDIT_ORDER_FIELDS, fieldsRefusal, unknownFields } from './order-fields.js';
import {
  ACCOUNT_STATUSES,
  ACCOUNT_TYPES,
  CANCEL_REASONS,
  CHART_EVENT_NAMES,
  CREATABLE_ORDER_TYPES,
  DIRECTIONS,
  FAILURE_REASONS,
  MARKET_CATEGORIES,
  ORDER_STATUSES,
  ORDER_TYPES,
  POSITION_EVENT_NAMES,
  POSITION_STATUSES,
  SIZE_MODES,
  type Account,
  type AccountEvent,
  type ChartEvent,
  type ChartEventBucket,
  type ChartEventSide,
  type CreateOrderRequest,
  type EditOrderRequest,
  type EquityPoint,
  type Market,
  type Order,
  type Page,
  type Position,
  type PositionEvent,
  type RiskStatus,
  type ScalpingCoefficient,
} from './types.js';

// ── errors ───────────────────────────────────────────────────────────────────────────────────────

/**
 * A response did not have the shape the spec promises. Not retried: sending the same request again
 * gets the same body. `field` is the path of the offending value (`orders[3].triggerPrice`).
 */
export class ResponseShapeError extends PropbotError {
  readonly field: string;
  readonly received: string;
  readonly request: string | undefined;
  constructor(field: string, expected: string, received: unknown, request?: string) {
    const shown = describeReceived(received);
    super('response_shape', `${request ? `${request}: ` : ''}response ${field}: ${expected}, got ${shown}`);
    this.field = field;
    this.received = shown;
    this.request = request;
  }
}

/** How a decode error shows the offending value; a missing field is said so, not shown as `undefined`. */
function describeReceived(received: unknown): string {
  return received === undefined ? 'nothing (field missing)' : describeValue(received);
}

/** Code of the 400 a malformed request body earns (wrong type, bad fp9 string, unknown enum value). */
export const INVALID_REQUEST_BODY = 'invalid_request_body';

// ── building blocks ──────────────────────────────────────────────────────────────────────────────

const FP9_EXPECTED = 'expected an fp9 string (integer × 10^9 as a JSON string, e.g. "1500000000" for 1.5)';
const DECIMAL_PATTERN = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

const fp9 = z
  .string({ error: FP9_EXPECTED })
  .regex(FP9_PATTERN, { error: FP9_EXPECTED })
  .transform((s) => decodeFp9(s));
const fp9Nullable = fp9.nullable();

const dateTime = z.iso
  .datetime({ offset: true, error: 'expected an ISO 8601 date-time string' })
  .transform((s) => new Date(s));
const dateTimeNullable = dateTime.nullable();

const int = z.number({ error: 'expected a number' }).int({ error: 'expected an integer' });
const nonNegInt = int.min(0, { error: 'expected a non-negative integer' });
const num = z.number({ error: 'expected a number' });
const str = z.string({ error: 'expected a string' });
const bool = z.boolean({ error: 'expected a boolean' });

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}` });
}

/** A "declared as array, meant as one value" field: the value, `[value]`, `[]` or null. */
function quirk<S extends z.ZodType>(inner: S, what: string) {
  return z
    .union([inner, z.array(inner).max(1), z.null()], {
      error: `expected ${what}, a one-element array of it, or null`,
    })
    .transform((v) => (Array.isArray(v) ? (v[0] ?? null) : v) as z.output<S> | null);
}
/** As `quirk`, for a field that is never null. */
function quirkRequired<S extends z.ZodType>(inner: S, what: string) {
  return z
    .union([inner, z.array(inner).length(1)], { error: `expected ${what} or a one-element array of it` })
    .transform((v) => (Array.isArray(v) ? v[0] : v) as z.output<S>);
}

/** A plain decimal carried as a JSON number or a decimal string (market `change`, account percents). */
const plainDecimal = z
  .union([num, z.string().regex(DECIMAL_PATTERN)], { error: 'expected a decimal number or decimal string' })
  .transform((v) => new Dec(typeof v === 'number' ? String(v) : v));

const jsonObject = z.record(z.string(), z.unknown(), { error: 'expected an object' });

// ── response schemas ─────────────────────────────────────────────────────────────────────────────

export const orderSchema = z.object({
  id: str,
  txId: str,
  index: str,
  trader: str,
  market: str,
  status: oneOf(ORDER_STATUSES),
  type: oneOf(ORDER_TYPES),
  direction: oneOf(DIRECTIONS),
  triggerPrice: fp9,
  requestedTriggerPrice: fp9Nullable,
  stopPrice: fp9,
  limitPrice: fp9,
  stopTriggerPrice: fp9,
  takeTriggerPrice: fp9,
  trailingStopActivationPrice: fp9,
  trailingStopOffset: fp9,
  trailingStopOffsetPercent: fp9,
  leverage: fp9Nullable,
  positionId: quirk(str, 'a string'),
  parentOrderId: quirk(str, 'a string'),
  expiration: dateTimeNullable,
  amount: fp9,
  indexPrice: fp9Nullable,
  settlementOraclePrice: fp9,
  createdAt: dateTime,
  error: quirk(str, 'a string'),
  realizedPnl: fp9Nullable,
  rawRealizedPnl: fp9Nullable,
  profitAdjustmentApplied: bool,
  executedAfterPause: bool,
  sizeMode: oneOf(SIZE_MODES),
  baseSize: fp9Nullable,
  reservedAmount: fp9Nullable,
  errorCode: quirk(str, 'a string'),
  reason: oneOf(CANCEL_REASONS).nullable(),
});

/** `holdingTimeMs` is a decimal string on the wire; a bare number is taken too and kept as its string. */
const holdingTime = z.union([str, int]).transform((v) => String(v));

const positionShape = {
  idx: quirkRequired(str, 'a string'),
  txId: quirkRequired(str, 'a string'),
  version: int,
  openedAt: dateTime,
  lastUpdatedAt: dateTime,
  closedAt: dateTimeNullable,
  type: oneOf(DIRECTIONS),
  status: oneOf(POSITION_STATUSES),
  market: str,
  trader: str,
  size: fp9,
  notional: fp9,
  fraction: fp9,
  margin: fp9,
  pnl: fp9Nullable,
  funding: fp9Nullable,
  rolloverFee: fp9,
  settlementOraclePrice: fp9,
  fee: fp9,
  feeRate: fp9,
  exchangedQuote: fp9,
  exchangedBase: fp9,
  direction: oneOf(DIRECTIONS),
  eventName: oneOf(POSITION_EVENT_NAMES),
  pnlInEvent: fp9,
  rawPnlInEvent: fp9,
  profitAdjustmentApplied: bool,
  holdingTimeMs: quirk(holdingTime, 'a decimal string of milliseconds'),
  feeInEvent: fp9,
  fundingInEvent: fp9,
  rolloverFeeInEvent: fp9,
  executionFeeRate: fp9,
  executionFeeInEvent: fp9,
  executionFee: fp9,
  timestamp: dateTime,
  isOnchain: bool,
  roe: fp9,
  scalpingCoefficient: fp9,
  closeReason: quirk(str, 'a string'),
};
export const positionSchema = z.object(positionShape);
export const positionEventSchema = z.object({ ...positionShape, order: orderSchema.nullable() });

export const chartEventSchema = z.object({
  asset: str,
  direction: oneOf(DIRECTIONS),
  eventName: oneOf(CHART_EVENT_NAMES),
  executedAt: num,
  price: fp9,
  size: fp9,
});
const chartEventSideSchema = z.object({ totalCount: nonNegInt, events: z.array(chartEventSchema) });
export const chartEventBucketSchema = z.object({
  time: num,
  buy: chartEventSideSchema,
  sell: chartEventSideSchema,
});

export const riskStatusSchema = z.object({
  accountId: str,
  tradingDays: num,
  currentBalance: fp9,
  currentEquity: fp9,
  dayStartEquity: fp9,
  maxEquity: fp9Nullable,
  periodStartEquity: fp9Nullable,
  maxPeriodDailyEquityDelta: fp9Nullable,
  maxPeriodDailyEquityDeltaAt: dateTimeNullable,
  consistencyRuleApplies: bool,
  consistencyRuleMet: quirk(bool, 'a boolean'),
  consistencyRuleRatio: fp9Nullable,
  consistencyRuleLimit: fp9,
  payoutBaselineBalance: fp9,
  isPayoutBaselineRequirementMet: bool,
});

export const equityPointSchema = z.object({
  timestamp: num,
  volume: fp9,
  phaseIndex: nonNegInt,
  phaseStartEquity: fp9,
});

export const scalpingCoefficientSchema = z.object({
  amount: fp9,
  amountRegular: fp9,
  activeSince: dateTimeNullable.optional().transform((v) => v ?? null),
  activeUntil: dateTimeNullable.optional().transform((v) => v ?? null),
});

export const marketSchema = z.object({
  id: str,
  config: z.object({
    baseAsset: str,
    quoteAsset: str,
    settlementToken: str,
    type: str,
    name: str,
    description: str,
    ticker: str,
    imageLink: str,
    tags: z.array(str, { error: 'expected an array of strings' }),
    category: oneOf(MARKET_CATEGORIES),
    priority: num.nullable(),
  }),
  state: z.object({
    indexPrice: fp9,
    blockTimestamp: num,
    fundingRate: fp9,
    nextFundingAt: num,
    lastFundingAt: num.nullable(),
    vpiSpread: fp9,
    vpiMarketDepthLong: fp9,
    vpiMarketDepthShort: fp9,
    vpiCoefficientLong: fp9,
    vpiCoefficientShort: fp9,
  }),
  settings: z.object({
    fee: fp9,
    minInitMarginRatio: fp9,
    initMarginRatio: fp9,
    maintenanceMarginRatio: fp9,
    maxLeverageByAccount: z.record(z.string(), fp9, { error: 'expected an object of fp9 strings' }),
    spreadLimit: fp9,
    maxPriceImpact: fp9,
    maxPriceSpread: fp9,
    maxOpenNotionalLong: fp9,
    maxOpenNotionalShort: fp9,
    minStopTriggerDistanceRatio: fp9,
    isCloseOnly: bool,
    isClosed: bool,
    isPaused: bool,
    isZeroSpread: bool,
  }),
  change: z.object({
    initialPrice: plainDecimal,
    initialPrice1h: plainDecimal,
    initialPrice4h: plainDecimal,
  }),
  schedule: z
    .object({
      nextPauseAt: num,
      nextUnpauseAt: num,
      closestPauseAt: num,
      closestUnpauseAt: num,
      pausedAt: num,
      inPause: bool,
    })
    .nullable(),
});

export const accountSchema = z.object({
  accountId: str,
  userId: str,
  paymentId: str.nullable(),
  challengeId: str.nullable(),
  tournamentId: str.nullable(),
  type: oneOf(ACCOUNT_TYPES),
  initialPhase: str,
  currentPhase: str,
  status: oneOf(ACCOUNT_STATUSES),
  profitTarget: plainDecimal.nullable(),
  maxDailyDrawdown: plainDecimal.nullable(),
  maxTotalDrawdown: plainDecimal.nullable(),
  maxTrailingTotalDrawdown: plainDecimal.nullable(),
  drawdownBase: fp9Nullable,
  maxDrawdownStop: fp9Nullable,
  minTradingDays: num.nullable(),
  suspendedUntil: dateTimeNullable,
  accountBalance: fp9,
  initialAccountBalance: fp9,
  maxEquity: fp9Nullable,
  dayStartEquity: fp9Nullable,
  profitableDays: num,
  prevPeriodProfitableDays: num,
  createdAt: dateTime,
  failureReason: oneOf(FAILURE_REASONS).nullable(),
  fundedAt: dateTimeNullable,
  failedAt: dateTimeNullable,
  transitionReviewAt: dateTimeNullable,
  currentWithdrawalPeriodStartedAt: dateTimeNullable,
  fundedLimitUnlockedAt: dateTimeNullable,
  maxWithdrawalAmount: fp9,
  payoutBaselineBalance: fp9,
  isActiveWithdrawalInPeriod: bool,
  profitSplitPercent: num,
  debt: fp9,
  dailyDrawdownProtection: jsonObject.nullable(),
  aiFailedReport: bool,
  apiTrading: bool,
  availableMarkets: str,
  antifraudStatus: str,
  tradingLockReason: str.nullable(),
  tournament: jsonObject.nullable(),
  restore: jsonObject,
});

/** Payload fields known to be fp9 per event type (the spec shows `buy_challenge.amount`). */
const PAYLOAD_FP9_FIELDS: Record<string, readonly string[]> = { buy_challenge: ['amount'] };

export const accountEventSchema = z
  .object({
    eventType: str,
    payload: jsonObject,
    id: str,
    accountId: str,
    createdAt: dateTime,
    account: accountSchema,
  })
  .transform((event, ctx) => {
    const fields = PAYLOAD_FP9_FIELDS[event.eventType] ?? [];
    const payload: Record<string, unknown> = { ...event.payload };
    for (const field of fields) {
      const value = payload[field];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string' || !FP9_PATTERN.test(value)) {
        ctx.addIssue({ code: 'custom', message: FP9_EXPECTED, path: ['payload', field], input: value });
        return z.NEVER;
      }
      payload[field] = decodeFp9(value);
    }
    return { ...event, payload };
  });

export function pageSchema<S extends z.ZodType>(item: S) {
  return z.object({ data: z.array(item, { error: 'expected an array' }), totalCount: nonNegInt });
}

// ── decoding ─────────────────────────────────────────────────────────────────────────────────────

/** Format a zod path as `root[3].field`. */
export function formatPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out || '(root)';
}

function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = json;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key as string];
  }
  return cur;
}

function firstIssue(error: z.ZodError): z.core.$ZodIssue {
  // Report the deepest issue: a union failing inside an array element is more useful than "invalid array".
  let best = error.issues[0]!;
  for (const issue of error.issues) if (issue.path.length > best.path.length) best = issue;
  return best;
}

/**
 * Decode response JSON with a schema; a mismatch is a `ResponseShapeError` whose `field` starts at
 * `root` (`orders[3].triggerPrice`). `request` (method and path) is put in the message when given.
 */
export function decodeResponse<S extends z.ZodType>(schema: S, json: unknown, root: string, request?: string): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = firstIssue(result.error);
  throw new ResponseShapeError(formatPath(root, issue.path), issue.message, valueAt(json, issue.path), request);
}

// Built once: these run on every response, and a zod schema is not free to construct.
const listOf = <S extends z.ZodType>(item: S, error = 'expected an array') => z.array(item, { error });
const orderList = listOf(orderSchema);
const orderPage = pageSchema(orderSchema);
const positionList = listOf(positionSchema);
const positionEventList = listOf(positionEventSchema);
const chartEventPage = pageSchema(chartEventSchema);
const chartEventBucketList = listOf(chartEventBucketSchema);
const riskStatusList = listOf(riskStatusSchema);
const equityPointList = listOf(equityPointSchema);
const marketList = listOf(marketSchema, 'expected an array of markets or { data: [...] }');
const accountEventPage = pageSchema(accountEventSchema);

export const decodeOrder = (json: unknown, root = 'order', request?: string): Order =>
  decodeResponse(orderSchema, json, root, request);
export const decodeOrders = (json: unknown, root = 'orders', request?: string): Order[] =>
  decodeResponse(orderList, json, root, request);
export const decodeOrderPage = (json: unknown, root = 'page', request?: string): Page<Order> =>
  decodeResponse(orderPage, json, root, request);
export const decodePosition = (json: unknown, root = 'position', request?: string): Position =>
  decodeResponse(positionSchema, json, root, request);
export const decodePositions = (json: unknown, root = 'positions', request?: string): Position[] =>
  decodeResponse(positionList, json, root, request);
export const decodePositionEvent = (json: unknown, root = 'event', request?: string): PositionEvent =>
  decodeResponse(positionEventSchema, json, root, request);
export const decodePositionEvents = (json: unknown, root = 'events', request?: string): PositionEvent[] =>
  decodeResponse(positionEventList, json, root, request);
export const decodeChartEvent = (json: unknown, root = 'chartEvent', request?: string): ChartEvent =>
  decodeResponse(chartEventSchema, json, root, request);
export const decodeChartEventPage = (json: unknown, root = 'page', request?: string): Page<ChartEvent> =>
  decodeResponse(chartEventPage, json, root, request);
export const decodeChartEventBuckets = (json: unknown, root = 'buckets', request?: string): ChartEventBucket[] =>
  decodeResponse(chartEventBucketList, json, root, request);
export const decodeRiskStatus = (json: unknown, root = 'riskStatus', request?: string): RiskStatus =>
  decodeResponse(riskStatusSchema, json, root, request);
export const decodeRiskStatuses = (json: unknown, root = 'riskStatuses', request?: string): RiskStatus[] =>
  decodeResponse(riskStatusList, json, root, request);
export const decodeEquityPoints = (json: unknown, root = 'equityHistory', request?: string): EquityPoint[] =>
  decodeResponse(equityPointList, json, root, request);
export const decodeScalpingCoefficient = (json: unknown, root = 'scalpingCoefficient', request?: string): ScalpingCoefficient =>
  decodeResponse(scalpingCoefficientSchema, json, root, request);
export const decodeMarket = (json: unknown, root = 'market', request?: string): Market =>
  decodeResponse(marketSchema, json, root, request);
/** The market list's shape is not shown by the spec: a bare array or `{ data: [...] }` is accepted. */
export const decodeMarkets = (json: unknown, root = 'markets', request?: string): Market[] => {
  if (json !== null && typeof json === 'object' && !Array.isArray(json) && 'data' in json) {
    return decodeResponse(marketList, (json as { data: unknown }).data, `${root}.data`, request);
  }
  return decodeResponse(marketList, json, root, request);
};
export const decodeAccount = (json: unknown, root = 'account', request?: string): Account =>
  decodeResponse(accountSchema, json, root, request);
export const decodeAccountEvent = (json: unknown, root = 'accountEvent', request?: string): AccountEvent =>
  decodeResponse(accountEventSchema, json, root, request);
export const decodeAccountEventPage = (json: unknown, root = 'page', request?: string): Page<AccountEvent> =>
  decodeResponse(accountEventPage, json, root, request);

// ── encoding responses (domain → wire) ───────────────────────────────────────────────────────────

export type WireOrder = z.input<typeof orderSchema>;
export type WirePosition = z.input<typeof positionSchema>;
export type WirePositionEvent = z.input<typeof positionEventSchema>;
export type WireChartEvent = z.input<typeof chartEventSchema>;
export type WireChartEventBucket = z.input<typeof chartEventBucketSchema>;
export type WireRiskStatus = z.input<typeof riskStatusSchema>;
export type WireEquityPoint = z.input<typeof equityPointSchema>;
export type WireScalpingCoefficient = z.input<typeof scalpingCoefficientSchema>;
export type WireMarket = z.input<typeof marketSchema>;
export type WireAccount = z.input<typeof accountSchema>;
export type WireAccountEvent = z.input<typeof accountEventSchema>;
export interface WirePage<W> {
  data: W[];
  totalCount: number;
}

const fp = (value: Decimal, field: string): string => encodeFp9(value, 'exact', field);
const fpN = (value: Decimal | null, field: string): string | null => (value === null ? null : fp(value, field));
const iso = (value: Date): string => value.toISOString();
const isoN = (value: Date | null): string | null => (value === null ? null : iso(value));
/** Plain decimals (percents) go out as decimal strings without exponent. */
const plainN = (value: Decimal | null): string | null => (value === null ? null : value.toFixed());
/**
 * `change` prices are JSON numbers on the wire (the spec says "numbers, decimal"); this is the one place
 * a decimal becomes a JS number, and only to be serialised.
 */
const jsonNumber = (value: Decimal): number => value.toNumber();

export function encodeOrder(o: Order, root = 'order'): WireOrder {
  const f = (name: string) => `${root}.${name}`;
  return {
    id: o.id,
    txId: o.txId,
    index: o.index,
    trader: o.trader,
    market: o.market,
    status: o.status,
    type: o.type,
    direction: o.direction,
    triggerPrice: fp(o.triggerPrice, f('triggerPrice')),
    requestedTriggerPrice: fpN(o.requestedTriggerPrice, f('requestedTriggerPrice')),
    stopPrice: fp(o.stopPrice, f('stopPrice')),
    limitPrice: fp(o.limitPrice, f('limitPrice')),
    stopTriggerPrice: fp(o.stopTriggerPrice, f('stopTriggerPrice')),
    takeTriggerPrice: fp(o.takeTriggerPrice, f('takeTriggerPrice')),
    trailingStopActivationPrice: fp(o.trailingStopActivationPrice, f('trailingStopActivationPrice')),
    trailingStopOffset: fp(o.trailingStopOffset, f('trailingStopOffset')),
    trailingStopOffsetPercent: fp(o.trailingStopOffsetPercent, f('trailingStopOffsetPercent')),
    leverage: fpN(o.leverage, f('leverage')),
    positionId: o.positionId,
    parentOrderId: o.parentOrderId,
    expiration: isoN(o.expiration),
    amount: fp(o.amount, f('amount')),
    indexPrice: fpN(o.indexPrice, f('indexPrice')),
    settlementOraclePrice: fp(o.settlementOraclePrice, f('settlementOraclePrice')),
    createdAt: iso(o.createdAt),
    error: o.error,
    realizedPnl: fpN(o.realizedPnl, f('realizedPnl')),
    rawRealizedPnl: fpN(o.rawRealizedPnl, f('rawRealizedPnl')),
    profitAdjustmentApplied: o.profitAdjustmentApplied,
    executedAfterPause: o.executedAfterPause,
    sizeMode: o.sizeMode,
    baseSize: fpN(o.baseSize, f('baseSize')),
    reservedAmount: fpN(o.reservedAmount, f('reservedAmount')),
    errorCode: o.errorCode,
    reason: o.reason,
  };
}

export function encodePosition(p: Position, root = 'position'): WirePosition {
  const f = (name: string) => `${root}.${name}`;
  return {
    idx: p.idx,
    txId: p.txId,
    version: p.version,
    openedAt: iso(p.openedAt),
    lastUpdatedAt: iso(p.lastUpdatedAt),
    closedAt: isoN(p.closedAt),
    type: p.type,
    status: p.status,
    market: p.market,
    trader: p.trader,
    size: fp(p.size, f('size')),
    notional: fp(p.notional, f('notional')),
    fraction: fp(p.fraction, f('fraction')),
    margin: fp(p.margin, f('margin')),
    pnl: fpN(p.pnl, f('pnl')),
    funding: fpN(p.funding, f('funding')),
    rolloverFee: fp(p.rolloverFee, f('rolloverFee')),
    settlementOraclePrice: fp(p.settlementOraclePrice, f('settlementOraclePrice')),
    fee: fp(p.fee, f('fee')),
    feeRate: fp(p.feeRate, f('feeRate')),
    exchangedQuote: fp(p.exchangedQuote, f('exchangedQuote')),
    exchangedBase: fp(p.exchangedBase, f('exchangedBase')),
    direction: p.direction,
    eventName: p.eventName,
    pnlInEvent: fp(p.pnlInEvent, f('pnlInEvent')),
    rawPnlInEvent: fp(p.rawPnlInEvent, f('rawPnlInEvent')),
    profitAdjustmentApplied: p.profitAdjustmentApplied,
    holdingTimeMs: p.holdingTimeMs,
    feeInEvent: fp(p.feeInEvent, f('feeInEvent')),
    fundingInEvent: fp(p.fundingInEvent, f('fundingInEvent')),
    rolloverFeeInEvent: fp(p.rolloverFeeInEvent, f('rolloverFeeInEvent')),
    executionFeeRate: fp(p.executionFeeRate, f('executionFeeRate')),
    executionFeeInEvent: fp(p.executionFeeInEvent, f('executionFeeInEvent')),
    executionFee: fp(p.executionFee, f('executionFee')),
    timestamp: iso(p.timestamp),
    isOnchain: p.isOnchain,
    roe: fp(p.roe, f('roe')),
    scalpingCoefficient: fp(p.scalpingCoefficient, f('scalpingCoefficient')),
    closeReason: p.closeReason,
  };
}

export function encodePositionEvent(e: PositionEvent, root = 'event'): WirePositionEvent {
  return { ...encodePosition(e, root), order: e.order === null ? null : encodeOrder(e.order, `${root}.order`) };
}

export function encodeChartEvent(e: ChartEvent, root = 'chartEvent'): WireChartEvent {
  return {
    asset: e.asset,
    direction: e.direction,
    eventName: e.eventName,
    executedAt: e.executedAt,
    price: fp(e.price, `${root}.price`),
    size: fp(e.size, `${root}.size`),
  };
}

function encodeSide(side: ChartEventSide, root: string): WireChartEventBucket['buy'] {
  return { totalCount: side.totalCount, events: side.events.map((e, i) => encodeChartEvent(e, `${root}.events[${i}]`)) };
}

export function encodeChartEventBucket(b: ChartEventBucket, root = 'bucket'): WireChartEventBucket {
  return { time: b.time, buy: encodeSide(b.buy, `${root}.buy`), sell: encodeSide(b.sell, `${root}.sell`) };
}

export function encodeRiskStatus(r: RiskStatus, root = 'riskStatus'): WireRiskStatus {
  const f = (name: string) => `${root}.${name}`;
  return {
    accountId: r.accountId,
    tradingDays: r.tradingDays,
    currentBalance: fp(r.currentBalance, f('currentBalance')),
    currentEquity: fp(r.currentEquity, f('currentEquity')),
    dayStartEquity: fp(r.dayStartEquity, f('dayStartEquity')),
    maxEquity: fpN(r.maxEquity, f('maxEquity')),
    periodStartEquity: fpN(r.periodStartEquity, f('periodStartEquity')),
    maxPeriodDailyEquityDelta: fpN(r.maxPeriodDailyEquityDelta, f('maxPeriodDailyEquityDelta')),
    maxPeriodDailyEquityDeltaAt: isoN(r.maxPeriodDailyEquityDeltaAt),
    consistencyRuleApplies: r.consistencyRuleApplies,
    consistencyRuleMet: r.consistencyRuleMet,
    consistencyRuleRatio: fpN(r.consistencyRuleRatio, f('consistencyRuleRatio')),
    consistencyRuleLimit: fp(r.consistencyRuleLimit, f('consistencyRuleLimit')),
    payoutBaselineBalance: fp(r.payoutBaselineBalance, f('payoutBaselineBalance')),
    isPayoutBaselineRequirementMet: r.isPayoutBaselineRequirementMet,
  };
}

export function encodeEquityPoint(p: EquityPoint, root = 'equityPoint'): WireEquityPoint {
  return {
    timestamp: p.timestamp,
    volume: fp(p.volume, `${root}.volume`),
    phaseIndex: p.phaseIndex,
    phaseStartEquity: fp(p.phaseStartEquity, `${root}.phaseStartEquity`),
  };
}

export function encodeScalpingCoefficient(s: ScalpingCoefficient, root = 'scalpingCoefficient'): WireScalpingCoefficient {
  const out: WireScalpingCoefficient = {
    amount: fp(s.amount, `${root}.amount`),
    amountRegular: fp(s.amountRegular, `${root}.amountRegular`),
  };
  // Present only while the window runs, and then together.
  if (s.activeSince !== null && s.activeUntil !== null) {
    out.activeSince = iso(s.activeSince);
    out.activeUntil = iso(s.activeUntil);
  }
  return out;
}

export function encodeMarket(m: Market, root = 'market'): WireMarket {
  const f = (name: string) => `${root}.${name}`;
  const maxLeverageByAccount: Record<string, string> = {};
  for (const [type, lev] of Object.entries(m.settings.maxLeverageByAccount)) {
    maxLeverageByAccount[type] = fp(lev, f(`settings.maxLeverageByAccount.${type}`));
  }
  const s = m.state;
  const st = m.settings;
  return {
    id: m.id,
    config: { ...m.config, tags: [...m.config.tags] },
    state: {
      indexPrice: fp(s.indexPrice, f('state.indexPrice')),
      blockTimestamp: s.blockTimestamp,
      fundingRate: fp(s.fundingRate, f('state.fundingRate')),
      nextFundingAt: s.nextFundingAt,
      lastFundingAt: s.lastFundingAt,
      vpiSpread: fp(s.vpiSpread, f('state.vpiSpread')),
      vpiMarketDepthLong: fp(s.vpiMarketDepthLong, f('state.vpiMarketDepthLong')),
      vpiMarketDepthShort: fp(s.vpiMarketDepthShort, f('state.vpiMarketDepthShort')),
      vpiCoefficientLong: fp(s.vpiCoefficientLong, f('state.vpiCoefficientLong')),
      vpiCoefficientShort: fp(s.vpiCoefficientShort, f('state.vpiCoefficientShort')),
    },
    settings: {
      fee: fp(st.fee, f('settings.fee')),
      minInitMarginRatio: fp(st.minInitMarginRatio, f('settings.minInitMarginRatio')),
      initMarginRatio: fp(st.initMarginRatio, f('settings.initMarginRatio')),
      maintenanceMarginRatio: fp(st.maintenanceMarginRatio, f('settings.maintenanceMarginRatio')),
      maxLeverageByAccount,
      spreadLimit: fp(st.spreadLimit, f('settings.spreadLimit')),
      maxPriceImpact: fp(st.maxPriceImpact, f('settings.maxPriceImpact')),
      maxPriceSpread: fp(st.maxPriceSpread, f('settings.maxPriceSpread')),
      maxOpenNotionalLong: fp(st.maxOpenNotionalLong, f('settings.maxOpenNotionalLong')),
      maxOpenNotionalShort: fp(st.maxOpenNotionalShort, f('settings.maxOpenNotionalShort')),
      minStopTriggerDistanceRatio: fp(st.minStopTriggerDistanceRatio, f('settings.minStopTriggerDistanceRatio')),
      isCloseOnly: st.isCloseOnly,
      isClosed: st.isClosed,
      isPaused: st.isPaused,
      isZeroSpread: st.isZeroSpread,
    },
    change: {
      initialPrice: jsonNumber(m.change.initialPrice),
      initialPrice1h: jsonNumber(m.change.initialPrice1h),
      initialPrice4h: jsonNumber(m.change.initialPrice4h),
    },
    schedule: m.schedule === null ? null : { ...m.schedule },
  };
}

export function encodeAccount(a: Account, root = 'account'): WireAccount {
  const f = (name: string) => `${root}.${name}`;
  return {
    accountId: a.accountId,
    userId: a.userId,
    paymentId: a.paymentId,
    challengeId: a.challengeId,
    tournamentId: a.tournamentId,
    type: a.type,
    initialPhase: a.initialPhase,
    currentPhase: a.currentPhase,
    status: a.status,
    profitTarget: plainN(a.profitTarget),
    maxDailyDrawdown: plainN(a.maxDailyDrawdown),
    maxTotalDrawdown: plainN(a.maxTotalDrawdown),
    maxTrailingTotalDrawdown: plainN(a.maxTrailingTotalDrawdown),
    drawdownBase: fpN(a.drawdownBase, f('drawdownBase')),
    maxDrawdownStop: fpN(a.maxDrawdownStop, f('maxDrawdownStop')),
    minTradingDays: a.minTradingDays,
    suspendedUntil: isoN(a.suspendedUntil),
    accountBalance: fp(a.accountBalance, f('accountBalance')),
    initialAccountBalance: fp(a.initialAccountBalance, f('initialAccountBalance')),
    maxEquity: fpN(a.maxEquity, f('maxEquity')),
    dayStartEquity: fpN(a.dayStartEquity, f('dayStartEquity')),
    profitableDays: a.profitableDays,
    prevPeriodProfitableDays: a.prevPeriodProfitableDays,
    createdAt: iso(a.createdAt),
    failureReason: a.failureReason,
    fundedAt: isoN(a.fundedAt),
    failedAt: isoN(a.failedAt),
    transitionReviewAt: isoN(a.transitionReviewAt),
    currentWithdrawalPeriodStartedAt: isoN(a.currentWithdrawalPeriodStartedAt),
    fundedLimitUnlockedAt: isoN(a.fundedLimitUnlockedAt),
    maxWithdrawalAmount: fp(a.maxWithdrawalAmount, f('maxWithdrawalAmount')),
    payoutBaselineBalance: fp(a.payoutBaselineBalance, f('payoutBaselineBalance')),
    isActiveWithdrawalInPeriod: a.isActiveWithdrawalInPeriod,
    profitSplitPercent: a.profitSplitPercent,
    debt: fp(a.debt, f('debt')),
    dailyDrawdownProtection: a.dailyDrawdownProtection,
    aiFailedReport: a.aiFailedReport,
    apiTrading: a.apiTrading,
    availableMarkets: a.availableMarkets,
    antifraudStatus: a.antifraudStatus,
    tradingLockReason: a.tradingLockReason,
    tournament: a.tournament,
    restore: a.restore,
  };
}

/** Decimals in a payload go out as fp9 strings (the spec's payload amounts are fp9 raw). */
function encodePayload(payload: Record<string, unknown>, root: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    out[key] = Decimal.isDecimal(value) ? fp(value as Decimal, `${root}.${key}`) : value;
  }
  return out;
}

export function encodeAccountEvent(e: AccountEvent, root = 'accountEvent'): WireAccountEvent {
  return {
    eventType: e.eventType,
    payload: encodePayload(e.payload, `${root}.payload`),
    id: e.id,
    accountId: e.accountId,
    createdAt: iso(e.createdAt),
    account: encodeAccount(e.account, `${root}.account`),
  };
}

/** Encode a page with an item encoder: `encodePage(page, encodeOrder)`. */
export function encodePage<T, W>(page: Page<T>, encodeItem: (item: T, root: string) => W, root = 'page'): WirePage<W> {
  return { data: page.data.map((item, i) => encodeItem(item, `${root}.data[${i}]`)), totalCount: page.totalCount };
}

/** Encode a list with an item encoder: `encodeList(orders, encodeOrder, 'orders')`. */
export function encodeList<T, W>(items: readonly T[], encodeItem: (item: T, root: string) => W, root = 'items'): W[] {
  return items.map((item, i) => encodeItem(item, `${root}[${i}]`));
}

// ── request bodies ───────────────────────────────────────────────────────────────────────────────

/**
 * Request values are bounded: at most 27 digits, a magnitude below 10^18, far above any price, amount,
 * size or leverage a market carries. Longer strings are refused naming the field, because past 60
 * significant digits decimal arithmetic would round them, and no trader means a value that large.
 */
export const REQUEST_FP9_MAX_DIGITS = 27;
const fp9Request = z
  .string({ error: FP9_EXPECTED })
  .regex(FP9_PATTERN, { error: FP9_EXPECTED })
  .refine((s) => s.replace('-', '').length <= REQUEST_FP9_MAX_DIGITS, {
    error: (issue) =>
      `expected an fp9 string of at most ${REQUEST_FP9_MAX_DIGITS} digits (a value below 10^18); got one of ${String(issue.input).replace('-', '').length} digits`,
  })
  .transform((s) => decodeFp9(s));
const fp9Optional = fp9Request.nullable().optional();

export const createOrderRequestSchema = z.object({
  accountId: str.min(1, { error: 'expected a non-empty string' }),
  marketId: str.min(1, { error: 'expected a non-empty string' }),
  type: oneOf(CREATABLE_ORDER_TYPES),
  direction: oneOf(DIRECTIONS),
  positionId: str.nullable().optional(),
  amount: fp9Request,
  expectedAmount: fp9Optional,
  leverage: fp9Optional,
  triggerPrice: fp9Optional,
  stopTriggerPrice: fp9Optional,
  takeTriggerPrice: fp9Optional,
  trailingStopActivationPrice: fp9Optional,
  trailingStopOffset: fp9Optional,
  trailingStopOffsetPercent: fp9Optional,
  stopLimitPrice: fp9Optional,
  sizeMode: oneOf(SIZE_MODES).optional(),
  baseSize: fp9Optional,
});

/** PATCH fields are all optional fp9 strings; an explicit null is read as "not set". */
const fp9Edit = fp9Request
  .nullable()
  .optional()
  .transform((v) => v ?? undefined);
export const editOrderRequestSchema = z.object({
  triggerPrice: fp9Edit,
  amount: fp9Edit,
  expectedAmount: fp9Edit,
  baseSize: fp9Edit,
});

export type WireCreateOrderRequest = z.input<typeof createOrderRequestSchema>;
export type WireEditOrderRequest = z.input<typeof editOrderRequestSchema>;

/** The JSON body of `POST /orders`. Fields left undefined are omitted; nulls are sent as null. */
export function encodeCreateOrderRequest(r: CreateOrderRequest): WireCreateOrderRequest {
  const out: WireCreateOrderRequest = {
    accountId: r.accountId,
    marketId: r.marketId,
    type: r.type,
    direction: r.direction,
    amount: fp(r.amount, 'body.amount'),
  };
  if (r.positionId !== undefined) out.positionId = r.positionId;
  for (const key of CREATE_ORDER_FP9_FIELDS) {
    const value = r[key];
    if (value !== undefined) out[key] = fpN(value, `body.${key}`);
  }
  if (r.sizeMode !== undefined) out.sizeMode = r.sizeMode;
  return out;
}

/** The JSON body of `PATCH /orders/{orderId}`. */
export function encodeEditOrderRequest(r: EditOrderRequest): WireEditOrderRequest {
  const out: WireEditOrderRequest = {};
  for (const key of EDIT_ORDER_FIELDS) {
    const value = r[key];
    if (value !== undefined) out[key] = fp(value, `body.${key}`);
  }
  return out;
}

function decodeRequest<S extends z.ZodType>(schema: S, json: unknown, what: string, known: readonly string[]): z.output<S> {
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const unknown = unknownFields(json, known);
    if (unknown.length > 0) throw fieldsRefusal(`${what} body`, unknown, 'unknown');
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = firstIssue(result.error);
  const field = formatPath('', issue.path);
  const shown = field === '(root)' ? describeValue(json) : describeReceived(valueAt(json, issue.path));
  const expected = field === '(root)' ? 'expected a JSON object' : issue.message;
  throw new ValidationError({
    status: 400,
    code: INVALID_REQUEST_BODY,
    message: `${what} body: ${field}: ${expected}, got ${shown}`,
    details: { field },
  });
}

/** Decode a `POST /orders` body (server side). A bad body is a 400 `ValidationError` naming the field. */
export function decodeCreateOrderRequest(json: unknown): CreateOrderRequest {
  const body = decodeRequest(createOrderRequestSchema, json, 'POST /orders', CREATE_ORDER_FIELDS);
  const out: CreateOrderRequest = {
    accountId: body.accountId,
    marketId: body.marketId,
    type: body.type,
    direction: body.direction,
    amount: body.amount,
  };
  if (body.positionId !== undefined) out.positionId = body.positionId;
  for (const key of CREATE_ORDER_FP9_FIELDS) {
    const value = body[key];
    if (value !== undefined) out[key] = value;
  }
  if (body.sizeMode !== undefined) out.sizeMode = body.sizeMode;
  return out;
}

/** Decode a `PATCH /orders/{orderId}` body (server side). */
export function decodeEditOrderRequest(json: unknown): EditOrderRequest {
  const body = decodeRequest(editOrderRequestSchema, json, 'PATCH /orders/{orderId}', EDIT_ORDER_FIELDS);
  const out: EditOrderRequest = {};
  for (const key of EDIT_ORDER_FIELDS) {
    const value = body[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

// ── error responses ──────────────────────────────────────────────────────────────────────────────

export interface WireErrorResponse {
  status: number;
  headers: Record<string, string>;
  /** `{ error: code, message, ...details }`; Dates in details become ISO strings. */
  body: Record<string, unknown>;
}

/**
 * The HTTP answer for an `ApiError` (server side), in the envelope the client reads back into the
 * same class: `{ error, message, ...details }`; a `RateLimitError` also gets `Retry-After` (whole
 * seconds from `nowMs` to its `retryAt`) and `retryAt` as an ISO string.
 */
export function encodeApiError(error: ApiError, nowMs: number = Date.now()): WireErrorResponse {
  const prefix = error.request ? `${error.request}: ` : '';
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error.details)) {
    body[key] = value instanceof Date ? value.toISOString() : Decimal.isDecimal(value) ? encodeFp9(value as Decimal, 'exact', `details.${key}`) : value;
  }
  body['error'] = error.code;
  body['message'] = message;
  const headers: Record<string, string> = {};
  if (error instanceof RateLimitError && error.retryAt) {
    headers['Retry-After'] = String(Math.max(0, Math.ceil((error.retryAt.getTime() - nowMs) / 1000)));
  }
  return { status: error.status, headers, body };
}
