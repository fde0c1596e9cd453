/**
 * sweep.html: the ranking, and the heatmap of the objective over the first two parameters that vary,
 * each cell its best run or why it has none. Read back from the page's own text.
 */
import { describe, expect, it } from 'vitest';
import { renderSweepHtml, type SweepPage } from '../../src/research/sweep-report.js';
import { searchSpace } from '../../src/research/space.js';
import type { SweepRow } from '../../src/runtime/sweep.js';
import { parseGrid } from '../../src/runtime/sweep.js';

const row = (params: Record<string, unknown>, returnPct: string, extra: Partial<SweepRow> = {}): SweepRow => ({
  index: 0,
  params,
  ok: true,
  summary: { returnPct, maxDrawdownPct: '1.5', totalTrades: 12 },
  challenge: { passed: false, failedRule: null, daysToTarget: null },
  ...extra,
});

const page = (rows: SweepRow[], more: Partial<SweepPage> = {}): SweepPage => ({
  name: 'demo <1>',
  strategy: 'sma-cross',
  metric: 'returnPct',
  method: 'grid',
  runs: rows.length,
  failed: rows.filter((r) => !r.ok).length,
  pruned: 0,
  ranked: rows,
  excluded: [],
  skipped: [],
  ...more,
});

/** The map as text: its header row, then each row's cells (`""` for an empty one). */
function heatmap(html: string): string[][] {
  const table = /<table class="heatmap" id="heatmap">([\s\S]*?)<\/table>/.exec(html)?.[1];
  if (table === undefined) return [];
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) => [...tr[1]!.matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((c) => c[1]!));
}

describe('sweep.html', () => {
  const space = searchSpace(parseGrid(['fast=5,10', 'slow=20,30,40']));

  it('maps the objective over both parameters, with the refused, excluded, failed and untried cells said as such', () => {
    const rows = [
      row({ fast: 5, slow: 20 }, '2.5'),
      row({ fast: 10, slow: 30 }, '-1'),
      row({ fast: 5, slow: 30 }, '0.75'),
      row({ fast: 10, slow: 40 }, '', { ok: false, error: 'boom' }),
    ];
    const html = renderSweepHtml(page(rows, { excluded: [{ params: { fast: 5, slow: 40 }, reason: 'maxDrawdownPct<=1 not met (1.5)' }], skipped: [{ params: { fast: 10, slow: 20 }, error: 'fast must be shorter than slow' }] }), space);
    expect(heatmap(html)).toEqual([
      ['fast ↓ / slow →', '20', '30', '40'],
      ['5', '2.5', '0.75', 'excluded'],
      ['10', 'refused', '-1', 'error'],
    ]);
    // The best cell is the greenest and darkest; the worst red.
    expect(html).toMatch(/hsl\(120,60%,62%\)" title="fast=5 slow=20: returnPct 2\.5">2\.5</);
    expect(html).toMatch(/hsl\(0,60%,80%\)" title="fast=10 slow=30: returnPct -1">-1</);
    // The page's name is text, not markup.
    expect(html).toContain('<title>demo &lt;1&gt; — sweep · propbot sweep</title>');
    // The ranking lists the rows in their order; a failed one says why.
    const ranking = /<table id="ranking">([\s\S]*?)<\/table>/.exec(html)![1]!;
    expect([...ranking.matchAll(/<tr[^>]*><td>(\d+)<\/td><td class="l">([^<]*)</g)].map((m) => m[2])).toEqual(['fast=5 slow=20', 'fast=10 slow=30', 'fast=5 slow=30', 'fast=10 slow=40']);
    expect(ranking).toContain('<td class="l">boom</td>');
  });

  it('with a third parameter, each cell is the best over it; lower-is-better objectives put green at the least', () => {
    const three = searchSpace(parseGrid(['fast=5,10', 'slow=20', 'stop=0.01,0.02']));
    const rows = [
      row({ fast: 5, slow: 20, stop: 0.01 }, '1', { summary: { returnPct: '1', maxDrawdownPct: '3', totalTrades: 4 } }),
      row({ fast: 5, slow: 20, stop: 0.02 }, '2', { summary: { returnPct: '2', maxDrawdownPct: '2', totalTrades: 4 } }),
      row({ fast: 10, slow: 20, stop: 0.01 }, '3', { summary: { returnPct: '3', maxDrawdownPct: '5', totalTrades: 4 } }),
    ];
    const html = renderSweepHtml(page(rows, { metric: 'maxDrawdownPct' }), three);
    // slow has one value: the map is fast by stop, and the note names nothing folded.
    expect(heatmap(html)).toEqual([
      ['fast ↓ / stop →', '0.01', '0.02'],
      ['5', '3', '2'],
      ['10', '5', ''],
    ]);
    expect(html).toMatch(/hsl\(120,60%,62%\)" title="fast=5 slow=20 stop=0.02: maxDrawdownPct 2">2</);
    expect(html).not.toContain('Each cell is the best over');
    const four = searchSpace(parseGrid(['fast=5,10', 'slow=20,30', 'stop=0.01,0.02']));
    const folded = renderSweepHtml(page([row({ fast: 5, slow: 20, stop: 0.01 }, '1'), row({ fast: 5, slow: 20, stop: 0.02 }, '4')]), four);
    expect(heatmap(folded)[1]).toEqual(['5', '4', '']);
    expect(folded).toContain('Each cell is the best over stop.');
  });

  it('a single parameter is one row; no parameter that varies, no map', () => {
    const one = searchSpace(parseGrid(['fast=5,10']));
    expect(heatmap(renderSweepHtml(page([row({ fast: 5 }, '1'), row({ fast: 10 }, '2')]), one))).toEqual([
      ['fast →', '5', '10'],
      ['', '1', '2'],
    ]);
    expect(heatmap(renderSweepHtml(page([row({ fast: 5 }, '1')]), searchSpace(parseGrid(['fast=5']))))).toEqual([]);
  });
});
