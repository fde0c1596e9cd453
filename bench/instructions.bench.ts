/**
 * Instructions per replayed candle: a figure the machine's load cannot move. The wall-clock benches
 * move by ±30% on a shared 2-core machine, which hides any change worth less than that. Counted
 * instructions of a single-threaded, predictable V8 are steadier, but not steady: one build counted
 * 86,057 to 92,204 a candle in four runs (up to 7%), since V8 still grows its heap by how long its
 * collections took and Node's event loop runs V8's collection tasks when it gets to them. So compare
 * builds on several runs each, or count the changed part alone.
 *
 * Not taken: `--predictable-gc-schedule` (the heap grown by fixed steps). Four runs of one build then
 * agreed to ~1.5%, but the count stopped telling what a change saves: a copy of the build that skipped
 * the market snapshots of the three steps inside each candle counted 1.5% fewer instructions under it,
 * 9-15% fewer without it, and used ~25% less CPU time in a normal process. Collection on the fixed
 * schedule swamped the difference.
 *
 * The SMA crossover (as backtest.bench.ts runs it) over the first N and the first M candles of the
 * same file, each in a fresh process under Valgrind's instruction counter (cachegrind, no cache
 * simulation), N = 10,000 and M = 40,000 (20,000 in the shipped hourly file, all it has), with V8's helper threads off (`--single-threaded --predictable`:
 * compiling and collecting happen on the main thread, in the same order every time), its hash and
 * random seeds fixed, and no code cache (one written under these flags by the first process, where
 * the build's cache is missing, would be taken by the second alone). The count includes writing the
 * report, whose equity series grows by one sample a minute of the run:
 *   backtest.sma-cross.instructions-per-candle   (I(M) − I(N)) / (M − N): the run's cost per candle,
 *                                                 its report's share included; start-up and most of
 *                                                 the JIT's warm-up cancel. With M = 2N, two builds
 *                                                 whose per-candle code was the same counted 65,201
 *                                                 and 75,481: a collection more or less in one of the
 *                                                 four processes moves a difference over 10,000
 *                                                 candles that much. Over 30,000, two runs of one
 *                                                 build mostly agree to 0.3% (71,351 and 71,335),
 *                                                 but the first-N process now and then counts ~100 M
 *                                                 more (one run in four, 64,062 against 67,498):
 *                                                 compare builds on two runs or more.
 *   backtest.instructions.first-n                 I(N): start-up, warm-up and N candles, whole process
 * Skipped, with a line saying so, where `valgrind` is not installed (Debian: `apt-get install valgrind`).
 * About 4 minutes: Valgrind runs the process some 80× slower.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report } from './report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const shared = path.resolve(root, '../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv');
const shipped = path.join(root, 'backtest/data/coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv');
const N = 10_000;
const M = 40_000;

/** The file's header lines and its first `rows` data rows, as a file of their own. */
function head(file: string, headerLines: number, rows: number, target: string): string {
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.length < headerLines + rows) throw new Error(`${file}: fewer than ${rows} rows`);
  writeFileSync(target, lines.slice(0, headerLines + rows).join('\n') + '\n');
  return target;
}

/** Instructions of one backtest process (every thread, Valgrind serialises them). */
function instructions(file: string, period: string, tmp: string): number {
  const child = fileURLToPath(new URL('./backtest-child.mjs', import.meta.url));
  const run = spawnSync(
    'valgrind',
    ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file', '--cachegrind-out-file=/dev/null',
      process.execPath, '--single-threaded', '--predictable', '--random-seed=1', '--hash-seed=1',
      child, file, period, path.join(tmp, 'out')],
    // The text read every time (as every round before the rows cache counted), nothing written to the user's cache folder.
    { encoding: 'utf8', maxBuffer: 16 << 20, env: { ...process.env, PROPBOT_CODE_CACHE: 'off', PROPBOT_ROWS_CACHE: 'off' } },
  );
  const refs = /I\s+refs:\s+([\d,]+)/.exec(run.stderr);
  if (run.status !== 0 || refs === null) throw new Error(`valgrind backtest of ${file} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return Number(refs[1]!.replaceAll(',', ''));
}

export async function run(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    process.stdout.write('backtest.sma-cross.instructions-per-candle skipped: needs valgrind (apt-get install valgrind)\n');
    return;
  }
  const tmp = mkdtempSync(path.join(tmpdir(), 'pb-bench-'));
  try {
    const [file, headerLines, period, far] = existsSync(shared) ? [shared, 1, '15m', M] : [shipped, 2, '1h', 2 * N];
    const first = instructions(head(file, headerLines, N, path.join(tmp, 'n.csv')), period, tmp);
    const more = instructions(head(file, headerLines, far, path.join(tmp, 'm.csv')), period, tmp);
    report('backtest.sma-cross.instructions-per-candle', (more - first) / (far - N), 'instructions');
    report('backtest.instructions.first-n', first, 'instructions');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
