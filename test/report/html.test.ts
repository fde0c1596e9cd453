import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { computeMetrics, dailyPnlFromEquity, renderReportHtml, writeReport, type BacktestResult } from '../../src/report/index.js';
import { btcResult } from './fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(path.join(tmpdir(), 'propbot-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let small: BacktestResult;
beforeAll(async () => {
  small = await btcResult(600);
});

function pageData(html: string): {
  markets: { market: string; candles: number[][]; markers: { time: number; position: string; text: string; shape: string; color: string }[] }[];
  equity: number[][];
  drawdown: number[][];
  floors: Record<string, number[][]>;
  daily: unknown[];
  consistencyLimit: number | null;
} {
  const m = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}

describe('renderReportHtml', () => {
  it('is one self-contained page: the chart library inline, no external script, style or image', () => {
    const html = renderReportHtml(small);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('TradingView Lightweight Charts');
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    expect(html).not.toMatch(/<img[^>]+src=/i);
    // exactly the four script elements of the page: error hook, data, library, page script
    expect(html.match(/<script[\s>]/g)).toHaveLength(4);
    expect(html.match(/<\/script>/g)).toHaveLength(4);
  });

  it('escapes every text of the run', () => {
    const hostile: BacktestResult = {
      ...small,
      name: '<img src=x onerror=alert(1)>',
      prices: [{ market: '</script><script>alert(2)</script>', candles: small.prices![0]!.candles }],
      denials: [{ at: small.startTime, intentId: '"><b>', code: 'c&d', reason: '<script>alert(3)</script>', rule: "o'r" }],
    };
    const html = renderReportHtml(hostile);
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(3)&lt;/script&gt;');
    expect(html).toContain('c&amp;d');
    expect(html).toContain('&quot;&gt;&lt;b&gt;');
    // the market name survives inside the JSON block, escaped for a script element
    expect(pageData(html).markets[0]!.market).toBe('</script><script>alert(2)</script>');
  });

  it('carries candles, fill markers, equity, drawdown, floors and days for the charts', () => {
    const data = pageData(renderReportHtml(small));
    expect(data.markets[0]!.candles).toHaveLength(600);
    // 600 candles: long opened at candle 30 (a buy), closed at 300 (a sell), short opened at 390 (a sell).
    // Entries are arrows (long blue, short orange); an exit is a shape of its origin's colour.
    expect(data.markets[0]!.markers.map((m) => [m.time * 1000, m.position, m.text, m.shape, m.color])).toEqual([
      [small.fills[0]!.time, 'belowBar', 'L open', 'arrowUp', '#1f5fbf'],
      [small.fills[1]!.time, 'aboveBar', 'L exit', 'circle', '#455a64'],
      [small.fills[2]!.time, 'aboveBar', 'S open', 'arrowDown', '#ef6c00'],
    ]);
    expect(data.equity).toHaveLength(600);
    expect(data.drawdown.every((p) => p[1]! <= 0)).toBe(true);
    // the trough of the drawn drawdown is the report's max drawdown
    expect(Math.min(...data.drawdown.map((p) => p[1]!))).toBeCloseTo(-computeMetrics(small).maxDrawdownPct.toNumber(), 6);
    expect(data.floors['total']![0]![1]).toBe(9000);
    expect(data.floors['trailing']).toEqual([]);
    expect(data.daily.map((d) => (d as { value: number }).value)).toEqual(dailyPnlFromEquity(small.initialBalance, small.equity).map((d) => d.pnl.toNumber()));
  });

  it('thins long series for the page but keeps the extremes', async () => {
    const month = await btcResult(6_000);
    const data = pageData(renderReportHtml(month, { maxCandles: 300, maxPoints: 500 }));
    expect(data.markets[0]!.candles.length).toBeLessThanOrEqual(300);
    expect(data.equity.length).toBeLessThanOrEqual(500);
    // the lowest equity and the highest price of the month are still drawn
    const lowest = Math.min(...Array.from(month.equity, (s) => s.equity.toNumber()));
    expect(Math.min(...data.equity.map((p) => p[1]!))).toBe(lowest);
    const highest = Math.max(...month.prices![0]!.candles.map((c) => c.high.toNumber()));
    expect(Math.max(...data.markets[0]!.candles.map((c) => c[2]!))).toBe(highest);
    // times stay strictly ascending (the chart library demands it)
    expect(data.equity.every((p, i) => i === 0 || p[0]! > data.equity[i - 1]![0]!)).toBe(true);
  });

  it('draws the consistency limit at the limit share of the net pnl', () => {
    const equity = [...small.equity, { time: small.endTime + 86_400_000, equity: small.initialBalance.plus(200) }];
    const data = pageData(renderReportHtml({ ...small, equity }));
    expect(data.consistencyLimit).toBe(60); // 30% of +200
  });

  it('draws the floors the backtester recorded when it gives them', () => {
    const at = small.equity.at(100)!.time;
    const floors = [
      { time: small.startTime, daily: new Dec(9500), total: new Dec(9000), trailing: null },
      { time: at, daily: new Dec(9600), total: new Dec(9000), trailing: null },
    ];
    const data = pageData(renderReportHtml({ ...small, floors }));
    const daily = data.floors['daily']!;
    expect(daily[0]![1]).toBe(9500);
    expect(daily.find((p) => p[0]! * 1000 === at)![1]).toBe(9600);
    expect(daily.at(-1)![1]).toBe(9600);
  });

  it('counts the closed trades by who closed them, with their wins and net pnl, most first', async () => {
    // ~8 trades: a kind for each, strategy twice as often as the others.
    const base = await btcResult(3000);
    const kinds = ['strategy', 'stop_loss', 'strategy', 'kill_switch'] as const;
    const result: BacktestResult = { ...base, trades: base.trades.map((t, i) => ({ ...t, closeOrigin: { kind: kinds[i % kinds.length]! } })) };
    const expected = new Map<string, { trades: number; wins: number; net: number }>();
    for (const t of result.trades) {
      if (!t.closeOrigin) continue;
      const net = Number(t.realizedPnl.minus(t.fees).plus(t.funding));
      const e = expected.get(t.closeOrigin.kind) ?? { trades: 0, wins: 0, net: 0 };
      expected.set(t.closeOrigin.kind, { trades: e.trades + 1, wins: e.wins + (net > 0 ? 1 : 0), net: e.net + net });
    }
    expect(expected.size).toBeGreaterThan(1);
    const table = /<table id="closed-by"[^>]*>([\s\S]*?)<\/table>/.exec(renderReportHtml(result))![1]!;
    const rows = [...table.matchAll(/<tr><td class="l">([^<]*)<\/td><td>(\d+)<\/td><td>([\d.]+)%<\/td><td[^>]*>([^<]*)<\/td>/g)].map((m) => ({ kind: m[1]!, trades: Number(m[2]), won: Number(m[3]), net: Number(m[4]!.replace(/,/g, '')) }));
    expect(rows.map((r) => r.kind)).toEqual([...expected].sort((a, b) => b[1].trades - a[1].trades).map(([kind]) => kind));
    for (const r of rows) {
      const e = expected.get(r.kind)!;
      expect(r.trades).toBe(e.trades);
      expect(r.won).toBeCloseTo((100 * e.wins) / e.trades, 1);
      expect(r.net).toBeCloseTo(e.net, 2);
    }
    const none: BacktestResult = { ...result, trades: [] };
    expect(renderReportHtml(none)).not.toContain('id="closed-by"');
  });

  it('renders a run without prices, equity or trades', () => {
    const empty: BacktestResult = { ...small, equity: [], fills: [], trades: [], denials: [], prices: [], challenge: undefined };
    const html = renderReportHtml(empty);
    expect(html).toContain('No equity samples.');
    expect(pageData(html).markets).toEqual([]);
  });

  it('refuses silly options', () => {
    expect(() => renderReportHtml(small, { maxPoints: 1 })).toThrow('options.maxPoints must be an integer ≥ 2');
  });
});

function runChromium(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const chromiumArgs = (profile: string) => [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  `--user-data-dir=${profile}`,
  '--virtual-time-budget=5000',
];

describe.skipIf(!existsSync(CHROMIUM))(`the report in headless Chromium (${CHROMIUM}; skipped when not installed)`, () => {
  it('renders every chart with canvases and no script error', async () => {
    const result = await btcResult(600);
    const out = await writeReport(result, path.join(dir, 'run'));
    const json = JSON.parse(readFileSync(out.json, 'utf8'));
    expect(json.summary.totalFills).toBe(3);
    const profile = mkdtempSync(path.join(tmpdir(), 'propbot-chromium-'));
    try {
      const { code, stdout } = await runChromium([...chromiumArgs(profile), '--dump-dom', pathToFileURL(out.html).href]);
      expect(code).toBe(0);
      const body = /<body[^>]*>/.exec(stdout)?.[0] ?? '';
      expect(body).not.toContain('data-error');
      expect(stdout).not.toMatch(/<html[^>]*data-error/);
      expect(body).toContain('data-rendered="ok"');
      // one price chart, the equity chart, the daily chart
      expect(body).toContain('data-charts="3"');
      expect((stdout.match(/<canvas/g) ?? []).length).toBeGreaterThanOrEqual(3);
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it('draws entries and exits apart with a legend, names who closed each trade, prices at the market precision, writes trades.csv', async () => {
    const result = await btcResult(600);
    const out = await writeReport(result, path.join(dir, 'drawn'));
    const csv = readFileSync(out.csv, 'utf8').trim().split('\r\n');
    expect(csv[0]).toBe('positionId,market,direction,openedAt,closedAt,entryPrice,exitPrice,size,realizedPnl,fees,funding,netPnl,status,closeReason,closeOrigin,closeIntentId,closeNote');
    expect(csv.length - 1).toBe(result.trades.length);
    const profile = mkdtempSync(path.join(tmpdir(), 'propbot-chromium-'));
    try {
      const { stdout } = await runChromium([...chromiumArgs(profile), '--dump-dom', pathToFileURL(out.html).href]);
      expect(/<body[^>]*>/.exec(stdout)?.[0]).toContain('data-rendered="ok"');
      // The markers the page drew on the price chart: some, never more than the fills.
      const drawn = Number(/id="price-0"[^>]*data-markers="(\d+)"/.exec(stdout)?.[1]);
      expect(drawn).toBeGreaterThan(0);
      expect(drawn).toBeLessThanOrEqual(result.fills.length);
      // The price scale fits the data: the highest high is drawn near the pane's top and the lowest low
      // near its bottom (the library's default margins put them at ~25% and ~84%).
      const [top, bottom] = (/id="price-0"[^>]*data-price-fill="([\d.]+,[\d.]+)"/.exec(stdout)?.[1] ?? '').split(',').map(Number);
      expect(top).toBeGreaterThanOrEqual(0);
      expect(top).toBeLessThan(0.15);
      expect(bottom).toBeGreaterThan(0.88);
      expect(bottom).toBeLessThanOrEqual(1);
      // The legend tells entries from exits by shape and colour.
      const legend = /<p class="legend">([\s\S]*?)<\/p>/.exec(stdout)?.[1] ?? '';
      expect(legend).toContain('▲</i> long entry');
      expect(legend).toContain('▼</i> short entry');
      expect(legend).toContain('■</i> stop loss');
      expect(legend).toContain('kill switch');
      // Table prices carry the data's decimals (the fixture's BTC prices have at most 2), not fp9's 9.
      const rows = [...stdout.matchAll(/<tr><td class="l">BTC<\/td>[\s\S]*?<\/tr>/g)].map((m) => m[0]);
      expect(rows.length).toBe(result.trades.length);
      for (const row of rows) {
        const cells = [...row.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]!);
        expect(cells[4]).toMatch(/^\d+(\.\d{1,2})?$/);
        expect(cells.at(-1)).not.toBe('');
      }
      expect(stdout).toContain('<a href="trades.csv">trades.csv</a>');
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it('records a script error into the page (so the check above can see one)', async () => {
    // a page whose chart data is broken: the hook must report it
    const html = renderReportHtml(await btcResult(120)).replace(
      /(<script type="application\/json" id="report-data">)[\s\S]*?(<\/script>)/,
      '$1{"markets":[{"market":"X","candles":[[1,"a"]],"markers":[]}]}$2',
    );
    const file = path.join(dir, 'broken.html');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, html);
    const profile = mkdtempSync(path.join(tmpdir(), 'propbot-chromium-'));
    try {
      const { stdout } = await runChromium([...chromiumArgs(profile), '--dump-dom', pathToFileURL(file).href]);
      expect(/<body[^>]*>/.exec(stdout)?.[0]).toContain('data-error');
      expect(stdout).not.toContain('data-rendered="ok"');
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
});

