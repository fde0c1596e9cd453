/** The body of `propbot sweep`, loaded only when that command runs. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureDirectory } from '../core/directories.js';
import cliProgress from 'cli-progress';
import { scenarioMarkets } from '../runtime/scenario.js';
import { checkSweepCombinations, describeFailures } from '../runtime/sweep-checks.js';
import { gridCombinations, metricOf, parseGrid, rankRows, runSweep, sampleCombinations, type SweepJob, type SweepRow } from '../runtime/sweep.js';
import { buildScenario } from './backtest-run.js';
import type { SweepCliOptions } from './commands/sweep.js';

export async function runSweepCommand(scenarioFile: string | undefined, opts: SweepCliOptions): Promise<number> {
  const scenario = buildScenario(scenarioFile, opts);
  const metric = metricOf(opts.metric ?? 'returnPct');
  const grid = parseGrid(opts.grid ?? []);
  const all = gridCombinations(grid);
  const combos = opts.random !== undefined ? sampleCombinations(all, opts.random, opts.seed ?? 1) : all;
  const strategy = scenario.strategies[0]!;
  const checked = await checkSweepCombinations(strategy.use, strategy.params, grid, combos, scenario.baseDir);
  const jobs: SweepJob[] = checked.runnable.map(({ params, index }) => ({
    index,
    params,
    strategy: strategy.use,
    baseParams: strategy.params,
    markets: scenarioMarkets(scenario),
    balance: scenario.balance.toString(),
    accountType: scenario.accountType,
    seed: scenario.seed,
    cwd: scenario.baseDir,
    ...(scenario.phase !== undefined ? { phase: scenario.phase } : {}),
    ...(scenario.from !== undefined ? { from: scenario.from } : {}),
    ...(scenario.to !== undefined ? { to: scenario.to } : {}),
    ...(scenario.risk !== undefined ? { risk: scenario.risk as Record<string, unknown> } : {}),
  }));
  const showProgress = opts.progress !== false && !opts.json && process.stderr.isTTY === true;
  const bar = showProgress
    ? new cliProgress.SingleBar({ format: 'sweep [{bar}] {value}/{total} runs', stream: process.stderr, clearOnComplete: true }, cliProgress.Presets.shades_classic)
    : undefined;
  bar?.start(jobs.length, 0);
  const rows = await runSweep(jobs, { ...(opts.workers !== undefined ? { workers: opts.workers } : {}), onRow: (_r, done) => bar?.update(done) });
  bar?.stop();
  const ranked = rankRows(rows, metric);
  const out = {
    format: 'propbot-sweep',
    version: 1,
    name: scenario.name,
    strategy: strategy.use,
    metric,
    grid,
    runs: rows.length,
    failed: rows.filter((r) => !r.ok).length,
    ranked,
    skipped: checked.skipped,
  };
  const dir = path.resolve(opts.out ?? scenario.out ?? path.join('out', `${scenario.name.replace(/[^A-Za-z0-9._-]+/g, '-')}-sweep`));
  ensureDirectory(dir);
  // A failed run never replaces the results of an earlier good one.
  const file = path.join(dir, out.failed > 0 ? 'sweep-failed.json' : 'sweep.json');
  await writeFile(file, `${JSON.stringify(out, null, 2)}\n`);
  if (opts.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else process.stdout.write(table(ranked.slice(0, opts.top ?? 20), metric) + `\n${rows.length} runs (${out.failed} failed, ${checked.skipped.length} refused by the strategy and skipped), ranked by ${metric}; all in ${file}\n`);
  if (out.failed === 0) return 0;
  process.stderr.write(describeFailures(rows));
  return 1;
}

function table(rows: readonly SweepRow[], metric: string): string {
  const header = ['rank', 'params', metric, 'return %', 'max dd %', 'trades', 'challenge'];
  const lines = rows.map((r, i) => [
    String(i + 1),
    Object.entries(r.params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' '),
    r.ok ? String(r.summary?.[metric] ?? '—') : 'error',
    r.ok ? String(r.summary?.['returnPct'] ?? '—') : '',
    r.ok ? String(r.summary?.['maxDrawdownPct'] ?? '—') : '',
    r.ok ? String(r.summary?.['totalTrades'] ?? '—') : '',
    r.ok ? (r.challenge ? (r.challenge.passed ? 'pass' : r.challenge.failedRule ? `fail: ${r.challenge.failedRule}` : 'not passed') : '—') : (r.error ?? '').slice(0, 60),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)));
  const fmt = (cells: string[]): string => cells.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
  return [fmt(header), ...lines.map(fmt)].join('\n');
}
