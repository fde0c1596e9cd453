/**
 * The search options `propbot sweep` and `propbot walkforward` share, their parsing, and where the
 * runs go (worker threads here, or a Redis queue). Both command files and their bodies import this;
 * nothing here imports them back.
 */
import { Option, type Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { locateConfigError } from '../core/config-file.js';
import { ConfigError } from '../core/errors.js';
import { redisUrlProblem } from '../core/redis-url.js';
import { objectiveOf, parseConstraint, type ObjectiveName } from '../research/objectives.js';
import { SEARCH_METHODS, type JobRunner, type SearchMethod } from '../research/search.js';
import { searchSpace, spaceSize, type SearchSpace } from '../research/space.js';
import type { Scenario } from '../runtime/scenario.js';
import { SweepPool } from '../runtime/sweep-pool.js';
import { parseGrid } from '../runtime/sweep.js';
import { availableParallelism } from 'node:os';
import { collect, parsePositiveInt } from './args.js';
import type { BacktestCliOptions } from './commands/backtest.js';

export interface SearchCliOptions extends BacktestCliOptions {
  grid?: string[];
  random?: number;
  seed?: number;
  metric?: string;
  objective?: string;
  optimizer?: SearchMethod;
  trials?: number;
  batch?: number;
  constraint?: string[];
  prune?: boolean;
  workers?: number;
  /** A Redis URL, or false for `--no-queue`. */
  queue?: string | false;
  top?: number;
}

export interface WalkForwardCliOptions extends SearchCliOptions {
  train?: string;
  test?: string;
  step?: string;
  anchored?: boolean;
  warmup?: string;
}

/** Backwards name kept: `propbot sweep`'s options are the search options. */
export type SweepCliOptions = SearchCliOptions;

export function addSearchOptions(command: Command): Command {
  return command
    .option('--grid <key=v1,v2,...>', 'values to try for one parameter; lo..hi[:step] is a range (repeatable; the space is every combination)', collect)
    .addOption(new Option('--optimizer <method>', 'grid (every combination), random (--random N) or tpe (a Parzen-estimator search that learns, --trials N)').choices([...SEARCH_METHODS]))
    .option('--random <n>', 'run only n combinations drawn at random from the grid', parsePositiveInt)
    .option('--trials <n>', 'budget of the tpe optimizer (combinations run)', parsePositiveInt)
    .option('--seed <n>', 'seed of the random draw and of the optimizer (default 1)', parsePositiveInt)
    .option('--objective <name>', 'what to maximise (or minimise): returnPct (default), sharpe, sortino, profitFactor, winRate, netPnl, maxDrawdownPct, passProbability, daysToTarget, dailyHeadroom')
    .option('--metric <name>', 'older name of --objective')
    .option('--constraint <rule>', "exclude what breaks it: 'rules' (no challenge rule failed) or NAME<=N, NAME>=N (repeatable)", collect)
    .option('--batch <n>', 'tpe: trials proposed together (default 4; the same seed and batch give the same trials)', parsePositiveInt)
    .option('--no-prune', 'tpe: run every trial to its end (default: stop clearly bad ones early)')
    .option('--workers <n>', 'worker threads (default: one, and more up to the number of cores once the runs show another would finish sooner)', parsePositiveInt)
    .option('--queue <redis-url>', "run on workers taking jobs from Redis (redis://HOST:PORT; start them with propbot worker); overrides the scenario's research.queue", parseQueueUrl)
    .option('--no-queue', "run here on worker threads even when the scenario names a queue (research.queue)")
    .option('--top <n>', 'rows shown in the table (default 20)', parsePositiveInt);
}

function parseQueueUrl(value: string): string {
  const problem = redisUrlProblem(value);
  if (problem !== null) throw new InvalidArgumentError(problem);
  return value;
}

export interface SearchChoice {
  readonly space: SearchSpace;
  readonly grid: Record<string, unknown[]>;
  readonly method: SearchMethod;
  readonly trials?: number;
  readonly seed: number;
  readonly objective: ObjectiveName;
  readonly constraints: ReturnType<typeof parseConstraint>[];
  readonly batch?: number;
  readonly prune: boolean;
}

/** The search the flags ask for, checked. */
export function searchChoice(opts: SearchCliOptions): SearchChoice {
  const grid = parseGrid(opts.grid ?? []);
  if (opts.metric !== undefined && opts.objective !== undefined) throw new ConfigError('--metric', 'give --objective or --metric, not both');
  const objective = opts.metric !== undefined ? objectiveOf(opts.metric, '--metric') : objectiveOf(opts.objective ?? 'returnPct');
  const method: SearchMethod = opts.optimizer ?? (opts.trials !== undefined ? 'tpe' : opts.random !== undefined ? 'random' : 'grid');
  if (method === 'tpe' && opts.trials === undefined) throw new ConfigError('--trials', 'the tpe optimizer needs a budget: --trials N');
  if (method === 'random' && opts.random === undefined) throw new ConfigError('--random', 'a random search needs the number of draws: --random N');
  if (method !== 'tpe' && opts.trials !== undefined) throw new ConfigError('--trials', `is the tpe optimizer's budget; with --optimizer ${method} use ${method === 'random' ? '--random N' : 'no budget'}`);
  const trials = method === 'tpe' ? opts.trials : method === 'random' ? opts.random : undefined;
  return {
    space: searchSpace(grid),
    grid,
    method,
    seed: opts.seed ?? 1,
    objective,
    constraints: (opts.constraint ?? []).map(parseConstraint),
    prune: opts.prune !== false,
    ...(trials !== undefined ? { trials } : {}),
    ...(opts.batch !== undefined ? { batch: opts.batch } : {}),
  };
}

/** The runs one search of `choice` makes: the whole grid, or the optimizer's budget (no more than the space holds). */
export function searchRuns(choice: SearchChoice): number {
  const size = spaceSize(choice.space);
  return choice.method === 'grid' ? size : Math.min(choice.trials!, size);
}

/**
 * Worker threads here, or the Redis queue: `--queue`, else the scenario's `research.queue` (unless
 * `--no-queue`). A queue that does not answer is an error naming the flag, or the key and its line.
 * `close` when done.
 */
export async function jobRunner(
  opts: Pick<SearchCliOptions, 'workers' | 'queue'>,
  jobs: number,
  scenario?: Pick<Scenario, 'research' | 'file'>,
): Promise<JobRunner & { close(): Promise<void> }> {
  const fromConfig = opts.queue === undefined ? scenario?.research?.queue : undefined;
  const url = opts.queue === false ? undefined : (opts.queue ?? fromConfig);
  if (url !== undefined) {
    const { RedisJobRunner } = await import('../research/queue.js');
    try {
      return await RedisJobRunner.open(url, fromConfig !== undefined ? { where: 'research.queue' } : {});
    } catch (err) {
      throw fromConfig !== undefined && scenario?.file !== undefined ? locateConfigError(err, scenario.file) : err;
    }
  }
  // Without --workers, a sweep or a walk-forward (whose runs are counted beforehand) starts one
  // worker, and more (up to the cores) once its runs show another would pay, weighing all its runs,
  // not only the batch an optimizer asks for.
  const adaptive = opts.workers === undefined && Number.isFinite(jobs);
  const debug = process.env['PROPBOT_DEBUG'] ? (line: string) => process.stderr.write(`propbot: workers: ${line}\n`) : undefined;
  const pool = new SweepPool(Math.max(1, Math.min(opts.workers ?? availableParallelism(), jobs)), {
    adaptive,
    ...(adaptive ? { expectedRuns: jobs } : {}),
    ...(debug ? { onGrow: (n: number) => debug(`${n} (another pays)`) } : {}),
  });
  debug?.(
    pool.size > pool.workers
      ? `${pool.workers} to start, up to ${pool.size} once the runs show another would pay (${jobs} runs)`
      : `${pool.workers} (${opts.workers !== undefined ? '--workers' : 'the cores'}; ${Number.isFinite(jobs) ? `${jobs} runs` : 'runs not counted'})`,
  );
  return { run: (list, onRow) => pool.run(list, (row) => onRow?.(row)), close: () => pool.close() };
}
