/**
 * The HTML report: ONE self-contained file that opens offline. Lightweight Charts (its standalone
 * production build, Apache-2.0, © TradingView) is inlined; the chart data rides along as a JSON
 * block. Every text from the run is escaped; the JSON is embedded so it can not close its tag.
 *
 * Charts: price candles of each market with the fills as markers; equity with the challenge floors
 * and, below it, the drawdown; daily pnl with the consistency limit and the profitable-day line.
 * Long series are thinned for the page as `downsample.ts` describes; the tables and figures use
 * the full data. The page's script sets `document.body.dataset.rendered = "ok"` once every chart
 * exists, and records any script error in `document.body.dataset.error` and on the page.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Decimal } from 'decimal.js';
import type { ChallengeOutcome } from './challenge.js';
import { forEachEquityRaw } from './equity-sample.js';
import { decPlaces } from '../core/fp9.js';
import { equityChartLines } from './chart-lines.js';
import { downsampleCandles, StepLine, toChartTime, type PlotCandle, type PlotPoint } from './downsample.js';
import { reportFigures, type ReportFigures } from './figures.js';
import { closedByKind, tradeNet, type ReportMetrics } from './metrics.js';
import { money, ratio } from './report-json.js';
import type { BacktestResult, DailyPnl, FillRecord, PriceCandle } from './types.js';

export interface HtmlReportOptions {
  /** Most candles per market on the page (default 2000). */
  maxCandles?: number;
  /** Most points per line (equity, drawdown, each floor) on the page (default 4000). */
  maxPoints?: number;
  /** Most fill markers per market (default 1000; the latest are dropped past it). */
  maxMarkers?: number;
  /** Most rows in the trades and denials tables (default 1000 each; the page says when cut). */
  maxTableRows?: number;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content or a quoted attribute. */
export function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

/** JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`, no line separators). */
export function jsonForScript(value: unknown): string {
  // One pass over the page's data (hundreds of kilobytes), not one per character to escape.
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => SCRIPT_ESCAPES[ch]!);
}

const SCRIPT_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

let libraryCache: string | undefined;
/** The Lightweight Charts standalone build, from the installed package. */
export function lightweightChartsSource(): string {
  if (libraryCache === undefined) {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve('lightweight-charts/package.json'));
    const source = readFileSync(path.join(dir, 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
    // inlined in a <script>: the text must not end the element early
    libraryCache = source.replace(/<\/script/gi, '<\\/script').replace(/<!--/g, '<\\!--');
  }
  return libraryCache;
}

interface Marker {
  time: number;
  position: 'aboveBar' | 'belowBar';
  color: string;
  shape: 'arrowUp' | 'arrowDown' | 'circle' | 'square';
  text: string;
  /** Kept first when markers are thinned (zoomed out): guard and platform closes, then stops, … */
  rank: number;
}

/** How each kind of fill is drawn; the page's legend lists the same entries. */
const MARKER_STYLES: ReadonlyArray<{ key: string; label: string; color: string; shape: Marker['shape']; rank: number }> = [
  { key: 'entry-long', label: 'long entry', color: '#1f5fbf', shape: 'arrowUp', rank: 1 },
  { key: 'entry-short', label: 'short entry', color: '#ef6c00', shape: 'arrowDown', rank: 1 },
  { key: 'strategy', label: 'exit by the strategy', color: '#455a64', shape: 'circle', rank: 2 },
  { key: 'take_profit', label: 'take profit', color: '#1b8a3a', shape: 'square', rank: 3 },
  { key: 'stop_loss', label: 'stop loss / trailing stop', color: '#c62828', shape: 'square', rank: 4 },
  { key: 'platform', label: 'liquidation / force close', color: '#7b1fa2', shape: 'circle', rank: 5 },
  { key: 'guard', label: 'risk guard (kill switch)', color: '#000000', shape: 'square', rank: 6 },
];
const STYLE_BY_KEY = new Map(MARKER_STYLES.map((m) => [m.key, m]));

function isEntry(f: FillRecord): boolean {
  return f.action !== undefined ? f.action === 'open' || f.action === 'increase' : f.realizedPnl === null;
}

function styleKey(f: FillRecord): string {
  if (isEntry(f)) return f.direction === 'long' ? 'entry-long' : 'entry-short';
  switch (f.origin?.kind) {
    case 'stop_loss':
    case 'trailing_stop':
      return 'stop_loss';
    case 'take_profit':
      return 'take_profit';
    case 'liquidation':
    case 'force_close':
      return 'platform';
    case 'kill_switch':
    case 'guard_flatten':
      return 'guard';
    default:
      return f.type === 'liquidation' || f.action === 'liquidation' ? 'platform' : 'strategy';
  }
}

/** Above this many markers on a chart their labels would overlap: shapes only (guard actions keep theirs). */
const LABELLED_MARKERS = 40;

/**
 * One entry and one exit marker per bar and side: the fills of one bar are drawn as the most telling
 * of them (a kill switch over a stop over an exit), with the count when there were several. Entries
 * sit on the side they trade from (a long's below the bar), exits on the other.
 */
function markersFor(fills: readonly FillRecord[], candles: readonly PlotCandle[], max: number): Marker[] {
  const labelled = fills.length <= LABELLED_MARKERS;
  const times = candles.map((c) => c[0]);
  const groups = new Map<string, { marker: Marker; count: number }>();
  for (const f of fills) {
    // snap to the (thinned) candle holding the fill, or the chart would not place it
    let lo = 0;
    let hi = times.length - 1;
    if (hi < 0 || f.time < times[0]!) continue;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (times[mid]! <= f.time) lo = mid;
      else hi = mid - 1;
    }
    const entry = isEntry(f);
    const below = (f.direction === 'long') === entry;
    const style = STYLE_BY_KEY.get(styleKey(f))!;
    const time = Math.floor(times[lo]! / 1000);
    const key = `${time}:${below}:${entry}`;
    const label = style.key === 'guard' ? 'kill switch' : labelled ? `${f.direction === 'long' ? 'L' : 'S'} ${style.key.startsWith('entry') ? (f.action ?? 'open') : style.label.split(' ')[0]}` : '';
    const marker: Marker = { time, position: below ? 'belowBar' : 'aboveBar', color: style.color, shape: style.shape, text: label, rank: style.rank };
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { marker, count: 1 });
    else {
      g.count += 1;
      if (marker.rank > g.marker.rank) g.marker = marker;
    }
  }
  const out = [...groups.values()].map(({ marker, count }) => (count > 1 && (labelled || marker.rank >= 4) ? { ...marker, text: `${marker.text} ×${count}`.trim() } : marker));
  // Past `max`, the least telling go first.
  out.sort((a, b) => b.rank - a.rank || a.time - b.time);
  return out.slice(0, max).sort((a, b) => a.time - b.time);
}

/** Decimal places of a market's prices as the data gives them (at most the API's 9). */
function pricePrecision(candles: readonly PriceCandle[]): number {
  let places = 0;
  for (const c of candles) places = Math.max(places, decPlaces(c.open), decPlaces(c.high), decPlaces(c.low), decPlaces(c.close));
  return Math.min(places, 9);
}

interface PageData {
  markets: { market: string; candles: PlotCandle[]; markers: Marker[]; factor: number; precision: number }[];
  legend: ReadonlyArray<{ label: string; color: string; shape: string }>;
  equity: PlotPoint[];
  drawdown: PlotPoint[];
  floors: { daily: PlotPoint[]; total: PlotPoint[]; trailing: PlotPoint[] };
  daily: { time: number; value: number; color: string }[];
  consistencyLimit: number | null;
  profitableDayMin: number | null;
}

function pageData(result: BacktestResult, days: readonly DailyPnl[], metrics: ReportMetrics, o: Required<HtmlReportOptions>): PageData {
  const markets = (result.prices ?? []).map((p) => {
    const { candles, factor } = downsampleCandles(p.candles, o.maxCandles);
    const fills = result.fills.filter((f) => f.market === p.market);
    return {
      market: p.market,
      candles: candles.map((c) => [Math.floor(c[0] / 1000), c[1], c[2], c[3], c[4]] as PlotCandle),
      markers: markersFor(fills, candles, o.maxMarkers),
      factor,
      precision: pricePrecision(p.candles),
    };
  });
  const num = (d: Decimal) => d.toNumber();
  // Pixels, thinned as the samples are read: the series is as long as the run (a sample a minute),
  // and only its thinned lines reach the page (plotted only: the drawdown figures of the report come
  // from the Decimal path).
  const lines = equityChartLines(result, o.maxPoints, result.floors !== undefined);
  const floors = result.floors ? givenFloorLines(result, result.floors, o.maxPoints) : lines;
  const c = result.challenge;
  const consistencyLimit =
    c?.consistencyLimitPct != null && metrics.netPnl.gt(0) ? num(metrics.netPnl.times(c.consistencyLimitPct).div(100)) : null;
  return {
    markets,
    legend: MARKER_STYLES.map(({ label, color, shape }) => ({ label, color, shape })),
    equity: toChartTime(lines.equity),
    drawdown: toChartTime(lines.drawdown),
    floors: { daily: toChartTime(floors.daily), total: toChartTime(floors.total), trailing: toChartTime(floors.trailing) },
    daily: days.map((d) => ({
      time: Date.parse(`${d.day}T00:00:00Z`) / 1000,
      value: num(d.pnl),
      color: d.pnl.gte(0) ? 'rgba(27,138,58,0.8)' : 'rgba(198,40,40,0.8)',
    })),
    consistencyLimit,
    profitableDayMin: c ? num(result.initialBalance.times(c.profitableDayPct).div(100)) : null,
  };
}

/**
 * The floors a result carries (sampled at their own times), in force at each equity sample, as
 * thinned pixel lines: nothing drawn where a floor does not apply. A backtest's floors are worked out
 * from its equity instead (see `equityChartLines`).
 */
function givenFloorLines(result: BacktestResult, given: NonNullable<BacktestResult['floors']>, maxPoints: number): { daily: PlotPoint[]; total: PlotPoint[]; trailing: PlotPoint[] } {
  const n = result.equity.length;
  const lines = { daily: new StepLine(n, maxPoints), total: new StepLine(n, maxPoints), trailing: new StepLine(n, maxPoints) };
  // A floor stands for many samples (a day, until a new high): its number is worked out when it moves.
  const asNumber = (): ((d: Decimal | null | undefined) => number | undefined) => {
    let last: Decimal | null | undefined;
    let value: number | undefined;
    return (d) => {
      if (d !== last) {
        last = d;
        value = d?.toNumber();
      }
      return value;
    };
  };
  const daily = asNumber();
  const total = asNumber();
  const trailing = asNumber();
  let j = -1;
  forEachEquityRaw(result.equity, (time) => {
    while (j + 1 < given.length && given[j + 1]!.time <= time) j += 1;
    const f = j >= 0 ? given[j] : undefined;
    lines.daily.add(time, daily(f?.daily));
    lines.total.add(time, total(f?.total));
    lines.trailing.add(time, trailing(f?.trailing));
  });
  return { daily: lines.daily.points(), total: lines.total.points(), trailing: lines.trailing.points() };
}

export const STYLE = `
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;color:#c9cfdb}
header p.rules-off{margin:0 0 8px;padding:6px 10px;background:#b3261e;color:#fff;font-weight:600;border-radius:3px}
main{padding:16px 24px;max-width:1400px;margin:0 auto}
section{background:#fff;border-radius:6px;padding:12px 16px;margin:0 0 16px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{font-size:16px;margin:0 0 8px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px}
.card{border:1px solid #e3e6eb;border-radius:4px;padding:6px 10px}.card b{display:block;font-size:12px;color:#6b7385;font-weight:500}
.card span{font-size:16px;font-variant-numeric:tabular-nums}
.pass{color:#1b8a3a}.fail{color:#c62828}
.banner{border:2px solid #c62828;background:#fdecea;color:#7f1d1d;padding:.6em 1em;margin:1em 0;border-radius:4px}
.chart{width:100%;position:relative}
table{border-collapse:collapse;width:100%;font-size:12px;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #eceef2;padding:3px 6px;text-align:right;white-space:nowrap}th{background:#f0f2f5;position:sticky;top:0}
td.l,th.l{text-align:left}.scroll{max-height:480px;overflow:auto}table.narrow{width:auto}table.narrow td,table.narrow th{padding:3px 14px}
.note{color:#6b7385;font-size:12px;margin:4px 0 0}.legend{font-size:12px;margin:6px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px}.legend i{font-style:normal}#errors{color:#c62828;white-space:pre-wrap}
footer{color:#6b7385;font-size:12px;padding:0 24px 24px;text-align:center}footer a{color:#6b7385}
`;

// Plain browser script (no modules, no network). It only reads the JSON block and sets text via the
// chart library, never innerHTML.
const PAGE_SCRIPT = `
(function () {
  var LWC = window.LightweightCharts;
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var charts = [];
  function make(id, height) {
    var el = document.getElementById(id);
    var chart = LWC.createChart(el, {
      width: el.clientWidth || 960,
      height: height,
      layout: { background: { color: '#ffffff' }, textColor: '#1d2330', attributionLogo: true },
      grid: { vertLines: { color: '#f0f2f5' }, horzLines: { color: '#f0f2f5' } },
      timeScale: { timeVisible: true, secondsVisible: false, minBarSpacing: 0.05, fixLeftEdge: true, fixRightEdge: true },
      rightPriceScale: { borderVisible: false }
    });
    charts.push({ chart: chart, el: el });
    return chart;
  }
  function line(points) { return points.map(function (p) { return { time: p[0], value: p[1] }; }); }
  data.markets.forEach(function (m, i) {
    var chart = make('price-' + i, 420);
    var step = Math.pow(10, -m.precision);
    var series = chart.addSeries(LWC.CandlestickSeries, {
      upColor: '#26a69a', downColor: '#ef5350', wickUpColor: '#26a69a', wickDownColor: '#ef5350', borderVisible: false,
      priceFormat: { type: 'price', precision: m.precision, minMove: step }
    });
    series.setData(m.candles.map(function (c) { return { time: c[0], open: c[1], high: c[2], low: c[3], close: c[4] }; }));
    // The library's default margins (20% above, 10% below) leave a third of the chart empty; the
    // markers need only a few pixels beyond the bars.
    series.priceScale().applyOptions({ scaleMargins: { top: 0.04, bottom: 0.04 } });
    var el = document.getElementById('price-' + i);
    var plugin = m.markers.length > 0 ? LWC.createSeriesMarkers(series, []) : null;
    // Zoomed out, a bar is a pixel or two wide: show every marker of the guard, the platform and the
    // stops, and of the rest as many as leave ~8 px per marker.
    var thin = function (range) {
      if (!plugin) { el.dataset.markers = '0'; return; }
      var bars = range ? Math.max(1, range.to - range.from) : m.candles.length;
      var room = Math.max(1, Math.floor((el.clientWidth || 960) / 8));
      var stride = Math.max(1, Math.ceil((m.markers.length * Math.min(1, bars / m.candles.length)) / room));
      var shown = m.markers.filter(function (k, j) { return k.rank >= 4 || j % stride === 0; });
      plugin.setMarkers(shown);
      el.dataset.markers = String(shown.length);
    };
    thin(null);
    chart.timeScale().subscribeVisibleLogicalRangeChange(thin);
    chart.timeScale().fitContent();
    // Where the highest high and the lowest low are drawn, as fractions of the pane's height from its
    // top (read once the chart has laid out), so a check can see that the prices fill the chart.
    var hi = -Infinity, lo = Infinity;
    m.candles.forEach(function (c) { if (c[2] > hi) hi = c[2]; if (c[3] < lo) lo = c[3]; });
    var measure = function () {
      var h = chart.paneSize().height, top = series.priceToCoordinate(hi), bottom = series.priceToCoordinate(lo);
      if (h > 0 && top !== null && bottom !== null) el.dataset.priceFill = (top / h).toFixed(3) + ',' + (bottom / h).toFixed(3);
    };
    // The chart lays out on an animation frame, which a busy or headless browser may not have run by
    // the time the page counts as loaded (measured before it, the scale is not the data's yet): a
    // screenshot draws what is pending now. Measured again after two frames, for a later layout.
    chart.takeScreenshot();
    measure();
    requestAnimationFrame(function () { requestAnimationFrame(measure); });
  });
  if (data.equity.length > 0) {
    var chart = make('equity-chart', 480);
    var equity = chart.addSeries(LWC.LineSeries, { color: '#1f5fbf', lineWidth: 2, title: 'equity' });
    equity.setData(line(data.equity));
    var floors = [['daily', '#ef6c00', 'daily floor'], ['total', '#c62828', 'total floor'], ['trailing', '#7b1fa2', 'trailing floor']];
    floors.forEach(function (f) {
      var pts = data.floors[f[0]];
      if (pts.length === 0) return;
      var s = chart.addSeries(LWC.LineSeries, {
        color: f[1], lineWidth: 1, lineStyle: LWC.LineStyle.Dashed, lineType: LWC.LineType.WithSteps,
        title: f[2], priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false
      });
      s.setData(line(pts));
    });
    var dd = chart.addSeries(LWC.BaselineSeries, {
      baseValue: { type: 'price', price: 0 }, title: 'drawdown %',
      topLineColor: '#c62828', bottomLineColor: '#c62828', topFillColor1: 'rgba(198,40,40,0)', topFillColor2: 'rgba(198,40,40,0)',
      bottomFillColor1: 'rgba(198,40,40,0.15)', bottomFillColor2: 'rgba(198,40,40,0.45)', lineWidth: 1,
      priceFormat: { type: 'custom', formatter: function (v) { return v.toFixed(2) + '%'; } }
    }, 1);
    dd.setData(line(data.drawdown));
    var panes = chart.panes();
    if (panes.length > 1) panes[1].setHeight(130);
    chart.timeScale().fitContent();
  }
  if (data.daily.length > 0) {
    var dchart = make('daily-chart', 300);
    var bars = dchart.addSeries(LWC.HistogramSeries, { title: 'daily pnl', priceLineVisible: false });
    bars.setData(data.daily);
    if (data.consistencyLimit !== null) {
      bars.createPriceLine({ price: data.consistencyLimit, color: '#7b1fa2', lineWidth: 1, lineStyle: LWC.LineStyle.Dashed, axisLabelVisible: true, title: 'consistency limit' });
    }
    if (data.profitableDayMin !== null) {
      bars.createPriceLine({ price: data.profitableDayMin, color: '#1b8a3a', lineWidth: 1, lineStyle: LWC.LineStyle.Dotted, axisLabelVisible: true, title: 'profitable day' });
    }
    dchart.timeScale().fitContent();
  }
  window.addEventListener('resize', function () {
    charts.forEach(function (c) { c.chart.applyOptions({ width: c.el.clientWidth }); });
  });
  document.body.dataset.charts = String(charts.length);
  document.body.dataset.rendered = 'ok';
})();
`;

export const ERROR_HOOK = `
window.onerror = function (message, source, line) {
  var text = String(message) + (line ? ' (line ' + line + ')' : '');
  document.documentElement.dataset.error = text;
  if (document.body) {
    document.body.dataset.error = text;
    var el = document.getElementById('errors');
    if (el) { el.hidden = false; el.textContent += text + '\\n'; }
  }
};
`;

export function card(label: string, value: string, cls = ''): string {
  return `<div class="card"><b>${escapeHtml(label)}</b><span${cls ? ` class="${cls}"` : ''}>${escapeHtml(value)}</span></div>`;
}

function time(ms: number | null): string {
  return ms === null ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
}

function opt(value: Decimal | null, suffix = ''): string {
  return value === null ? '—' : ratio(value.toDecimalPlaces(2)) + suffix;
}

function moneyShown(value: Decimal): string {
  return money(value.toDecimalPlaces(2));
}

/** A strategy that threw was stopped: the figures below are of a run without it from that moment on. */
function failureBanner(result: BacktestResult): string {
  const failures = result.failures ?? [];
  if (failures.length === 0) return '';
  const items = failures.map(
    (f) => `<li><b>${escapeHtml(f.strategy)}</b> failed ${escapeHtml(f.failedIn)} at ${escapeHtml(time(f.at))} UTC: ${escapeHtml(f.message)}${f.location ? ` <code>${escapeHtml(f.location)}</code>` : ''}</li>`,
  );
  return `<div class="banner" id="strategy-failures" role="alert"><b>Strategy error: the run went on without the strategy from that moment.</b><ul>${items.join('')}</ul></div>`;
}

function metricsSection(m: ReportMetrics): string {
  return `<section><h2>Results</h2><div class="cards">${[
    card('Initial balance', moneyShown(m.initialBalance)),
    card('Final equity', moneyShown(m.finalEquity)),
    card('Net pnl', moneyShown(m.netPnl), m.netPnl.gte(0) ? 'pass' : 'fail'),
    card('Return', opt(m.returnPct, '%')),
    card('Max drawdown', opt(m.maxDrawdownPct, '%')),
    card('Sharpe (daily, ×√365)', opt(m.sharpe)),
    card('Sortino (daily, ×√365)', opt(m.sortino)),
    card('Win rate', opt(m.winRate, '%')),
    card('Profit factor', m.profitFactor === null ? (m.totalTrades > 0 ? '∞ (no loss)' : '—') : opt(m.profitFactor)),
    card('Closed trades', String(m.totalTrades)),
    card('Open at end', String(m.openTrades)),
    card('Fills', String(m.totalFills)),
    card('Fees', moneyShown(m.fees)),
    card('Funding', moneyShown(m.funding)),
    card('Trading days', String(m.tradingDays)),
  ].join('')}</div></section>`;
}

function challengeSection(result: BacktestResult, ch: ChallengeOutcome | null): string {
  const c = result.challenge;
  if (!ch || !c) return '';
  const verdict = ch.passed ? 'PASSED' : ch.failedRule ? 'FAILED' : 'NOT PASSED';
  return `<section><h2>Challenge — ${escapeHtml(ch.phase)}</h2><div class="cards">${[
    card('Verdict', verdict, ch.passed ? 'pass' : 'fail'),
    card('Failed rule', ch.failedRule ?? '—', ch.failedRule ? 'fail' : ''),
    card('Failed at', time(ch.failedAt)),
    card('Profit target', opt(c.profitTargetPct, '%')),
    card('Days to target', ch.daysToTarget === null ? '—' : String(ch.daysToTarget)),
    card('Trading days', String(ch.tradingDays)),
    card('Profitable days', `${ch.profitableDays}${c.minProfitableDays !== null ? ` / ${c.minProfitableDays}` : ''}`),
    card('Best day', ch.bestDay ?? '—'),
    card('Best day share', opt(ch.bestDayShare, '%')),
    card('Consistency', ch.consistencyMet === null ? '—' : ch.consistencyMet ? `met (≤ ${opt(c.consistencyLimitPct, '%')})` : `not met (> ${opt(c.consistencyLimitPct, '%')})`, ch.consistencyMet === false ? 'fail' : ''),
    card('Daily / total / trailing limit', [c.maxDailyDrawdownPct, c.maxTotalDrawdownPct, c.maxTrailingDrawdownPct].map((v) => opt(v, '%')).join(' / ')),
  ].join('')}</div></section>`;
}

function legendHtml(legend: PageData['legend']): string {
  const glyph: Record<string, string> = { arrowUp: '▲', arrowDown: '▼', circle: '●', square: '■' };
  return `<p class="legend">${legend.map((l) => `<span><i style="color:${l.color}">${glyph[l.shape] ?? '●'}</i> ${escapeHtml(l.label)}</span>`).join('')}</p>`;
}

/** A price at its market's precision (the decimals of the data), rounded half-even. */
function priceShown(value: Decimal, places: number | undefined): string {
  return places === undefined ? money(value) : value.toFixed(places, 6);
}

function tradesSection(result: BacktestResult, maxRows: number, precision: ReadonlyMap<string, number>): string {
  const actions = new Map((result.guardActions ?? []).map((a) => [a.intentId, a]));
  const rows = result.trades.slice(0, maxRows).map((t) => {
    const net = tradeNet(t);
    const p = precision.get(t.market);
    const origin = t.closeOrigin;
    const action = origin?.intentId !== undefined ? actions.get(origin.intentId) : undefined;
    const why = action
      ? `${origin!.kind}: equity ${moneyShown(action.equity)} ≤ ${moneyShown(action.threshold)} (${action.floorRule} floor ${moneyShown(action.floor)})`
      : origin
        ? `${origin.kind}${origin.reason ? ` (${origin.reason})` : ''}${origin.note ? `: ${origin.note}` : ''}`
        : t.closedAt === null
          ? 'open'
          : (t.closeReason ?? '—');
    return `<tr><td class="l">${escapeHtml(t.market)}</td><td class="l">${escapeHtml(t.direction)}</td><td class="l">${escapeHtml(time(t.openedAt))}</td><td class="l">${escapeHtml(time(t.closedAt))}</td><td>${escapeHtml(priceShown(t.entryPrice, p))}</td><td>${escapeHtml(t.exitPrice === null ? '—' : priceShown(t.exitPrice, p))}</td><td>${escapeHtml(money(t.size))}</td><td>${escapeHtml(moneyShown(t.realizedPnl))}</td><td>${escapeHtml(moneyShown(t.fees))}</td><td>${escapeHtml(moneyShown(t.funding))}</td><td class="${net.gte(0) ? 'pass' : 'fail'}">${escapeHtml(moneyShown(net))}</td><td class="l">${escapeHtml(t.status)}</td><td class="l origin">${escapeHtml(why)}</td></tr>`;
  });
  const cut = result.trades.length > maxRows ? `<p class="note">Showing the first ${maxRows} of ${result.trades.length} trades; report.json has them all.</p>` : '';
  return `<section><h2>Trades (${result.trades.length})</h2><div class="scroll"><table id="trades"><thead><tr><th class="l">market</th><th class="l">side</th><th class="l">opened (UTC)</th><th class="l">closed (UTC)</th><th>entry</th><th>exit</th><th>size</th><th>pnl</th><th>fees</th><th>funding</th><th>net</th><th class="l">status</th><th class="l">closed by</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>${cut}<p class="note">Every trade, with exact figures: <a href="trades.csv">trades.csv</a> and <a href="report.json">report.json</a>.</p></section>`;
}

/** The closed trades by who closed them: strategy, stop, take-profit, kill switch, liquidation, … */
function closedBySection(result: BacktestResult): string {
  const kinds = closedByKind(result.trades.flatMap((t) => (t.closeOrigin ? [{ kind: t.closeOrigin.kind, net: tradeNet(t) }] : [])));
  if (kinds.length === 0) return '';
  const rows = kinds.map(
    (k) =>
      `<tr><td class="l">${escapeHtml(k.kind)}</td><td>${k.trades}</td><td>${escapeHtml(`${((100 * k.wins) / k.trades).toFixed(1)}%`)}</td><td class="${k.net.gte(0) ? 'pass' : 'fail'}">${escapeHtml(moneyShown(k.net))}</td><td class="${k.net.gte(0) ? 'pass' : 'fail'}">${escapeHtml(moneyShown(k.net.div(k.trades)))}</td></tr>`,
  );
  return `<section><h2>Closed by</h2><table id="closed-by" class="narrow"><thead><tr><th class="l">who closed</th><th>trades</th><th>won</th><th>net pnl</th><th>net per trade</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function denialsSection(result: BacktestResult, maxRows: number): string {
  if (result.denials.length === 0) return '';
  const rows = result.denials
    .slice(0, maxRows)
    .map((d) => `<tr><td class="l">${escapeHtml(time(d.at))}</td><td class="l">${escapeHtml(d.code)}</td><td class="l">${escapeHtml(d.rule)}</td><td class="l">${escapeHtml(d.reason)}</td><td class="l">${escapeHtml(d.intentId)}</td></tr>`);
  const cut = result.denials.length > maxRows ? `<p class="note">Showing the first ${maxRows} of ${result.denials.length}.</p>` : '';
  return `<section><h2>Risk guard denials (${result.denials.length})</h2><div class="scroll"><table><thead><tr><th class="l">at (UTC)</th><th class="l">code</th><th class="l">rule</th><th class="l">reason</th><th class="l">intent</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>${cut}</section>`;
}

/** The whole report page. */
export function renderReportHtml(result: BacktestResult, options: HtmlReportOptions = {}, figures: ReportFigures = reportFigures(result)): string {
  const o: Required<HtmlReportOptions> = {
    maxCandles: options.maxCandles ?? 2000,
    maxPoints: options.maxPoints ?? 4000,
    maxMarkers: options.maxMarkers ?? 1000,
    maxTableRows: options.maxTableRows ?? 1000,
  };
  for (const [key, value] of Object.entries(o)) {
    if (!Number.isSafeInteger(value) || value < 2) throw new RangeError(`renderReportHtml: options.${key} must be an integer ≥ 2, got ${value}`);
  }
  const { days, metrics, challenge: ch } = figures;
  const data = pageData(result, days, metrics, o);
  const title = `${result.name}${result.strategy ? ' — ' + result.strategy : ''}`;
  const priceSections = data.markets
    .map(
      (m, i) =>
        `<section><h2>${escapeHtml(m.market)} price and fills</h2><div class="chart" id="price-${i}"></div>${legendHtml(data.legend)}${
          m.factor > 1 ? `<p class="note">${m.factor} candles merged per bar for the page.</p>` : ''
        }</section>`,
    )
    .join('');
  const perf = result.perf;
  return `${pageHead(`${title} · propbot backtest`, { errorHook: true })}
<body>
<header>${result.rules === 'off' ? '<p class="rules-off" role="alert">Rules off: this run had no challenge rules (drawdown failure, target) and no risk guard. Its figures are not what the platform would give.</p>' : ''}<h1>${escapeHtml(title)}</h1><p>${escapeHtml(time(result.startTime))} → ${escapeHtml(time(result.endTime))} UTC · propbot backtest report</p></header>
<main>
<pre id="errors" hidden></pre>
${failureBanner(result)}
${metricsSection(metrics)}
${challengeSection(result, ch)}
${priceSections}
<section><h2>Equity, challenge floors and drawdown</h2>${result.equity.length > 0 ? '<div class="chart" id="equity-chart"></div>' : '<p class="note">No equity samples.</p>'}</section>
<section><h2>Daily pnl</h2>${data.daily.length > 0 ? '<div class="chart" id="daily-chart"></div>' : '<p class="note">No days.</p>'}${
    data.consistencyLimit !== null ? `<p class="note">Consistency limit line: ${escapeHtml(opt(result.challenge?.consistencyLimitPct ?? null, '%'))} of the net pnl.</p>` : ''
  }</section>
${closedBySection(result)}
${tradesSection(result, o.maxTableRows, new Map(data.markets.map((m) => [m.market, m.precision])))}
${denialsSection(result, o.maxTableRows)}
<section><h2>Run</h2><p class="note">${escapeHtml(`${perf.snapshots} snapshots, ${perf.candles} candles replayed in ${(perf.wallMs / 1000).toFixed(1)} s`)}</p></section>
</main>
${pageEnd('report-data', data, PAGE_SCRIPT)}`;
}

/**
 * A report page's start, to its </head>: the shared style (and `style`, the page's own), and for a page
 * whose script draws charts the hook that shows a script error on the page.
 */
export function pageHead(title: string, o: { style?: string; errorHook?: boolean } = {}): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}${o.style ?? ''}</style>
${o.errorHook ? `<script>${ERROR_HOOK}</script>\n` : ''}</head>`;
}

/** The end of a report page: the footer, the page's data as JSON, the chart library and the page's script. */
export function pageEnd(dataId: string, data: unknown, script: string): string {
  return `<footer>Charts by <a href="https://www.tradingview.com/">TradingView</a> Lightweight Charts™ (Apache-2.0).</footer>
<script type="application/json" id="${dataId}">${jsonForScript(data)}</script>
<script>${lightweightChartsSource()}</script>
<script>
try {${script}} catch (err) { window.onerror(String(err && err.stack || err)); }
</script>
</body>
</html>
`;
}

