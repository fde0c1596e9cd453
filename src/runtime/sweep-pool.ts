/**
 * A pool of sweep worker threads that lives across batches: an optimizer asks for a few runs at a
 * time, and starting threads (each loads propbot and the strategy) for every batch would cost more
 * than the runs.
 */
import { Worker } from 'node:worker_threads';
import type { SweepJob, SweepRow } from './sweep.js';

export class SweepPool {
  readonly size: number;
  #workers: Worker[] = [];

  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`SweepPool: size must be a whole number ≥ 1, got ${size}`);
    this.size = size;
  }

  /** Run the jobs, at most `size` at once; resolves with the rows in job order. */
  async run(jobs: readonly SweepJob[], onRow?: (row: SweepRow, done: number, total: number) => void): Promise<SweepRow[]> {
    const rows: SweepRow[] = new Array(jobs.length);
    let next = 0;
    let done = 0;
    const lanes = Math.min(this.size, jobs.length);
    while (this.#workers.length < lanes) this.#workers.push(startWorker());
    await Promise.all(
      this.#workers.slice(0, lanes).map(async (worker, lane) => {
        for (;;) {
          const i = next;
          if (i >= jobs.length) break;
          next += 1;
          const row = await runOne(this.#workers[lane] ?? worker, jobs[i]!, () => {
            // a thread that died is replaced, so one crash does not shrink the pool
            this.#workers[lane] = startWorker();
          });
          rows[i] = row;
          done += 1;
          onRow?.(row, done, jobs.length);
        }
      }),
    );
    return rows;
  }

  async close(): Promise<void> {
    const workers = this.#workers;
    this.#workers = [];
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

function startWorker(): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./sweep-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  // From source (tests, tsx) the worker is TypeScript too and needs tsx's loader.
  return new Worker(url, { execArgv: fromSource ? ['--import', 'tsx'] : [] });
}

function runOne(worker: Worker, job: SweepJob, onDead: () => void): Promise<SweepRow> {
  return new Promise((resolve) => {
    const onMessage = (row: SweepRow): void => {
      cleanup();
      resolve(row);
    };
    const onError = (error: Error): void => {
      cleanup();
      onDead();
      resolve({ index: job.index, params: job.params, ok: false, error: `worker failed: ${error.message}` });
    };
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(job);
  });
}
