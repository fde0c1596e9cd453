/**
 * `sweep.html`: one offline page beside `sweep.json`, for reading a sweep at a glance. The ranking
 * with the figures the console table shows, and a heatmap of the objective over the first two
 * parameters that vary: a good combination whose neighbours are as good is a plateau worth trading,
 * a lone bright cell is a fit to the data. Plain HTML and CSS, no script.
 */
import { card, escapeHtml, pageHead } from '../report/html.js';
import type { SweepRow } from '../runtime/sweep.js';
import { formatParams } from '../runtime/sweep-checks.js';
import { OBJECTIVES, objectiveValue, type ObjectiveName } from './objectives.js';
import type { SearchSpace } from './space.js';

/** The summary figures every sweep table shows beside the objective (the objective's own is not repeated). */
const SWEEP_FIGURES = [
  { header: 'return %', key: 'returnPct' },
  { header: 'max dd %', key: 'maxDrawdownPct' },
  { header: 'trades', key: 'totalTrades' },
] as const;

/** What the page shows: sweep.json's own fields. */
export interface SweepPage {
  readonly name: string;
  readonly strategy: string;
  readonly metric: ObjectiveName;
  readonly method: string;
  readonly runs: number;
  readonly failed: number;
  readonly pruned: number;
  /** Every row that ran, best first (failed and stopped ones last). */
  readonly ranked: readonly SweepRow[];
  readonly excluded: ReadonlyArray<{ readonly params: Record<string, unknown>; readonly reason: string }>;
  readonly skipped: ReadonlyArray<{ readonly params: Record<string, unknown>; readonly error: string }>;
}

export interface SweepHtmlOptions {
  /** Rows of the ranking shown (all of them are in sweep.json); default 100. */
  readonly top?: number;
}

/** The table's text of a row's challenge verdict. */
function verdictCell(r: SweepRow): string {
  if (!r.ok) return (r.error ?? '').slice(0, 60);
  if (!r.challenge) return '—';
  return r.challenge.passed ? 'pass' : r.challenge.failedRule ? `fail: ${r.challenge.failedRule}` : 'not passed';
}

/**
 * The ranking as the console and the page show it: the header and each row's cells, the objective
 * first and then the figures that are not it. `objectiveText` writes the objective's figure.
 */
export function rankingTable(
  rows: readonly SweepRow[],
  metric: ObjectiveName,
  objectiveText: (value: number | null) => string = (v) => String(v ?? '—'),
): { header: string[]; cells: string[][] } {
  const figures = SWEEP_FIGURES.filter((f) => f.key !== metric);
  return {
    header: ['rank', 'params', metric, ...figures.map((f) => f.header), 'challenge'],
    cells: rows.map((r, i) => [
      String(i + 1),
      formatParams(r.params),
      r.ok ? objectiveText(objectiveValue(r, metric)) : 'error',
      ...figures.map((f) => (r.ok ? String(r.summary?.[f.key] ?? '—') : '')),
      verdictCell(r),
    ]),
  };
}

/** A parameter's value as an axis shows it: text as it is, anything else as JSON. */
const valueText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

export function renderSweepHtml(page: SweepPage, space: SearchSpace, options: SweepHtmlOptions = {}): string {
  const top = options.top ?? 100;
  const { metric } = page;
  const objective = OBJECTIVES[metric];
  const best = page.ranked.find((r) => objectiveValue(r, metric) !== null) ?? null;
  const shown = page.ranked.slice(0, top);
  const { header: heads, cells: rankingCells } = rankingTable(shown, metric, format);
  const rows = rankingCells.map((cells, i) => {
    return `<tr${shown[i]!.ok ? '' : ' class="fail"'}>${cells.map((c, j) => `<td${j === 1 || j === cells.length - 1 ? ' class="l"' : ''}>${escapeHtml(c)}</td>`).join('')}</tr>`;
  });
  const title = `${page.name} — sweep`;
  const counts = [
    `${page.runs} runs`,
    page.failed ? `${page.failed} failed` : '',
    page.pruned ? `${page.pruned} pruned` : '',
    page.excluded.length ? `${page.excluded.length} excluded by a constraint` : '',
    page.skipped.length ? `${page.skipped.length} refused by the strategy` : '',
  ].filter(Boolean);
  return `${pageHead(`${title} · propbot sweep`, { style: HEATMAP_STYLE })}
<body>
<header><h1>${escapeHtml(title)}</h1><p>${escapeHtml(`${page.strategy} · ${page.method} search · ranked by ${metric} (${objective.about}; ${objective.better} is better) · propbot sweep report`)}</p></header>
<main>
<section><h2>Best</h2><div class="cards">${[
    card('Parameters', best ? formatParams(best.params) : 'none'),
    card(metric, best ? format(objectiveValue(best, metric)) : '—'),
    // The objective's own figure is its card already.
    ...(metric !== 'returnPct' ? [card('Return', best ? `${String(best.summary?.['returnPct'] ?? '—')}%` : '—')] : []),
    ...(metric !== 'maxDrawdownPct' ? [card('Max drawdown', best ? `${String(best.summary?.['maxDrawdownPct'] ?? '—')}%` : '—')] : []),
    card('Challenge', best ? verdictCell(best) : '—', best?.challenge?.passed ? 'pass' : ''),
  ].join('')}</div><p class="note">${escapeHtml(counts.join(', '))}. Every run, with every figure, is in sweep.json.</p></section>
${heatmapSection(page, space)}
<section><h2>Ranking</h2><div class="scroll"><table id="ranking"><thead><tr>${heads.map((h, j) => `<th${j === 1 || j === heads.length - 1 ? ' class="l"' : ''}>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>${
    page.ranked.length > top ? `<p class="note">The first ${top} of ${page.ranked.length}.</p>` : ''
  }</section>
${listSection('Excluded by a constraint', page.excluded.map((e) => [formatParams(e.params), e.reason]))}
${listSection('Refused by the strategy (not run)', page.skipped.map((s) => [formatParams(s.params), s.error]))}
</main>
</body>
</html>
`;
}

const HEATMAP_STYLE = `
table.heatmap{width:auto}table.heatmap td{text-align:center;min-width:56px;border:1px solid #fff}
table.heatmap td.none{background:#f0f2f5;color:#6b7385}table.heatmap th.axis{text-align:left}
tr.fail td{color:#c62828}
`;

/** What one cell of the map holds: the best objective of the runs there, or why there is none. */
interface Cell {
  value: number | null;
  row?: SweepRow;
  why?: string;
}

function heatmapSection(page: SweepPage, space: SearchSpace): string {
  const varying = space.filter((d) => d.values.length > 1);
  if (varying.length === 0) return '';
  const [down, across] = varying.length === 1 ? [undefined, varying[0]!] : [varying[0]!, varying[1]!];
  const others = varying.filter((d) => d !== down && d !== across).map((d) => d.key);
  const { metric } = page;
  const higher = OBJECTIVES[metric].better === 'higher';
  const key = (params: Record<string, unknown>): string => JSON.stringify([down ? params[down.key] : null, params[across.key]]);
  const cells = new Map<string, Cell>();
  const at = (params: Record<string, unknown>): Cell => {
    const k = key(params);
    let cell = cells.get(k);
    if (cell === undefined) cells.set(k, (cell = { value: null }));
    return cell;
  };
  for (const r of page.ranked) {
    const cell = at(r.params);
    const v = objectiveValue(r, metric);
    if (v !== null && (cell.value === null || (higher ? v > cell.value : v < cell.value))) {
      cell.value = v;
      cell.row = r;
    } else if (cell.value === null) cell.why ??= !r.ok ? 'error' : r.stopped ? r.stopped.reason.replace('_', ' ') : `no ${metric}`;
  }
  for (const e of page.excluded) if (at(e.params).value === null) at(e.params).why = 'excluded';
  for (const s of page.skipped) if (at(s.params).value === null) at(s.params).why ??= 'refused';
  const values = [...cells.values()].flatMap((c) => (c.value === null ? [] : [c.value]));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const td = (cell: Cell | undefined): string => {
    if (cell === undefined) return '<td class="none" title="not tried"></td>';
    if (cell.value === null) return `<td class="none" title="${escapeHtml(cell.why ?? '')}">${escapeHtml(cell.why ?? '')}</td>`;
    // 0 the worst value of the map, 1 the best: red to green.
    const share = hi === lo ? 1 : (cell.value - lo) / (hi - lo);
    const good = higher ? share : 1 - share;
    const title = `${formatParams(cell.row!.params)}: ${metric} ${format(cell.value)}`;
    return `<td style="background:hsl(${Math.round(good * 120)},60%,${cell.value === (higher ? hi : lo) ? 62 : 80}%)" title="${escapeHtml(title)}">${escapeHtml(format(cell.value))}</td>`;
  };
  const downValues = down ? down.values : [null];
  const body = downValues
    .map((dv) => `<tr><th>${down ? escapeHtml(valueText(dv)) : ''}</th>${across.values.map((av) => td(cells.get(JSON.stringify([dv, av])))).join('')}</tr>`)
    .join('');
  const corner = down ? `${down.key} ↓ / ${across.key} →` : `${across.key} →`;
  return `<section><h2>${escapeHtml(metric)} by ${escapeHtml(down ? `${down.key} and ${across.key}` : across.key)}</h2><div class="scroll"><table class="heatmap" id="heatmap"><thead><tr><th class="axis">${escapeHtml(corner)}</th>${across.values
    .map((v) => `<th>${escapeHtml(valueText(v))}</th>`)
    .join('')}</tr></thead><tbody>${body}</tbody></table></div><p class="note">${escapeHtml(
    `Green is better, red worse, within this map; the darkest cell is the best.${others.length > 0 ? ` Each cell is the best over ${others.join(', ')}.` : ''} A blank cell was not tried.`,
  )}</p></section>`;
}

function listSection(title: string, rows: ReadonlyArray<readonly [string, string]>): string {
  if (rows.length === 0) return '';
  const shown = rows.slice(0, 50);
  return `<section><h2>${escapeHtml(title)}</h2><div class="scroll"><table><tbody>${shown.map(([p, why]) => `<tr><td class="l">${escapeHtml(p)}</td><td class="l">${escapeHtml(why)}</td></tr>`).join('')}</tbody></table></div>${
    rows.length > shown.length ? `<p class="note">The first ${shown.length} of ${rows.length}; all are in sweep.json.</p>` : ''
  }</section>`;
}

/** An objective's figure for the page: at most four decimals, no trailing zeros. */
function format(value: number | null): string {
  if (value === null) return '—';
  return String(Number(value.toFixed(4)));
}
