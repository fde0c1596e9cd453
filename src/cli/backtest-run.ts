/**
 * The body of `propbot backtest`, loaded only when that command runs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { holdYoungGeneration } from '../core/young-generation.js';
import { closedByKind } from '../report/metrics.js';
import { writeReport, type ReportSummaryJson } from '../report/write.js';
import { runBacktest, type BacktestOptions } from '../runtime/backtest.js';
import {
  fetchScenarioData,
  guessAsset,
  loadScenario,
  scenarioMarkets,
  resolveStrategySpec,
  withScenarioDataNames,
  type Scenario,
} from '../runtime/scenario.js';
import { Dec } from '../core/decimal.js';
import { describePeriod } from '../feed/files/to-candle.js';
import { isDataUrl } from '../feed/files/remote.js';
import { checkRange, type RangeEnd } from '../runtime/run-range.js';
import { parseDataArgs, type BacktestCliOptions } from './scenario-args.js';

export async function runBacktestCommand(scenarioFile: string | undefined, opts: BacktestCliOptions): Promise<number> {
  // This process's peak does not grow with the data's length (young-generation.ts).
  const release = holdYoungGeneration();
  try {
    return await backtestCommand(scenarioFile, opts);
  } finally {
    release();
  }
}

async function backtestCommand(scenarioFile: string | undefined, opts: BacktestCliOptions): Promise<number> {
  const scenario = await scenarioWithData(scenarioFile, opts);
  const showProgress = opts.progress !== false && !opts.json && process.stderr.isTTY === true;
  const bar = showProgress ? await progressBar(scenario) : undefined;
  // The guard's state changes, kill-switch trips and denials are results of a backtest: the summary
  // counts them and report.json lists each. Printed one line each (warn), a month could fill a screen.
  const level = opts.log ?? scenario.log ?? 'error';
  const outcome = await runBacktest({
    ...backtestOptions(scenario),
    logger: (clock) => createLogger({ level, format: 'auto', destination: process.stderr, now: () => clock.now() }),
    ...(bar ? { onProgress: bar.update } : {}),
  });
  bar?.stop();
  const outDir = path.resolve(opts.out ?? scenario.out ?? path.join('out', safeName(scenario.name)));
  const result = withScenarioDataNames(outcome.result, scenario.markets);
  const written = await writeReport(result, outDir);
  const json = written.report;
  if (opts.json) {
    // The very text of report.json (its equity series is only in the file).
    process.stdout.write(await readFile(written.json));
  } else {
    process.stdout.write(summaryTable(json, written));
  }
  // The report is written either way; the exit code and one line per strategy say the run is not whole.
  for (const f of json.failures) {
    process.stderr.write(`propbot: strategy ${f.strategy} failed ${f.failedIn} at ${f.at} (market time) and was stopped: ${f.message}${f.location ? ` (${f.location})` : ''}\n`);
  }
  return json.failures.length > 0 ? 1 : 0;
}

/** What `propbot backtest` hands the backtester for a scenario (goldens and tests run exactly this). */
export function backtestOptions(scenario: Scenario): BacktestOptions {
  return {
    name: scenario.name,
    markets: scenarioMarkets(scenario),
    strategies: scenario.strategies.map((s, i) => ({
      use: s.use,
      params: s.params,
      ...(s.name !== undefined ? { name: s.name } : {}),
      configPath: scenario.file ? (s.key ?? `strategies.${i}`) : '--param',
      ...(s.paramFlags !== undefined ? { paramFlags: s.paramFlags } : {}),
    })),
    balance: scenario.balance,
    accountType: scenario.accountType,
    seed: scenario.seed,
    cwd: scenario.baseDir,
    ...(scenario.phase !== undefined ? { phase: scenario.phase } : {}),
    ...(scenario.from !== undefined ? { from: scenario.from } : {}),
    ...(scenario.to !== undefined ? { to: scenario.to } : {}),
    ...(scenario.risk !== undefined ? { risk: scenario.risk } : {}),
    rules: scenario.rules,
    ...(scenario.file !== undefined ? { configFile: scenario.file } : {}),
  };
}

export function buildScenario(file: string | undefined, opts: BacktestCliOptions): Scenario {
  const base: Scenario | undefined = file !== undefined ? loadScenario(file) : undefined;
  const strategySpec = opts.strategy ?? undefined;
  if (!base && strategySpec === undefined) throw new ConfigError('--strategy', 'give a strategy (--strategy PATH|NAME) or a scenario file');
  if (!base && (opts.data === undefined || opts.data.length === 0)) throw new ConfigError('--data', 'give at least one candle file (--data FILE)');
  const fromParam = parseParamFlags(opts.param ?? []);
  const params = { ...(opts.params ?? {}), ...fromParam };
  // Which flag gave each parameter, so that a refused one is named by its flag.
  const paramFlags: Record<string, string> = {
    ...Object.fromEntries(Object.keys(opts.params ?? {}).map((k) => [k, '--params'])),
    ...Object.fromEntries(Object.keys(fromParam).map((k) => [k, '--param'])),
  };
  const strategies =
    strategySpec !== undefined
      ? [{ use: resolveStrategySpec(strategySpec, process.cwd()), params, key: '--param', paramFlags }]
      : base!.strategies.map((s, i) => (i === 0 && Object.keys(params).length > 0 ? { ...s, params: { ...s.params, ...params }, paramFlags } : s));
  let markets = base?.markets ?? [];
  if (opts.data !== undefined && opts.data.length > 0) {
    const items = parseDataArgs(opts.data);
    markets = items.map((item) => {
      const asset = item.asset ?? (items.length === 1 ? opts.market?.toUpperCase() : undefined) ?? guessAsset(item.file);
      if (asset === undefined) {
        throw new ConfigError('--data', `cannot tell which market ${item.file} is: write ASSET=FILE (e.g. BTC=${path.basename(item.file)}) or pass --market`);
      }
      return { asset, file: item.file, ...(isDataUrl(item.file) ? { url: item.file } : {}) };
    });
  }
  const scenario: Scenario = {
    name: base?.name ?? path.basename(strategies[0]!.use).replace(/\.[mc]?[jt]s$/, ''),
    strategies,
    markets,
    preset: opts.preset ?? base?.preset ?? 'default',
    rules: opts.rules ?? base?.rules ?? 'on',
    balance: opts.balance ?? base?.balance ?? new Dec(100000),
    accountType: base?.accountType ?? 'real',
    seed: base?.seed ?? 'propbot',
    baseDir: base?.baseDir ?? process.cwd(),
    ...(base?.file !== undefined ? { file: base.file } : {}),
    ...((opts.phase ?? base?.phase) !== undefined ? { phase: (opts.phase ?? base?.phase)! } : {}),
    ...((opts.from ?? base?.from) !== undefined ? { from: (opts.from ?? base?.from)! } : {}),
    ...((opts.to ?? base?.to) !== undefined ? { to: (opts.to ?? base?.to)! } : {}),
    ...(base?.risk !== undefined ? { risk: base.risk } : {}),
    ...(base?.out !== undefined ? { out: base.out } : {}),
    ...(base?.log !== undefined ? { log: base.log } : {}),
    ...(base?.research !== undefined ? { research: base.research } : {}),
  };
  const end = (flag: number | undefined, fromFile: number | undefined, key: 'from' | 'to'): RangeEnd | undefined =>
    flag !== undefined ? { ms: flag, key: `--${key}` } : fromFile !== undefined ? { ms: fromFile, key, ...(base?.file !== undefined ? { file: base.file } : {}) } : undefined;
  checkRange(end(opts.from, base?.from, 'from'), end(opts.to, base?.to, 'to'));
  return scenario;
}

/** `buildScenario`, then its URL data fetched into the cache (an error names the key or the flag that gave the URL). */
export function scenarioWithData(file: string | undefined, opts: BacktestCliOptions): Promise<Scenario> {
  return fetchScenarioData(buildScenario(file, opts), opts.data !== undefined && opts.data.length > 0 ? { flag: '--data' } : {});
}

function parseParamFlags(values: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of values) {
    const i = v.indexOf('=');
    if (i <= 0) throw new ConfigError('--param', `expected key=value, got ${JSON.stringify(v)}`);
    const key = v.slice(0, i);
    const raw = v.slice(i + 1);
    try {
      out[key] = JSON.parse(raw);
    } catch {
      out[key] = raw;
    }
  }
  return out;
}

/** A progress bar on the terminal (cli-progress is loaded only then). */
async function progressBar(scenario: Scenario): Promise<{ update: (p: { candles: number; time: number }) => void; stop: () => void }> {
  const { default: cliProgress } = await import('cli-progress');
  const from = scenario.from;
  const to = scenario.to;
  const bounded = from !== undefined && to !== undefined;
  const bar = new cliProgress.SingleBar(
    {
      format: bounded ? 'backtest [{bar}] {percentage}% | {date} | {candles} candles' : 'backtest {date} | {candles} candles',
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(bounded ? to - from : 1, 0, { date: '', candles: 0 });
  return {
    update: ({ candles, time }) => bar.update(bounded ? Math.min(time - from, to - from) : 0, { date: new Date(time).toISOString().slice(0, 16).replace('T', ' '), candles }),
    stop: () => bar.stop(),
  };
}

function summaryTable(json: ReportSummaryJson, written: { json: string; html: string }): string {
  const s = json.summary;
  const c = json.challenge;
  const rows: Array<[string, string]> = [
    ...(json.rules === 'off' ? [['RULES OFF', 'no challenge rules, no risk guard: not what the platform would do'] as [string, string]] : []),
    ['period', `${json.period.start} → ${json.period.end}`],
    ['strategy', json.strategy ?? ''],
    ['initial balance', s.initialBalance],
    ['final equity', s.finalEquity],
    ['net pnl', `${s.netPnl} (${s.returnPct}%)`],
    ['max drawdown', `${s.maxDrawdownPct}%`],
    ['sharpe / sortino', `${s.sharpe ?? '—'} / ${s.sortino ?? '—'}`],
    ['trades', `${s.totalTrades} closed, ${s.openTrades} open; win rate ${s.winRate ?? '—'}%; profit factor ${s.profitFactor ?? '—'}`],
    ['fees / funding', `${s.fees} / ${s.funding}`],
    ...(json.failures.length > 0 ? [['strategy errors', json.failures.map((f) => `${f.strategy} failed ${f.failedIn} at ${f.at}`).join('; ')] as [string, string]] : []),
    ...(json.trades.some((t) => t.closeOrigin !== null) ? [['closed by', closedBy(json.trades)] as [string, string]] : []),
    ['denials', `${json.denials.total}${json.denials.total ? ` (${Object.entries(json.denials.byCode).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`],
    ...(json.guardActions.length > 0 ? [['guard', guardLine(json.guardActions)] as [string, string]] : []),
  ];
  if (c) {
    rows.push(['challenge', `${c.phase}: ${c.passed ? 'PASSED' : c.failedRule ? `FAILED by ${c.failedRule} at ${c.failedAt}` : `not passed${unmet(c)}`}`]);
    const profitable = `${c.profitableDays} profitable (pnl ≥ ${c.rules.profitableDayPct}% of the initial balance)`;
    rows.push(['days', `${c.tradingDays} trading, ${profitable}${c.daysToTarget !== null ? `, target on day ${c.daysToTarget}` : ''}`]);
  }
  for (const d of json.data) rows.push([`data ${d.market}`, dataLines(d).join(`\n${' '.repeat(18)}`)]);
  rows.push(['speed', `${json.perf.candles} candles, ${json.perf.snapshots} snapshots (${json.perf.quietSteps} quiet) in ${json.perf.wallMs} ms`]);
  rows.push(['report', `${written.html}\n${' '.repeat(18)}${written.json}`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n';
}

/** `a 3, b 1`: how often each value occurs, the most frequent first (ties in order of appearance). */
function counts(values: readonly string[]): string {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
}

/** Who closed the closed trades, with the net pnl of each kind. */
function closedBy(trades: ReportSummaryJson['trades']): string {
  const closed = trades.flatMap((t) => (t.closeOrigin === null ? [] : [{ kind: t.closeOrigin.kind, net: new Dec(t.netPnl) }]));
  return closedByKind(closed)
    .map(({ kind, trades: n, net }) => `${kind} ${n} (net ${net.gte(0) ? '+' : ''}${net.toFixed(2)})`)
    .join(', ');
}

/** The kill switch's trips: how many, by code, and the first. */
function guardLine(actions: ReportSummaryJson['guardActions']): string {
  return `${actions.length} kill-switch trip${actions.length === 1 ? '' : 's'} (${counts(actions.map((a) => a.code))}), the first at ${actions[0]!.at}; report.json lists each`;
}

/** What a run that neither passed nor failed still lacks, as the phase's rules ask it: ` (…; …)`. */
export function unmet(c: NonNullable<ReportSummaryJson['challenge']>): string {
  const lacks: string[] = [];
  if (c.rules.profitTargetPct !== null && c.targetReachedAt === null) lacks.push(`profit target +${c.rules.profitTargetPct}% not reached`);
  if (c.rules.minProfitableDays !== null && c.profitableDays < c.rules.minProfitableDays) {
    lacks.push(`${c.profitableDays} of ${c.rules.minProfitableDays} profitable days`);
  }
  if (c.consistencyMet === false) lacks.push(`best day ${c.bestDayShare}% of the profit, over the ${c.rules.consistencyLimitPct}% consistency limit`);
  return lacks.length > 0 ? ` (${lacks.join('; ')})` : '';
}

/** Lines shown in the console for one data file: how it was read, then its first bad rows and gaps. */
const SHOWN = 3;
function dataLines(d: ReportSummaryJson['data'][number]): string[] {
  const unit = { s: 'epoch seconds', ms: 'epoch ms', us: 'epoch µs', date: 'UTC dates' }[d.timeUnit ?? ''] ?? 'unknown';
  const period = d.periodMs === null ? 'unknown period' : describePeriod(d.periodMs);
  const head = [`${d.rows} rows of ${period}, times in ${unit}`];
  if (d.badRows) head.push(`${d.badRows} bad rows skipped`);
  if (d.gaps) head.push(`${d.gaps} gap${d.gaps === 1 ? '' : 's'} (${d.missingPeriods} candles missing)`);
  if (d.sessionBreaks) head.push(`${d.sessionBreaks} weekend session breaks`);
  if (d.roundedRows) head.push(`${d.roundedRows} rows' prices rounded to 9 decimals (first on line ${d.firstRoundedLine})`);
  const lines = [head.join('; ')];
  for (const b of d.badRowSamples.slice(0, SHOWN)) lines.push(`line ${b.line}: ${b.reason}: ${b.message}`);
  if (d.badRows > SHOWN) lines.push(`… ${d.badRows - SHOWN} more bad rows (report.json lists the first ${d.badRowSamples.length})`);
  for (const g of d.gapSamples.slice(0, SHOWN)) lines.push(`line ${g.line}: gap after ${g.after.slice(0, 16).replace('T', ' ')}, ${g.missingPeriods} candles missing`);
  if (d.gaps > SHOWN) lines.push(`… ${d.gaps - SHOWN} more gaps (report.json lists the first ${d.gapSamples.length})`);
  return lines;
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'backtest';
}
