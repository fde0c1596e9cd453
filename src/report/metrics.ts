/**
 * Backtest metrics, in Decimal throughout. Conventions (also in docs of `ReportMetrics`):
 * - Drawdown is measured from the running peak of equity, the initial balance counting as the first
 *   peak: `(peak − equity) / peak`.
 * - Daily returns: a UTC day's pnl over its start equity, the start being the previous day's last
 *   sample (the first day starts from the initial balance).
 * - Sharpe = mean(daily return) / sample stdev × √365; Sortino = mean / downside deviation × √365,
 *   downside deviation = √(Σ min(r, 0)² / n). Crypto trades every day, hence 365. Risk-free rate 0.
 *   Both are null with fewer than two days or a zero deviation.
 * - A trade's net pnl = realised pnl − fees + funding; win rate and profit factor count closed trades.
 */
import type { Decimal } from 'decimal.js';
import { Dec, ZERO } from '../core/decimal.js';
import { fp9Decimal, toFp9Raw } from '../core/fp9.js';
import { equityTally, forEachEquityRaw } from './equity-sample.js';
import type { Drawdown } from './equity-tally.js';
import type { BacktestResult, ChallengeInfo, DailyPnl, EquitySeries, FillRecord, FloorPoint, TradeRecord } from './types.js';

export const DAYS_PER_YEAR = 365;
const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a unix ms time, in UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Pnl per UTC day from the equity samples (days without samples are left out). */
export function dailyPnlFromEquity(initialBalance: Decimal, equity: EquitySeries): DailyPnl[] {
  let start = initialBalance;
  return equityTally(equity, initialBalance).days.days.map((d) => {
    const end = fp9Decimal(d.close);
    const day = { day: utcDay(d.day * DAY_MS), startEquity: start, endEquity: end, pnl: end.minus(start) };
    start = end;
    return day;
  });
}

export type { Drawdown } from './equity-tally.js';

export function maxDrawdown(initialBalance: Decimal, equity: EquitySeries): Drawdown {
  return equityTally(equity, initialBalance).drawdown.best;
}

export function dailyReturns(days: readonly DailyPnl[]): Decimal[] {
  return days.filter((d) => !d.startEquity.isZero()).map((d) => d.pnl.div(d.startEquity));
}

function mean(xs: readonly Decimal[]): Decimal {
  return xs.reduce((a, x) => a.plus(x), ZERO).div(xs.length);
}

const SQRT_YEAR = new Dec(DAYS_PER_YEAR).sqrt();

export function sharpeRatio(returns: readonly Decimal[]): Decimal | null {
  if (returns.length < 2) return null;
  const m = mean(returns);
  const variance = returns.reduce((a, r) => a.plus(r.minus(m).pow(2)), ZERO).div(returns.length - 1);
  if (variance.isZero()) return null;
  return m.div(variance.sqrt()).times(SQRT_YEAR);
}

export function sortinoRatio(returns: readonly Decimal[]): Decimal | null {
  if (returns.length < 2) return null;
  const m = mean(returns);
  const downside = returns.reduce((a, r) => (r.lt(0) ? a.plus(r.pow(2)) : a), ZERO).div(returns.length);
  if (downside.isZero()) return null;
  return m.div(downside.sqrt()).times(SQRT_YEAR);
}

export function tradeNet(t: TradeRecord): Decimal {
  return t.realizedPnl.minus(t.fees).plus(t.funding);
}

/** The closed trades of one closing origin (`strategy`, `stop_loss`, `kill_switch`, …). */
export interface ClosedByKind {
  readonly kind: string;
  readonly trades: number;
  /** Trades with a positive net pnl. */
  readonly wins: number;
  readonly net: Decimal;
}

/**
 * Who closed the trades: per closing origin, the count, the wins and the net pnl, most trades first
 * (ties in order of appearance). What a trader reads first of a result, as freqtrade's exit reasons.
 */
export function closedByKind(trades: Iterable<{ readonly kind: string; readonly net: Decimal }>): ClosedByKind[] {
  const kinds = new Map<string, { trades: number; wins: number; net: Decimal }>();
  for (const { kind, net } of trades) {
    const k = kinds.get(kind) ?? { trades: 0, wins: 0, net: ZERO };
    kinds.set(kind, { trades: k.trades + 1, wins: k.wins + (net.gt(0) ? 1 : 0), net: k.net.plus(net) });
  }
  return [...kinds].map(([kind, k]) => ({ kind, ...k })).sort((a, b) => b.trades - a.trades);
}

export interface TradeStats {
  readonly closed: number;
  readonly open: number;
  readonly wins: number;
  /** Percent of closed trades with a positive net pnl; null without closed trades. */
  readonly winRate: Decimal | null;
  readonly grossProfit: Decimal;
  readonly grossLoss: Decimal;
  /** Gross profit / gross loss of closed trades; null without a losing trade (it would be infinite). */
  readonly profitFactor: Decimal | null;
}

export function tradeStats(trades: readonly TradeRecord[]): TradeStats {
  let closed = 0;
  let wins = 0;
  let grossProfit = ZERO;
  let grossLoss = ZERO;
  for (const t of trades) {
    if (t.closedAt === null) continue;
    closed += 1;
    const net = tradeNet(t);
    if (net.gt(0)) {
      wins += 1;
      grossProfit = grossProfit.plus(net);
    } else if (net.lt(0)) grossLoss = grossLoss.plus(net.neg());
  }
  return {
    closed,
    open: trades.length - closed,
    wins,
    winRate: closed > 0 ? new Dec(wins).div(closed).times(100) : null,
    grossProfit,
    grossLoss,
    profitFactor: grossLoss.isZero() ? null : grossProfit.div(grossLoss),
  };
}

export interface ReportMetrics {
  readonly initialBalance: Decimal;
  readonly finalEquity: Decimal;
  readonly netPnl: Decimal;
  /** Percent of the initial balance. */
  readonly returnPct: Decimal;
  readonly maxDrawdownPct: Decimal;
  readonly maxDrawdown: Drawdown;
  readonly sharpe: Decimal | null;
  readonly sortino: Decimal | null;
  readonly winRate: Decimal | null;
  readonly profitFactor: Decimal | null;
  /** Closed trades. */
  readonly totalTrades: number;
  readonly openTrades: number;
  readonly totalFills: number;
  readonly fees: Decimal;
  /** Net funding: received (positive) or paid (negative). */
  readonly funding: Decimal;
  readonly tradingDays: number;
  readonly stops: StopStats;
}

/** Fills of protective stops (stop loss, trailing stop): how many, how many gapped, the worst slippage. */
export interface StopStats {
  readonly stopOuts: number;
  /** Stop-outs whose index price was already beyond the trigger when they filled (a gap). */
  readonly gaps: number;
  /** The fill furthest beyond its trigger (spread and impact included); null without stop-outs. */
  readonly worst: {
    readonly time: number;
    readonly market: string;
    readonly trigger: Decimal;
    readonly price: Decimal;
    /** Price distance beyond the trigger (positive: worse than the trigger). */
    readonly slippage: Decimal;
    /** The same, percent of the trigger. */
    readonly slippagePct: Decimal;
  } | null;
}

const STOP_ORIGINS: ReadonlySet<string> = new Set(['stop_loss', 'trailing_stop']);

export function stopStats(fills: readonly FillRecord[]): StopStats {
  let stopOuts = 0;
  let gaps = 0;
  let worst: StopStats['worst'] = null;
  for (const f of fills) {
    if (f.origin === undefined || !STOP_ORIGINS.has(f.origin.kind) || !f.trigger || f.trigger.isZero()) continue;
    stopOuts += 1;
    // A long's stop sells: below the trigger is worse; a short's buys: above is worse.
    const beyond = (p: Decimal) => (f.direction === 'long' ? f.trigger!.minus(p) : p.minus(f.trigger!));
    if (beyond(f.indexPrice ?? f.price).gt(0)) gaps += 1;
    const slippage = beyond(f.price);
    if (worst === null || slippage.gt(worst.slippage)) {
      worst = { time: f.time, market: f.market, trigger: f.trigger, price: f.price, slippage, slippagePct: slippage.div(f.trigger).times(100) };
    }
  }
  return { stopOuts, gaps, worst };
}

export function dailyPnlOf(result: BacktestResult): readonly DailyPnl[] {
  return result.dailyPnl ?? dailyPnlFromEquity(result.initialBalance, result.equity);
}

/** The last equity sample, or the initial balance without samples. */
export function finalEquityOf(result: BacktestResult): Decimal {
  return result.equity.at(-1)?.equity ?? result.initialBalance;
}

/** UTC days with at least one fill. */
export function tradingDaysOf(result: BacktestResult): number {
  return new Set(result.fills.map((f) => utcDay(f.time))).size;
}

/** `days`: the run's daily pnl when the caller already has it (`dailyPnlOf(result)`). */
export function computeMetrics(result: BacktestResult, days: readonly DailyPnl[] = dailyPnlOf(result)): ReportMetrics {
  const initial = result.initialBalance;
  if (!initial.gt(0)) throw new RangeError(`report: initialBalance must be positive, got ${initial.toString()}`);
  const finalEquity = finalEquityOf(result);
  const netPnl = finalEquity.minus(initial);
  const dd = maxDrawdown(initial, result.equity);
  const returns = dailyReturns(days);
  const stats = tradeStats(result.trades);
  const fees = result.fills.reduce((a, f) => a.plus(f.fee), ZERO);
  const funding = result.funding
    ? result.funding.reduce((a, f) => a.plus(f.amount), ZERO)
    : result.trades.reduce((a, t) => a.plus(t.funding), ZERO);
  return {
    initialBalance: initial,
    finalEquity,
    netPnl,
    returnPct: netPnl.div(initial).times(100),
    maxDrawdownPct: dd.pct,
    maxDrawdown: dd,
    sharpe: sharpeRatio(returns),
    sortino: sortinoRatio(returns),
    winRate: stats.winRate,
    profitFactor: stats.profitFactor,
    totalTrades: stats.closed,
    openTrades: stats.open,
    totalFills: result.fills.length,
    fees,
    funding,
    tradingDays: tradingDaysOf(result),
    stops: stopStats(result.fills),
  };
}

/**
 * The floors at every equity sample, from the rules: daily = day-start equity × (1 − daily%),
 * total = initial × (1 − total%), trailing = highest equity so far × (1 − trailing%). The day-start
 * equity is the previous day's last sample (the engine takes it at 00:00 UTC).
 */
export function floorsFromEquity(result: BacktestResult): FloorPoint[] {
  const out: FloorPoint[] = [];
  eachFloorFromEquity(result, (time, daily, total, trailing) => out.push({ time, daily, total, trailing }));
  return out;
}

/**
 * The challenge's floors as a run's equity samples come, in order (see `floorsFromEquity`). A floor
 * is a new Decimal only when it moves, so a reader that turns floors into numbers can keep the last
 * one it turned while the object stays the same.
 */
export class EquityFloors {
  daily: Decimal | null;
  readonly total: Decimal | null;
  trailing: Decimal | null;
  readonly #dailyFrac: Decimal | null;
  readonly #trailingFrac: Decimal | null;
  readonly #initial: Decimal;
  /** The highest equity so far, fp9. */
  #maxRaw: bigint;
  #last: bigint | undefined;
  #day: number | undefined;

  constructor(c: ChallengeInfo, initial: Decimal) {
    const frac = (pct: Decimal | null) => (pct === null ? null : new Dec(1).minus(pct.div(100)));
    this.#dailyFrac = frac(c.maxDailyDrawdownPct);
    this.#trailingFrac = frac(c.maxTrailingDrawdownPct);
    const totalFrac = frac(c.maxTotalDrawdownPct);
    this.#initial = initial;
    this.#maxRaw = toFp9Raw(initial, 'exact', 'initialBalance');
    this.daily = this.#dailyFrac === null ? null : initial.times(this.#dailyFrac);
    this.total = totalFrac === null ? null : initial.times(totalFrac);
    this.trailing = this.#trailingFrac === null ? null : initial.times(this.#trailingFrac);
  }

  /** The floors in force at the sample `raw` (fp9 equity) taken at `time`. */
  add(time: number, raw: bigint): void {
    const day = dayStart(time);
    if (this.#day !== undefined && day !== this.#day && this.#dailyFrac !== null) {
      this.daily = (this.#last === undefined ? this.#initial : fp9Decimal(this.#last)).times(this.#dailyFrac);
    }
    this.#day = day;
    if (raw > this.#maxRaw) {
      this.#maxRaw = raw;
      if (this.#trailingFrac !== null) this.trailing = fp9Decimal(raw).times(this.#trailingFrac);
    }
    this.#last = raw;
  }
}

/**
 * `floorsFromEquity` one sample at a time, for callers that keep only what they need (a list of point
 * objects would be as long as the run). The HTML page reads the same `EquityFloors` in its own pass
 * over the samples (chart-lines.ts).
 */
export function eachFloorFromEquity(
  result: BacktestResult,
  sample: (time: number, daily: Decimal | null, total: Decimal | null, trailing: Decimal | null) => void,
): void {
  const c = result.challenge;
  if (!c) return;
  const floors = new EquityFloors(c, result.initialBalance);
  forEachEquityRaw(result.equity, (time, raw) => {
    floors.add(time, raw);
    sample(time, floors.daily, floors.total, floors.trailing);
  });
}
