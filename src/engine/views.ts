/**
 * Internal records → the API's domain objects (types.ts), every field as the spec defines it, the
 * constant compatibility fields included. Built on read only; nothing here runs on the price hot path.
 */
import type {
  Account,
  AccountEvent,
  Market,
  Order,
  Position,
  PositionEvent,
  RiskStatus,
} from '../api/types.js';
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { fp9Decimal } from '../core/fp9.js';
import { DecMemo, fp9Quotient, rawToDec } from './fixed.js';
import type { AccountEventRec, AccountRt, MarketRt, OrderRt, PositionRt, PositionSnap } from './state.js';

const ONE_DEC = new Dec(1);
const ZERO_DEC = new Dec(0);
const d = rawToDec;
const dn = (raw: bigint | null): ReturnType<typeof rawToDec> | null => (raw === null ? null : rawToDec(raw));

export function orderView(o: OrderRt): Order {
  return {
    id: o.id,
    txId: o.id,
    index: o.id,
    trader: o.account.id,
    market: o.market.id,
    status: o.status,
    type: o.type,
    direction: o.direction,
    triggerPrice: d(o.trigger),
    requestedTriggerPrice: dn(o.requestedTrigger),
    stopPrice: d(o.stopPrice),
    limitPrice: d(o.limitPrice),
    stopTriggerPrice: d(o.stopTrigger),
    takeTriggerPrice: d(o.takeTrigger),
    trailingStopActivationPrice: d(o.trailActivation),
    trailingStopOffset: d(o.trailOffset),
    trailingStopOffsetPercent: d(o.trailOffsetPct),
    leverage: dn(o.leverage),
    positionId: o.positionId,
    parentOrderId: o.parentOrderId,
    expiration: null,
    amount: d(o.amount),
    indexPrice: dn(o.indexPrice),
    settlementOraclePrice: ONE_DEC,
    createdAt: new Date(o.createdAt),
    error: null,
    realizedPnl: dn(o.realizedPnl),
    rawRealizedPnl: dn(o.rawRealizedPnl),
    profitAdjustmentApplied: o.profitAdj,
    executedAfterPause: false,
    sizeMode: o.sizeMode,
    baseSize: dn(o.baseSize),
    reservedAmount: dn(o.reservedAmount),
    errorCode: o.errorCode,
    reason: o.reason,
  };
}

/**
 * The Decimal fields of one position's views, each kept while its value stands (see DecMemo): a
 * position's events (every funding payment, every fill) and reads repeat most of its figures, and a
 * bigint comparison costs a fraction of the shared cache's lookup (hashing the bigint). A literal,
 * not `Object.fromEntries` over a list of names: one shape, built at a tenth of the cost (a memo a
 * position opened); positionFrom reads no field the literal lacks, or it does not compile.
 */
function memoOf(source: () => Pick<DecMemo, 'of'>) {
  return {
    size: source(), notional: source(), margin: source(), pnl: source(), funding: source(), fee: source(), feeRate: source(),
    exchangedQuote: source(), exchangedBase: source(), pnlInEvent: source(), rawPnlInEvent: source(), feeInEvent: source(),
    fundingInEvent: source(), scalpingCoefficient: source(),
  };
}
type PositionMemo = ReturnType<typeof memoOf>;
const POSITION_MEMO = new WeakMap<PositionRt, PositionMemo>();

/**
 * A closed position's figures stand still and are seldom read again, while the engine keeps the
 * position for as long as it runs: its views take the shared cache's Decimals, so a long backtest does
 * not keep fourteen memos (and their Decimals) for every position it ever closed.
 */
const SHARED = { of: rawToDec };
const CLOSED_MEMO = memoOf(() => SHARED);

function positionMemo(p: PositionRt): PositionMemo {
  if (p.status !== 'opened') {
    POSITION_MEMO.delete(p);
    return CLOSED_MEMO;
  }
  let memo = POSITION_MEMO.get(p);
  if (memo === undefined) {
    memo = memoOf(() => new DecMemo());
    POSITION_MEMO.set(p, memo);
  }
  return memo;
}

function positionFrom(p: PositionRt, s: PositionSnap): Position {
  const m = positionMemo(p);
  const roe = s.marginPutUp > 0n ? fp9Quotient(s.pnl, s.marginPutUp, 'down') : ZERO_DEC;
  return {
    idx: p.id,
    txId: p.id,
    version: s.version,
    openedAt: new Date(p.openedAt),
    lastUpdatedAt: new Date(s.lastUpdatedAt),
    closedAt: s.closedAt === null ? null : new Date(s.closedAt),
    type: p.direction,
    status: s.status,
    market: p.market.id,
    trader: p.account.id,
    size: m.size.of(s.size),
    notional: m.notional.of(s.notional),
    fraction: ZERO_DEC,
    margin: m.margin.of(s.margin),
    pnl: m.pnl.of(s.pnl),
    funding: m.funding.of(s.funding),
    rolloverFee: ZERO_DEC,
    settlementOraclePrice: ONE_DEC,
    fee: m.fee.of(s.fee),
    feeRate: m.feeRate.of(p.feeRate),
    exchangedQuote: m.exchangedQuote.of(s.exchangedQuote),
    exchangedBase: m.exchangedBase.of(s.exchangedBase),
    direction: p.direction,
    eventName: s.eventName,
    pnlInEvent: m.pnlInEvent.of(s.pnlInEvent),
    rawPnlInEvent: m.rawPnlInEvent.of(s.rawPnlInEvent),
    profitAdjustmentApplied: s.profitAdj,
    holdingTimeMs: s.holdingTimeMs === null ? null : String(s.holdingTimeMs),
    feeInEvent: m.feeInEvent.of(s.feeInEvent),
    fundingInEvent: m.fundingInEvent.of(s.fundingInEvent),
    rolloverFeeInEvent: ZERO_DEC,
    executionFeeRate: ZERO_DEC,
    executionFeeInEvent: ZERO_DEC,
    executionFee: ZERO_DEC,
    timestamp: new Date(s.lastUpdatedAt),
    isOnchain: true,
    roe,
    scalpingCoefficient: m.scalpingCoefficient.of(s.scalpingCoefficient),
    closeReason: s.closeReason,
  };
}

export function positionView(p: PositionRt): Position {
  return positionFrom(p, p);
}

export function positionEventView(p: PositionRt, s: PositionSnap, order: OrderRt | undefined): PositionEvent {
  // `order` assigned onto the new view: spreading a 40-field view into another literal costs ~3 µs
  // in Node 20's V8, an engine event's largest part.
  return Object.assign(positionFrom(p, s), { order: order ? orderView(order) : null });
}

export function accountView(a: AccountRt): Account {
  const pct = (v: string | null) => (v === null ? null : new Dec(v));
  return {
    accountId: a.id,
    userId: a.userId,
    paymentId: a.paymentId,
    challengeId: a.challengeId,
    tournamentId: null,
    type: a.type,
    initialPhase: a.initialPhase,
    currentPhase: a.phase,
    status: a.status,
    profitTarget: pct(a.rules.profitTarget),
    maxDailyDrawdown: pct(a.rules.maxDailyDrawdown),
    maxTotalDrawdown: pct(a.rules.maxTotalDrawdown),
    maxTrailingTotalDrawdown: pct(a.rules.maxTrailingTotalDrawdown),
    drawdownBase: null,
    maxDrawdownStop: a.rules.withdrawalPeriodDays !== null && a.totalFloor !== null ? d(a.totalFloor) : null,
    minTradingDays: a.rules.minTradingDays,
    suspendedUntil: null,
    accountBalance: d(a.balance),
    initialAccountBalance: d(a.initial),
    maxEquity: dn(a.maxEquity),
    dayStartEquity: d(a.dayStartEquity),
    profitableDays: a.profitableDays,
    prevPeriodProfitableDays: a.prevPeriodProfitableDays,
    createdAt: new Date(a.createdAt),
    failureReason: a.failureReason,
    fundedAt: a.fundedAt === null ? null : new Date(a.fundedAt),
    failedAt: a.failedAt === null ? null : new Date(a.failedAt),
    transitionReviewAt: null,
    currentWithdrawalPeriodStartedAt: a.periodStartedAt === null ? null : new Date(a.periodStartedAt),
    fundedLimitUnlockedAt: a.fundedLimitUnlockedAt === null ? null : new Date(a.fundedLimitUnlockedAt),
    maxWithdrawalAmount: d(a.balance + a.upnl > a.payoutBaseline ? a.balance + a.upnl - a.payoutBaseline : 0n),
    payoutBaselineBalance: d(a.payoutBaseline),
    isActiveWithdrawalInPeriod: false,
    profitSplitPercent: a.rules.profitSplitPercent,
    debt: ZERO_DEC,
    dailyDrawdownProtection: null,
    aiFailedReport: false,
    apiTrading: a.apiTrading,
    availableMarkets: a.category ?? 'all',
    antifraudStatus: 'ok',
    tradingLockReason: a.status.startsWith('trading_locked') ? a.status : null,
    tournament: null,
    restore: {},
  };
}

export function accountEventView(e: AccountEventRec): AccountEvent {
  return {
    eventType: e.eventType,
    payload: { ...e.payload },
    id: e.id,
    accountId: e.account.id,
    createdAt: new Date(e.createdAt),
    account: accountView(e.account),
  };
}

/** A phase's consistency limit as a fraction; the same few strings on every read of every account. */
const LIMITS = new Map<string, ReturnType<typeof rawToDec>>();
function consistencyLimit(pct: string): ReturnType<typeof rawToDec> {
  let limit = LIMITS.get(pct);
  if (limit === undefined) LIMITS.set(pct, (limit = new Dec(pct).div(100)));
  return limit;
}

/**
 * The risk fields of one account that move with every price while a position is open: each keeps its
 * last Decimal while its value stands still, so a read on every step builds only what changed.
 * A class, not a literal, because a run makes one (as the guard's `AssetSlot`: performance log,
 * eighteenth round).
 */
class RiskMemo {
  readonly balance = new DecMemo();
  readonly equity = new DecMemo();
  readonly dayStart = new DecMemo();
  readonly maxEquity = new DecMemo();
  readonly periodStart = new DecMemo();
  readonly maxDelta = new DecMemo();
  readonly baseline = new DecMemo();
}
const RISK_MEMO = new WeakMap<AccountRt, RiskMemo>();

export function riskStatusView(a: AccountRt): RiskStatus {
  let memo = RISK_MEMO.get(a);
  if (memo === undefined) {
    memo = new RiskMemo();
    RISK_MEMO.set(a, memo);
  }
  const equity = a.balance + a.upnl;
  const limitPct = a.rules.consistencyLimit;
  const limit = limitPct === null ? ZERO_DEC : consistencyLimit(limitPct);
  let ratio: Decimal | null = null;
  let met: boolean | null = null;
  if (a.periodStartEquity !== null && equity - a.periodStartEquity > 0n) {
    const best = a.maxPeriodDelta ?? 0n;
    ratio = fp9Quotient(best, equity - a.periodStartEquity, 'ceil');
    met = ratio.lte(limit);
  }
  return {
    accountId: a.id,
    tradingDays: a.tradingDays,
    currentBalance: memo.balance.of(a.balance),
    currentEquity: memo.equity.of(equity),
    dayStartEquity: memo.dayStart.of(a.dayStartEquity),
    maxEquity: a.maxEquity === null ? null : memo.maxEquity.of(a.maxEquity),
    periodStartEquity: a.periodStartEquity === null ? null : memo.periodStart.of(a.periodStartEquity),
    maxPeriodDailyEquityDelta: a.maxPeriodDelta === null ? null : memo.maxDelta.of(a.maxPeriodDelta),
    maxPeriodDailyEquityDeltaAt: a.maxPeriodDeltaAt === null ? null : new Date(a.maxPeriodDeltaAt),
    consistencyRuleApplies: limitPct !== null,
    consistencyRuleMet: met,
    consistencyRuleRatio: ratio,
    consistencyRuleLimit: limit,
    payoutBaselineBalance: memo.baseline.of(a.payoutBaseline),
    isPayoutBaselineRequirementMet: equity > a.payoutBaseline,
  };
}

/** Index of the last history entry at or before `t`; -1 when none. */
function historyIndex(m: MarketRt, t: number): number {
  let lo = 0;
  let hi = m.histAt.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (m.histAt[mid]! <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export interface MarketViewOptions {
  now: number;
  /** Leverage caps resolved for one account (type and phase); omitted: platform-wide. */
  maxLeverageByAccount?: Record<string, bigint>;
}

type MarketSettings = Market['settings'];

/**
 * The parts of a market's view that change only with its flags (settings, with the leverage caps of the
 * caller): built once per market and state, frozen, and handed out again, since backtests read markets
 * on every step. Everything else in MarketRt that settings show is fixed at addMarket; the config is the
 * engine's own, frozen there. A class, as MarketMemo.
 */
class MarketParts {
  /** By flags and leverage caps (see settingsOf); a handful of entries per market. */
  readonly settings = new Map<string, MarketSettings>();
  /** The last settings handed out and what they were for: a replay asks for the same on every price. */
  last: { flags: number; byAccount: Record<string, bigint> | undefined; settings: MarketSettings } | undefined = undefined;
}
const PARTS = new WeakMap<MarketRt, MarketParts>();

function partsOf(m: MarketRt): MarketParts {
  let p = PARTS.get(m);
  if (p === undefined) {
    p = new MarketParts();
    PARTS.set(m, p);
  }
  return p;
}

function settingsOf(m: MarketRt, parts: MarketParts, byAccount: Record<string, bigint> | undefined): MarketSettings {
  const isPaused = m.isPaused || m.inPause;
  const flags = +m.isCloseOnly | (+m.isClosed << 1) | (+isPaused << 2) | (+m.isZeroSpread << 3);
  const last = parts.last;
  if (last !== undefined && last.flags === flags && last.byAccount === byAccount) return last.settings;
  const settings = settingsByKey(m, parts, isPaused, byAccount);
  parts.last = { flags, byAccount, settings };
  return settings;
}

function settingsByKey(m: MarketRt, parts: MarketParts, isPaused: boolean, byAccount: Record<string, bigint> | undefined): MarketSettings {
  let key = `${+m.isCloseOnly}${+m.isClosed}${+isPaused}${+m.isZeroSpread}`;
  if (byAccount !== undefined) for (const [k, v] of Object.entries(byAccount)) key += `|${k}=${v}`;
  let s = parts.settings.get(key);
  if (s === undefined) {
    const maxLeverageByAccount: Record<string, ReturnType<typeof rawToDec>> = {};
    for (const [k, v] of Object.entries(byAccount ?? m.maxLeverageByType)) maxLeverageByAccount[k] = d(v);
    s = Object.freeze({
      fee: d(m.fee),
      minInitMarginRatio: d(m.minImr),
      initMarginRatio: d(m.imr),
      maintenanceMarginRatio: d(m.mmr),
      maxLeverageByAccount: Object.freeze(maxLeverageByAccount),
      spreadLimit: d(m.spreadLimit),
      maxPriceImpact: d(m.maxImpact),
      maxPriceSpread: d(m.maxPriceSpread),
      maxOpenNotionalLong: d(m.maxOpenLong),
      maxOpenNotionalShort: d(m.maxOpenShort),
      minStopTriggerDistanceRatio: d(m.minStopDist),
      isCloseOnly: m.isCloseOnly,
      isClosed: m.isClosed,
      isPaused,
      isZeroSpread: m.isZeroSpread,
    });
    parts.settings.set(key, s);
  }
  return s;
}

/**
 * A market's price, kept while it stands (see RiskMemo); its state fields fixed at addMarket (readonly
 * in MarketRt), as Decimals made once; and its 24h/4h/1h reference prices by minute. A class, not a
 * literal, because a run makes one a market (as RiskMemo).
 */
class MarketMemo {
  /** The view's fixed parts (one lookup a read for both). */
  readonly parts: MarketParts;
  readonly price = new DecMemo();
  readonly fundingRate: Decimal;
  readonly vpiSpread: Decimal;
  readonly depthLong: Decimal;
  readonly depthShort: Decimal;
  readonly coefLong: Decimal;
  readonly coefShort: Decimal;
  /** The 24h, 1h and 4h reference prices: each a new Decimal only when it moves (once a minute at most). */
  readonly changePrices: readonly [DecMemo, DecMemo, DecMemo] = [new DecMemo(), new DecMemo(), new DecMemo()];
  /** Per age, the history entry the last lookup landed on (-1: none yet) and its time (see lookUp). */
  readonly changeAt: [number, number, number] = [-1, -1, -1];
  readonly changeTime: [number, number, number] = [0, 0, 0];
  /** The last `change` block, handed out again while its three prices are the same Decimals. */
  change: Market['change'] | undefined = undefined;
  /** The engine time before which the last lookups' block provably stands (see changeUntil). */
  changeUntil = Number.NEGATIVE_INFINITY;

  constructor(m: MarketRt) {
    this.parts = partsOf(m);
    this.fundingRate = fp9Decimal(m.fundingRate);
    this.vpiSpread = fp9Decimal(m.vpiSpread);
    this.depthLong = fp9Decimal(m.depthLong);
    this.depthShort = fp9Decimal(m.depthShort);
    this.coefLong = fp9Decimal(m.coefLong);
    this.coefShort = fp9Decimal(m.coefShort);
  }
}
const MARKET_MEMO = new WeakMap<MarketRt, MarketMemo>();

function marketMemo(m: MarketRt): MarketMemo {
  let memo = MARKET_MEMO.get(m);
  if (memo === undefined) {
    memo = new MarketMemo(m);
    MARKET_MEMO.set(m, memo);
  }
  return memo;
}

const CHANGE_AGES = [86_400_000, 3_600_000, 14_400_000] as const;

/**
 * Index of the last history entry at or before `t`, walked on from the entry the previous lookup of
 * the same age landed on (`from`, at time `fromTime`). The engine only appends entries after the last
 * one, rewrites the last one's price, and prunes from the front; times strictly increase. So while
 * `from` still holds `fromTime` nothing was pruned under it, and as reads move forward in time the
 * answer is `from` or a few entries after it (one a step on hourly data, one a minute on 1-minute
 * data). After a prune, or a read earlier than the last, it bisects afresh.
 */
function lookUp(m: MarketRt, from: number, fromTime: number, t: number): number {
  const at = m.histAt;
  const n = at.length;
  let i = from;
  if (i >= n || (i >= 0 && (at[i] !== fromTime || fromTime > t))) return historyIndex(m, t);
  while (i + 1 < n && at[i + 1]! <= t) i += 1;
  return i;
}

/**
 * Prices 24h, 1h and 4h ago from the minute history: the last entry at or before `now − age`, 0 when
 * there is none. The block is the same object while its three prices are the same Decimals (each age
 * keeps its last one, a DecMemo, and a price that moves gets a new one). A Decimal held by history
 * entry instead, read again hours later by the longer ages, would live long enough to reach the old
 * generation and cost the collector more than making it anew.
 */
function changeOf(m: MarketRt, memo: MarketMemo, now: number): Market['change'] {
  const last = memo.change;
  // A replay reads the market on every price; the block moves about once a simulated minute.
  if (last !== undefined && now < memo.changeUntil) return last;
  const day = agePrice(m, memo, 0, now);
  const hour = agePrice(m, memo, 1, now);
  const four = agePrice(m, memo, 2, now);
  memo.changeUntil = changeUntil(m, memo);
  if (last !== undefined && last.initialPrice === day && last.initialPrice1h === hour && last.initialPrice4h === four) return last;
  const change = Object.freeze({ initialPrice: day, initialPrice1h: hour, initialPrice4h: four });
  memo.change = change;
  return change;
}

/**
 * The time before which the lookups just made land on the same entries with the same prices. Entries
 * are only appended, at the engine's time, which never goes back (nor do the reads); pruning keeps
 * every entry a lookup can land on (25 h, against 24 h at most); and only the last entry's price is
 * rewritten, within its sampling step. So an age whose entry has a next one keeps its entry until
 * `now − age` reaches that next entry's time. An age that landed on the last entry (a gap in the data
 * longer than the age), or found an empty history, gives no such time: the next read looks again.
 */
function changeUntil(m: MarketRt, memo: MarketMemo): number {
  const at = m.histAt;
  let until = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 3; k += 1) {
    const next = memo.changeAt[k]! + 1;
    if (next >= at.length) return Number.NEGATIVE_INFINITY;
    until = Math.min(until, at[next]! + CHANGE_AGES[k as 0 | 1 | 2]);
  }
  return until;
}

/** The reference price of `CHANGE_AGES[k]` at `now`, as its DecMemo hands it out. */
function agePrice(m: MarketRt, memo: MarketMemo, k: 0 | 1 | 2, now: number): Decimal {
  const i = lookUp(m, memo.changeAt[k], memo.changeTime[k], now - CHANGE_AGES[k]);
  memo.changeAt[k] = i;
  if (i < 0) return memo.changePrices[k].of(0n);
  memo.changeTime[k] = m.histAt[i]!;
  return memo.changePrices[k].of(m.histPrice[i]!);
}

export function marketView(m: MarketRt, opts: MarketViewOptions): Market {
  const sched = m.schedule ? m.schedule.at(opts.now) : null;
  const memo = marketMemo(m);
  return {
    id: m.id,
    config: m.config,
    state: {
      indexPrice: memo.price.of(m.hasPrice ? m.price : 0n),
      blockTimestamp: m.priceAt,
      fundingRate: memo.fundingRate,
      nextFundingAt: m.nextFundingAt,
      lastFundingAt: m.lastFundingAt,
      vpiSpread: memo.vpiSpread,
      vpiMarketDepthLong: memo.depthLong,
      vpiMarketDepthShort: memo.depthShort,
      vpiCoefficientLong: memo.coefLong,
      vpiCoefficientShort: memo.coefShort,
    },
    settings: settingsOf(m, memo.parts, opts.maxLeverageByAccount),
    change: changeOf(m, memo, opts.now),
    schedule: sched
      ? {
          nextPauseAt: sched.nextPauseAt,
          nextUnpauseAt: sched.nextUnpauseAt,
          closestPauseAt: sched.closestPauseAt,
          closestUnpauseAt: sched.closestUnpauseAt,
          pausedAt: sched.pausedAt,
          inPause: sched.inPause,
        }
      : null,
  };
}
