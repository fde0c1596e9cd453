/**
 * The dashboard's files, served by the status server: the page, its script and the chart library
 * (Lightweight Charts' standalone build from the installed package, as the HTML report inlines it).
 * Nothing is fetched from the network when the page is viewed, and the user runs no build step.
 *
 * The page's script writes every value with `textContent`, never as HTML, so nothing the venue or a
 * strategy says can run in the page. It sets `document.body.dataset.rendered = "ok"` once the charts
 * exist and records any script error in `document.body.dataset.error` (the browser test reads both).
 */
import { lightweightChartsSource } from '../../report/html.js';
import { DASHBOARD_SCRIPT } from './page-script.js';

const STYLE = `
:root { color-scheme: dark; --bg:#0d1117; --card:#151b23; --line:#263040; --text:#d5dde8; --dim:#8391a5; --ok:#2ea043; --warn:#d29922; --bad:#f85149; --accent:#58a6ff; }
* { box-sizing: border-box; }
body { margin:0; font:13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--text); }
header { display:flex; flex-wrap:wrap; gap:12px; align-items:center; padding:10px 16px; border-bottom:1px solid var(--line); position:sticky; top:0; background:var(--bg); z-index:2; }
header h1 { font-size:16px; margin:0 12px 0 0; }
header .grow { flex:1; }
main { padding:12px 16px; display:grid; gap:14px; }
section { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
section h2 { font-size:14px; margin:0 0 8px; display:flex; gap:10px; align-items:center; flex-wrap:wrap; }
table { border-collapse:collapse; width:100%; font-variant-numeric:tabular-nums; }
th, td { text-align:left; padding:3px 8px; border-bottom:1px solid var(--line); white-space:nowrap; }
th { color:var(--dim); font-weight:500; }
td.num, th.num { text-align:right; }
.badge { padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600; }
.ACTIVE, .running, .approved, .ok { color:var(--ok); }
.REDUCING, .paused, .stopped, .completed { color:var(--warn); }
.HALTED, .failed, .denied, .bad { color:var(--bad); }
.badge.ACTIVE { background:rgba(46,160,67,.15); } .badge.REDUCING { background:rgba(210,153,34,.15); } .badge.HALTED { background:rgba(248,81,73,.15); }
.figures { display:flex; flex-wrap:wrap; gap:18px; margin:6px 0 10px; }
.figures div > span { display:block; color:var(--dim); font-size:11px; }
.figures div b { font-size:15px; font-variant-numeric:tabular-nums; }
.chart { height:280px; margin:6px 0 10px; }
.dim { color:var(--dim); }
.pos { color:var(--ok); } .neg { color:var(--bad); }
button { background:#21262d; color:var(--text); border:1px solid var(--line); border-radius:6px; padding:3px 10px; cursor:pointer; font:inherit; }
button:disabled { opacity:.4; cursor:not-allowed; }
button.danger { border-color:var(--bad); color:var(--bad); }
input { background:#0d1117; color:var(--text); border:1px solid var(--line); border-radius:6px; padding:3px 8px; font:inherit; }
#toast { min-height:18px; }
#errors { color:var(--bad); white-space:pre-wrap; }
.grid2 { display:grid; grid-template-columns:repeat(auto-fit, minmax(520px, 1fr)); gap:14px; }
.scroll { max-height:320px; overflow:auto; }
`;

const HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>propbot cockpit</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>propbot cockpit</h1>
  <span id="mode" class="dim"></span>
  <span id="clock" class="dim"></span>
  <span id="live" class="badge">connecting…</span>
  <span class="grow"></span>
  <span id="control-state" class="dim"></span>
  <label class="dim">name <input id="actor" size="10" value="dashboard" autocomplete="off"></label>
  <label class="dim">control token <input id="token" type="password" size="18" autocomplete="off"></label>
</header>
<main>
  <div id="errors" hidden></div>
  <div id="toast" class="dim"></div>
  <div id="accounts"></div>
  <section><h2>Strategies</h2><table id="strategies"></table></section>
  <div class="grid2">
    <section><h2>Fills</h2><div class="scroll"><table id="fills"></table></div></section>
    <section><h2>Decisions</h2><div class="scroll"><table id="decisions"></table></div></section>
  </div>
  <section><h2>Guard state changes</h2><div class="scroll"><table id="guard-changes"></table></div></section>
</main>
<script src="/assets/lightweight-charts.js"></script>
<script src="/assets/dashboard.js"></script>
</body>
</html>
`;

export type DashboardFiles = ReadonlyMap<string, { readonly type: string; readonly body: string }>;

let files: DashboardFiles | undefined;

/** The page and its assets by request path. */
export function dashboardFiles(): DashboardFiles {
  files ??= new Map([
    ['/', { type: 'text/html; charset=utf-8', body: HTML }],
    ['/assets/dashboard.js', { type: 'text/javascript; charset=utf-8', body: DASHBOARD_SCRIPT }],
    ['/assets/lightweight-charts.js', { type: 'text/javascript; charset=utf-8', body: lightweightChartsSource() }],
  ]);
  return files;
}
