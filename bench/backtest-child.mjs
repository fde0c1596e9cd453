/**
 * One `propbot backtest` as the CLI runs it (scenario → backtester → report.json and report.html
 * written), in a fresh process so its start-up and peak RSS are its own. Plain JavaScript over the
 * build, so the process starts as `bin/propbot.js` does (no tsx for the bench itself).
 *   node bench/backtest-child.mjs FILE PERIOD OUTDIR
 * Prints one JSON object: { candles, runMs, startupMs, startupCpuMs, wallMs, peakRssMb }; every time
 * is from the process's own start (performance.timeOrigin), so start-up includes loading Node and
 * propbot. startupCpuMs is the CPU time of all the process's threads until then (on a shared machine,
 * less noisy than the wall time).
 */
import { backtestOptions, buildScenario } from '../dist/cli/backtest-run.js';
import { runBacktest } from '../dist/runtime/backtest.js';
import { writeReport } from '../dist/report/write.js';

const [file, period, out] = process.argv.slice(2);
let startupMs = null;
let startupCpuMs = null;
const scenario = buildScenario(undefined, { strategy: 'sma-cross', data: [`BTC=${file}`], params: { period } });
const { result } = await runBacktest({
  ...backtestOptions(scenario),
  onProgress: () => {
    if (startupMs === null) {
      startupMs = performance.now();
      const cpu = process.cpuUsage();
      startupCpuMs = (cpu.user + cpu.system) / 1000;
    }
  },
});
await writeReport(result, out);
const wallMs = performance.now();
process.stdout.write(
  JSON.stringify({ candles: result.perf.candles, runMs: result.perf.wallMs, startupMs, startupCpuMs, wallMs, peakRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n',
);
