/**
 * The whole backtester, as `propbot backtest` runs it: the SMA crossover example over the real BTC
 * 1-minute month (42,915 candles; the shipped hourly file when ../shared is absent), each run in a
 * fresh process (bench/backtest-child.mjs), every figure the median of BENCH_RUNS runs (default 3),
 * with the lowest and highest run beside it (`min`, `max`: how much the machine moved meanwhile):
 *   backtest.sma-cross              candles/s inside the run (replay, engine, feed, candle builder,
 *                                   strategy, guard, executor; 4 price steps per candle), the file's
 *                                   text read and parsed in the run (PROPBOT_ROWS_CACHE=off: a first run)
 *   backtest.sma-cross.wall-ms      the whole process, start to report written
 *   backtest.sma-cross.rows-cached, .rows-cached.cpu, .rows-cached.wall-ms
 *                                   the same with the rows cache holding the file (any run after the
 *                                   first over the same file as it is: src/feed/files/row-cache.ts)
 *   backtest.sma-cross.warm, .warm.cpu
 *                                   the same run ten times in one process (the rows cached; no report),
 *                                   each process's median of its sixth to tenth run: the replay once
 *                                   V8 has compiled it, as a sweep worker's or a walk-forward's later
 *                                   runs get it (bench/backtest-warm-child.mjs). Beside the fresh
 *                                   figures above it says how much of a fresh run is the JIT's warm-up
 *   backtest.startup-ms             start to the first candle replayed (Node, propbot, the TS plugin)
 *   backtest.startup-cpu-ms         the CPU time of that start-up (all threads of the process)
 *   node.startup-ms                 the same clock for a bare `node -e`: the floor on this machine
 *   backtest.startup-ms.no-extra-ca, node.startup-ms.no-extra-ca
 *                                   only where NODE_EXTRA_CA_CERTS is set: the same two without it.
 *                                   Node reads every certificate of that file before any JavaScript
 *                                   runs (a whole system bundle: ~70 ms a process on this machine),
 *                                   so these say what propbot's start-up is where it is not set
 *   backtest.sma-cross.peak-rss     peak resident memory of that process
 *   backtest.sma-cross-4x.peak-rss  the same series four times in a row: memory must not grow with it
 *   backtest.sma-cross-4x.peak-rss-ratio
 *                                   each of those over the month's median peak (the goal: within 1.2)
 *   sweep.combos-per-minute.w1/.w2  a 24-combination grid of the shipped 2019 scenario, 1 and 2 workers
 *   sweep.cpu-ms.w1/.w2             the CPU time of those sweeps (every thread of the process): what a
 *                                   second worker adds beyond the work itself (its start-up, contention)
 *   sweep.cores.w1/.w2              that CPU time over the wall time: the cores a sweep keeps busy. One
 *                                   worker already keeps more than one busy (V8 compiles on helper
 *                                   threads beside it), which bounds what a second can add on 2 cores
 *   sweep.peak-rss.w1/.w2           peak resident memory of those sweeps (the process, its workers
 *                                   included): each worker is a backtest's heap of its own
 *   sweep.speedup.w2                one worker's wall time over two workers', each pair run back to
 *                                   back (the sweeps alternate one and two workers): above 1, a second
 *                                   worker made the sweep faster
 *   sweep.*.auto, sweep.speedup.auto
 *                                   the same with no --workers: one worker, and a second once its runs
 *                                   show it would pay (sweep-growth.ts); run third in each alternation
 *   sweep.month.combos-per-minute.w1/.w2, sweep.month.cpu-ms.w1/.w2, sweep.month.cores.w1/.w2,
 *   sweep.month.peak-rss.w1/.w2, sweep.month.speedup.w2
 *                                   the same grid over the 1-minute month (15m SMA, as the backtest
 *                                   above): a run of ~0.4 s instead of ~0.1 s, so each worker's JIT
 *                                   warm-up (its first runs take 2–5× longer) weighs less
 *   sweep.long.combos-per-minute.w1/.w2, sweep.long.cpu-ms.w1/.w2, sweep.long.cores.w1/.w2,
 *   sweep.long.peak-rss.w1/.w2, sweep.long.speedup.w2
 *                                   the 2019 scenario over a 96-combination grid: four times the runs,
 *                                   the same warm-up a worker. Each worker's warm-up costs 2–3 s of
 *                                   CPU (V8 compiling its own copy of the code, its first runs in
 *                                   slower code meanwhile), which a second worker pays again whenever
 *                                   it starts: how much it gains depends on how many runs share that cost
 * Every process uses a cache folder of its own (PROPBOT_CACHE_DIR in a temporary folder): the sweeps
 * find the month's rows cached by the backtests before them, as a user's would after one backtest.
 * Every process here starts Node with the options of bin/propbot.js's first line (bench/cli-node.ts),
 * as an installed `propbot` does: V8's helper threads sized to the machine.
 * On a machine shared with other work the wall-clock figures measure the neighbours too, so the CPU
 * time of the same runs is printed beside them (`.cpu`: candles per CPU-second of the run, CPU ms of
 * the whole process and of its start-up).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { searchSpace, spaceSize } from '../src/research/space.js';
import { parseGrid } from '../src/runtime/sweep.js';
import { CLI_NODE_OPTIONS } from './cli-node.js';
import { median, reportRuns, runs } from './report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const shared = path.resolve(root, '../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv');
const shipped = path.join(root, 'backtest/data/coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv');

interface ChildResult {
  candles: number;
  runMs: number;
  runCpuMs: number;
  startupMs: number;
  startupCpuMs: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
}

/** Runs of one process the warm figure is taken from (the sixth to the tenth), and how many it makes. */
const WARM_FROM = 5;
const WARM_RUNS = 10;

interface WarmResult {
  candles: number;
  runMs: number[];
  runCpuMs: number[];
}

function warmBacktest(file: string, period: string): WarmResult {
  const child = fileURLToPath(new URL('./backtest-warm-child.mjs', import.meta.url));
  const out = execFileSync(process.execPath, [...CLI_NODE_OPTIONS, child, file, period, String(WARM_RUNS)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as WarmResult;
}

function backtest(file: string, period: string, tmp: string, env: NodeJS.ProcessEnv = process.env): ChildResult {
  const child = fileURLToPath(new URL('./backtest-child.mjs', import.meta.url));
  const out = execFileSync(process.execPath, [...CLI_NODE_OPTIONS, child, file, period, path.join(tmp, 'out')], { encoding: 'utf8', maxBuffer: 1 << 20, env });
  return JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
}

/** Start to first line of a bare Node process, on the clock the start-up figure uses. */
function bareNode(env: NodeJS.ProcessEnv = process.env): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(performance.now()))'], { encoding: 'utf8', env }));
}

/** This environment without NODE_EXTRA_CA_CERTS; undefined where it is not set. */
function withoutExtraCa(): NodeJS.ProcessEnv | undefined {
  if (!process.env['NODE_EXTRA_CA_CERTS']) return undefined;
  const { NODE_EXTRA_CA_CERTS: _, ...rest } = process.env;
  return rest;
}

/** The month four times in a row, each copy shifted to start one minute after the previous ends. */
function fourTimes(file: string, tmp: string): string {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const [header, ...rows] = lines;
  const first = Number(rows[0]!.slice(0, rows[0]!.indexOf(',')));
  const last = Number(rows[rows.length - 1]!.slice(0, rows[rows.length - 1]!.indexOf(',')));
  const span = last - first + 60_000;
  const out: string[] = [header!];
  for (let k = 0; k < 4; k += 1) {
    for (const row of rows) {
      const comma = row.indexOf(',');
      out.push(`${Number(row.slice(0, comma)) + k * span}${row.slice(comma)}`);
    }
  }
  const target = path.join(tmp, 'btc-1m-4x.csv');
  writeFileSync(target, out.join('\n') + '\n');
  return target;
}

/** What a sweep runs over: a scenario file, or the strategy and data as options. */
type SweepBase = readonly string[];
const GRID = ['fast=5,8,10,12', 'slow=20,30,40,50,60,80'];
/** 96 combinations: the long sweep. */
const LONG_GRID = ['fast=5,6,7,8,9,10,11,12', 'slow=20,25,30,35,40,45,50,55,60,70,80,90'];

/** Runs in `grid`, counted as `propbot sweep` counts them. */
function combos(grid: readonly string[]): number {
  return spaceSize(searchSpace(parseGrid([...grid])));
}

/** `workers: 'auto'` passes no `--workers`: the default, which adds a second worker only when it pays. */
function sweep(base: SweepBase, grid: readonly string[], workers: number | 'auto', tmp: string): { wallMs: number; cpuMs: number; peakRssMb: number } {
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [...CLI_NODE_OPTIONS, '--import', pathToFileURL(path.join(root, 'bench/usage-at-exit.mjs')).href, path.join(root, 'bin/propbot.js'), 'sweep', ...base,
      ...grid.flatMap((g) => ['--grid', g]), ...(workers === 'auto' ? [] : ['--workers', String(workers)]), '--out', path.join(tmp, `sweep-${workers}`), '--no-progress'],
    { encoding: 'utf8', maxBuffer: 16 << 20 },
  );
  const wallMs = performance.now() - started;
  if (run.status !== 0) throw new Error(`sweep --workers ${workers} failed (${run.status}): ${run.stderr}`);
  const usage = JSON.parse(run.stderr.trim().split('\n').pop()!) as { cpuMs: number; peakRssMb: number };
  return { wallMs, cpuMs: usage.cpuMs, peakRssMb: usage.peakRssMb };
}

function sweeps(name: string, base: SweepBase, n: number, tmp: string, grid: readonly string[] = GRID): void {
  const count = combos(grid);
  // Pairs, one worker then two, n times. Run as two batches (every one-worker sweep, then every
  // two-worker one), the machine's drift between the batches read as scaling: one day's bench gave
  // the month 1.65x that way, and eight alternated pairs within the hour after 0.87-1.54x (median 1.02).
  // The default (no --workers) beside them, in the same alternation.
  const pairs = Array.from({ length: n }, () => [sweep(base, grid, 1, tmp), sweep(base, grid, 2, tmp), sweep(base, grid, 'auto', tmp)] as const);
  for (const [i, label] of ['w1', 'w2', 'auto'].entries()) {
    const all = pairs.map((pair) => pair[i]!);
    reportRuns(`${name}.combos-per-minute.${label}`, all.map((s) => (count * 60_000) / s.wallMs), 'combos/min');
    reportRuns(`${name}.cpu-ms.${label}`, all.map((s) => s.cpuMs), 'cpu-ms');
    reportRuns(`${name}.cores.${label}`, all.map((s) => s.cpuMs / s.wallMs), 'cores');
    reportRuns(`${name}.peak-rss.${label}`, all.map((s) => s.peakRssMb), 'MB');
  }
  reportRuns(`${name}.speedup.w2`, pairs.map(([one, two]) => one.wallMs / two.wallMs), 'x');
  reportRuns(`${name}.speedup.auto`, pairs.map(([one, , auto]) => one.wallMs / auto.wallMs), 'x');
}

export async function run(): Promise<void> {
  const n = runs();
  const tmp = mkdtempSync(path.join(tmpdir(), 'pb-bench-'));
  const cacheDir = process.env['PROPBOT_CACHE_DIR'];
  try {
    const [file, period] = existsSync(shared) ? [shared, '15m'] : [shipped, '1h'];
    // The sweeps (spawned with process.env) use this cache folder too.
    process.env['PROPBOT_CACHE_DIR'] = path.join(tmp, 'cache');
    const textRead = { ...process.env, PROPBOT_ROWS_CACHE: 'off' };
    const one = Array.from({ length: n }, () => backtest(file, period, tmp, textRead));
    reportRuns('backtest.sma-cross', one.map((r) => (r.candles * 1000) / r.runMs), 'candles/s');
    reportRuns('backtest.sma-cross.cpu', one.map((r) => (r.candles * 1000) / r.runCpuMs), 'candles/cpu-s');
    reportRuns('backtest.sma-cross.wall-ms', one.map((r) => r.wallMs), 'ms');
    reportRuns('backtest.sma-cross.cpu-ms', one.map((r) => r.cpuMs), 'cpu-ms');
    backtest(file, period, tmp); // the first run over the file with the cache on: it writes the entry
    const cached = Array.from({ length: n }, () => backtest(file, period, tmp));
    reportRuns('backtest.sma-cross.rows-cached', cached.map((r) => (r.candles * 1000) / r.runMs), 'candles/s');
    reportRuns('backtest.sma-cross.rows-cached.cpu', cached.map((r) => (r.candles * 1000) / r.runCpuMs), 'candles/cpu-s');
    reportRuns('backtest.sma-cross.rows-cached.wall-ms', cached.map((r) => r.wallMs), 'ms');
    const warm = Array.from({ length: n }, () => warmBacktest(file, period));
    reportRuns('backtest.sma-cross.warm', warm.map((w) => (w.candles * 1000) / median(w.runMs.slice(WARM_FROM))), 'candles/s');
    reportRuns('backtest.sma-cross.warm.cpu', warm.map((w) => (w.candles * 1000) / median(w.runCpuMs.slice(WARM_FROM))), 'candles/cpu-s');
    reportRuns('backtest.startup-ms', one.map((r) => r.startupMs), 'ms');
    reportRuns('backtest.startup-cpu-ms', one.map((r) => r.startupCpuMs), 'cpu-ms');
    reportRuns('node.startup-ms', Array.from({ length: n }, () => bareNode()), 'ms');
    const clean = withoutExtraCa();
    if (clean !== undefined) {
      reportRuns('backtest.startup-ms.no-extra-ca', Array.from({ length: n }, () => backtest(file, period, tmp, { ...clean, PROPBOT_ROWS_CACHE: 'off' }).startupMs), 'ms');
      reportRuns('node.startup-ms.no-extra-ca', Array.from({ length: n }, () => bareNode(clean)), 'ms');
    }
    reportRuns('backtest.sma-cross.peak-rss', one.map((r) => r.peakRssMb), 'MB');
    if (file === shared) {
      const four = fourTimes(shared, tmp);
      const big = Array.from({ length: n }, () => backtest(four, period, tmp, textRead));
      reportRuns('backtest.sma-cross-4x.peak-rss', big.map((r) => r.peakRssMb), 'MB');
      // The goal is on the ratio: each 4x run against the month's median (min and max are theirs).
      const month = median(one.map((r) => r.peakRssMb));
      reportRuns('backtest.sma-cross-4x.peak-rss-ratio', big.map((r) => r.peakRssMb / month), 'x');
    } else process.stdout.write('backtest.sma-cross-4x.peak-rss skipped: needs ../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv\n');
    const scenario = [path.join(root, 'backtest/sma-cross-btc-2019.yaml')];
    sweeps('sweep', scenario, n, tmp);
    sweeps('sweep.long', scenario, n, tmp, LONG_GRID);
    if (file === shared) sweeps('sweep.month', ['--strategy', 'sma-cross', '--data', `BTC=${shared}`, '--param', 'period=15m'], n, tmp);
    else process.stdout.write(`sweep.month skipped: needs ${path.relative(root, shared)}\n`);
  } finally {
    if (cacheDir === undefined) delete process.env['PROPBOT_CACHE_DIR'];
    else process.env['PROPBOT_CACHE_DIR'] = cacheDir;
    rmSync(tmp, { recursive: true, force: true });
  }
}
