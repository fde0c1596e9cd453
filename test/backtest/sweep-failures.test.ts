/**
 * `propbot sweep` when things go wrong, as a real child process: a grid key the strategy lacks is
 * refused before any run; combinations the strategy's schema refuses are skipped with its reason; a
 * sweep whose runs failed exits non-zero, prints each distinct error whole and leaves an earlier
 * sweep.json alone.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir } from './helpers.js';

const ORCL = path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv');
const FRAGILE = path.join(REPO, 'test/fixtures/fragile-strategy.mjs');
const SMA = ['--strategy', 'sma-cross', '--data', `ORCL=${ORCL}`, '--preset', 'zero-cost', '--params', '{"asset":"ORCL","period":"1D","leverage":"1"}'];

describe('propbot sweep refuses and reports', () => {
  it('an unknown grid key is refused before running, naming it and the strategy\'s parameters', async () => {
    const out = tempDir();
    const r = await propbot(['sweep', ...SMA, '--grid', 'fsat=3,5', '--grid', 'slow=10,20', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has no parameter "fsat"; its parameters: asset, period, fast, slow, amount, leverage, stopPercent, allowShort; did you mean "fast"?');
    expect(readdirSync(out)).toEqual([]);
  });

  it('combinations the strategy refuses are skipped with its reason; the rest run', async () => {
    const out = tempDir();
    const r = await propbot(['sweep', ...SMA, '--grid', 'fast=5,20', '--grid', 'slow=10', '--workers', '1', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const sweep = JSON.parse(r.stdout);
    expect(sweep.runs).toBe(1);
    expect(sweep.ranked.map((row: { params: unknown }) => row.params)).toEqual([{ fast: 5, slow: 10 }]);
    expect(sweep.skipped).toHaveLength(1);
    expect(sweep.skipped[0].params).toEqual({ fast: 20, slow: 10 });
    expect(sweep.skipped[0].error).toContain('fast must be shorter than slow');
  });

  it('TPE: proposals the strategy refuses are skipped as infeasible, not run, and the budget is of runs', async () => {
    const out = tempDir();
    // Half the space has fast >= slow: a seeded TPE draws such pairs among its proposals.
    const r = await propbot(['sweep', ...SMA, '--grid', 'fast=2..20', '--grid', 'slow=3..20', '--optimizer', 'tpe', '--trials', '6', '--seed', '3', '--workers', '1', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const sweep = JSON.parse(r.stdout);
    expect(sweep.runs).toBe(6);
    expect(sweep.failed).toBe(0);
    expect(sweep.trials).toHaveLength(6);
    expect(sweep.trials.every((t: { params: { fast: number; slow: number } }) => t.params.fast < t.params.slow)).toBe(true);
    expect(sweep.skipped.length).toBeGreaterThan(0);
    expect(sweep.skipped.every((s: { params: { fast: number; slow: number }; error: string }) => s.params.fast >= s.params.slow && s.error.includes('fast must be shorter than slow'))).toBe(true);
  });

  it('random: the sample is drawn among the combinations the strategy accepts, so --random N is N runs', async () => {
    const out = tempDir();
    // 3 of the 4 pairs are accepted; a sample of 3 runs all three.
    const r = await propbot(['sweep', ...SMA, '--grid', 'fast=5,20', '--grid', 'slow=10,30', '--random', '3', '--seed', '1', '--workers', '1', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const sweep = JSON.parse(r.stdout);
    expect(sweep.runs).toBe(3);
    expect(sweep.trials.map((t: { params: unknown }) => t.params)).toEqual(expect.arrayContaining([{ fast: 5, slow: 10 }, { fast: 5, slow: 30 }, { fast: 20, slow: 30 }]));
    expect(sweep.skipped.map((s: { params: unknown }) => s.params)).toEqual([{ fast: 20, slow: 10 }]);
    // sweep.html maps the three runs and the refused pair.
    const page = readFileSync(path.join(out, 'sweep.html'), 'utf8');
    expect(page.match(/<td style="background:hsl/g)).toHaveLength(3);
    expect(page).toContain('<td class="none" title="refused">refused</td>');
  });

  it('failed runs: exit 1, each distinct error printed whole once, an earlier sweep.json kept', async () => {
    const out = tempDir();
    const earlier = '{"earlier":"good run"}\n';
    writeFileSync(path.join(out, 'sweep.json'), earlier);
    const r = await propbot(['sweep', '--strategy', FRAGILE, '--data', `ORCL=${ORCL}`, '--grid', 'explode=false,true', '--grid', 'label=1,2', '--workers', '2', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('2 of 4 runs failed (1 distinct error)');
    expect(r.stderr).toContain('fragile: explode=true cannot run');
    expect(r.stderr).toContain('second line of the same error');
    expect(r.stderr.split('second line of the same error')).toHaveLength(2);
    expect(readFileSync(path.join(out, 'sweep.json'), 'utf8')).toBe(earlier);
    expect(existsSync(path.join(out, 'sweep-failed.json'))).toBe(true);
    const failed = JSON.parse(readFileSync(path.join(out, 'sweep-failed.json'), 'utf8'));
    expect(failed.failed).toBe(2);
    expect(r.stdout).toContain('sweep-failed.json');
    // The page goes beside it under the same name, and no sweep.html is written for a failed sweep.
    expect(r.stdout).toContain(path.join(out, 'sweep-failed.html'));
    expect(existsSync(path.join(out, 'sweep.html'))).toBe(false);
    const page = readFileSync(path.join(out, 'sweep-failed.html'), 'utf8');
    expect(page).toContain('<table class="heatmap" id="heatmap">');
    expect(page.match(/<td class="none" title="error">error<\/td>/g)).toHaveLength(2);
  });
});
