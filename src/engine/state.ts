/**
 * The engine's internal records. Money, sizes and prices are exact fp9 integers (bigint); times are unix
 * ms numbers. The API's domain objects (Decimal, Date) are built from these only when read (views.ts).
 */
import type {
  AccountStatus,
  AccountType,
  CancelReason,
  Direction,
  FailureReason,
  MarketCategory,
  MarketConfig,
  OrderStatus,
  OrderType,
  PositionEventName,
  PositionStatus,
  SizeMode,
} from '../api/types.js';
import type { EquityMinutes } from './equity-minutes.js';
import type { MarketPreset, PhasePreset } from './presets.js';
import type { WeeklySchedule } from './schedule.js';

export interface MarketRt {
  // Fixed when the market is added (views.ts builds their Decimals once per market on that promise).
  readonly id: string;
  readonly asset: string;
  readonly presetName: string;
  readonly preset: MarketPreset;
  readonly config: MarketConfig;
  readonly fee: bigint;
  readonly vpiSpread: bigint;
  readonly spreadLimit: bigint;
  readonly coefLong: bigint;
  readonly coefShort: bigint;
  readonly depthLong: bigint;
  readonly depthShort: bigint;
  readonly maxImpact: bigint;
  readonly maxPriceSpread: bigint;
  readonly mmr: bigint;
  readonly imr: bigint;
  readonly minImr: bigint;
  readonly minLeverage: bigint;
  readonly maxLeverageByType: Record<AccountType, bigint>;
  readonly maxOpenLong: bigint;
  readonly maxOpenShort: bigint;
  readonly minStopDist: bigint;
  readonly minNotional: bigint;
  readonly fundingRate: bigint;
  readonly scalpMult: bigint;
  readonly regularMult: bigint;
  readonly fundingIntervalMs: number;
  readonly scalpingWindowMs: number;
  readonly profitAdjMs: number;
  readonly rejectAboveDepth: boolean;

  hasPrice: boolean;
  price: bigint;
  priceAt: number;
  isPaused: boolean;
  isCloseOnly: boolean;
  isClosed: boolean;
  isZeroSpread: boolean;
  schedule: WeeklySchedule | null;
  inPause: boolean;
  scheduleChangeAt: number;
  nextFundingAt: number;
  lastFundingAt: number | null;

  /** Open positions on the market, in opening order (liquidation checks). */
  positions: PositionRt[];
  /** Per account holding positions here: net size and notional, for equity. */
  holdings: HoldingRt[];
  /** Active deferred orders, in creation order (trigger checks). */
  orders: OrderRt[];
  /** Last price of each minute (for `change`): parallel arrays. */
  histAt: number[];
  histPrice: bigint[];
  histMinute: number;
  /** Trigger-skip thresholds (see EngineCore#thresholds) and the list they were computed for. */
  thrList: OrderRt[] | null;
  thrLen: number;
  thrBelow: bigint;
  thrAbove: bigint;
  thrAlways: boolean;
}

/** One account's exposure on one market: signed size (long +, short −) and signed notional. */
export interface HoldingRt {
  account: AccountRt;
  market: MarketRt;
  netSize: bigint;
  netNotional: bigint;
  upnl: bigint;
  count: number;
  /** The holding split for `markHolding` (holding-mark.ts): 1 long, −1 short. */
  markSign: number;
  /** ⌊|netSize| / 10^9⌋ and |netSize| mod 10^9. */
  markHi: number;
  markLo: number;
  markNotional: number;
  /** Prices (fp9) below which `markHolding` is exact; 0: never (the bigint path marks it). */
  markMaxPrice: number;
}

export interface PhaseStart {
  /** First minute of the phase. */
  minute: number;
  phaseIndex: number;
  startEquity: bigint;
}

export interface AccountRt {
  id: string;
  userId: string;
  type: AccountType;
  status: AccountStatus;
  initialPhase: string;
  phase: string;
  phaseIndex: number;
  rules: PhasePreset;
  ruleOverrides: Partial<PhasePreset>;
  category: MarketCategory | null;
  apiTrading: boolean;
  paymentId: string | null;
  challengeId: string | null;
  createdAt: number;

  initial: bigint;
  balance: bigint;
  /** Σ unrealised pnl over holdings. */
  upnl: bigint;
  /** Σ margin of open positions. */
  margin: bigint;
  /** Σ reserves of active increase orders. */
  reserved: bigint;

  maxEquity: bigint | null;
  dayStartEquity: bigint;
  /** Equity below these fails the account (null: rule off). */
  dailyFloor: bigint | null;
  totalFloor: bigint | null;
  trailingFloor: bigint | null;
  /** Equity at or above this (with enough profitable days) passes the phase; null: no target. */
  targetEquity: bigint | null;
  profitableDayGain: bigint;

  tradingDays: number;
  lastTradeDay: number;
  profitableDays: number;
  prevPeriodProfitableDays: number;
  periodStartEquity: bigint | null;
  periodStartedAt: number | null;
  maxPeriodDelta: bigint | null;
  maxPeriodDeltaAt: number | null;
  payoutBaseline: bigint;

  failureReason: FailureReason | null;
  failedAt: number | null;
  fundedAt: number | null;
  fundedLimitUnlockedAt: number | null;

  positions: PositionRt[];
  closedPositions: PositionRt[];
  /** Every order of the account, in creation order; only ever appended to. */
  orders: OrderRt[];
  /**
   * Every order before this index in `orders` is final. An order never becomes active again, so reads
   * of the active orders start here instead of at the account's first order (see reads.activeOrdersStart).
   */
  ordersActiveFrom: number;
  holdings: Map<string, HoldingRt>;
  /** Market id → last increase time (scalping window). */
  lastIncreaseAt: Map<string, number>;
  chart: ChartRec[];

  /**
   * Equity samples: `samples.equityAt(i)` is the equity at the end of minute `sampleStart + i`, in the
   * phase `samples.phaseAt(i)`: a point a minute for as long as the account runs, kept as runs of equal
   * minutes (equity-minutes.ts).
   */
  sampleStart: number;
  samples: EquityMinutes;
  /** The minute now being built (not yet in `samples`). */
  curMinute: number;
  phaseStarts: PhaseStart[];
  /** Step stamp for the dirty list of one time step. */
  dirtyStep: number;
}

export interface OrderRt {
  id: string;
  seq: number;
  account: AccountRt;
  market: MarketRt;
  phaseIndex: number;
  status: OrderStatus;
  type: OrderType;
  direction: Direction;
  trigger: bigint;
  requestedTrigger: bigint | null;
  stopPrice: bigint;
  limitPrice: bigint;
  stopTrigger: bigint;
  takeTrigger: bigint;
  trailActivation: bigint;
  trailOffset: bigint;
  trailOffsetPct: bigint;
  leverage: bigint | null;
  positionId: string | null;
  parentOrderId: string | null;
  amount: bigint;
  expectedAmount: bigint;
  indexPrice: bigint | null;
  createdAt: number;
  finishedAt: number | null;
  realizedPnl: bigint | null;
  rawRealizedPnl: bigint | null;
  profitAdj: boolean;
  sizeMode: SizeMode;
  baseSize: bigint | null;
  reservedAmount: bigint | null;
  errorCode: string | null;
  reason: CancelReason | null;
  /** Reserve held while active (increase orders). */
  reserve: bigint;
  /** Created without a trigger (`stop`/`take` at 0): a close at market. */
  noTrigger: boolean;
  /** Trailing stop state. */
  trailActive: boolean;
  trailExtreme: bigint;
  /** A stop_limit's trigger in the fire check; the limit child's in its own. */
  isIncrease: boolean;
}

export interface PositionSnap {
  version: number;
  lastUpdatedAt: number;
  closedAt: number | null;
  status: PositionStatus;
  size: bigint;
  notional: bigint;
  margin: bigint;
  pnl: bigint;
  funding: bigint;
  fee: bigint;
  exchangedQuote: bigint;
  exchangedBase: bigint;
  eventName: PositionEventName;
  pnlInEvent: bigint;
  rawPnlInEvent: bigint;
  profitAdj: boolean;
  holdingTimeMs: number | null;
  feeInEvent: bigint;
  fundingInEvent: bigint;
  marginPutUp: bigint;
  scalpingCoefficient: bigint;
  closeReason: string | null;
  orderId: string | null;
}

export interface PositionRt extends PositionSnap {
  id: string;
  account: AccountRt;
  market: MarketRt;
  direction: Direction;
  phaseIndex: number;
  openedAt: number;
  feeRate: bigint;
  lastIncreaseAt: number;
  /** Pnl marked at the index price right after the last open/increase (60-second rule cap). */
  upnlAtIncrease: bigint;
  /** Liquidation when the price is at or beyond this (long: ≤, short: ≥). */
  liqPrice: bigint;
  history: PositionSnap[];
}

export interface ChartRec {
  marketId: string;
  phaseIndex: number;
  direction: Direction;
  eventName: 'open' | 'increase' | 'decrease' | 'close' | 'liquidation';
  at: number;
  quote: bigint;
  size: bigint;
}

export interface AccountEventRec {
  id: string;
  seq: number;
  account: AccountRt;
  eventType: string;
  payload: Record<string, unknown>;
  createdAt: number;
}
