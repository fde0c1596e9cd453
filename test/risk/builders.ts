/**
 * Plain domain objects for the guard's tests: a market, a risk status, positions, orders, an account,
 * their feed snapshots and intents. Defaults are round numbers with zero fees and spread so a test can
 * state the arithmetic at a rule's edge; every field can be overridden.
 */
import type { Decimal } from 'decimal.js';
import { Dec } from '../../src/core/decimal.js';
import { VirtualClock } from '../../src/core/clock.js';
import { SeededIds } from '../../src/core/ids.js';
import { RiskGuard, type GuardLogger } from '../../src/risk/index.js';
import type { Account, Direction, Market, Order, Position, RiskStatus } from '../../src/api/types.js';
import type { MarketSnapshot, OrdersSnapshot, PositionsSnapshot, RiskSnapshot } from '../../src/feed/types.js';
import type {
  CancelIntent,
  CloseAllIntent,
  CloseIntent,
  EntryOrder,
  OpenIntent,
  ProtectIntent,
  Sizing,
} from '../../src/strategy/intents.js';

export const D = (v: string | number): Decimal => new Dec(String(v));
export const ACCOUNT = '11111111-1111-4111-8111-111111111111';
export const BTC_MARKET = '22222222-2222-4222-8222-222222222222';
/** 2021-05-19T12:00:00Z. */
export const T0 = Date.UTC(2021, 4, 19, 12, 0, 0);

type DeepPartialMarket = {
  id?: string;
  config?: Partial<Market['config']>;
  state?: Partial<Market['state']>;
  settings?: Partial<Market['settings']>;
  schedule?: Market['schedule'];
};

export function market(o: DeepPartialMarket = {}): Market {
  return {
    id: o.id ?? BTC_MARKET,
    config: {
      baseAsset: 'BTC',
      quoteAsset: 'USD',
      settlementToken: 'USD',
      type: 'perpetual',
      name: 'Bitcoin',
      description: '',
      ticker: 'BTC/USD',
      imageLink: '',
      tags: [],
      category: 'crypto',
      priority: null,
      ...o.config,
    },
    state: {
      indexPrice: D(50000),
      blockTimestamp: T0,
      fundingRate: D(0),
      nextFundingAt: T0 + 3_600_000,
      lastFundingAt: null,
      vpiSpread: D(0),
      vpiMarketDepthLong: D(1_000_000_000),
      vpiMarketDepthShort: D(1_000_000_000),
      vpiCoefficientLong: D(0),
      vpiCoefficientShort: D(0),
      ...o.state,
    },
    settings: {
      fee: D(0),
      minInitMarginRatio: D('0.2'),
      initMarginRatio: D('0.2'),
      maintenanceMarginRatio: D('0.01'),
      maxLeverageByAccount: { demo: D(5), real: D(5), tournament: D(5) },
      spreadLimit: D('0.01'),
      maxPriceImpact: D('0.01'),
      maxPriceSpread: D('0.01'),
      maxOpenNotionalLong: D(0),
      maxOpenNotionalShort: D(0),
      minStopTriggerDistanceRatio: D(0),
      isCloseOnly: false,
      isClosed: false,
      isPaused: false,
      isZeroSpread: false,
      ...o.settings,
    },
    change: { initialPrice: D(0), initialPrice1h: D(0), initialPrice4h: D(0) },
    schedule: o.schedule === undefined ? null : o.schedule,
  };
}

export function riskStatus(o: Partial<RiskStatus> = {}): RiskStatus {
  return {
    accountId: ACCOUNT,
    tradingDays: 1,
    currentBalance: D(100000),
    currentEquity: D(100000),
    dayStartEquity: D(100000),
    maxEquity: D(100000),
    periodStartEquity: null,
    maxPeriodDailyEquityDelta: null,
    maxPeriodDailyEquityDeltaAt: null,
    consistencyRuleApplies: false,
    consistencyRuleMet: null,
    consistencyRuleRatio: null,
    consistencyRuleLimit: D('0.3'),
    payoutBaselineBalance: D(100000),
    isPayoutBaselineRequirementMet: false,
    ...o,
  };
}

let seq = 0;
const nextId = (prefix: string): string => `${prefix}-${++seq}`;

export function position(o: Partial<Position> & { direction?: Direction } = {}): Position {
  const id = o.idx ?? nextId('pos');
  const direction = o.direction ?? 'long';
  const at = new Date(T0 - 3_600_000 * 2);
  return {
    idx: id,
    txId: id,
    version: 1,
    openedAt: at,
    lastUpdatedAt: at,
    closedAt: null,
    type: direction,
    status: 'opened',
    market: BTC_MARKET,
    trader: ACCOUNT,
    size: D('0.1'),
    notional: D(5000),
    fraction: D(0),
    margin: D(1000),
    pnl: null,
    funding: null,
    rolloverFee: D(0),
    settlementOraclePrice: D(1),
    fee: D(0),
    feeRate: D(0),
    exchangedQuote: D(5000),
    exchangedBase: D('0.1'),
    direction,
    eventName: 'increasePosition',
    pnlInEvent: D(0),
    rawPnlInEvent: D(0),
    profitAdjustmentApplied: false,
    holdingTimeMs: null,
    feeInEvent: D(0),
    fundingInEvent: D(0),
    rolloverFeeInEvent: D(0),
    executionFeeRate: D(0),
    executionFeeInEvent: D(0),
    executionFee: D(0),
    timestamp: at,
    isOnchain: true,
    roe: D(0),
    scalpingCoefficient: D(1),
    closeReason: null,
    ...o,
  };
}

export function order(o: Partial<Order> = {}): Order {
  const id = o.id ?? nextId('ord');
  return {
    id,
    txId: id,
    index: id,
    trader: ACCOUNT,
    market: BTC_MARKET,
    status: 'active',
    type: 'limit',
    direction: 'long',
    triggerPrice: D(0),
    requestedTriggerPrice: null,
    stopPrice: D(0),
    limitPrice: D(0),
    stopTriggerPrice: D(0),
    takeTriggerPrice: D(0),
    trailingStopActivationPrice: D(0),
    trailingStopOffset: D(0),
    trailingStopOffsetPercent: D(0),
    leverage: D(1),
    positionId: null,
    parentOrderId: null,
    expiration: null,
    amount: D(1000),
    indexPrice: null,
    settlementOraclePrice: D(1),
    createdAt: new Date(T0 - 60_000),
    error: null,
    realizedPnl: null,
    rawRealizedPnl: null,
    profitAdjustmentApplied: false,
    executedAfterPause: false,
    sizeMode: 'quote',
    baseSize: null,
    reservedAmount: null,
    errorCode: null,
    reason: null,
    ...o,
  };
}

/** A full-size stop of a position. */
export function stopOrder(p: Position, trigger: Decimal | string | number): Order {
  return order({
    type: 'stop',
    direction: p.direction,
    positionId: p.idx,
    triggerPrice: D(trigger.toString()),
    amount: p.size,
    leverage: null,
  });
}

export function account(o: Partial<Account> = {}): Account {
  return {
    accountId: ACCOUNT,
    userId: '33333333-3333-4333-8333-333333333333',
    paymentId: null,
    challengeId: null,
    tournamentId: null,
    type: 'real',
    initialPhase: 'active_evaluation',
    currentPhase: 'active_evaluation',
    status: 'active',
    profitTarget: D(5),
    maxDailyDrawdown: D(5),
    maxTotalDrawdown: D(10),
    maxTrailingTotalDrawdown: null,
    drawdownBase: null,
    maxDrawdownStop: null,
    minTradingDays: 3,
    suspendedUntil: null,
    accountBalance: D(100000),
    initialAccountBalance: D(100000),
    maxEquity: D(100000),
    dayStartEquity: D(100000),
    profitableDays: 0,
    prevPeriodProfitableDays: 0,
    createdAt: new Date(T0 - 86_400_000 * 3),
    failureReason: null,
    fundedAt: null,
    failedAt: null,
    transitionReviewAt: null,
    currentWithdrawalPeriodStartedAt: null,
    fundedLimitUnlockedAt: null,
    maxWithdrawalAmount: D(0),
    payoutBaselineBalance: D(100000),
    isActiveWithdrawalInPeriod: false,
    profitSplitPercent: 80,
    debt: D(0),
    dailyDrawdownProtection: null,
    aiFailedReport: false,
    apiTrading: true,
    availableMarkets: 'all',
    antifraudStatus: 'ok',
    tradingLockReason: null,
    tournament: null,
    restore: {},
    ...o,
  };
}

// ---- snapshots ------------------------------------------------------------------------------------

export function marketSnap(m: Market, takenAt = T0, stale = false): MarketSnapshot {
  return { data: m, takenAt, stale, asset: m.config.baseAsset, marketId: m.id, price: m.state.indexPrice };
}

export function riskSnap(r: RiskStatus, takenAt = T0, stale = false): RiskSnapshot {
  return { data: r, takenAt, stale, accountId: r.accountId };
}

export function positionsSnap(list: Position[], asset = 'BTC', takenAt = T0, accountId = ACCOUNT): PositionsSnapshot {
  return { data: list, takenAt, stale: false, accountId, asset };
}

export function ordersSnap(list: Order[], takenAt = T0, accountId = ACCOUNT): OrdersSnapshot {
  return { data: list, takenAt, stale: false, accountId };
}

// ---- intents --------------------------------------------------------------------------------------

export interface OpenSpec {
  direction?: Direction;
  amount?: Decimal | string | number;
  leverage?: Decimal | string | number;
  stopLoss?: Decimal | string | number;
  entry?: EntryOrder;
  sizing?: Sizing;
  strategy?: string;
  asset?: string;
  at?: number;
}

export function openIntent(o: OpenSpec = {}): OpenIntent {
  return {
    id: nextId('intent'),
    strategy: o.strategy ?? 'test',
    accountId: ACCOUNT,
    asset: o.asset ?? 'BTC',
    createdAt: o.at ?? T0,
    kind: 'open',
    direction: o.direction ?? 'long',
    entry: o.entry ?? { type: 'market' },
    sizing: o.sizing ?? { kind: 'quote', amount: D((o.amount ?? 1000).toString()) },
    leverage: D((o.leverage ?? 5).toString()),
    ...(o.stopLoss !== undefined ? { stopLoss: D(o.stopLoss.toString()) } : {}),
  };
}

export function closeIntent(o: { direction?: Direction; positionId?: string; asset?: string } = {}): CloseIntent {
  return {
    id: nextId('intent'),
    strategy: 'test',
    accountId: ACCOUNT,
    asset: o.asset ?? 'BTC',
    createdAt: T0,
    kind: 'close',
    direction: o.direction ?? 'long',
    ...(o.positionId !== undefined ? { positionId: o.positionId } : {}),
  };
}

export function protectIntent(): ProtectIntent {
  return {
    id: nextId('intent'),
    strategy: 'test',
    accountId: ACCOUNT,
    asset: 'BTC',
    createdAt: T0,
    kind: 'protect',
    direction: 'long',
    stopLoss: D(49000),
  };
}

export function cancelIntent(): CancelIntent {
  return { id: nextId('intent'), strategy: 'test', accountId: ACCOUNT, asset: 'BTC', createdAt: T0, kind: 'cancel', orderId: 'o-1' };
}

export function closeAllIntent(): CloseAllIntent {
  return { id: nextId('intent'), strategy: 'test', accountId: ACCOUNT, asset: '*', createdAt: T0, kind: 'close_all', scope: 'account' };
}

/** A configuration with every optional rule off except the named ones (the guard-state rule is always on). */
export function only(...keys: RuleKey[]): Record<string, unknown> {
  const all: RuleKey[] = [
    'accountStatus',
    'marketStatus',
    'leverage',
    'notionalCap',
    'freeBalance',
    'drawdown',
    'consistency',
    'profitWindow',
    'scalping',
    'tradesPerDay',
    'openPositions',
    'lossStreak',
    'killSwitch',
  ];
  return Object.fromEntries(all.map((k) => [k, { enabled: keys.includes(k) }]));
}

export type RuleKey =
  | 'accountStatus'
  | 'marketStatus'
  | 'leverage'
  | 'notionalCap'
  | 'freeBalance'
  | 'drawdown'
  | 'consistency'
  | 'profitWindow'
  | 'scalping'
  | 'tradesPerDay'
  | 'openPositions'
  | 'lossStreak'
  | 'killSwitch';

/** One fp9 unit. */
export const ULP = D('0.000000001');

/** Deep merge of plain configuration objects (later wins). */
export function merge(...parts: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      const prev = out[k];
      if (isPlain(prev) && isPlain(v)) out[k] = merge(prev, v);
      else out[k] = v;
    }
  }
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

export interface SetupOptions {
  config?: Record<string, unknown>;
  now?: number;
  /** null: observe no market. */
  market?: Market | null;
  /** null: observe no risk status. */
  risk?: RiskStatus | null;
  positions?: Position[];
  orders?: Order[];
  account?: Account;
  logger?: GuardLogger;
}

/** A guard on a virtual clock that has observed the given snapshots (defaults: BTC market, 100k account). */
export function setup(o: SetupOptions = {}): { guard: RiskGuard; clock: VirtualClock } {
  const clock = new VirtualClock(o.now ?? T0);
  const ids = new SeededIds('risk-test');
  const guard = new RiskGuard({ config: o.config ?? {}, clock, newId: () => ids.next(), ...(o.logger ? { logger: o.logger } : {}) });
  if (o.market !== null) guard.observeMarket(marketSnap(o.market ?? market(), clock.now()));
  if (o.account !== undefined) guard.observeAccount(o.account);
  if (o.positions !== undefined) guard.observePositions(positionsSnap(o.positions, 'BTC', clock.now()));
  if (o.orders !== undefined) guard.observeOrders(ordersSnap(o.orders, clock.now()));
  if (o.risk !== null) guard.observeRisk(riskSnap(o.risk ?? riskStatus(), clock.now()));
  return { guard, clock };
}
