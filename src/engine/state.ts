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

/**
 * A market of the engine. A class, not a literal, because a run makes one a market: the literal's
 * second object, in a sweep's second run, would widen its object fields and throw away the engine's
 * code compiled in the first run (docs/performance-log.md, eighteenth and nineteenth rounds).
 * Fields declared, so each is first stored with its value, and copied one by one: the constructor's
 * named stores size the object for its fields, where Object.assign or a keyed loop leaves a dictionary.
 */
export class MarketRt {
  // Fixed when the market is added (views.ts builds their Decimals once per market on that promise).
  declare readonly id: string;
  declare readonly asset: string;
  declare readonly presetName: string;
  declare readonly preset: MarketPreset;
  declare readonly config: MarketConfig;
  declare readonly fee: bigint;
  declare readonly vpiSpread: bigint;
  declare readonly spreadLimit: bigint;
  declare readonly coefLong: bigint;
  declare readonly coefShort: bigint;
  declare readonly depthLong: bigint;
  declare readonly depthShort: bigint;
  declare readonly maxImpact: bigint;
  declare readonly maxPriceSpread: bigint;
  declare readonly mmr: bigint;
  declare readonly imr: bigint;
  declare readonly minImr: bigint;
  declare readonly minLeverage: bigint;
  declare readonly maxLeverageByType: Record<AccountType, bigint>;
  declare readonly maxOpenLong: bigint;
  declare readonly maxOpenShort: bigint;
  declare readonly minStopDist: bigint;
  declare readonly minNotional: bigint;
  declare readonly fundingRate: bigint;
  declare readonly scalpMult: bigint;
  declare readonly regularMult: bigint;
  declare readonly fundingIntervalMs: number;
  declare readonly scalpingWindowMs: number;
  declare readonly profitAdjMs: number;
  declare readonly rejectAboveDepth: boolean;

  declare hasPrice: boolean;
  declare price: bigint;
  declare priceAt: number;
  declare isPaused: boolean;
  declare isCloseOnly: boolean;
  declare isClosed: boolean;
  declare isZeroSpread: boolean;
  declare schedule: WeeklySchedule | null;
  declare inPause: boolean;
  declare scheduleChangeAt: number;
  declare nextFundingAt: number;
  declare lastFundingAt: number | null;

  /** Open positions on the market, in opening order (liquidation checks). */
  declare positions: PositionRt[];
  /** Per account holding positions here: net size and notional, for equity. */
  declare holdings: HoldingRt[];
  /** Active deferred orders, in creation order (trigger checks). */
  declare orders: OrderRt[];
  /** Last price of each minute (for `change`): parallel arrays. */
  declare histAt: number[];
  declare histPrice: bigint[];
  declare histMinute: number;
  /** Trigger-skip thresholds (see EngineCore#thresholds) and the list they were computed for. */
  declare thrList: OrderRt[] | null;
  declare thrLen: number;
  declare thrBelow: bigint;
  declare thrAbove: bigint;
  declare thrAlways: boolean;

  constructor(fields: MarketRt) {
    this.id = fields.id;
    this.asset = fields.asset;
    this.presetName = fields.presetName;
    this.preset = fields.preset;
    this.config = fields.config;
    this.fee = fields.fee;
    this.vpiSpread = fields.vpiSpread;
    this.spreadLimit = fields.spreadLimit;
    this.coefLong = fields.coefLong;
    this.coefShort = fields.coefShort;
    this.depthLong = fields.depthLong;
    this.depthShort = fields.depthShort;
    this.maxImpact = fields.maxImpact;
    this.maxPriceSpread = fields.maxPriceSpread;
    this.mmr = fields.mmr;
    this.imr = fields.imr;
    this.minImr = fields.minImr;
    this.minLeverage = fields.minLeverage;
    this.maxLeverageByType = fields.maxLeverageByType;
    this.maxOpenLong = fields.maxOpenLong;
    this.maxOpenShort = fields.maxOpenShort;
    this.minStopDist = fields.minStopDist;
    this.minNotional = fields.minNotional;
    this.fundingRate = fields.fundingRate;
    this.scalpMult = fields.scalpMult;
    this.regularMult = fields.regularMult;
    this.fundingIntervalMs = fields.fundingIntervalMs;
    this.scalpingWindowMs = fields.scalpingWindowMs;
    this.profitAdjMs = fields.profitAdjMs;
    this.rejectAboveDepth = fields.rejectAboveDepth;
    this.hasPrice = fields.hasPrice;
    this.price = fields.price;
    this.priceAt = fields.priceAt;
    this.isPaused = fields.isPaused;
    this.isCloseOnly = fields.isCloseOnly;
    this.isClosed = fields.isClosed;
    this.isZeroSpread = fields.isZeroSpread;
    this.schedule = fields.schedule;
    this.inPause = fields.inPause;
    this.scheduleChangeAt = fields.scheduleChangeAt;
    this.nextFundingAt = fields.nextFundingAt;
    this.lastFundingAt = fields.lastFundingAt;
    this.positions = fields.positions;
    this.holdings = fields.holdings;
    this.orders = fields.orders;
    this.histAt = fields.histAt;
    this.histPrice = fields.histPrice;
    this.histMinute = fields.histMinute;
    this.thrList = fields.thrList;
    this.thrLen = fields.thrLen;
    this.thrBelow = fields.thrBelow;
    this.thrAbove = fields.thrAbove;
    this.thrAlways = fields.thrAlways;
  }
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

/** An account of the engine. A class for the reason MarketRt is one. */
export class AccountRt {
  declare id: string;
  declare userId: string;
  declare type: AccountType;
  declare status: AccountStatus;
  declare initialPhase: string;
  declare phase: string;
  declare phaseIndex: number;
  declare rules: PhasePreset;
  declare ruleOverrides: Partial<PhasePreset>;
  declare category: MarketCategory | null;
  declare apiTrading: boolean;
  declare paymentId: string | null;
  declare challengeId: string | null;
  declare createdAt: number;

  declare initial: bigint;
  declare balance: bigint;
  /** Σ unrealised pnl over holdings. */
  declare upnl: bigint;
  /** Σ margin of open positions. */
  declare margin: bigint;
  /** Σ reserves of active increase orders. */
  declare reserved: bigint;

  declare maxEquity: bigint | null;
  declare dayStartEquity: bigint;
  /** Equity below these fails the account (null: rule off). */
  declare dailyFloor: bigint | null;
  declare totalFloor: bigint | null;
  declare trailingFloor: bigint | null;
  /** Equity at or above this (with enough profitable days) passes the phase; null: no target. */
  declare targetEquity: bigint | null;
  declare profitableDayGain: bigint;

  declare tradingDays: number;
  declare lastTradeDay: number;
  declare profitableDays: number;
  declare prevPeriodProfitableDays: number;
  declare periodStartEquity: bigint | null;
  declare periodStartedAt: number | null;
  declare maxPeriodDelta: bigint | null;
  declare maxPeriodDeltaAt: number | null;
  declare payoutBaseline: bigint;

  declare failureReason: FailureReason | null;
  declare failedAt: number | null;
  declare fundedAt: number | null;
  declare fundedLimitUnlockedAt: number | null;

  declare positions: PositionRt[];
  declare closedPositions: PositionRt[];
  /** Every order of the account, in creation order; only ever appended to. */
  declare orders: OrderRt[];
  /**
   * Every order before this index in `orders` is final. An order never becomes active again, so reads
   * of the active orders start here instead of at the account's first order (see reads.activeOrdersStart).
   */
  declare ordersActiveFrom: number;
  declare holdings: Map<string, HoldingRt>;
  /** Market id → last increase time (scalping window). */
  declare lastIncreaseAt: Map<string, number>;
  declare chart: ChartRec[];

  /**
   * Equity samples: `samples.equityAt(i)` is the equity at the end of minute `sampleStart + i`, in the
   * phase `samples.phaseAt(i)`: a point a minute for as long as the account runs, kept as runs of equal
   * minutes (equity-minutes.ts).
   */
  declare sampleStart: number;
  declare samples: EquityMinutes;
  /** The minute now being built (not yet in `samples`). */
  declare curMinute: number;
  declare phaseStarts: PhaseStart[];
  /** Step stamp for the dirty list of one time step. */
  declare dirtyStep: number;

  constructor(fields: AccountRt) {
    this.id = fields.id;
    this.userId = fields.userId;
    this.type = fields.type;
    this.status = fields.status;
    this.initialPhase = fields.initialPhase;
    this.phase = fields.phase;
    this.phaseIndex = fields.phaseIndex;
    this.rules = fields.rules;
    this.ruleOverrides = fields.ruleOverrides;
    this.category = fields.category;
    this.apiTrading = fields.apiTrading;
    this.paymentId = fields.paymentId;
    this.challengeId = fields.challengeId;
    this.createdAt = fields.createdAt;
    this.initial = fields.initial;
    this.balance = fields.balance;
    this.upnl = fields.upnl;
    this.margin = fields.margin;
    this.reserved = fields.reserved;
    this.maxEquity = fields.maxEquity;
    this.dayStartEquity = fields.dayStartEquity;
    this.dailyFloor = fields.dailyFloor;
    this.totalFloor = fields.totalFloor;
    this.trailingFloor = fields.trailingFloor;
    this.targetEquity = fields.targetEquity;
    this.profitableDayGain = fields.profitableDayGain;
    this.tradingDays = fields.tradingDays;
    this.lastTradeDay = fields.lastTradeDay;
    this.profitableDays = fields.profitableDays;
    this.prevPeriodProfitableDays = fields.prevPeriodProfitableDays;
    this.periodStartEquity = fields.periodStartEquity;
    this.periodStartedAt = fields.periodStartedAt;
    this.maxPeriodDelta = fields.maxPeriodDelta;
    this.maxPeriodDeltaAt = fields.maxPeriodDeltaAt;
    this.payoutBaseline = fields.payoutBaseline;
    this.failureReason = fields.failureReason;
    this.failedAt = fields.failedAt;
    this.fundedAt = fields.fundedAt;
    this.fundedLimitUnlockedAt = fields.fundedLimitUnlockedAt;
    this.positions = fields.positions;
    this.closedPositions = fields.closedPositions;
    this.orders = fields.orders;
    this.ordersActiveFrom = fields.ordersActiveFrom;
    this.holdings = fields.holdings;
    this.lastIncreaseAt = fields.lastIncreaseAt;
    this.chart = fields.chart;
    this.sampleStart = fields.sampleStart;
    this.samples = fields.samples;
    this.curMinute = fields.curMinute;
    this.phaseStarts = fields.phaseStarts;
    this.dirtyStep = fields.dirtyStep;
  }
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
