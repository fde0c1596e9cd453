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
import { doubleArray, objectArray } from '../core/arrays.js';
import { EquityMinutes } from './equity-minutes.js';
import type { MarketPreset, PhasePreset } from './presets.js';
import { parseRaw } from './fixed.js';
import { WeeklySchedule } from './schedule.js';

/**
 * What addMarket works out for a new market from its spec and preset; the rest of a market's fields
 * come from these or start the same for every market (MarketRt's constructor).
 */
export interface MarketSetup {
  readonly id: string;
  readonly asset: string;
  readonly presetName: string;
  /** The preset with the spec's overrides, and its config path (`markets.<name>`) for errors. */
  readonly preset: MarketPreset;
  readonly path: string;
  readonly config: MarketConfig;
  readonly maxLeverageByType: Record<AccountType, bigint>;
  /** Engine time now (unix ms). */
  readonly now: number;
}

/**
 * A market of the engine. A class, not a literal, because a run makes one a market: the literal's
 * second object, in a sweep's second run, would widen its object fields and throw away the engine's
 * code compiled in the first run (docs/performance-log.md, eighteenth and nineteenth rounds). The
 * fields its constructor sets are declared, so each is first stored with its value; the others start
 * the same for every market.
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

  hasPrice = false;
  price = 0n;
  declare priceAt: number;
  isPaused = false;
  isCloseOnly = false;
  isClosed = false;
  isZeroSpread = false;
  declare schedule: WeeklySchedule | null;
  inPause = false;
  scheduleChangeAt = Number.MAX_SAFE_INTEGER;
  declare nextFundingAt: number;
  lastFundingAt: number | null = null;

  /** Open positions on the market, in opening order (liquidation checks). */
  positions: PositionRt[] = objectArray();
  /** Per account holding positions here: net size and notional, for equity. */
  holdings: HoldingRt[] = objectArray();
  /** Active deferred orders, in creation order (trigger checks). */
  orders: OrderRt[] = objectArray();
  /** Last price of each minute (for `change`): parallel arrays. */
  histAt: number[] = doubleArray();
  histPrice: bigint[] = objectArray();
  histMinute = -1;
  /** Trigger-skip thresholds (see EngineCore#thresholds) and the list they were computed for. */
  thrList: OrderRt[] | null = null;
  thrLen = -1;
  thrBelow = 0n;
  thrAbove = 0n;
  thrAlways = true;

  constructor(setup: MarketSetup) {
    const { preset: p, path } = setup;
    const raw = (k: keyof MarketPreset) => parseRaw(String(p[k]), `${path}.${k}`);
    this.id = setup.id;
    this.asset = setup.asset;
    this.presetName = setup.presetName;
    this.preset = p;
    this.config = setup.config;
    this.fee = raw('fee');
    this.vpiSpread = raw('vpiSpread');
    this.spreadLimit = raw('spreadLimit');
    this.coefLong = raw('vpiCoefficientLong');
    this.coefShort = raw('vpiCoefficientShort');
    this.depthLong = raw('vpiMarketDepthLong');
    this.depthShort = raw('vpiMarketDepthShort');
    this.maxImpact = raw('maxPriceImpact');
    this.maxPriceSpread = raw('maxPriceSpread');
    this.mmr = raw('maintenanceMarginRatio');
    this.imr = raw('initMarginRatio');
    this.minImr = raw('minInitMarginRatio');
    this.minLeverage = raw('minLeverage');
    this.maxLeverageByType = setup.maxLeverageByType;
    this.maxOpenLong = raw('maxOpenNotionalLong');
    this.maxOpenShort = raw('maxOpenNotionalShort');
    this.minStopDist = raw('minStopTriggerDistanceRatio');
    this.minNotional = raw('minNotional');
    this.fundingRate = raw('fundingRate');
    this.scalpMult = raw('scalpingMultiplier');
    this.regularMult = raw('regularMultiplier');
    this.fundingIntervalMs = p.fundingIntervalMs;
    this.scalpingWindowMs = p.scalpingWindowMs;
    this.profitAdjMs = p.profitAdjustmentWindowMs;
    this.rejectAboveDepth = p.rejectAboveMarketDepth;
    this.priceAt = setup.now;
    this.schedule = p.schedule ? new WeeklySchedule(p.schedule, `${path}.schedule`) : null;
    this.nextFundingAt = (Math.floor(setup.now / p.fundingIntervalMs) + 1) * p.fundingIntervalMs;
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

/** What openAccount works out for a new account; every other field starts the same for every account. */
export interface AccountOpening {
  readonly id: string;
  readonly userId: string;
  readonly type: AccountType;
  readonly phase: string;
  readonly rules: PhasePreset;
  readonly ruleOverrides: Partial<PhasePreset>;
  readonly category: MarketCategory | null;
  readonly apiTrading: boolean;
  readonly paymentId: string | null;
  readonly challengeId: string | null;
  /** Engine time now (unix ms) and its equity-sample minute. */
  readonly now: number;
  readonly minute: number;
  readonly initial: bigint;
}

/** An account of the engine. A class for the reason MarketRt is one. */
export class AccountRt {
  declare id: string;
  declare userId: string;
  declare type: AccountType;
  status: AccountStatus = 'active';
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
  upnl = 0n;
  /** Σ margin of open positions. */
  declare margin: bigint;
  /** Σ reserves of active increase orders. */
  reserved = 0n;

  maxEquity: bigint | null = null;
  declare dayStartEquity: bigint;
  /** Equity below these fails the account (null: rule off). */
  dailyFloor: bigint | null = null;
  totalFloor: bigint | null = null;
  trailingFloor: bigint | null = null;
  /** Equity at or above this (with enough profitable days) passes the phase; null: no target. */
  targetEquity: bigint | null = null;
  profitableDayGain = 0n;

  tradingDays = 0;
  lastTradeDay = -1;
  profitableDays = 0;
  declare prevPeriodProfitableDays: number;
  periodStartEquity: bigint | null = null;
  periodStartedAt: number | null = null;
  maxPeriodDelta: bigint | null = null;
  maxPeriodDeltaAt: number | null = null;
  declare payoutBaseline: bigint;

  failureReason: FailureReason | null = null;
  failedAt: number | null = null;
  fundedAt: number | null = null;
  fundedLimitUnlockedAt: number | null = null;

  positions: PositionRt[] = objectArray();
  closedPositions: PositionRt[] = objectArray();
  /** Every order of the account, in creation order; only ever appended to. */
  orders: OrderRt[] = objectArray();
  /**
   * Every order before this index in `orders` is final. An order never becomes active again, so reads
   * of the active orders start here instead of at the account's first order (see reads.activeOrdersStart).
   */
  ordersActiveFrom = 0;
  holdings: Map<string, HoldingRt> = new Map();
  /** Market id → last increase time (scalping window). */
  lastIncreaseAt: Map<string, number> = new Map();
  chart: ChartRec[] = objectArray();

  /**
   * Equity samples: `samples.equityAt(i)` is the equity at the end of minute `sampleStart + i`, in the
   * phase `samples.phaseAt(i)`: a point a minute for as long as the account runs, kept as runs of equal
   * minutes (equity-minutes.ts).
   */
  declare sampleStart: number;
  samples: EquityMinutes = new EquityMinutes();
  /** The minute now being built (not yet in `samples`). */
  declare curMinute: number;
  declare phaseStarts: PhaseStart[];
  /** Step stamp for the dirty list of one time step. */
  dirtyStep = -1;

  constructor(o: AccountOpening) {
    // The money the first trade changes and the phase fields the first pass of a phase changes are
    // stored first with another value: V8 takes a field stored only once for a constant, and code
    // compiled meanwhile that read it was thrown away at the first fill or pass (docs/performance-log.md,
    // fifteenth and eighteenth rounds).
    this.id = o.id;
    this.userId = o.userId;
    this.type = o.type;
    this.initialPhase = o.phase;
    this.phase = o.phase;
    this.phaseIndex = 1;
    this.phaseIndex = 0;
    this.rules = { ...o.rules };
    this.rules = o.rules;
    this.ruleOverrides = o.ruleOverrides;
    this.category = o.category;
    this.apiTrading = o.apiTrading;
    this.paymentId = o.paymentId;
    this.challengeId = o.challengeId;
    this.createdAt = o.now;
    this.initial = o.initial;
    this.balance = o.initial - 1n;
    this.balance = o.initial;
    this.margin = 1n;
    this.margin = 0n;
    this.dayStartEquity = o.initial;
    this.prevPeriodProfitableDays = 1;
    this.prevPeriodProfitableDays = 0;
    this.payoutBaseline = o.initial;
    this.sampleStart = o.minute;
    this.curMinute = o.minute;
    this.phaseStarts = [{ minute: o.minute, phaseIndex: 0, startEquity: o.initial }];
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
