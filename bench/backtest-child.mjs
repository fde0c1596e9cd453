/**
 * One `propbot backtest` as the CLI runs it (scenario → backtester → report.json and report.html
 * written), in a fresh process so its start-up and peak RSS are its own. Plain JavaScript over the
 * build, so the process starts as `bin/propbot.js` does (no tsx for the bench itself), with the Node
 * options of its first line (backtest.bench.ts passes them: bench/cli-node.ts).
 *   node [the launcher's options] bench/backtest-child.mjs FILE PERIOD OUTDIR
 * Prints one JSON object: { candles, runMs, runCpuMs, startupMs, startupCpuMs, wallMs, cpuMs, peakRssMb };
 * every time is from the process's own start (performance.timeOrigin), so start-up includes loading
 * Node and propbot. The CPU times (user + system) are what a shared machine cannot blur.
 * PB_NO_HOLD=1 runs it without the CLI's young-generation hold (src/core/young-generation.ts), to see
 * what that hold saves.
 */
import { backtestOptions, buildScenario } from '../dist/cli/backtest-run.js';
import { runBacktest } from '../dist/runtime/backtest.js';
import { writeReport } from '../dist/report/write.js';
import { holdYoungGeneration } from '../dist/core/young-generation.js';

const [file, period, out] = process.argv.slice(2);
let startupMs = null;
let startupCpuMs = null;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// As runBacktestCommand holds it, for the run and the report.
const release = process.env.PB_NO_HOLD ? () => {} : holdYoungGeneration();
const scenario = buildScenario(undefined, { strategy: 'sma-cross', data: [`BTC=${file}`], params: { period } });
const { result } = await runBacktest({
  ...backtestOptions(scenario),
  onProgress: () => {
    if (startupMs === null) {
      startupMs = performance.now();
      startupCpuMs = cpuMs();
    }
  },
});
const runCpuMs = cpuMs() - startupCpuMs;
await writeReport(result, out);
release();
const wallMs = performance.now();
process.stdout.write(
  JSON.stringify({ candles: result.perf.candles, runMs: result.perf.wallMs, runCpuMs, startupMs, startupCpuMs, wallMs, cpuMs: cpuMs(), peakRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n',
);
