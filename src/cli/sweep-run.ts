/** The body of `propbot sweep`, loaded only when that command runs. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureDirectory } from '../core/directories.js';
import { dataRange } from '../research/data-range.js';
import { OBJECTIVES, objectiveValue } from '../research/objectives.js';
import { scenarioJob } from '../research/scenario-job.js';
import { runSearch } from '../research/search.js';
import { rankingTable, renderSweepHtml } from '../research/sweep-report.js';
import type { SweepRow } from '../runtime/sweep.js';
import { describeFailures, strategyParamsCheck } from '../runtime/sweep-checks.js';
import { scenarioWithData } from './backtest-run.js';
import { jobRunner, searchChoice, searchRuns, type SweepCliOptions } from './search-options.js';

export async function runSweepCommand(scenarioFile: string | undefined, opts: SweepCliOptions): Promise<number> {
  const scenario = await scenarioWithData(scenarioFile, opts);
  const choice = searchChoice(opts);
  // Before an hour of workers: a grid key the strategy does not have is a typo, refused with its parameters.
  const accepts = await strategyParamsCheck(scenario, choice.grid);
  const total = searchRuns(choice);
  const period = choice.method === 'tpe' && choice.prune ? await dataRange(scenario) : undefined;
  const showProgress = opts.progress !== false && !opts.json && process.stderr.isTTY === true;
  // cli-progress is loaded only when a bar is shown.
  const cliProgress = showProgress ? (await import('cli-progress')).default : undefined;
  const bar = cliProgress
    ? new cliProgress.SingleBar({ format: 'sweep [{bar}] {value}/{total} runs', stream: process.stderr, clearOnComplete: true }, cliProgress.Presets.shades_classic)
    : undefined;
  const runner = await jobRunner(opts, total, scenario);
  bar?.start(total, 0);
  let done = 0;
  let result;
  try {
    result = await runSearch(
      { ...choice, accepts, ...(period ? { period } : {}) },
      (params, index, extra) => scenarioJob(scenario, params, index, extra),
      runner,
      () => bar?.update(++done),
    );
  } finally {
    bar?.stop();
    await runner.close();
  }
  const metric = choice.objective;
  const out = {
    format: 'propbot-sweep',
    version: 1,
    name: scenario.name,
    strategy: scenario.strategies[0]!.use,
    metric,
    objective: { name: metric, better: OBJECTIVES[metric].better, about: OBJECTIVES[metric].about },
    method: choice.method,
    seed: choice.seed,
    grid: choice.grid,
    constraints: (opts.constraint ?? []),
    runs: result.trials.length,
    failed: result.trials.filter((r) => !r.ok).length,
    pruned: result.trials.filter((r) => r.stopped?.reason === 'pruned').length,
    best: result.ranked.find((r) => objectiveValue(r, metric) !== null) ?? null,
    ranked: result.ranked,
    excluded: result.excluded.map((e) => ({ index: e.row.index, params: e.row.params, reason: e.reason })),
    skipped: result.skipped ?? [],
    // in the order they ran: the optimizer's path
    trials: result.trials.map((r) => ({ index: r.index, params: r.params, value: objectiveValue(r, metric), ...(r.stopped ? { stopped: r.stopped.reason } : {}) })),
  };
  const dir = path.resolve(opts.out ?? scenario.out ?? path.join('out', `${scenario.name.replace(/[^A-Za-z0-9._-]+/g, '-')}-sweep`));
  ensureDirectory(dir);
  // A failed run never replaces the results of an earlier good one.
  const stem = out.failed > 0 ? 'sweep-failed' : 'sweep';
  const file = path.join(dir, `${stem}.json`);
  await writeFile(file, `${JSON.stringify(out, null, 2)}\n`);
  const html = path.join(dir, `${stem}.html`);
  await writeFile(html, renderSweepHtml(out, choice.space));
  if (opts.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    const extra = [out.failed ? `${out.failed} failed` : '', out.skipped.length ? `${out.skipped.length} refused by the strategy and skipped` : '', out.excluded.length ? `${out.excluded.length} excluded` : '', out.pruned ? `${out.pruned} pruned` : ''].filter(Boolean).join(', ');
    process.stdout.write(table(result.ranked.slice(0, opts.top ?? 20), metric) + `\n${out.runs} runs (${choice.method}${extra ? `; ${extra}` : ''}), ranked by ${metric}; all in ${file}, and ${html}\n`);
  }
  if (out.failed === 0) return 0;
  process.stderr.write(describeFailures(result.trials));
  return 1;
}

export function table(rows: readonly SweepRow[], metric: keyof typeof OBJECTIVES): string {
  const { header, cells: lines } = rankingTable(rows, metric);
  const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)));
  const fmt = (cells: string[]): string => cells.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
  return [fmt(header), ...lines.map(fmt)].join('\n');
}
