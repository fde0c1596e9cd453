/**
 * What a person sees of `propbot run` (real child processes): indicators warmed up before the paced
 * run, so the first decision comes at the first cross after `from`; one short line per event in market
 * time on a terminal (or with --log-format pretty); JSON lines when stdout is not a terminal; and a
 * summary table (JSON: a summary line) when it stops, on SIGINT or at the end of the data.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, childrenTempDir, cli } from './helpers.js';
import { COINBASE_BTC_1H } from '../data.js';

const tmp = childrenTempDir('propbot-console-');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

function config(name: string, paper: string, format = 'auto'): string {
  const file = path.join(tmp.dir, `${name}.yaml`);
  writeFileSync(
    file,
    `mode: paper
paper:
  markets: [{ asset: BTC, file: ${COINBASE_BTC_1H} }]
  from: 2019-05-04
${paper}
strategies:
  - use: sma-cross
    params: { asset: BTC, period: 1h, fast: 10, slow: 30, amount: "5000", leverage: "2", stopPercent: "0.03" }
store: { file: ${name}.db }
status: { enabled: false }
log: { level: info, format: ${format} }
`,
  );
  return file;
}

describe('propbot run on a console', () => {
  it('--log-format pretty: warmed up, the first cross at once, one line per event in market time, a summary on SIGINT', async () => {
    const run = cli(['run', '--config', config('pretty', '  warmup: 200\n  speed: 100000'), '--log-format', 'pretty']);
    await run.waitFor((out) => /filled\s+close \w+ BTC( by \w+)? @ [\d.]+ size [\d.]+ pnl [+-]?[\d,.]+/.test(out), 'a closing fill', 60_000);
    run.kill('SIGINT');
    expect(await run.exit).toEqual({ code: 0, signal: null });
    const out = run.stdout();
    expect(out).toContain('indicators warmed up on 200 candles before 2019-05-04 00:00');
    // 10/30 hourly averages cross on the 13:00 candle of 4 May (decided when it closes, at 14:00); without the warm-up the 30-hour average is not
    // ready before 5 May 06:00 and the first decision would come days later.
    const first = out.split('\n').find((l) => /approved|denied/.test(l))!;
    expect(first).toMatch(/^2019-05-04 14:00\s+sma-cross\s+approved\s+open short BTC market, quote 5000 x2, stop \d+/);
    expect(out).toMatch(/^2019-05-04 1\d:00\s+sma-cross\s+filled\s+open short BTC @ [\d.]+ size [\d.]+$/m);
    expect(out).not.toContain('"level"');
    for (const line of out.split('\n').filter((l) => /filled|approved|denied/.test(l))) expect(line).not.toMatch(UUID);
    // The summary table, last.
    const summary = out.slice(out.lastIndexOf('summary'));
    for (const row of ['equity', 'net pnl', 'trades', 'win rate', 'max drawdown', 'headroom daily', 'headroom total', 'guard']) expect(summary).toContain(row);
    expect(summary).toMatch(/trades\s+[1-9]\d* closed, \d+ won; win rate [\d.]+%/);
    // Who closed them: each origin with its count and pnl.
    expect(summary).toMatch(/closed by\s+(strategy|stop_loss) \d+ \([+-]?[\d,.]+\)/);
    expect(summary).toMatch(/guard\s+(ACTIVE|REDUCING|HALTED)/);
  });

  it('JSON lines when stdout is not a terminal; the summary is a JSON line with every figure', async () => {
    const file = config('json', '  warmup: 200\n  to: 2019-05-10\n  speed: 0');
    const run = cli(['run', '--config', file]);
    expect(await run.exit).toEqual({ code: 0, signal: null });
    const out = run.stdout().trim().split('\n');
    expect(out.every((l) => l.startsWith('{') && JSON.parse(l))).toBe(true);
    const lines = run.lines();
    const fill = lines.find((l) => l['event'] === 'fill')!;
    expect(fill).toMatchObject({ strategy: 'sma-cross', asset: 'BTC', action: 'open', direction: 'short', mt: expect.any(Number) });
    expect(fill['price']).toMatch(/^\d+(\.\d+)?$/);
    const summary = lines.find((l) => l['event'] === 'summary')!['summary'] as Record<string, unknown>;
    expect(summary).toMatchObject({ startEquity: '100000', trades: expect.any(Number), guard: { state: 'ACTIVE' } });
    expect(summary['trades']).toBeGreaterThan(0);
    expect(Number(summary['equity']) - Number(summary['startEquity'])).toBeCloseTo(Number(summary['netPnl']), 6);
    expect((summary['headroom'] as unknown[]).length).toBeGreaterThanOrEqual(2);
    // The closed trades by who closed them add up to the trades, and their pnl to the fills' own.
    const closedBy = summary['closedBy'] as Array<{ kind: string; trades: number; wins: number; pnl: string }>;
    expect(closedBy.length).toBeGreaterThan(0);
    expect(closedBy.reduce((n, k) => n + k.trades, 0)).toBe(summary['trades']);
    expect(closedBy.reduce((n, k) => n + k.wins, 0)).toBe(summary['wins']);
    const closes = lines.filter((l) => l['event'] === 'fill' && l['action'] === 'close');
    expect(closes).toHaveLength(summary['trades'] as number);
    for (const k of closedBy) {
      const mine = closes.filter((l) => l['origin'] === k.kind);
      expect(mine, k.kind).toHaveLength(k.trades);
      expect(Number(k.pnl)).toBeCloseTo(mine.reduce((a, l) => a + Number(l['pnl']), 0), 6);
    }
  });

  it('on a terminal (a pseudo-terminal from util-linux `script`) the default is the human lines', async (ctx) => {
    if (!existsSync('/usr/bin/script')) ctx.skip('needs `script` from util-linux to give the child a terminal');
    const file = config('tty', '  warmup: 200\n  to: 2019-05-06\n  speed: 0');
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/script', ['-qfec', `${process.execPath} ${BIN} run --config ${file}`, '/dev/null'], { cwd: tmp.dir, timeout: 120_000 }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      );
    });
    expect(out).not.toContain('"level"');
    expect(out).toMatch(/2019-05-04 14:00\s+sma-cross\s+approved\s+open short BTC/);
    expect(out).toContain('summary');
  });
});
