/**
 * The same backtest as bench/backtest-child.mjs, run RUNS times in one process (no report written):
 * what a sweep worker's or a walk-forward's later runs get once V8 has compiled the replay, where a
 * fresh process spends about half of its one run waiting for the compiler.
 *   node [the launcher's options] bench/backtest-warm-child.mjs FILE PERIOD RUNS
 * Prints one JSON object: { candles, runMs: [one per run], runCpuMs: [one per run] }.
 */
import { backtestOptions, buildScenario } from '../dist/cli/backtest-run.js';
import { runBacktest } from '../dist/runtime/backtest.js';
import { holdYoungGeneration } from '../dist/core/young-generation.js';

const [file, period, runsArg] = process.argv.slice(2);
const runs = Number(runsArg);
if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`backtest-warm-child: RUNS must be a whole number ≥ 1, got ${JSON.stringify(runsArg)}`);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const release = holdYoungGeneration();
const scenario = buildScenario(undefined, { strategy: 'sma-cross', data: [`BTC=${file}`], params: { period } });
const runMs = [];
const runCpuMs = [];
let candles = 0;
for (let i = 0; i < runs; i += 1) {
  // From the first candle, as backtest-child.mjs counts a run's CPU time.
  let cpu = null;
  const { result } = await runBacktest({ ...backtestOptions(scenario), onProgress: () => (cpu ??= cpuMs()) });
  runCpuMs.push(cpuMs() - cpu);
  runMs.push(result.perf.wallMs);
  candles = result.perf.candles;
}
release();
process.stdout.write(JSON.stringify({ candles, runMs, runCpuMs }) + '\n');
