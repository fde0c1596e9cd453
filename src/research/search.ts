/**
 * A parameter search: grid, seeded random sample, or TPE (`tpe.ts`), run through a `JobRunner` (the
 * local thread pool, or the Redis queue), then ranked by an objective with the constraints applied.
 *
 * TPE runs in batches of a fixed size: each batch is proposed from the trials finished before it, so
 * the same seed and data give the same trials in the same order whatever the number of workers.
 * Pruning (TPE only): each trial reports its return at 25 %, 50 % and 75 % of its period; once ten
 * trials have finished, a trial whose return at a checkpoint is under the 25th percentile of the
 * finished trials' returns there is stopped and excluded, as clearly bad. With the `rules` constraint,
 * a run stops as soon as the account fails a challenge rule, whatever the method.
 */
import { ConfigError } from '../core/errors.js';
import type { BacktestResult } from '../report/types.js';
import type { BacktestJob } from '../runtime/backtest-job.js';
import { sampleCombinations, type PruneSpec, type SweepJob, type SweepRow } from '../runtime/sweep.js';
import { lossOf, objectiveValue, OBJECTIVES, violation, type Constraint, type ObjectiveName } from './objectives.js';
import { SeededRandom } from './random.js';
import { comboKey, enumerate, spaceSize, type SearchSpace } from './space.js';
import { TpeSampler } from './tpe.js';

export const SEARCH_METHODS = ['grid', 'random', 'tpe'] as const;
export type SearchMethod = (typeof SEARCH_METHODS)[number];

/** Runs jobs somewhere and answers with their rows, in job order. */
export interface JobRunner {
  run(jobs: readonly SweepJob[], onRow?: (row: SweepRow) => void): Promise<SweepRow[]>;
  /** A whole backtest (walk-forward's out-of-sample run) run there too; without it, it runs in this process. */
  backtest?(job: BacktestJob): Promise<BacktestResult>;
}

export interface SearchOptions {
  readonly space: SearchSpace;
  readonly method: SearchMethod;
  /** random and tpe: how many combinations to run. */
  readonly trials?: number;
  readonly seed: number;
  readonly objective: ObjectiveName;
  readonly constraints?: readonly Constraint[];
  /** tpe: proposals per batch (default 4). */
  readonly batch?: number;
  /** tpe: random trials first (default 10, or a quarter of a budget under 40, at least 4). */
  readonly startup?: number;
  /** tpe: stop clearly bad trials early (default true). */
  readonly prune?: boolean;
  /** The traded period of every run, for the prune checkpoints. */
  readonly period?: { readonly from: number; readonly to: number };
  /**
   * The strategy's verdict on a combination (undefined: accepted, else why not); the ones it refuses
   * are skipped, not run (a grid over two lengths holds a few impossible pairs). TPE counts a refused
   * proposal as an infeasible trial, so it learns to stay away, and proposes another in its place.
   */
  readonly accepts?: (params: Record<string, unknown>) => string | undefined;
}

export interface SearchResult {
  /** Every run, in the order it was proposed (`index` is its number). */
  readonly trials: readonly SweepRow[];
  /** Rows that met the constraints, best first; errors last. */
  readonly ranked: readonly SweepRow[];
  /** Rows left out of the ranking, with why. */
  readonly excluded: ReadonlyArray<{ readonly row: SweepRow; readonly reason: string }>;
  /** Combinations the strategy refused, not run (see `SearchOptions.accepts`). */
  readonly skipped?: ReadonlyArray<{ readonly params: Record<string, unknown>; readonly error: string }>;
}

/** Above this a grid is refused: sample it (`--random`) or optimise it (`--optimizer tpe`). */
export const MAX_GRID = 100_000;
const CHECKPOINTS = [0.25, 0.5, 0.75];
const PRUNE_PERCENTILE = 0.25;
const PRUNE_AFTER = 10;

export type JobMaker = (params: Record<string, unknown>, index: number, extra: { prune?: PruneSpec; stopOnFailure?: boolean }) => SweepJob;

export async function runSearch(options: SearchOptions, makeJob: JobMaker, runner: JobRunner, onRow?: (row: SweepRow) => void): Promise<SearchResult> {
  const constraints = options.constraints ?? [];
  const stopOnFailure = constraints.some((c) => c.kind === 'rules');
  const size = spaceSize(options.space);
  const skipped: Array<{ params: Record<string, unknown>; error: string }> = [];
  let trials: SweepRow[];
  if (options.method === 'tpe') {
    trials = await runTpe(options, makeJob, runner, stopOnFailure, skipped, onRow);
  } else {
    let combos: Record<string, unknown>[];
    if (options.method === 'grid') {
      if (size > MAX_GRID) {
        throw new ConfigError('--grid', `${size} combinations are too many to run all (at most ${MAX_GRID}); sample them with --random N or search them with --optimizer tpe --trials N`);
      }
      combos = enumerate(options.space);
    } else {
      const n = need(options.trials, '--random');
      // Sampled among the combinations the strategy accepts, so --random N is N runs, as TPE's --trials.
      combos = size <= MAX_GRID ? sampleCombinations(acceptedOnly(enumerate(options.space), options.accepts, skipped), n, options.seed) : uniqueDraws(options.space, n, options.seed);
    }
    combos = acceptedOnly(combos, options.accepts, skipped);
    if (combos.length === 0 && skipped.length > 0) {
      throw new ConfigError('--grid', `the strategy refuses every combination; the first: ${skipped[0]!.error}`);
    }
    trials = await runner.run(combos.map((p, i) => makeJob(p, i, stopOnFailure ? { stopOnFailure } : {})), onRow);
  }
  return { ...rank(trials, options.objective, constraints), skipped };
}

function need(n: number | undefined, flag: string): number {
  if (n === undefined || !Number.isSafeInteger(n) || n < 1) throw new ConfigError(flag, `expected the number of trials, a whole number ≥ 1, got ${String(n)}`);
  return n;
}

function uniqueDraws(space: SearchSpace, n: number, seed: number): Record<string, unknown>[] {
  const rng = new SeededRandom(seed);
  const seen = new Set<string>();
  const out: Record<string, unknown>[] = [];
  for (let tries = 0; out.length < n && tries < n * 100; tries += 1) {
    const p: Record<string, unknown> = {};
    for (const d of space) p[d.key] = d.values[rng.below(d.values.length)];
    const key = comboKey(space, p);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}

async function runTpe(
  options: SearchOptions,
  makeJob: JobMaker,
  runner: JobRunner,
  stopOnFailure: boolean,
  skipped: Array<{ params: Record<string, unknown>; error: string }>,
  onRow?: (row: SweepRow) => void,
): Promise<SweepRow[]> {
  const budget = need(options.trials, '--trials');
  const batch = options.batch ?? 4;
  // Ten random trials first (Optuna's default), fewer for a small budget so the model gets a say.
  const startup = options.startup ?? Math.min(10, Math.max(4, Math.floor(budget / 4)));
  const sampler = new TpeSampler(options.space, { seed: options.seed, startup });
  const rows: SweepRow[] = [];
  // Refused proposals are observations too (infeasible), never runs: the budget is of backtests.
  const refused: Array<{ params: Record<string, unknown>; loss: null }> = [];
  const prune = options.prune !== false && options.period !== undefined;
  const checkpoints = prune ? CHECKPOINTS.map((f) => Math.round(options.period!.from + f * (options.period!.to - options.period!.from))) : [];
  while (rows.length < budget) {
    const history = [...rows.map((r) => ({ params: r.params, loss: lossOf(r, options.objective) })), ...refused];
    const proposals = sampler.propose(history, [], Math.min(batch, budget - rows.length));
    if (proposals.length === 0) break;
    const runnable: Record<string, unknown>[] = [];
    for (const params of proposals) {
      const error = options.accepts?.(params);
      if (error === undefined) runnable.push(params);
      else {
        refused.push({ params, loss: null });
        skipped.push({ params, error });
      }
    }
    if (runnable.length === 0) continue;
    const pruneSpec = prune ? { checkpoints, minReturnPct: pruneFloors(rows, checkpoints.length) } : undefined;
    const jobs = runnable.map((p, i) =>
      makeJob(p, rows.length + i, { ...(pruneSpec ? { prune: pruneSpec } : {}), ...(stopOnFailure ? { stopOnFailure } : {}) }),
    );
    rows.push(...(await runner.run(jobs, onRow)));
  }
  if (rows.length === 0 && skipped.length > 0) {
    throw new ConfigError('--grid', `the strategy refuses every combination TPE proposed; the first: ${skipped[0]!.error}`);
  }
  return rows;
}

/** The combinations the strategy accepts; the others go to `skipped` with its reason. */
function acceptedOnly(
  combos: Record<string, unknown>[],
  accepts: SearchOptions['accepts'],
  skipped: Array<{ params: Record<string, unknown>; error: string }>,
): Record<string, unknown>[] {
  if (accepts === undefined) return combos;
  const kept: Record<string, unknown>[] = [];
  for (const params of combos) {
    const error = accepts(params);
    if (error === undefined) kept.push(params);
    else skipped.push({ params, error });
  }
  return kept;
}

/** Per checkpoint, the 25th percentile of the returns finished trials had there (null until ten did). */
export function pruneFloors(rows: readonly SweepRow[], n: number): Array<number | null> {
  const finished = rows.filter((r) => r.ok && !r.stopped && r.checkpoints && r.checkpoints.length === n);
  if (finished.length < PRUNE_AFTER) return new Array<number | null>(n).fill(null);
  return Array.from({ length: n }, (_, i) => {
    const xs = finished.map((r) => r.checkpoints![i]!).sort((a, b) => a - b);
    return xs[Math.floor(PRUNE_PERCENTILE * (xs.length - 1))]!;
  });
}

/** Constraints applied, then the objective: best first, rows without a figure and errors after. */
export function rank(trials: readonly SweepRow[], objective: ObjectiveName, constraints: readonly Constraint[]): SearchResult {
  const excluded: Array<{ row: SweepRow; reason: string }> = [];
  const kept: SweepRow[] = [];
  for (const row of trials) {
    const why = row.ok ? violation(row, constraints) : null;
    if (why) excluded.push({ row, reason: why });
    else kept.push(row);
  }
  const sign = OBJECTIVES[objective].better === 'higher' ? -1 : 1;
  const ranked = [...kept].sort((a, b) => {
    const va = objectiveValue(a, objective);
    const vb = objectiveValue(b, objective);
    if (va === null && vb === null) return (a.ok ? 0 : 1) - (b.ok ? 0 : 1) || a.index - b.index;
    if (va === null) return 1;
    if (vb === null) return -1;
    return sign * (va - vb) || a.index - b.index;
  });
  return { trials, ranked, excluded };
}
