/**
 * Sweeps across machines on BullMQ over Redis. The coordinator (`propbot sweep|walkforward --queue`)
 * turns each run into a job; `propbot worker --queue` on any number of machines takes them. A job is
 * a sweep run (answered with its row of figures) or a whole backtest (walk-forward's stitched
 * out-of-sample run, answered with its full result), stored and read back the same way.
 *
 * Nothing lost, nothing counted twice:
 * - A job's id is its scenario hash (data, strategy and propbot build, see `fingerprint.ts`) and the
 *   hash of the run itself, so adding it twice adds it once.
 * - A worker writes its answer into the Redis hash `propbot:results:<scenario hash>` under the run's
 *   hash with HSETNX: a job a stalled worker finished after another took it over writes nothing new.
 * - A worker that dies mid-job (SIGKILL, a machine lost) stops renewing its lock; BullMQ's stalled-job
 *   check hands the job to another worker. The coordinator reads answers from the hash only, one per run.
 * - An answer already in the hash (an earlier run of the same sweep) is used as it is, not computed again.
 * - A worker whose data or build differs refuses the job (the error names both hashes) and the
 *   coordinator stops with that error.
 * The backtest runs on a worker thread, so the worker's own thread stays free to renew its locks.
 *
 * Where a worker finds the data: a URL it fetches itself (its cache keeps files by content hash, so a
 * file it holds is not fetched again); a path under the coordinator's working directory under its own
 * `dataRoot` when it has one; any path by file name in its `dataDir`; else the coordinator's path.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { ConfigError, PropbotError } from '../core/errors.js';
import { parseRedisUrl, redactRedisUrl } from '../core/redis-url.js';
import { DataFetchError, fetchDataFile } from '../feed/files/remote.js';
import { decodeResult } from '../report/result-codec.js';
import type { BacktestResult } from '../report/types.js';
import type { BacktestJob } from '../runtime/backtest-job.js';
import { SweepPool } from '../runtime/sweep-pool.js';
import type { JobMarket, SweepJob, SweepRow } from '../runtime/sweep.js';
import { fingerprintOf, mismatch, stableHash, type Fingerprint } from './fingerprint.js';
import type { JobRunner } from './search.js';

export const QUEUE_NAME = 'propbot-runs';
const PREFIX = 'propbot';
/** Answers stay this long after their last write; a sweep run again within it reuses them. */
const RESULT_TTL_S = 7 * 86_400;

/** `redis://[user:password@]HOST:PORT[/DB]` to BullMQ connection options. */
export function redisConnection(url: string, where = '--queue'): ConnectionOptions {
  return {
    ...parseRedisUrl(url, where),
    // BullMQ workers block on Redis; it asks for no per-request retry limit.
    maxRetriesPerRequest: null,
  };
}

type Run = { readonly kind: 'sweep'; readonly job: SweepJob } | { readonly kind: 'backtest'; readonly job: BacktestJob };

type QueuedRun = Run & {
  readonly fingerprint: Fingerprint;
  readonly scenario: string;
  readonly run: string;
  /** The coordinator's working directory: what a worker's `dataRoot` stands for. */
  readonly cwd: string;
};

/** What decides an answer: the job without its position in this sweep or the local copy of URL data. */
function runHash(run: Run): string {
  const { index: _index, ...rest } = run.job as SweepJob;
  return stableHash({ kind: run.kind, ...rest, markets: run.job.markets.map(dataName) });
}

function dataName(m: JobMarket): JobMarket {
  return m.url !== undefined ? { ...m, file: m.url } : m;
}

function strategyFiles(run: Run): string[] {
  return run.kind === 'sweep' ? [run.job.strategy] : [...new Set(run.job.strategies.map((s) => s.use))];
}

function describeRun(run: Run): string {
  return run.kind === 'sweep' ? `run ${run.job.index} (${JSON.stringify(run.job.params)})` : `backtest "${run.job.name}"`;
}

const resultsKey = (scenario: string): string => `${PREFIX}:results:${scenario}`;

/** A worker's data or build is not the coordinator's. */
export class MismatchError extends PropbotError {
  constructor(message: string) {
    super('queue_mismatch', message);
  }
}

/** The coordinator's side: a `JobRunner` whose jobs run on whichever workers take them. */
export class RedisJobRunner implements JobRunner {
  readonly #queue: Queue;
  readonly #results: Redis;
  readonly #pollMs: number;

  /** A runner on the queue at `url`, once Redis answers there (a ConfigError at `where` when it does not). */
  static async open(url: string, options: { pollMs?: number; where?: string } = {}): Promise<RedisJobRunner> {
    const where = options.where ?? '--queue';
    const connection = redisConnection(url, where);
    // One try, not BullMQ's endless reconnecting: a wrong address is the user's to fix, now.
    const probe = new Redis({ ...(connection as RedisOptions), lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5000 });
    // The error event says why (ECONNREFUSED); the rejection only that the connection closed.
    let cause: Error | undefined;
    probe.on('error', (err: Error) => {
      cause ??= err;
    });
    try {
      await probe.connect();
      await probe.ping();
    } catch (err) {
      throw new ConfigError(where, `cannot reach the queue at ${redactRedisUrl(url)}: ${(cause ?? (err as Error)).message}`);
    } finally {
      probe.disconnect();
    }
    return new RedisJobRunner(url, options);
  }

  constructor(url: string, options: { pollMs?: number; where?: string } = {}) {
    const connection = redisConnection(url, options.where);
    this.#queue = new Queue(QUEUE_NAME, { connection, prefix: PREFIX });
    this.#results = new Redis(connection as RedisOptions);
    this.#pollMs = options.pollMs ?? 200;
    // Redis lost mid-sweep: say so once, and wait for it to come back (the clients reconnect).
    let warned = false;
    const lost = (err: Error): void => {
      if (warned) return;
      warned = true;
      process.stderr.write(`propbot: lost the queue at ${redactRedisUrl(url)} (${err.message}); waiting for it to come back\n`);
    };
    this.#queue.on('error', lost);
    this.#results.on('error', lost);
    this.#results.on('ready', () => {
      warned = false;
    });
  }

  async run(jobs: readonly SweepJob[], onRow?: (row: SweepRow) => void): Promise<SweepRow[]> {
    const rows: SweepRow[] = new Array(jobs.length);
    await this.#complete(
      jobs.map((job) => ({ kind: 'sweep', job })),
      (i, text) => {
        const row = { ...(JSON.parse(text) as SweepRow), index: jobs[i]!.index };
        rows[i] = row;
        onRow?.(row);
      },
    );
    return rows;
  }

  async backtest(job: BacktestJob): Promise<BacktestResult> {
    let text = '';
    await this.#complete([{ kind: 'backtest', job }], (_i, answer) => {
      text = answer;
    });
    return decodeResult(text);
  }

  /** Queue the runs not answered yet, then wait until every one is, calling `take` once for each. */
  async #complete(runs: readonly Run[], take: (i: number, text: string) => void): Promise<void> {
    const client = this.#results;
    const cwd = process.cwd();
    const queued: QueuedRun[] = runs.map((run) => {
      const fingerprint = fingerprintOf([
        ...run.job.markets.map((m) => ({ key: m.url ?? m.file, file: m.file })),
        ...strategyFiles(run).map((f) => ({ key: f, file: f })),
      ]);
      return { ...run, fingerprint, scenario: stableHash({ fingerprint, strategy: strategyFiles(run) }).slice(0, 24), run: runHash(run), cwd };
    });
    const done = new Array<boolean>(runs.length).fill(false);
    const answered = async (i: number): Promise<boolean> => {
      const stored = await client.hget(resultsKey(queued[i]!.scenario), queued[i]!.run);
      if (stored === null) return false;
      done[i] = true;
      take(i, stored);
      return true;
    };
    for (const [i, q] of queued.entries()) {
      if (await answered(i)) continue;
      await this.#queue.add(q.kind, q, {
        jobId: `${q.scenario}-${q.run}`,
        attempts: 3,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: { age: 86_400 },
      });
    }
    while (done.includes(false)) {
      for (const [i, q] of queued.entries()) {
        if (done[i] || (await answered(i))) continue;
        const id = `${q.scenario}-${q.run}`;
        if ((await this.#queue.getJobState(id)) === 'failed') {
          const job = (await this.#queue.getJob(id)) as Job | undefined;
          const reason = job?.failedReason ?? 'unknown';
          await this.#queue.remove(id).catch(() => undefined);
          if (reason.startsWith('mismatch: ')) throw new MismatchError(`a worker refused the run: ${reason.slice(10)}`);
          throw new PropbotError('queue_run_failed', `${describeRun(q)} failed on a worker: ${reason}`);
        }
      }
      await new Promise((r) => setTimeout(r, this.#pollMs));
    }
  }

  async close(): Promise<void> {
    await this.#queue.close();
    this.#results.disconnect();
  }
}

export interface QueueWorkerOptions {
  readonly url: string;
  /** Backtests run at once (worker threads); default 1. */
  readonly threads?: number;
  /** How long a job's lock lasts without renewal before another worker may take the job (ms). */
  readonly stallMs?: number;
  /** Read data files from here (by file name) instead of the coordinator's paths. */
  readonly dataDir?: string;
  /** Read data files under the coordinator's working directory from the same place under this folder. */
  readonly dataRoot?: string;
  /** Where fetched URL data is kept (default: `dataCacheDir()`). */
  readonly cacheDir?: string;
  readonly log?: (line: string) => void;
}

/** How long a worker's close may take after its last run before its connections are cut. */
const CLOSE_GRACE_MS = 3_000;

/** The worker's side: take jobs until `close()`. */
export async function startQueueWorker(given: QueueWorkerOptions): Promise<{ close: () => Promise<void> }> {
  if (given.dataDir !== undefined && given.dataRoot !== undefined) throw new ConfigError('--data-root', 'give --data-root or --data-dir, not both');
  const options: QueueWorkerOptions = {
    ...given,
    ...(given.dataDir !== undefined ? { dataDir: folder(given.dataDir, '--data-dir') } : {}),
    ...(given.dataRoot !== undefined ? { dataRoot: folder(given.dataRoot, '--data-root') } : {}),
  };
  const threads = options.threads ?? 1;
  const pool = new SweepPool(threads);
  const log = options.log ?? (() => undefined);
  const stallMs = options.stallMs ?? 30_000;
  const connection = redisConnection(options.url);
  const results = new Redis(connection as RedisOptions);
  let inHand = 0;
  let idle: (() => void) | undefined;
  const worker: Worker<QueuedRun, boolean> = new Worker<QueuedRun, boolean>(
    QUEUE_NAME,
    async (bull: Job<QueuedRun>): Promise<boolean> => {
      inHand += 1;
      try {
        return await runJob(bull.data);
      } finally {
        inHand -= 1;
        if (inHand === 0) idle?.();
      }
    },
    {
      connection,
      prefix: PREFIX,
      concurrency: threads,
      lockDuration: stallMs,
      stalledInterval: stallMs,
      maxStalledCount: 3,
    },
  );
  /** One run taken from the queue: its result stored once, whichever worker stores it first. */
  async function runJob(q: QueuedRun): Promise<boolean> {
    const run = await onThisMachine(q);
    const what = q.kind === 'sweep' ? `run ${q.job.index} ${JSON.stringify(q.job.params)}` : `backtest "${q.job.name}"`;
    log(`${what} started`);
    let answer: string;
    if (run.kind === 'sweep') {
      const [row] = await pool.run([run.job]);
      const { index: _index, ...stored } = row!;
      answer = JSON.stringify(stored);
    } else {
      answer = await pool.backtest(run.job);
    }
    const key = resultsKey(q.scenario);
    const fresh = await results.hsetnx(key, q.run, answer);
    await results.expire(key, RESULT_TTL_S);
    log(`${q.kind === 'sweep' ? `run ${q.job.index}` : what} ${fresh ? 'done' : 'done (already stored by another worker)'}`);
    return fresh === 1;
  }
  // Every connection reports each failed reconnect; the log says once that the queue is gone and once
  // that it is back. A worker may start before the queue does, and then waits for it.
  let ready = false;
  let down: string | null = null;
  const lost = (err: Error): void => {
    if (down === err.message) return;
    down = err.message;
    log(`${ready ? 'queue lost' : 'waiting for the queue'} at ${redactRedisUrl(options.url)}: ${err.message} (the worker keeps trying; Ctrl-C to stop)`);
  };
  worker.on('error', lost);
  results.on('error', lost);
  results.on('ready', () => {
    if (down !== null && ready) log('queue reachable again');
    down = null;
  });
  await worker.waitUntilReady();
  ready = true;
  down = null;
  return {
    close: async () => {
      const closing = worker.close().then(
        () => true,
        () => true,
      );
      // Once the runs in hand are done, BullMQ's close can still wait forever on its blocking
      // connection left reconnecting after the queue was lost and back (taskforcesh/bullmq#4656):
      // it gets a grace period, then the connections are cut.
      const runsDone = inHand === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
      const graceOver = runsDone.then(() => new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_GRACE_MS)));
      if (!(await Promise.race([closing, graceOver]))) {
        log(`the queue's connections did not close within ${CLOSE_GRACE_MS / 1000} s of the last run; cutting them`);
        // Not awaited: on that connection it can wait as long as close did.
        void worker.disconnect().catch(() => undefined);
      }
      await pool.close();
      results.disconnect();
    },
  };

  /** The run with its data files where this machine has them, refused unless every file is the coordinator's. */
  async function onThisMachine(q: QueuedRun): Promise<Run> {
    const what = q.kind === 'sweep' ? `run ${q.job.index}` : `backtest "${q.job.name}"`;
    const markets: JobMarket[] = [];
    for (const m of q.job.markets) {
      try {
        markets.push({ ...m, file: await localFile(m, q, options, log) });
      } catch (err) {
        if (!(err instanceof DataFetchError)) throw err;
        log(`${what}: ${err.message}`);
        // A 404 stays a 404: fail the job now rather than after every retry.
        throw err.permanent ? new UnrecoverableError(err.message) : err;
      }
    }
    const local = new Map(q.job.markets.map((m, i) => [m.url ?? m.file, markets[i]!]));
    const mine = fingerprintOf([
      ...q.job.markets.map((m, i) => ({ key: m.url ?? m.file, file: markets[i]!.file })),
      ...strategyFiles(q).map((f) => ({ key: f, file: f })),
    ]);
    const why = mismatch(q.fingerprint, mine, (key) => {
      const m = local.get(key);
      return m === undefined ? `strategy ${key}` : m.url !== undefined ? `data ${m.url}` : `data file ${m.file}`;
    });
    if (why) {
      log(`refused ${what}: ${why}`);
      throw new UnrecoverableError(`mismatch: ${why}`);
    }
    return q.kind === 'sweep' ? { kind: 'sweep', job: { ...q.job, markets } } : { kind: 'backtest', job: { ...q.job, markets } };
  }
}

/** Where this machine reads a market's data (see the module comment); `log` hears of a download. */
async function localFile(m: JobMarket, q: QueuedRun, o: QueueWorkerOptions, log: (line: string) => void): Promise<string> {
  if (m.url !== undefined) {
    const sha256 = q.fingerprint.files[m.url];
    const got = await fetchDataFile(m.url, { ...(sha256 !== undefined ? { sha256 } : {}), ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}) });
    if (got.how !== 'cache') log(`data ${m.url} fetched into ${got.file}`);
    return got.file;
  }
  if (o.dataRoot !== undefined) {
    const relative = path.relative(q.cwd, m.file);
    if (relative !== '' && !path.isAbsolute(relative) && relative.split(path.sep)[0] !== '..') return path.join(o.dataRoot, relative);
  }
  if (o.dataDir !== undefined) return path.join(o.dataDir, path.basename(m.file));
  return m.file;
}

function folder(dir: string, flag: string): string {
  const full = path.resolve(dir);
  if (!existsSync(full) || !statSync(full).isDirectory()) throw new ConfigError(flag, `${full} is not a folder`);
  return full;
}
