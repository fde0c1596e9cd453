/**
 * Keeps V8's young generation from growing past a size for as long as a long replay runs.
 *
 * V8 sizes its young generation (two semi-spaces) by how many bytes its scavenges have found alive
 * in total since it last grew it, not by how many a scavenge finds: each time that total passes the
 * space's size, the space doubles, up to 32 MB on 64-bit Node. So a backtest that keeps the same
 * working set gets a larger young generation the longer its data runs: the 1-minute month ends at
 * 16 MB, the same month four times in a row at 32 MB (+16 MB of resident memory for nothing; the
 * survivors a scavenge copies are no more). Holding it at 16 MB makes the peak not depend on the
 * data's length there, as the equity and price series' downsampling does for the report.
 *
 * Node 20 offers no other way once the process has started (`--max-semi-space-size` is read when the
 * heap is made): when a scavenge leaves the young generation at `maxMb`, this sets V8's growth factor
 * to 1, and `release` sets it back. V8 flags are the process's, and a flag changed from its default
 * changes the hash V8 checks code caches against, so only a command's own process holds it, and only
 * until its run is over: the exit-time code-cache write (bundle-loader.ts) and workers started later
 * see the flags the process started with. Where the user set the young generation's size or growth
 * themselves (NODE_OPTIONS, node's own options), this does nothing. A worker thread's young generation
 * is its own isolate's, limited when it starts (`workerYoungGeneration`).
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

/** Two 8 MB semi-spaces: where the 1-minute month's run ends anyway. */
export const YOUNG_GENERATION_MB = 16;

/** V8's default `--semi-space-growth-factor` (Node 20 and 22). */
const DEFAULT_GROWTH_FACTOR = 2;
/** The user's own sizing, in either of the spellings V8 takes (`--max-semi-space-size`, `--max_semi_space_size`). */
const USER_FLAGS = /--(?:max[-_]|min[-_])?semi[-_]space[-_](?:size|growth[-_]factor)\b/;

/** The young generation's size now (both semi-spaces), in bytes. */
export function youngGenerationBytes(): number {
  for (const s of v8.getHeapSpaceStatistics()) if (s.space_name === 'new_space') return s.space_size;
  return 0;
}

/**
 * Stops the young generation growing once it is `maxMb` (MiB) or more, until the returned function
 * is called. Holds nest: the growth comes back when the last one is released.
 */
export function holdYoungGeneration(maxMb: number = YOUNG_GENERATION_MB, env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): () => void {
  if (!(maxMb > 0)) throw new RangeError(`holdYoungGeneration: maxMb must be a positive number of MiB, got ${maxMb}`);
  if (userSized(env, execArgv)) return () => {};
  const limit = maxMb * 1024 * 1024;
  holds += 1;
  // Once growth is stopped there is nothing left to watch until the release: no entry per collection.
  const check = (): void => {
    if (!stopped && youngGenerationBytes() >= limit) setGrowth(1);
    if (stopped) observer.disconnect();
  };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) return check();
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  check();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    observer.disconnect();
    holds -= 1;
    if (holds === 0 && stopped) setGrowth(DEFAULT_GROWTH_FACTOR);
  };
}

/**
 * The `resourceLimits` that keep a worker thread's young generation at `maxMb` (MiB), where
 * `holdYoungGeneration` keeps this thread's; none where the user sized the young generation themselves.
 * Left alone, a sweep worker's young generation doubles to 32 MB over its runs, and each worker's
 * resident memory with it (the 96-combination sweep peaked at 371-397 MB with two workers, 322-333
 * held). A worker's limit is its own isolate's, not a V8 flag, so it leaves the code cache's flags as
 * they are. V8's limit also counts the new large-object space, a third semi-space's worth: two
 * semi-spaces of `maxMb / 2` are a limit of 1.5 × `maxMb`.
 */
export function workerYoungGeneration(
  maxMb: number = YOUNG_GENERATION_MB,
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
): { readonly maxYoungGenerationSizeMb?: number } {
  if (!(maxMb > 0)) throw new RangeError(`workerYoungGeneration: maxMb must be a positive number of MiB, got ${maxMb}`);
  return userSized(env, execArgv) ? {} : { maxYoungGenerationSizeMb: (maxMb * 3) / 2 };
}

function userSized(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  return USER_FLAGS.test(env['NODE_OPTIONS'] ?? '') || execArgv.some((a) => USER_FLAGS.test(a));
}

let holds = 0;
let stopped = false;

function setGrowth(factor: number): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  stopped = factor === 1;
}
