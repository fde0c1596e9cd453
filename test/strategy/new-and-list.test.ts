/**
 * `propbot new strategy` and `propbot strategies` as a new user runs them, as real child processes in a
 * folder outside the repository: the generated file type-checks with tsc against propbot's types
 * through the generated tsconfig.json, backtests, and is listed with its parameters.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir, tsc } from '../backtest/helpers.js';

describe('propbot new strategy', () => {
  it('writes a commented strategy that type-checks, with package.json and tsconfig.json in a new folder, and never overwrites', async () => {
    const dir = path.join(tempDir(), 'my-strategies');
    const r = await propbot(['new', 'strategy', 'first-try', '--dir', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['first-try.ts', 'package.json', 'tsconfig.json'].map((f) => `wrote ${path.join(dir, f)}`));
    const source = readFileSync(path.join(dir, 'first-try.ts'), 'utf8');
    expect(source).toContain("name: 'first-try'");
    expect(source).toContain('ctx.onCandle(');
    expect(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))).toMatchObject({ type: 'module', private: true });
    expect(await tsc(dir)).toEqual({ code: 0, output: '' });

    // A type error in the user's file is caught by the same check (the types are really propbot's).
    writeFileSync(path.join(dir, 'broken.ts'), "import { defineStrategy } from 'propbot';\nexport default defineStrategy({ name: 'b', version: '1.0.0', assets: ['BTC'], setup: (ctx) => ctx.candles('BTC', '2m') });\n");
    const broken = await tsc(dir);
    expect(broken.code).not.toBe(0);
    expect(broken.output).toContain('broken.ts(2,');

    const again = await propbot(['new', 'strategy', 'first-try', '--dir', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${path.join(dir, 'first-try.ts')} exists`);
    const second = await propbot(['new', 'strategy', 'second', '--dir', dir]);
    expect(second.stdout).toContain(`kept  ${path.join(dir, 'package.json')} (exists)`);
    const bad = await propbot(['new', 'strategy', 'no/slashes', '--dir', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('NAME: expected 1-64 letters');
  });
});

describe('propbot strategies', () => {
  it('lists the shipped examples and the plugins of a folder with name, version, description and defaults', async () => {
    const dir = tempDir();
    await propbot(['new', 'strategy', 'listed', '--dir', dir]);
    mkdirSync(path.join(dir, 'sub'));
    writeFileSync(path.join(dir, 'notes.mjs'), 'export const x = 1;\n');
    const r = await propbot(['strategies', '--dir', dir, '--json']);
    expect(r.code).toBe(0);
    const listing = JSON.parse(r.stdout) as Array<{ file: string; shipped: boolean; name?: string; version?: string; description?: string; params?: Array<{ name: string; default: string | null; required: boolean; choices?: string[]; description?: string }>; error?: string }>;
    expect(listing.filter((s) => s.shipped).map((s) => s.name)).toEqual(['challenge-aware', 'donchian-breakout', 'mean-reversion', 'sma-cross']);
    const sma = listing.find((s) => s.name === 'sma-cross')!;
    expect(sma).toMatchObject({ version: '1.0.0', description: 'Simple moving average crossover, always in the market.' });
    expect(sma.params!.find((p) => p.name === 'fast')).toEqual({ name: 'fast', default: '10', required: false, description: 'Fast average length, in candles.' });
    expect(sma.params!.find((p) => p.name === 'amount')).toEqual({ name: 'amount', default: '1000', required: false, description: 'Quote amount reserved per entry (margin + fee).' });
    // Every shipped parameter says what it is.
    expect(listing.filter((s) => s.shipped).flatMap((s) => s.params!.filter((p) => !p.description).map((p) => `${s.name}.${p.name}`))).toEqual([]);
    expect(sma.params!.find((p) => p.name === 'period')!.choices).toContain('1D');
    const mine = listing.filter((s) => !s.shipped);
    expect(mine.map((s) => [path.basename(s.file), s.name ?? null])).toEqual([
      ['listed.ts', 'listed'],
      ['notes.mjs', null],
    ]);
    expect(mine[0]!.params!.map((p) => `${p.name}=${p.default}`)).toEqual(['asset="BTC"', 'period="1h"', 'length=20', 'amount=1000']);
    expect(mine[1]!.error).toContain('the default export is not a strategy made with defineStrategy()');

    const text = await propbot(['strategies', '--dir', dir]);
    expect(text.stdout).toMatch(/^ {2}listed 0\.1\.0 — Long while the close is above its simple moving average, flat below it\.$/m);
    // The default, then what .describe() says (and an enum's choices after it).
    expect(text.stdout).toMatch(/^ {4}length +20 +Length of the moving average, in candles\.$/m);
    expect(text.stdout).toMatch(/^ {4}period +"1h" +Candle period the rule runs on, at least the data's own period \(one of 1m, 5m, 15m, 30m, 1h, 4h, 1D\)$/m);
  });

  it('the generated strategy backtests and trades', async () => {
    const dir = tempDir();
    await propbot(['new', 'strategy', 'trades', '--dir', dir]);
    const r = await propbot(['backtest', '--strategy', './trades.ts', '--data', `ORCL=${path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv')}`,
      '--param', 'asset=ORCL', '--param', 'period=1D', '--param', 'length=10', '--out', path.join(dir, 'out'), '--json'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.strategy).toBe('trades@0.1.0');
    expect(report.summary.totalTrades).toBeGreaterThan(0);
  });

  it("the file's own try-it command runs as written in its folder, on a shipped dataset named without a path", async () => {
    const dir = tempDir();
    await propbot(['new', 'strategy', 'try-me', '--dir', dir]);
    const command = /^ \* {3}propbot (backtest .*)$/m.exec(readFileSync(path.join(dir, 'try-me.ts'), 'utf8'))?.[1];
    expect(command).toBeDefined();
    const r = await propbot([...command!.split(' '), '--out', path.join(dir, 'out'), '--json'], dir);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.strategy).toBe('try-me@0.1.0');
    expect(report.summary.totalTrades).toBeGreaterThan(0);
    // --log info shows the strategy's own lines.
    expect(r.stderr).toContain('close crossed above the average: buy');
  });

  it('the generated strategy declares its warm-up, so a walk-forward needs no --warmup', async () => {
    const dir = tempDir();
    await propbot(['new', 'strategy', 'walks', '--dir', dir]);
    const r = await propbot(['walkforward', '--strategy', './walks.ts', '--data', `ORCL=${path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv')}`,
      '--param', 'asset=ORCL', '--param', 'period=1D', '--grid', 'length=5,10', '--train', '90d', '--test', '60d', '--workers', '1', '--out', path.join(dir, 'wf')], dir);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(path.join(dir, 'wf', 'walkforward.json'), 'utf8'));
    // The warm-up of the larger length on the grid: ten daily candles.
    expect(result.layout.warmupMs).toBe(10 * 86_400_000);
  });
});
