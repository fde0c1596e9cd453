/**
 * `report.json`: the metrics, the challenge verdict, the days, the trades and the denials of a run.
 * Money is an exact decimal string (`"10234.560000001"`); percentages and ratios are decimal strings
 * rounded half-even to 6 places; times are unix ms plus an ISO string where a human reads them.
 */
import { Decimal } from 'decimal.js';
import { reportFigures, type ReportFigures } from './figures.js';
import { tradeNet } from './metrics.js';
import type { Origin } from './origin.js';
import type { BacktestResult, DataFileReport } from './types.js';

export const REPORT_FORMAT = 'propbot-backtest-report';
export const REPORT_VERSION = 1;
const RATIO_PLACES = 6;

/** Exact money. */
export function money(value: Decimal): string {
  return value.toFixed();
}

/** A percentage or ratio, rounded half-even to 6 places. */
export function ratio(value: Decimal): string {
  return value.toDecimalPlaces(RATIO_PLACES, Decimal.ROUND_HALF_EVEN).toFixed();
}

function ratioOrNull(value: Decimal | null): string | null {
  return value === null ? null : ratio(value);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export interface ReportJson {
  readonly format: typeof REPORT_FORMAT;
  readonly version: typeof REPORT_VERSION;
  readonly name: string;
  readonly strategy: string | null;
  /** `off`: the run had no challenge rules and no risk guard (`--rules off`); its figures are not the platform's. */
  readonly rules: 'on' | 'off';
  readonly period: { readonly start: string; readonly end: string; readonly startMs: number; readonly endMs: number };
  /** The run's figures (the issue's `summary`). */
  readonly summary: {
    readonly initialBalance: string;
    readonly finalEquity: string;
    readonly netPnl: string;
    readonly returnPct: string;
    readonly maxDrawdownPct: string;
    readonly maxDrawdown: string;
    readonly maxDrawdownPeakAt: number | null;
    readonly maxDrawdownTroughAt: number | null;
    readonly sharpe: string | null;
    readonly sortino: string | null;
    readonly winRate: string | null;
    readonly profitFactor: string | null;
    readonly totalTrades: number;
    readonly openTrades: number;
    readonly totalFills: number;
    readonly fees: string;
    readonly funding: string;
    readonly tradingDays: number;
    /** Protective stop fills: count, how many filled beyond their trigger at the index (gaps), the worst slippage. */
    readonly stops: {
      readonly stopOuts: number;
      readonly gaps: number;
      readonly worstSlippage: {
        readonly time: string;
        readonly market: string;
        readonly trigger: string;
        readonly price: string;
        readonly slippage: string;
        readonly slippagePct: string;
      } | null;
    };
  };
  readonly challenge: {
    readonly phase: string;
    readonly passed: boolean;
    readonly failedRule: string | null;
    readonly failedAt: string | null;
    readonly targetReachedAt: string | null;
    readonly daysToTarget: number | null;
    readonly tradingDays: number;
    readonly profitableDays: number;
    readonly bestDay: string | null;
    readonly bestDayPnl: string | null;
    readonly bestDayShare: string | null;
    readonly consistencyMet: boolean | null;
    /** Phase changes the engine made during the run. */
    readonly transitions: readonly { readonly at: string; readonly from: string; readonly to: string }[];
    readonly rules: {
      readonly profitTargetPct: string | null;
      readonly maxDailyDrawdownPct: string | null;
      readonly maxTotalDrawdownPct: string | null;
      readonly maxTrailingDrawdownPct: string | null;
      readonly minProfitableDays: number | null;
      readonly consistencyLimitPct: string | null;
      readonly profitableDayPct: string;
    };
  } | null;
  /** Every executed order, oldest first. */
  readonly fills: readonly {
    readonly time: string;
    readonly market: string;
    readonly direction: string;
    readonly type: string;
    readonly action: string | null;
    readonly price: string;
    readonly size: string;
    readonly fee: string;
    readonly realizedPnl: string | null;
    readonly intentId: string | null;
    readonly orderId: string | null;
    readonly positionId: string | null;
    /** Who or what made the fill (`strategy` with its intent, `stop_loss`, `kill_switch`, `force_close` with the platform's reason, …). */
    readonly origin: OriginJson | null;
    /** Trigger of the protective order that filled; null for other fills. */
    readonly trigger: string | null;
  }[];
  /** Funding settlements (origin `funding`). */
  readonly funding: readonly { readonly time: string; readonly market: string; readonly amount: string; readonly origin: OriginJson }[];
  /** Equity once a minute (unix ms and decimal string), oldest first. */
  readonly equity: readonly { readonly time: number; readonly equity: string }[];
  readonly dailyPnl: readonly { readonly day: string; readonly startEquity: string; readonly endEquity: string; readonly pnl: string }[];
  readonly trades: readonly {
    readonly positionId: string;
    readonly market: string;
    readonly direction: string;
    readonly openedAt: string;
    readonly closedAt: string | null;
    readonly entryPrice: string;
    readonly exitPrice: string | null;
    readonly size: string;
    readonly realizedPnl: string;
    readonly fees: string;
    readonly funding: string;
    readonly netPnl: string;
    readonly status: string;
    readonly closeReason: string | null;
    /** Origin of the closing fill; null while open. */
    readonly closeOrigin: OriginJson | null;
  }[];
  /** What the risk guard did on its own (the kill switch), with the figures that tripped it. */
  readonly guardActions: readonly {
    readonly at: string;
    readonly rule: string;
    readonly code: string;
    readonly reason: string;
    readonly intentId: string;
    readonly floorRule: string;
    readonly equity: string;
    readonly floor: string;
    readonly threshold: string;
  }[];
  readonly denials: {
    readonly total: number;
    readonly byCode: Readonly<Record<string, number>>;
    readonly items: readonly { readonly at: string; readonly intentId: string; readonly code: string; readonly reason: string; readonly rule: string }[];
  };
  readonly perf: { readonly snapshots: number; readonly quietSteps: number; readonly candles: number; readonly wallMs: number; readonly snapshotsPerSecond: number | null };
  /** Strategies stopped by a throw of their own code; empty when every strategy ran to the end. */
  readonly failures: readonly { readonly strategy: string; readonly at: string; readonly failedIn: string; readonly message: string; readonly location: string | null }[];
  /** Per market: how its data file was read, its first bad rows and gaps (line numbers from the top of the file). */
  readonly data: ReadonlyArray<Omit<DataFileReport, 'gapSamples'> & { readonly gapSamples: ReadonlyArray<{ readonly after: string; readonly next: string; readonly missingPeriods: number; readonly line: number }> }>;
}

export interface OriginJson {
  readonly kind: string;
  readonly intentId: string | null;
  readonly strategy: string | null;
  readonly reason: string | null;
  /** The note of the intent that made the fill itself (see `Origin.note`). */
  readonly note: string | null;
}

function originJson(o: Origin | undefined): OriginJson | null {
  return o === undefined ? null : { kind: o.kind, intentId: o.intentId ?? null, strategy: o.strategy ?? null, reason: o.reason ?? null, note: o.note ?? null };
}

/** The report's `summary` (what a sweep row keeps of a run, with `challenge`). */
export function summaryJson(m: ReportFigures['metrics']): ReportJson['summary'] {
  return {
    initialBalance: money(m.initialBalance),
    finalEquity: money(m.finalEquity),
    netPnl: money(m.netPnl),
    returnPct: ratio(m.returnPct),
    maxDrawdownPct: ratio(m.maxDrawdownPct),
    maxDrawdown: money(m.maxDrawdown.amount),
    maxDrawdownPeakAt: m.maxDrawdown.peakAt,
    maxDrawdownTroughAt: m.maxDrawdown.troughAt,
    sharpe: ratioOrNull(m.sharpe),
    sortino: ratioOrNull(m.sortino),
    winRate: ratioOrNull(m.winRate),
    profitFactor: ratioOrNull(m.profitFactor),
    totalTrades: m.totalTrades,
    openTrades: m.openTrades,
    totalFills: m.totalFills,
    fees: money(m.fees),
    funding: money(m.funding),
    tradingDays: m.tradingDays,
    stops: {
      stopOuts: m.stops.stopOuts,
      gaps: m.stops.gaps,
      worstSlippage: m.stops.worst === null ? null : worstSlippageJson(m.stops.worst),
    },
  };
}

type WorstSlippageJson = NonNullable<ReportJson['summary']['stops']['worstSlippage']>;

/**
 * The worst stop slippage as report.json holds it, its fields in the file's order. Built from `{}`,
 * not written as a literal: V8 starts every literal of six fields from one map, so a literal here and
 * the replay's six-field rows shared the step to `time`, text here and a number there; a sweep
 * worker's first summary made the rows' field one for any value, and the replay's row loop was
 * compiled again (performance log, fifteenth round). An object built from `{}` starts from the empty
 * object's map instead, and is the same plain data. The cached rows have since become a class of
 * their own (row-cache.ts's `CachedRow`); this stays off the literals' tree all the same, where it
 * would meet any other six-field literal whose `time` is a number.
 */
export function worstSlippageJson(w: NonNullable<ReportFigures['metrics']['stops']['worst']>): WorstSlippageJson {
  const out = {} as { -readonly [K in keyof WorstSlippageJson]: WorstSlippageJson[K] };
  out.time = iso(w.time)!;
  out.market = w.market;
  out.trigger = money(w.trigger);
  out.price = money(w.price);
  out.slippage = money(w.slippage);
  out.slippagePct = ratio(w.slippagePct);
  return out;
}

/** The report's `challenge`: null for a run without challenge rules. */
export function challengeJson(result: BacktestResult, ch: ReportFigures['challenge']): ReportJson['challenge'] {
  const c = result.challenge;
  return ch && c
    ? {
        phase: ch.phase,
        passed: ch.passed,
        failedRule: ch.failedRule,
        failedAt: iso(ch.failedAt),
        targetReachedAt: iso(ch.targetReachedAt),
        daysToTarget: ch.daysToTarget,
        tradingDays: ch.tradingDays,
        profitableDays: ch.profitableDays,
        bestDay: ch.bestDay,
        bestDayPnl: ch.bestDayPnl === null ? null : money(ch.bestDayPnl),
        bestDayShare: ratioOrNull(ch.bestDayShare),
        consistencyMet: ch.consistencyMet,
        transitions: (c.transitions ?? []).map((t) => ({ at: iso(t.at)!, from: t.from, to: t.to })),
        rules: {
          profitTargetPct: ratioOrNull(c.profitTargetPct),
          maxDailyDrawdownPct: ratioOrNull(c.maxDailyDrawdownPct),
          maxTotalDrawdownPct: ratioOrNull(c.maxTotalDrawdownPct),
          maxTrailingDrawdownPct: ratioOrNull(c.maxTrailingDrawdownPct),
          minProfitableDays: c.minProfitableDays,
          consistencyLimitPct: ratioOrNull(c.consistencyLimitPct),
          profitableDayPct: ratio(c.profitableDayPct),
        },
      }
    : null;
}

/** The report.json object (pass it to `JSON.stringify`). */
export function buildReportJson(result: BacktestResult): ReportJson {
  return assembleReport(result, Array.from(result.equity, (e) => ({ time: e.time, equity: money(e.equity) })));
}

/**
 * The report with `equity` in its place but given by the caller. The report's equity series is as long
 * as the run (a sample a minute): `writeReport` puts a marker there and streams the series into the
 * file instead of holding it a second time as objects and text. Every figure is from the full series.
 */
export function assembleReport<E>(result: BacktestResult, equity: E, figures: ReportFigures = reportFigures(result)): Omit<ReportJson, 'equity'> & { readonly equity: E } {
  const { days, metrics: m, challenge: ch } = figures;
  const byCode: Record<string, number> = {};
  for (const d of result.denials) byCode[d.code] = (byCode[d.code] ?? 0) + 1;
  return {
    format: REPORT_FORMAT,
    version: REPORT_VERSION,
    name: result.name,
    strategy: result.strategy ?? null,
    rules: result.rules ?? 'on',
    period: { start: iso(result.startTime)!, end: iso(result.endTime)!, startMs: result.startTime, endMs: result.endTime },
    summary: summaryJson(m),
    challenge: challengeJson(result, ch),
    fills: result.fills.map((f) => ({
      time: iso(f.time)!,
      market: f.market,
      direction: f.direction,
      type: f.type,
      action: f.action ?? null,
      price: money(f.price),
      size: money(f.size),
      fee: money(f.fee),
      realizedPnl: f.realizedPnl === null ? null : money(f.realizedPnl),
      intentId: f.intentId,
      orderId: f.orderId ?? null,
      positionId: f.positionId ?? null,
      origin: originJson(f.origin),
      trigger: f.trigger ? money(f.trigger) : null,
    })),
    funding: (result.funding ?? []).map((f) => ({ time: iso(f.time)!, market: f.market, amount: money(f.amount), origin: originJson({ kind: 'funding' })! })),
    equity,
    dailyPnl: days.map((d) => ({
      day: d.day,
      startEquity: money(d.startEquity),
      endEquity: money(d.endEquity),
      pnl: money(d.pnl),
    })),
    trades: result.trades.map((t) => ({
      positionId: t.positionId,
      market: t.market,
      direction: t.direction,
      openedAt: iso(t.openedAt)!,
      closedAt: iso(t.closedAt),
      entryPrice: money(t.entryPrice),
      exitPrice: t.exitPrice === null ? null : money(t.exitPrice),
      size: money(t.size),
      realizedPnl: money(t.realizedPnl),
      fees: money(t.fees),
      funding: money(t.funding),
      netPnl: money(tradeNet(t)),
      status: t.status,
      closeReason: t.closeReason ?? null,
      closeOrigin: originJson(t.closeOrigin),
    })),
    guardActions: (result.guardActions ?? []).map((a) => ({
      at: iso(a.at)!,
      rule: a.rule,
      code: a.code,
      reason: a.reason,
      intentId: a.intentId,
      floorRule: a.floorRule,
      equity: money(a.equity),
      floor: money(a.floor),
      threshold: money(a.threshold),
    })),
    denials: {
      total: result.denials.length,
      byCode,
      items: result.denials.map((d) => ({ at: iso(d.at)!, intentId: d.intentId, code: d.code, reason: d.reason, rule: d.rule })),
    },
    perf: {
      snapshots: result.perf.snapshots,
      quietSteps: result.perf.quietSteps ?? 0,
      candles: result.perf.candles,
      wallMs: result.perf.wallMs,
      snapshotsPerSecond: result.perf.wallMs > 0 ? Math.round((result.perf.snapshots * 1000) / result.perf.wallMs) : null,
    },
    failures: (result.failures ?? []).map((f) => ({ strategy: f.strategy, at: iso(f.at)!, failedIn: f.failedIn, message: f.message, location: f.location })),
    data: (result.data ?? []).map((d) => ({
      ...d,
      gapSamples: d.gapSamples.map((g) => ({ after: iso(g.afterTime)!, next: iso(g.nextTime)!, missingPeriods: g.missingPeriods, line: g.line })),
    })),
  };
}
