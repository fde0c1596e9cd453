/**
 * Domain types of the platform's API, decoded: fp9 strings are Decimals, date-times are Dates, unix
 * timestamps stay numbers in the unit the spec gives. The HTTP client decodes the wire into these and
 * the local engine produces them directly, so both sit behind the one `Exchange` port.
 * Field names and meanings follow `spec/trading-service-api.md` exactly.
 */
import type { Decimal } from 'decimal.js';

export type Direction = 'long' | 'short';
export const DIRECTIONS = ['long', 'short'] as const;

export const ORDER_STATUSES = [
  'active',
  'executed',
  'canceled',
  'canceled_by_update',
  'canceled_by_position',
  'canceled_by_error',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_TYPES = [
  'market',
  'limit',
  'stop',
  'trailing_stop',
  'take',
  'stop_limit',
  'stop_market',
  'liquidation',
] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** Types `POST /orders` accepts. */
export const CREATABLE_ORDER_TYPES = ['market', 'limit', 'stop_market', 'stop_limit', 'stop', 'take', 'trailing_stop'] as const;
export type CreatableOrderType = (typeof CREATABLE_ORDER_TYPES)[number];
/** Types that open or grow a position. */
export const INCREASE_ORDER_TYPES = ['market', 'limit', 'stop_market', 'stop_limit'] as const;
/** Types that close (part of) a position; they need `positionId`. */
export const CLOSE_ORDER_TYPES = ['stop', 'take', 'trailing_stop'] as const;

export const SIZE_MODES = ['quote', 'base'] as const;
export type SizeMode = (typeof SIZE_MODES)[number];

export const CANCEL_REASONS = [
  'force_close',
  'stop_accounts_fail',
  'stop_accounts_freeze',
  'stop_accounts_promote',
  'stop_accounts_manual',
  'weekly_session_risk_close',
] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/** Execution-time failure codes of deferred orders (`canceled_by_error`). */
export const EXECUTION_ERROR_CODES = [
  'insufficient_reserve_at_execution',
  'order_below_min_notional',
  'order_exceeds_market_depth',
  'order_exceeds_max_open_notional',
  'order_zero_size_at_execution',
  'slippage_tolerance',
  'market_close_only_at_execution',
] as const;
export type ExecutionErrorCode = (typeof EXECUTION_ERROR_CODES)[number];

export interface Order {
  id: string;
  /** Always equal to `id`. */
  txId: string;
  /** Always equal to `id`. */
  index: string;
  trader: string;
  market: string;
  status: OrderStatus;
  type: OrderType;
  direction: Direction;
  triggerPrice: Decimal;
  requestedTriggerPrice: Decimal | null;
  stopPrice: Decimal;
  limitPrice: Decimal;
  stopTriggerPrice: Decimal;
  takeTriggerPrice: Decimal;
  trailingStopActivationPrice: Decimal;
  trailingStopOffset: Decimal;
  trailingStopOffsetPercent: Decimal;
  leverage: Decimal | null;
  positionId: string | null;
  parentOrderId: string | null;
  /** Always null. */
  expiration: Date | null;
  amount: Decimal;
  indexPrice: Decimal | null;
  /** Always 1. */
  settlementOraclePrice: Decimal;
  createdAt: Date;
  /** Always null; see `errorCode`. */
  error: string | null;
  realizedPnl: Decimal | null;
  rawRealizedPnl: Decimal | null;
  profitAdjustmentApplied: boolean;
  /** Always false. */
  executedAfterPause: boolean;
  sizeMode: SizeMode;
  baseSize: Decimal | null;
  reservedAmount: Decimal | null;
  errorCode: string | null;
  reason: CancelReason | null;
}

export const POSITION_STATUSES = ['opened', 'closed', 'liquidated'] as const;
export type PositionStatus = (typeof POSITION_STATUSES)[number];

export const POSITION_EVENT_NAMES = [
  'addMargin',
  'removeMargin',
  'closePosition',
  'increasePosition',
  'liquidate',
  'forceClose',
  'payFunding',
] as const;
export type PositionEventName = (typeof POSITION_EVENT_NAMES)[number];

export interface Position {
  idx: string;
  /** Always equal to `idx`. */
  txId: string;
  version: number;
  openedAt: Date;
  lastUpdatedAt: Date;
  closedAt: Date | null;
  type: Direction;
  status: PositionStatus;
  market: string;
  trader: string;
  size: Decimal;
  notional: Decimal;
  /** Always 0. */
  fraction: Decimal;
  margin: Decimal;
  pnl: Decimal | null;
  funding: Decimal | null;
  rolloverFee: Decimal;
  settlementOraclePrice: Decimal;
  fee: Decimal;
  feeRate: Decimal;
  exchangedQuote: Decimal;
  exchangedBase: Decimal;
  direction: Direction;
  eventName: PositionEventName;
  pnlInEvent: Decimal;
  rawPnlInEvent: Decimal;
  profitAdjustmentApplied: boolean;
  /** Milliseconds held before the most recent close, as the wire's decimal string; null on non-close events. */
  holdingTimeMs: string | null;
  feeInEvent: Decimal;
  fundingInEvent: Decimal;
  rolloverFeeInEvent: Decimal;
  executionFeeRate: Decimal;
  executionFeeInEvent: Decimal;
  executionFee: Decimal;
  timestamp: Date;
  /** Always true. */
  isOnchain: boolean;
  roe: Decimal;
  scalpingCoefficient: Decimal;
  closeReason: string | null;
}

export interface PositionEvent extends Position {
  /** The order that produced the event; null for events the platform raised itself. */
  order: Order | null;
}

export const CHART_EVENT_NAMES = ['open', 'increase', 'decrease', 'close', 'liquidation'] as const;
export type ChartEventName = (typeof CHART_EVENT_NAMES)[number];

export interface ChartEvent {
  asset: string;
  direction: Direction;
  eventName: ChartEventName;
  /** Unix seconds. */
  executedAt: number;
  price: Decimal;
  size: Decimal;
}

export interface ChartEventSide {
  totalCount: number;
  /** At most 5, newest first. */
  events: ChartEvent[];
}

export interface ChartEventBucket {
  /** Candle start, unix seconds. */
  time: number;
  buy: ChartEventSide;
  sell: ChartEventSide;
}

export const CHART_RESOLUTIONS = ['1', '5', '15', '30', '60', '240', '1D'] as const;
export type ChartResolution = (typeof CHART_RESOLUTIONS)[number];
/** Seconds per candle of each resolution. */
export const CHART_RESOLUTION_SECONDS: Record<ChartResolution, number> = {
  '1': 60,
  '5': 300,
  '15': 900,
  '30': 1800,
  '60': 3600,
  '240': 14400,
  '1D': 86400,
};
export const MAX_CHART_BUCKET_CANDLES = 350;

export interface RiskStatus {
  accountId: string;
  tradingDays: number;
  currentBalance: Decimal;
  currentEquity: Decimal;
  dayStartEquity: Decimal;
  maxEquity: Decimal | null;
  periodStartEquity: Decimal | null;
  maxPeriodDailyEquityDelta: Decimal | null;
  maxPeriodDailyEquityDeltaAt: Date | null;
  consistencyRuleApplies: boolean;
  consistencyRuleMet: boolean | null;
  consistencyRuleRatio: Decimal | null;
  consistencyRuleLimit: Decimal;
  payoutBaselineBalance: Decimal;
  isPayoutBaselineRequirementMet: boolean;
}

export interface EquityPoint {
  /** Minute of the sample, unix ms. */
  timestamp: number;
  /** Equity at that minute. */
  volume: Decimal;
  phaseIndex: number;
  phaseStartEquity: Decimal;
}

export interface ScalpingCoefficient {
  amount: Decimal;
  amountRegular: Decimal;
  /** Present only while the window runs (null otherwise). */
  activeSince: Date | null;
  activeUntil: Date | null;
}

export const MARKET_CATEGORIES = ['crypto', 'rwa'] as const;
export type MarketCategory = (typeof MARKET_CATEGORIES)[number];

export interface MarketConfig {
  baseAsset: string;
  quoteAsset: string;
  settlementToken: string;
  type: string;
  name: string;
  description: string;
  ticker: string;
  imageLink: string;
  tags: string[];
  category: MarketCategory;
  priority: number | null;
}

export interface MarketState {
  indexPrice: Decimal;
  /** Unix ms. */
  blockTimestamp: number;
  fundingRate: Decimal;
  /** Unix ms. */
  nextFundingAt: number;
  /** Unix ms, null before the first settlement. */
  lastFundingAt: number | null;
  vpiSpread: Decimal;
  vpiMarketDepthLong: Decimal;
  vpiMarketDepthShort: Decimal;
  vpiCoefficientLong: Decimal;
  vpiCoefficientShort: Decimal;
}

export interface MarketSettings {
  fee: Decimal;
  minInitMarginRatio: Decimal;
  initMarginRatio: Decimal;
  maintenanceMarginRatio: Decimal;
  /** Account type → highest leverage. */
  maxLeverageByAccount: Record<string, Decimal>;
  spreadLimit: Decimal;
  maxPriceImpact: Decimal;
  maxPriceSpread: Decimal;
  maxOpenNotionalLong: Decimal;
  maxOpenNotionalShort: Decimal;
  minStopTriggerDistanceRatio: Decimal;
  isCloseOnly: boolean;
  isClosed: boolean;
  isPaused: boolean;
  isZeroSpread: boolean;
}

export interface MarketChange {
  initialPrice: Decimal;
  initialPrice1h: Decimal;
  initialPrice4h: Decimal;
}

/** Sentinel of `nextPauseAt` / `nextUnpauseAt` when no break is scheduled ahead. */
export const SCHEDULE_NONE_AHEAD = 9007199254740991;

export interface MarketSchedule {
  nextPauseAt: number;
  nextUnpauseAt: number;
  closestPauseAt: number;
  closestUnpauseAt: number;
  pausedAt: number;
  inPause: boolean;
}

export interface Market {
  id: string;
  config: MarketConfig;
  state: MarketState;
  settings: MarketSettings;
  change: MarketChange;
  schedule: MarketSchedule | null;
}

export const ACCOUNT_TYPES = ['demo', 'real', 'tournament'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const ACCOUNT_STATUSES = [
  'pending',
  'active',
  'failed',
  'frozen',
  'suspended',
  'closed',
  'trading_locked_by_funded_limit',
  'trading_locked_by_instant_funded_limit',
  'phase_transition_pending',
  'transition_review',
] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
/** Statuses in which only closing is allowed. */
export const LOCKED_STATUSES: readonly AccountStatus[] = [
  'trading_locked_by_funded_limit',
  'trading_locked_by_instant_funded_limit',
];

export const PHASES = ['active_evaluation', 'active_verification', 'funded', 'funded_success'] as const;
export type Phase = (typeof PHASES)[number] | (string & {});

export const FAILURE_REASONS = ['max_total_drawdown', 'max_trailing_total_drawdown', 'max_daily_drawdown'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export interface Account {
  accountId: string;
  userId: string;
  paymentId: string | null;
  challengeId: string | null;
  tournamentId: string | null;
  type: AccountType;
  initialPhase: Phase;
  currentPhase: Phase;
  status: AccountStatus;
  /** Percent of initial balance, as a decimal (5 = 5%). */
  profitTarget: Decimal | null;
  maxDailyDrawdown: Decimal | null;
  maxTotalDrawdown: Decimal | null;
  maxTrailingTotalDrawdown: Decimal | null;
  drawdownBase: Decimal | null;
  maxDrawdownStop: Decimal | null;
  minTradingDays: number | null;
  suspendedUntil: Date | null;
  accountBalance: Decimal;
  initialAccountBalance: Decimal;
  maxEquity: Decimal | null;
  dayStartEquity: Decimal | null;
  profitableDays: number;
  prevPeriodProfitableDays: number;
  createdAt: Date;
  failureReason: FailureReason | null;
  fundedAt: Date | null;
  failedAt: Date | null;
  transitionReviewAt: Date | null;
  currentWithdrawalPeriodStartedAt: Date | null;
  fundedLimitUnlockedAt: Date | null;
  maxWithdrawalAmount: Decimal;
  payoutBaselineBalance: Decimal;
  isActiveWithdrawalInPeriod: boolean;
  profitSplitPercent: number;
  debt: Decimal;
  dailyDrawdownProtection: Record<string, unknown> | null;
  aiFailedReport: boolean;
  apiTrading: boolean;
  availableMarkets: string;
  antifraudStatus: string;
  tradingLockReason: string | null;
  tournament: Record<string, unknown> | null;
  restore: Record<string, unknown>;
}

export interface AccountEvent {
  /** `buy_challenge` is the one the spec shows; the local engine also raises its own (see engine docs). */
  eventType: string;
  payload: Record<string, unknown>;
  id: string;
  accountId: string;
  createdAt: Date;
  account: Account;
}

export interface Page<T> {
  data: T[];
  totalCount: number;
}

export interface PageQuery {
  limit?: number;
  offset?: number;
}

export interface EquityHistoryQuery {
  /** Anchor, unix ms. */
  timestamp?: number;
  /** Window length in ms; negative spans backwards; zero is refused. Default 5 days. */
  duration?: number;
}

export interface ChartEventsQuery extends PageQuery {
  /** Unix seconds, inclusive. */
  executedFrom: number;
  /** Unix seconds, inclusive. */
  executedTo: number;
}

export interface ChartBucketsQuery {
  resolution: ChartResolution;
  /** Start of the first candle, unix seconds, inclusive. */
  from: number;
  /** Start of the last candle, unix seconds, inclusive. */
  to: number;
}

export interface CreateOrderRequest {
  accountId: string;
  marketId: string;
  type: CreatableOrderType;
  direction: Direction;
  positionId?: string | null;
  amount: Decimal;
  expectedAmount?: Decimal | null;
  leverage?: Decimal | null;
  triggerPrice?: Decimal | null;
  stopTriggerPrice?: Decimal | null;
  takeTriggerPrice?: Decimal | null;
  trailingStopActivationPrice?: Decimal | null;
  trailingStopOffset?: Decimal | null;
  trailingStopOffsetPercent?: Decimal | null;
  stopLimitPrice?: Decimal | null;
  sizeMode?: SizeMode;
  baseSize?: Decimal | null;
}

export interface EditOrderRequest {
  triggerPrice?: Decimal;
  amount?: Decimal;
  expectedAmount?: Decimal;
  baseSize?: Decimal;
}

export interface MarketQuery {
  /** Resolve leverage bounds and availability for this account. */
  accountId?: string;
}
