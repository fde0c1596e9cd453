/**
 * Walk-forward analysis. The data is cut into windows of a train slice followed by a test slice; on each
 * window the search runs on the train slice only, and its best combination then trades the test slice,
 * which it has never seen. Rolling windows move the train slice along; anchored ones keep its start.
 *
 * The test slices are traded as ONE continuous backtest: one account, each window's strategy instance
 * (with that window's parameters) allowed to trade only inside its slice, and flattened at its end. The
 * engine checks the challenge rules on every price of it, so its verdict is the honest estimate of
 * passing: what trading the optimiser's choices forward would have done to a real account.
 *
 * Warm-up: every slice, train or test, starts with the strategy's indicators warmed on the data before
 * it (the replay starts `warmup` earlier with trading held back), so nothing starts cold and nothing
 * looks ahead. Windows shorter than the warm-up are refused, with the numbers.
 */
import { Decimal } from 'decimal.js';
import { ConfigError } from '../core/errors.js';
import { computeMetrics } from '../report/metrics.js';
import { buildReportJson, type ReportJson } from '../report/report-json.js';
import type { BacktestResult, EquitySample } from '../report/types.js';
import { runBacktest } from '../runtime/backtest.js';
import { backtestJobOptions, type BacktestJob } from '../runtime/backtest-job.js';
import { scenarioMarkets, withScenarioDataNames, type Scenario } from '../runtime/scenario.js';
import type { SweepRow } from '../runtime/sweep.js';
import { loadStrategy } from '../strategy/loader.js';
import { warmupMs as strategyWarmupMs } from '../strategy/window.js';
import { dataRange, type DataRange } from './data-range.js';
import { objectiveValue, type Constraint, type ObjectiveName } from './objectives.js';
import { scenarioJob } from './scenario-job.js';
import { runSearch, type JobRunner, type SearchMethod, type SearchResult } from './search.js';
import type { SearchSpace } from './space.js';

const DAY_MS = 86_400_000;

export interface WalkForwardSearch {
  readonly space: SearchSpace;
  readonly method: SearchMethod;
  readonly trials?: number;
  readonly seed: number;
  readonly objective: ObjectiveName;
  readonly constraints: readonly Constraint[];
  readonly batch?: number;
  readonly prune: boolean;
  /** The strategy's verdict on a combination (see `SearchOptions.accepts`): refused ones are not run. */
  readonly accepts?: (params: Record<string, unknown>) => string | undefined;
}

export interface WalkForwardOptions {
  readonly scenario: Scenario;
  readonly trainMs: number;
  readonly testMs: number;
  /** Distance between window starts; default `testMs` (test slices back to back). */
  readonly stepMs?: number;
  /** Every train slice starts at the first data; default rolling. */
  readonly anchored?: boolean;
  /** Overrides the strategy's own warm-up. */
  readonly warmupMs?: number;
  readonly search: WalkForwardSearch;
  /** Where the train searches and the stitched out-of-sample run are made (threads here, or a queue). */
  readonly runner: JobRunner;
  /** `planWalkForward` of these same options, when the caller has made it already. */
  readonly planned?: WalkForwardPlan;
  /** After each window's train search: its best row, and how many trials ran, failed and were excluded. */
  readonly onSearched?: (progress: { index: number; total: number; best: SweepRow | null } & TrialCounts) => void;
}

export interface TrialCounts {
  readonly trials: number;
  /** Ended in an error. */
  readonly failed: number;
  /** Ran, and a constraint excluded them. */
  readonly excluded: number;
}

/** How a search's trials ended: what a window without a best combination is explained by. */
export function trialCounts(search: SearchResult): TrialCounts {
  return { trials: search.trials.length, failed: search.trials.filter((r) => !r.ok).length, excluded: search.excluded.length };
}

export interface WindowPlan {
  readonly trainFrom: number;
  readonly trainTo: number;
  readonly testFrom: number;
  readonly testTo: number;
}

export interface SliceFigures {
  readonly returnPct: number;
  readonly maxDrawdownPct: number;
  readonly sharpe: number | null;
  readonly trades: number;
  readonly startEquity: string;
  readonly endEquity: string;
}

export interface WindowResult extends WindowPlan {
  /** The train search's best row; null when no combination met the constraints. */
  readonly best: SweepRow | null;
  readonly search: SearchResult;
  /** The best combination's figures on the train slice. */
  readonly inSample: (SliceFigures & { readonly objective: number | null; readonly challenge: SweepRow['challenge'] }) | null;
  /** The same combination's figures on the test slice, from the stitched run. */
  readonly outOfSample: SliceFigures | null;
  /** Out-of-sample return per day over in-sample return per day; null unless in-sample made money. */
  readonly efficiency: number | null;
}

export interface WalkForwardResult {
  readonly range: DataRange;
  readonly warmupMs: number;
  readonly windows: readonly WindowResult[];
  /** The stitched out-of-sample run (all test slices, one account); null when no window had a best. */
  readonly outOfSample: BacktestResult | null;
  readonly outOfSampleReport: ReportJson | null;
  /** Stitched out-of-sample return per day over the mean in-sample return per day. */
  readonly efficiency: number | null;
}

/** The windows that fit the data, refusing slices shorter than the warm-up. */
export function planWindows(range: Pick<DataRange, 'from' | 'to'>, o: { trainMs: number; testMs: number; stepMs?: number; anchored?: boolean; warmupMs: number }): WindowPlan[] {
  const step = o.stepMs ?? o.testMs;
  for (const [flag, ms] of [['--train', o.trainMs], ['--test', o.testMs], ['--step', step]] as const) {
    if (!Number.isSafeInteger(ms) || ms <= 0) throw new ConfigError(flag, `must be a positive duration, got ${ms} ms`);
  }
  for (const [flag, ms] of [['--train', o.trainMs], ['--test', o.testMs]] as const) {
    if (ms < o.warmupMs) {
      throw new ConfigError(flag, `${formatDuration(ms)} is shorter than the strategy's warm-up of ${formatDuration(o.warmupMs)}: a slice must hold at least the history its indicators need`);
    }
  }
  const start = range.from + o.warmupMs;
  const windows: WindowPlan[] = [];
  for (let i = 0; ; i += 1) {
    const trainTo = start + o.trainMs + i * step;
    const testTo = trainTo + o.testMs;
    if (testTo > range.to) break;
    windows.push({ trainFrom: o.anchored ? start : trainTo - o.trainMs, trainTo, testFrom: trainTo, testTo });
  }
  if (windows.length === 0) {
    throw new ConfigError(
      '--train',
      `no window fits: warm-up ${formatDuration(o.warmupMs)} + train ${formatDuration(o.trainMs)} + test ${formatDuration(o.testMs)} = ${formatDuration(o.warmupMs + o.trainMs + o.testMs)}, but the data covers ${formatDuration(range.to - range.from)} (${iso(range.from)} → ${iso(range.to)})`,
    );
  }
  return windows;
}

/** The longest warm-up any combination of the space asks for (numeric parameters at their extremes). */
export async function spaceWarmupMs(scenario: Scenario, space: SearchSpace): Promise<{ ms: number; declared: boolean }> {
  const strategy = scenario.strategies[0]!;
  let corners: Record<string, unknown>[] = [{}];
  for (const d of space) {
    const values = d.numeric ? [Math.min(...(d.values as number[])), Math.max(...(d.values as number[]))] : d.values.slice(0, 50);
    corners = corners.flatMap((c) => [...new Set(values)].map((v) => ({ ...c, [d.key]: v })));
  }
  let ms = 0;
  let declared = false;
  let valid = 0;
  let lastError: unknown;
  for (const corner of corners) {
    try {
      const loaded = await loadStrategy(strategy.use, { params: { ...strategy.params, ...corner }, cwd: scenario.baseDir });
      valid += 1;
      declared ||= loaded.strategy.warmup !== undefined;
      ms = Math.max(ms, strategyWarmupMs(loaded));
    } catch (err) {
      lastError = err;
    }
  }
  // Corners the strategy refuses (fast ≥ slow, say) are not runs; only if none is valid is it an error.
  if (valid === 0) throw lastError;
  return { ms, declared };
}

/** A walk-forward's windows over its data, and the warm-up before each slice. */
export interface WalkForwardPlan {
  readonly range: DataRange;
  readonly warmupMs: number;
  readonly plans: readonly WindowPlan[];
}

/**
 * The windows a walk-forward will search, known before any run: the command sizes its workers from
 * them (windows × runs a search) as a sweep does from its grid.
 */
export async function planWalkForward(o: Omit<WalkForwardOptions, 'runner' | 'onSearched' | 'planned'>): Promise<WalkForwardPlan> {
  const { scenario, search } = o;
  const range = await dataRange(scenario);
  let warmup = o.warmupMs;
  if (warmup === undefined) {
    const w = await spaceWarmupMs(scenario, search.space);
    if (!w.declared) {
      throw new ConfigError('--warmup', `strategy ${scenario.strategies[0]!.use} declares no warm-up (warmup in defineStrategy); give the history its indicators need, e.g. --warmup 3d`);
    }
    warmup = w.ms;
  }
  const plans = planWindows(range, { trainMs: o.trainMs, testMs: o.testMs, anchored: o.anchored ?? false, warmupMs: warmup, ...(o.stepMs !== undefined ? { stepMs: o.stepMs } : {}) });
  return { range, warmupMs: warmup, plans };
}

export async function runWalkForward(o: WalkForwardOptions): Promise<WalkForwardResult> {
  const { scenario, search } = o;
  const { range, warmupMs: warmup, plans } = o.planned ?? (await planWalkForward(o));

  const searched: Array<{ plan: WindowPlan; search: SearchResult; best: SweepRow | null }> = [];
  for (const plan of plans) {
    const window = { from: plan.trainFrom - warmup, tradeFrom: plan.trainFrom, to: plan.trainTo };
    const result = await runSearch(
      { ...search, period: { from: plan.trainFrom, to: plan.trainTo } },
      (params, index, extra) => scenarioJob(scenario, params, index, { ...extra, window }),
      o.runner,
    );
    const best = result.ranked.find((r) => r.ok && objectiveValue(r, search.objective) !== null) ?? null;
    searched.push({ plan, search: result, best });
    o.onSearched?.({ index: searched.length - 1, total: plans.length, best, ...trialCounts(result) });
  }

  // One account across every test slice, each window's choice trading only its own slice: one run,
  // made where the searches ran (a queue's workers, when there is one).
  const strategy = scenario.strategies[0]!;
  const traded = searched.filter((s) => s.best !== null);
  let oos: BacktestResult | null = null;
  if (traded.length > 0) {
    const first = plans[0]!.testFrom;
    const job: BacktestJob = {
      name: `${scenario.name} walk-forward (out of sample)`,
      markets: scenarioMarkets(scenario),
      strategies: traded.map((s) => ({
        use: strategy.use,
        params: { ...strategy.params, ...s.best!.params },
        name: `${nameOf(strategy.use)}.w${plans.indexOf(s.plan) + 1}`,
        window: { from: s.plan.testFrom, to: s.plan.testTo },
      })),
      balance: scenario.balance.toString(),
      accountType: scenario.accountType,
      seed: scenario.seed,
      cwd: scenario.baseDir,
      from: first - warmup,
      to: plans[plans.length - 1]!.testTo,
      reportFrom: first,
      ...(scenario.phase !== undefined ? { phase: scenario.phase } : {}),
      ...(scenario.risk !== undefined ? { risk: scenario.risk as Record<string, unknown> } : {}),
    };
    const result = o.runner.backtest ? await o.runner.backtest(job) : (await runBacktest(backtestJobOptions(job))).result;
    oos = withScenarioDataNames(result, scenario.markets);
  }

  const windows: WindowResult[] = searched.map(({ plan, search: result, best }) => {
    const inSample = best ? { ...rowFigures(best), objective: objectiveValue(best, search.objective), challenge: best.challenge ?? null } : null;
    const outOfSample = best && oos ? sliceFigures(oos, plan.testFrom, plan.testTo) : null;
    const efficiency = inSample && outOfSample ? ratioPerDay(outOfSample.returnPct, plan.testTo - plan.testFrom, inSample.returnPct, plan.trainTo - plan.trainFrom) : null;
    return { ...plan, best, search: result, inSample, outOfSample, efficiency };
  });
  const oosReport = oos ? buildReportJson(oos) : null;
  const withIs = windows.filter((w) => w.inSample !== null);
  const isPerDay = withIs.length === 0 ? null : withIs.reduce((a, w) => a + w.inSample!.returnPct / ((w.trainTo - w.trainFrom) / DAY_MS), 0) / withIs.length;
  const oosDays = windows.reduce((a, w) => a + (w.testTo - w.testFrom), 0) / DAY_MS;
  const efficiency = oosReport && isPerDay !== null && isPerDay > 0 ? Number(oosReport.summary.returnPct) / oosDays / isPerDay : null;
  return { range, warmupMs: warmup, windows, outOfSample: oos, outOfSampleReport: oosReport, efficiency };
}

function nameOf(use: string): string {
  const base = use.split(/[\\/]/).pop()!.replace(/\.[mc]?[jt]s$/, '');
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,55}$/.test(base) ? base : 'strategy';
}

function rowFigures(row: SweepRow): SliceFigures {
  const s = row.summary ?? {};
  const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    returnPct: num(s['returnPct']) ?? 0,
    maxDrawdownPct: num(s['maxDrawdownPct']) ?? 0,
    sharpe: num(s['sharpe']),
    trades: Number(s['totalTrades'] ?? 0),
    startEquity: String(s['initialBalance'] ?? ''),
    endEquity: String(s['finalEquity'] ?? ''),
  };
}

/** Figures of the part of a run inside [from, to), measured from the equity it had at `from`. */
export function sliceFigures(result: BacktestResult, from: number, to: number): SliceFigures {
  let start = result.initialBalance;
  const inside = (t: number): boolean => t >= from && t < to;
  const equity: EquitySample[] = [];
  for (const s of result.equity) {
    if (s.time < from) start = s.equity;
    else if (inside(s.time)) equity.push(s);
  }
  const slice: BacktestResult = {
    ...result,
    startTime: from,
    endTime: to,
    initialBalance: start,
    equity,
    fills: result.fills.filter((f) => inside(f.time)),
    trades: result.trades.filter((t) => inside(t.openedAt)),
    denials: result.denials.filter((d) => inside(d.at)),
    ...(result.funding ? { funding: result.funding.filter((f) => inside(f.time)) } : {}),
    dailyPnl: undefined,
    floors: undefined,
    prices: [],
  } as BacktestResult;
  if (!start.gt(0)) return { returnPct: 0, maxDrawdownPct: 0, sharpe: null, trades: 0, startEquity: start.toFixed(), endEquity: start.toFixed() };
  const m = computeMetrics(slice);
  const six = (d: Decimal): number => Number(d.toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN).toFixed());
  return {
    returnPct: six(m.returnPct),
    maxDrawdownPct: six(m.maxDrawdownPct),
    sharpe: m.sharpe === null ? null : six(m.sharpe),
    trades: m.totalTrades,
    startEquity: m.initialBalance.toFixed(),
    endEquity: m.finalEquity.toFixed(),
  };
}

function ratioPerDay(oosPct: number, oosMs: number, isPct: number, isMs: number): number | null {
  if (!(isPct > 0)) return null;
  return oosPct / (oosMs / DAY_MS) / (isPct / (isMs / DAY_MS));
}

const UNITS: Array<[string, number]> = [
  ['w', 7 * DAY_MS],
  ['d', DAY_MS],
  ['h', 3_600_000],
  ['m', 60_000],
];

/** `60d`, `12h`, `2w`, `90m` → milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+)(w|d|h|m)$/.exec(text.trim());
  if (!m) throw new ConfigError(flag, `expected a duration like 60d, 12h, 2w or 90m, got ${JSON.stringify(text)}`);
  if (Number(m[1]) === 0) throw new ConfigError(flag, `must be longer than 0, got ${JSON.stringify(text)}`);
  return Number(m[1]) * UNITS.find(([u]) => u === m[2])![1];
}

/** The largest unit that divides it exactly: `60d`, `36h`, `90m`. */
export function formatDuration(ms: number): string {
  for (const [u, size] of UNITS) if (ms % size === 0 && ms >= size) return `${ms / size}${u}`;
  return `${ms} ms`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}
