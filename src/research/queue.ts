/**
 * Sweeps across machines on BullMQ over Redis. The coordinator (`propbot sweep|walkforward --queue`)
 * turns each run into a job; `propbot worker --queue` on any number of machines takes them.
 *
 * Nothing lost, nothing counted twice:
 * - A job's id is its scenario hash (data, strategy and propbot build, see `fingerprint.ts`) and the
 *   hash of the run itself, so adding it twice adds it once.
 * - A worker writes its row into the Redis hash `propbot:results:<scenario hash>` under the run's hash
 *   with HSETNX: a job a stalled worker finished after another took it over writes nothing new.
 * - A worker that dies mid-job (SIGKILL, a machine lost) stops renewing its lock; BullMQ's stalled-job
 *   check hands the job to another worker. The coordinator reads rows from the hash only, one per run.
 * - A row already in the hash (an earlier run of the same sweep) is used as it is, not computed again.
 * - A worker whose data or build differs refuses the job (the error names both hashes) and the
 *   coordinator stops with that error.
 * The backtest runs on a worker thread, so the worker's own thread stays free to renew its locks.
 */
import path from 'node:path';
import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { ConfigError, PropbotError } from '../core/errors.js';
import { SweepPool } from '../runtime/sweep-pool.js';
import type { SweepJob, SweepRow } from '../runtime/sweep.js';
import { fingerprintOf, mismatch, stableHash, type Fingerprint } from './fingerprint.js';
import type { JobRunner } from './search.js';

export const QUEUE_NAME = 'propbot-runs';
const PREFIX = 'propbot';
/** Rows stay this long after their last write; a sweep run again within it reuses them. */
const RESULT_TTL_S = 7 * 86_400;

/** `redis://[user:password@]HOST:PORT[/DB]` to BullMQ connection options. */
export function redisConnection(url: string): ConnectionOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError('--queue', `expected redis://HOST:PORT, got ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'redis:' || !u.hostname) throw new ConfigError('--queue', `expected redis://HOST:PORT, got ${JSON.stringify(url)}`);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  if (!Number.isSafeInteger(db) || db < 0) throw new ConfigError('--queue', `database in ${JSON.stringify(url)} must be a whole number`);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    db,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    // BullMQ workers block on Redis; it asks for no per-request retry limit.
    maxRetriesPerRequest: null,
  };
}

interface QueuedRun {
  readonly job: SweepJob;
  readonly fingerprint: Fingerprint;
  readonly scenario: string;
  readonly run: string;
}

/** What decides a row: the job without its position in this sweep. */
function runHash(job: SweepJob): string {
  const { index: _index, ...rest } = job;
  return stableHash(rest);
}

function filesOf(job: SweepJob): string[] {
  return [...job.markets.map((m) => m.file), job.strategy];
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

  constructor(url: string, options: { pollMs?: number } = {}) {
    const connection = redisConnection(url);
    this.#queue = new Queue(QUEUE_NAME, { connection, prefix: PREFIX });
    this.#results = new Redis(connection as RedisOptions);
    this.#pollMs = options.pollMs ?? 200;
  }

  async run(jobs: readonly SweepJob[], onRow?: (row: SweepRow) => void): Promise<SweepRow[]> {
    const client = this.#results;
    const queued: QueuedRun[] = jobs.map((job) => {
      const fingerprint = fingerprintOf(filesOf(job));
      return { job, fingerprint, scenario: stableHash({ fingerprint, strategy: job.strategy }).slice(0, 24), run: runHash(job) };
    });
    const rows: Array<SweepRow | undefined> = new Array(jobs.length);
    const take = (i: number, raw: string): void => {
      const row = { ...(JSON.parse(raw) as SweepRow), index: jobs[i]!.index };
      rows[i] = row;
      onRow?.(row);
    };
    for (const [i, q] of queued.entries()) {
      const stored = await client.hget(resultsKey(q.scenario), q.run);
      if (stored !== null) {
        take(i, stored);
        continue;
      }
      await this.#queue.add('run', q, {
        jobId: `${q.scenario}-${q.run}`,
        attempts: 3,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: { age: 86_400 },
      });
    }
    for (;;) {
      const open = queued.map((q, i) => ({ q, i })).filter(({ i }) => rows[i] === undefined);
      if (open.length === 0) break;
      for (const { q, i } of open) {
        const stored = await client.hget(resultsKey(q.scenario), q.run);
        if (stored !== null) {
          take(i, stored);
          continue;
        }
        const id = `${q.scenario}-${q.run}`;
        if ((await this.#queue.getJobState(id)) === 'failed') {
          const job = (await this.#queue.getJob(id)) as Job | undefined;
          const reason = job?.failedReason ?? 'unknown';
          await this.#queue.remove(id).catch(() => undefined);
          if (reason.startsWith('mismatch: ')) throw new MismatchError(`a worker refused the run: ${reason.slice(10)}`);
          throw new PropbotError('queue_run_failed', `run ${jobs[i]!.index} (${JSON.stringify(jobs[i]!.params)}) failed on a worker: ${reason}`);
        }
      }
      await new Promise((r) => setTimeout(r, this.#pollMs));
    }
    return rows as SweepRow[];
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
  readonly log?: (line: string) => void;
}

/** The worker's side: take jobs until `close()`. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<{ close: () => Promise<void> }> {
  const threads = options.threads ?? 1;
  const pool = new SweepPool(threads);
  const log = options.log ?? (() => undefined);
  const stallMs = options.stallMs ?? 30_000;
  const connection = redisConnection(options.url);
  const results = new Redis(connection as RedisOptions);
  const local = (file: string): string => (options.dataDir !== undefined ? path.join(options.dataDir, path.basename(file)) : file);
  const worker: Worker<QueuedRun, boolean> = new Worker<QueuedRun, boolean>(
    QUEUE_NAME,
    async (bull: Job<QueuedRun>): Promise<boolean> => {
      const q = bull.data;
      const dataFiles = new Set(q.job.markets.map((m) => m.file));
      const job: SweepJob = { ...q.job, markets: q.job.markets.map((m) => ({ ...m, file: local(m.file) })) };
      const mine = fingerprintOf(filesOf(job));
      const byCoordinatorPath: Fingerprint = {
        propbot: mine.propbot,
        files: Object.fromEntries(Object.keys(q.fingerprint.files).flatMap((f) => {
          const h = mine.files[dataFiles.has(f) ? local(f) : f];
          return h === undefined ? [] : [[f, h]];
        })),
      };
      const why = mismatch(q.fingerprint, byCoordinatorPath, (f) => (dataFiles.has(f) ? `data file ${local(f)}` : `strategy ${f}`));
      if (why) {
        log(`refused run ${q.job.index}: ${why}`);
        throw new UnrecoverableError(`mismatch: ${why}`);
      }
      log(`run ${q.job.index} ${JSON.stringify(q.job.params)} started`);
      const [row] = await pool.run([job]);
      const key = resultsKey(q.scenario);
      const { index: _index, ...stored } = row!;
      const fresh = await results.hsetnx(key, q.run, JSON.stringify(stored));
      await results.expire(key, RESULT_TTL_S);
      log(`run ${q.job.index} ${fresh ? 'done' : 'done (already stored by another worker)'}`);
      return fresh === 1;
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
  worker.on('error', (err: Error) => log(`queue error: ${err.message}`));
  await worker.waitUntilReady();
  return {
    close: async () => {
      await worker.close();
      await pool.close();
      results.disconnect();
    },
  };
}
