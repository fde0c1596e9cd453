/** The body of `propbot walkforward`, loaded only when that command runs. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeReport } from '../report/write.js';
import { buildWalkForwardJson, noBest, renderWalkForwardHtml } from '../research/walkforward-report.js';
import { formatDuration, parseDuration, planWalkForward, runWalkForward } from '../research/walkforward.js';
import { scenarioWithData } from './backtest-run.js';
import { jobRunner, searchChoice, searchRuns, type WalkForwardCliOptions } from './search-options.js';
import { describeFailures, formatParams, strategyParamsCheck } from '../runtime/sweep-checks.js';

export async function runWalkForwardCommand(scenarioFile: string | undefined, opts: WalkForwardCliOptions): Promise<number> {
  const scenario = await scenarioWithData(scenarioFile, opts);
  const choice = searchChoice(opts);
  const trainMs = parseDuration(opts.train ?? '', '--train');
  const testMs = parseDuration(opts.test ?? '', '--test');
  const stepMs = opts.step !== undefined ? parseDuration(opts.step, '--step') : testMs;
  const warmupMs = opts.warmup !== undefined ? parseDuration(opts.warmup, '--warmup') : undefined;
  const progress = opts.progress !== false && !opts.json;
  // As in sweep: a grid key the strategy does not have is refused up front, and pairs it refuses are not run.
  const accepts = await strategyParamsCheck(scenario, choice.grid);
  const options = {
    scenario,
    trainMs,
    testMs,
    stepMs,
    anchored: opts.anchored === true,
    ...(warmupMs !== undefined ? { warmupMs } : {}),
    search: { ...choice, accepts },
  };
  // The windows first, so the workers are sized by every run the walk-forward will make.
  const planned = await planWalkForward(options);
  const runner = await jobRunner(opts, planned.plans.length * searchRuns(choice), scenario);
  let result;
  try {
    result = await runWalkForward({
      ...options,
      planned,
      runner,
      ...(progress
        ? { onSearched: (p) => process.stderr.write(`window ${p.index + 1}/${p.total}: ${p.trials} trials on the train slice, best ${p.best ? JSON.stringify(p.best.params) : noBest(p)}\n`) }
        : {}),
    });
  } finally {
    await runner.close();
  }
  const dir = path.resolve(opts.out ?? scenario.out ?? path.join('out', `${scenario.name.replace(/[^A-Za-z0-9._-]+/g, '-')}-walkforward`));
  await mkdir(dir, { recursive: true });
  const json = buildWalkForwardJson(result, {
    name: scenario.name,
    strategy: scenario.strategies[0]!.use,
    objective: choice.objective,
    method: choice.method,
    ...(choice.trials !== undefined ? { trials: choice.trials } : {}),
    seed: choice.seed,
    constraints: opts.constraint ?? [],
    grid: choice.grid,
    trainMs,
    testMs,
    stepMs,
    anchored: opts.anchored === true,
  });
  // As sweep does: a walk-forward whose runs failed never replaces the files of an earlier good one.
  const trials = result.windows.flatMap((w) => w.search.trials);
  const failed = trials.some((r) => !r.ok);
  const suffix = failed ? '-failed' : '';
  let oosLink: string | undefined;
  if (result.outOfSample) {
    await writeReport(result.outOfSample, path.join(dir, `out-of-sample${suffix}`));
    oosLink = `out-of-sample${suffix}/report.html`;
  }
  const jsonFile = path.join(dir, `walkforward${suffix}.json`);
  const htmlFile = path.join(dir, `walkforward${suffix}.html`);
  await writeFile(jsonFile, `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(htmlFile, renderWalkForwardHtml(json, result, oosLink ? { outOfSampleReport: oosLink } : {}));
  const exit = (): number => {
    if (!failed) return 0;
    process.stderr.write(describeFailures(trials));
    return 1;
  };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return exit();
  }
  const lines = json.windows.map((w) => {
    const p = w.best ? formatParams(w.best.params) : noBest(w);
    const oos = w.accountFailedBefore ? 'account failed earlier' : fmt(w.outOfSample?.returnPct);
    return `${String(w.window).padEnd(3)} ${w.test.from.slice(0, 10)} → ${w.test.to.slice(0, 10)}  ${p.padEnd(24)} IS ${fmt(w.inSample?.returnPct).padStart(8)} ${(w.inSample?.challenge?.passed ? `pass day ${w.inSample.challenge.daysToTarget ?? '?'}` : '').padEnd(12)}  OOS ${oos}`;
  });
  process.stdout.write(
    [
      `walk-forward of ${scenario.name}: ${json.windows.length} windows, train ${formatDuration(trainMs)}, test ${formatDuration(testMs)}, warm-up ${json.layout.warmup}`,
      ...lines,
      `in sample:      ${json.inSample.verdict}, mean return ${fmt(json.inSample.meanReturnPct)}`,
      `out of sample:  ${json.outOfSample ? `${json.outOfSample.verdict}, return ${fmt(Number(json.outOfSample.summary.returnPct))}, max drawdown ${fmt(Number(json.outOfSample.summary.maxDrawdownPct))}` : 'no window traded'}`,
      ...(json.outOfSample?.journey ? [`                ${json.outOfSample.journey}`] : []),
      `efficiency:     ${json.efficiency ?? '—'} (out-of-sample over in-sample return per day)`,
      `report:         ${htmlFile}`,
      `                ${jsonFile}`,
      '',
    ].join('\n'),
  );
  return exit();
}

function fmt(x: number | null | undefined): string {
  return x === null || x === undefined ? '—' : `${x.toFixed(2)}%`;
}
