/**
 * `walkforward.json` and `walkforward.html`: per window the best parameters and their in-sample and
 * out-of-sample figures, the efficiency ratios, and the stitched out-of-sample run with its challenge
 * verdict set against the in-sample verdicts. The page is one offline file in the backtest report's style.
 */
import { thinMinMax, thinSteps, toChartTime } from '../report/downsample.js';
import { card, escapeHtml, pageEnd, pageHead } from '../report/html.js';
import { equityNumber } from '../report/equity-sample.js';
import { floorsFromEquity } from '../report/metrics.js';
import type { ReportJson } from '../report/report-json.js';
import { formatParams } from '../runtime/sweep-checks.js';
import { OBJECTIVES, type ObjectiveName } from './objectives.js';
import { formatDuration, trialCounts, type SliceFigures, type TrialCounts, type WalkForwardResult } from './walkforward.js';

export const WALKFORWARD_FORMAT = 'propbot-walkforward';

export interface WalkForwardMeta {
  readonly name: string;
  readonly strategy: string;
  readonly objective: ObjectiveName;
  readonly method: string;
  readonly trials?: number;
  readonly seed: number;
  readonly constraints: readonly string[];
  readonly grid: Readonly<Record<string, readonly unknown[]>>;
  readonly trainMs: number;
  readonly testMs: number;
  readonly stepMs: number;
  readonly anchored: boolean;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const round = (x: number | null): number | null => (x === null ? null : Math.round(x * 1e6) / 1e6);

type Verdict = ReportJson['challenge'];

function verdictText(c: Verdict | { passed: boolean; failedRule: string | null } | null | undefined): string {
  if (!c) return '—';
  return c.passed ? 'PASSED' : c.failedRule ? `FAILED (${c.failedRule})` : 'NOT PASSED';
}

/**
 * An in-sample verdict with the day the target was reached: a slice's run goes on after a pass (the
 * engine promotes the account and resets its balance), so "passed" can stand beside a negative return.
 */
function inSampleVerdict(c: { passed: boolean; failedRule: string | null; daysToTarget: number | null } | null | undefined): string {
  return c?.passed && c.daysToTarget !== null ? `PASSED on day ${c.daysToTarget}` : verdictText(c);
}

/**
 * The account's whole path through the stitched run: each phase passed (the engine promotes the account
 * and resets its balance), and the failure that ended it, if any.
 */
export function journeyText(result: WalkForwardResult): string | null {
  const c = result.outOfSample?.challenge;
  if (!c) return null;
  const steps = (c.transitions ?? []).map((t) =>
    t.to === 'failed' ? `FAILED ${t.from}${c.failure ? ` by ${c.failure.rule}` : ''} at ${short(t.at)}` : `passed ${t.from} at ${short(t.at)}`,
  );
  if (steps.length === 0) return c.failure ? `FAILED ${c.phase} by ${c.failure.rule} at ${short(c.failure.at)}` : `${c.phase} not passed`;
  return steps.join(', then ');
}

const short = (ms: number): string => iso(ms).slice(0, 16).replace('T', ' ');

/** The starting phase's verdict, and the failure that ended the account later, if any. */
function outOfSampleVerdict(result: WalkForwardResult, c: Verdict): string {
  const failure = result.outOfSample?.challenge?.failure;
  const failedPhase = result.outOfSample?.challenge?.transitions?.find((t) => t.to === 'failed')?.from;
  if (c?.passed && failure) return `PASSED ${c.phase}, then FAILED ${failedPhase ?? ''} (${failure.rule})`.replace('  ', ' ');
  return verdictText(c);
}

/** When the stitched run's account failed (it trades no more after that), or null. */
function failedAt(result: WalkForwardResult): number | null {
  return result.outOfSample?.challenge?.failure?.at ?? null;
}

/** Why a window has no best combination: its trials that failed, were excluded, or gave the objective no value. */
export function noBest(w: TrialCounts): string {
  const valueless = w.trials - w.failed - w.excluded;
  const parts = [
    w.failed > 0 ? `${w.failed === w.trials ? 'all ' : ''}${w.failed} failed` : '',
    w.excluded > 0 ? `${w.excluded} excluded by the constraints` : '',
    valueless > 0 ? `${valueless} without a value for the objective` : '',
  ].filter(Boolean);
  return `none (${parts.length > 0 ? parts.join(', ') : 'no trials'})`;
}

export function buildWalkForwardJson(result: WalkForwardResult, meta: WalkForwardMeta) {
  const dead = failedAt(result);
  const windows = result.windows.map((w, i) => ({
    window: i + 1,
    train: { from: iso(w.trainFrom), to: iso(w.trainTo), fromMs: w.trainFrom, toMs: w.trainTo },
    test: { from: iso(w.testFrom), to: iso(w.testTo), fromMs: w.testFrom, toMs: w.testTo },
    best: w.best ? { params: w.best.params, objective: w.inSample?.objective ?? null } : null,
    // trials, failed (the CLI lists their errors and exits 1), excluded
    ...trialCounts(w.search),
    pruned: w.search.trials.filter((r) => r.stopped?.reason === 'pruned').length,
    inSample: w.inSample,
    outOfSample: w.outOfSample,
    /** The stitched account had failed a rule before this test slice began: it could not trade it. */
    accountFailedBefore: dead !== null && dead < w.testFrom,
    efficiency: dead !== null && dead < w.testFrom ? null : round(w.efficiency),
  }));
  const passedIs = result.windows.filter((w) => w.inSample?.challenge?.passed).length;
  const withIs = result.windows.filter((w) => w.inSample !== null);
  const oos = result.outOfSampleReport;
  return {
    format: WALKFORWARD_FORMAT,
    version: 1,
    name: meta.name,
    strategy: meta.strategy,
    objective: { name: meta.objective, better: OBJECTIVES[meta.objective].better, about: OBJECTIVES[meta.objective].about },
    search: { method: meta.method, ...(meta.trials !== undefined ? { trials: meta.trials } : {}), seed: meta.seed, constraints: meta.constraints, grid: meta.grid },
    layout: {
      train: formatDuration(meta.trainMs),
      test: formatDuration(meta.testMs),
      step: formatDuration(meta.stepMs),
      anchored: meta.anchored,
      warmup: formatDuration(result.warmupMs),
      warmupMs: result.warmupMs,
      data: { from: iso(result.range.from), to: iso(result.range.to) },
    },
    windows,
    inSample: {
      windows: withIs.length,
      /** Windows whose best combination passed the challenge on its own train slice. */
      passed: passedIs,
      meanReturnPct: withIs.length ? round(withIs.reduce((a, w) => a + w.inSample!.returnPct, 0) / withIs.length) : null,
      verdict: `${passedIs} of ${withIs.length} windows passed in sample`,
    },
    outOfSample: oos
      ? {
          period: oos.period,
          summary: oos.summary,
          challenge: oos.challenge,
          verdict: outOfSampleVerdict(result, oos.challenge),
          /** The account failed a rule at some point of the stitched run (in any phase). */
          endedFailed: dead !== null,
          /** Every phase the account went through out of sample, and how it ended. */
          journey: journeyText(result),
          equity: oos.equity,
        }
      : null,
    /** Out-of-sample return per day over in-sample return per day (Pardo's walk-forward efficiency). */
    efficiency: round(result.efficiency),
  };
}

export type WalkForwardJson = ReturnType<typeof buildWalkForwardJson>;

const PAGE_SCRIPT = `
(function () {
  var LWC = window.LightweightCharts;
  var data = JSON.parse(document.getElementById('wf-data').textContent);
  var el = document.getElementById('oos-chart');
  var count = 0;
  if (el && data.equity.length > 0) {
    var chart = LWC.createChart(el, {
      width: el.clientWidth || 960, height: 460,
      layout: { background: { color: '#ffffff' }, textColor: '#1d2330', attributionLogo: true },
      grid: { vertLines: { color: '#f0f2f5' }, horzLines: { color: '#f0f2f5' } },
      timeScale: { timeVisible: true, secondsVisible: false, minBarSpacing: 0.05 },
      rightPriceScale: { borderVisible: false }
    });
    function line(points) { return points.map(function (p) { return { time: p[0], value: p[1] }; }); }
    var eq = chart.addSeries(LWC.LineSeries, { color: '#1f5fbf', lineWidth: 2, title: 'out-of-sample equity' });
    eq.setData(line(data.equity));
    [['daily', '#ef6c00', 'daily floor'], ['total', '#c62828', 'total floor']].forEach(function (f) {
      if (data.floors[f[0]].length === 0) return;
      var s = chart.addSeries(LWC.LineSeries, { color: f[1], lineWidth: 1, lineStyle: LWC.LineStyle.Dashed, lineType: LWC.LineType.WithSteps,
        title: f[2], priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false });
      s.setData(line(data.floors[f[0]]));
    });
    if (data.markers.length > 0) LWC.createSeriesMarkers(eq, data.markers);
    chart.timeScale().fitContent();
    window.addEventListener('resize', function () { chart.applyOptions({ width: el.clientWidth }); });
    count = 1;
  }
  document.body.dataset.charts = String(count);
  document.body.dataset.rendered = 'ok';
})();
`;

function pct(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? '—' : `${x.toFixed(digits)}%`;
}

function num(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? '—' : x.toFixed(digits);
}

function slice(f: SliceFigures | null): string[] {
  return f ? [pct(f.returnPct), pct(f.maxDrawdownPct), num(f.sharpe), String(f.trades)] : ['—', '—', '—', '—'];
}

/** The page; `result` gives the stitched equity for the chart, `json` everything else. */
export function renderWalkForwardHtml(json: WalkForwardJson, result: WalkForwardResult, links: { outOfSampleReport?: string } = {}): string {
  const oos = result.outOfSample;
  const times = oos ? Array.from(oos.equity, (s) => s.time) : [];
  const floors = oos ? floorsFromEquity(oos) : [];
  const floorLine = (pick: 'daily' | 'total') => toChartTime(thinSteps(times, floors.map((f) => (f[pick] === null ? null : f[pick]!.toNumber())), 4000));
  const data = {
    equity: oos ? toChartTime(thinMinMax(times, Array.from(oos.equity, equityNumber), 4000)) : [],
    floors: { daily: floorLine('daily'), total: floorLine('total') },
    markers: result.windows.map((w, i) => ({ time: Math.floor(w.testFrom / 1000), position: 'aboveBar', color: '#6b7385', shape: 'arrowDown', text: `w${i + 1}` })),
  };
  const c = json.outOfSample?.challenge ?? null;
  const oosPassed = c?.passed === true && json.outOfSample?.endedFailed !== true;
  // The winner's objective has a column unless it is the in-sample return, which has its own.
  const objectiveColumn = json.objective.name !== 'returnPct';
  const heads: Array<[string, boolean]> = [
    ['#', true], ['train (UTC)', true], ['test (UTC)', true], ['best parameters', true],
    ...(objectiveColumn ? [[json.objective.name, false] as [string, boolean]] : []),
    ['IS return', false], ['IS max dd', false], ['IS sharpe', false], ['IS trades', false], ['IS verdict', true],
    ['OOS return', false], ['OOS max dd', false], ['OOS sharpe', false], ['OOS trades', false], ['efficiency', false], ['trials', false],
  ];
  const left = (j: number): string => (heads[j]![1] ? ' class="l"' : '');
  const rows = json.windows.map((w, i) => {
    const r = result.windows[i]!;
    const params = w.best ? formatParams(w.best.params) : noBest(w);
    const cells = [
      String(w.window),
      `${w.train.from.slice(0, 10)} → ${w.train.to.slice(0, 10)}`,
      `${w.test.from.slice(0, 10)} → ${w.test.to.slice(0, 10)}`,
      params,
      ...(objectiveColumn ? [num(w.best?.objective ?? null, 4)] : []),
      ...slice(r.inSample),
      inSampleVerdict(r.inSample?.challenge ?? null),
      ...(w.accountFailedBefore ? ['account failed earlier', '', '', ''] : slice(r.outOfSample)),
      num(w.efficiency),
      `${w.trials}${w.failed || w.excluded ? ` (${[w.failed ? `${w.failed} failed` : '', w.excluded ? `${w.excluded} excl.` : ''].filter(Boolean).join(', ')})` : ''}`,
    ];
    return `<tr>${cells.map((cell, j) => `<td${left(j)}>${escapeHtml(cell)}</td>`).join('')}</tr>`;
  });
  const title = `${json.name} — walk-forward`;
  const oosSummary = json.outOfSample?.summary;
  return `${pageHead(`${title} · propbot walk-forward`, { errorHook: true })}
<body>
<header><h1>${escapeHtml(title)}</h1><p>${escapeHtml(
    `${json.strategy} · train ${json.layout.train}, test ${json.layout.test}, step ${json.layout.step}${json.layout.anchored ? ', anchored' : ', rolling'} · warm-up ${json.layout.warmup} · ${json.search.method} search by ${json.objective.name} · propbot walk-forward report`,
  )}</p></header>
<main>
<pre id="errors" hidden></pre>
<section><h2>In sample vs out of sample</h2><div class="cards">${[
    card('In-sample verdict', json.inSample.verdict, json.inSample.passed > 0 ? 'pass' : 'fail'),
    card(`Out-of-sample verdict (${c?.phase ?? 'phase'})`, json.outOfSample?.verdict ?? 'no window traded', oosPassed ? 'pass' : 'fail'),
    card('Mean in-sample return', pct(json.inSample.meanReturnPct)),
    card('Out-of-sample return', oosSummary ? pct(Number(oosSummary.returnPct)) : '—'),
    card('Out-of-sample max drawdown', oosSummary ? pct(Number(oosSummary.maxDrawdownPct)) : '—'),
    card('Out-of-sample trades', oosSummary ? String(oosSummary.totalTrades) : '—'),
    card('Efficiency (OOS/IS per day)', num(json.efficiency)),
    card('Windows', String(json.windows.length)),
  ].join('')}</div>${
    json.outOfSample?.journey ? `<p><b>Out of sample, the account:</b> ${escapeHtml(json.outOfSample.journey)}.</p>` : ''
  }<p class="note">The out-of-sample verdict comes from one account trading every test slice in turn with the parameters chosen on the slice before it, the engine checking the challenge rules on every price: the honest estimate of passing. In-sample verdicts are each window's best combination judged on the data it was chosen on.${
    json.windows.some((w) => w.accountFailedBefore) ? ' Windows marked "account failed earlier" could not trade: a failed account takes no orders.' : ''
  }</p></section>
<section><h2>Stitched out-of-sample equity and challenge floors</h2>${oos && oos.equity.length > 0 ? '<div class="chart" id="oos-chart"></div>' : '<p class="note">No out-of-sample run.</p>'}${
    links.outOfSampleReport ? `<p class="note">Full report of the out-of-sample run (fills, trades, daily pnl): <a href="${escapeHtml(links.outOfSampleReport)}">${escapeHtml(links.outOfSampleReport)}</a></p>` : ''
  }</section>
<section><h2>Windows</h2><div class="scroll"><table id="windows"><thead><tr>${heads.map(([h], j) => `<th${left(j)}>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div></section>
</main>
${pageEnd('wf-data', data, PAGE_SCRIPT)}`;
}
