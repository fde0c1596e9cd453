/**
 * A pool of sweep worker threads that lives across batches: an optimizer asks for a few runs at a
 * time, and starting threads (each loads propbot and the strategy) for every batch would cost more
 * than the runs. Each run has a thread to itself: a thread is lent to one run and handed back when
 * its answer came, so runs asked for at the same time (a queue worker's concurrent jobs) never share
 * one or read each other's answers.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { workerYoungGeneration } from '../core/young-generation.js';
import { anotherWorkerPays, type RunSample } from './sweep-growth.js';
import type { BacktestJob } from './backtest-job.js';
import type { SweepJob, SweepRow } from './sweep.js';

/** What a thread is sent, and what it answers. */
export type PoolTask = { readonly kind: 'sweep'; readonly job: SweepJob } | { readonly kind: 'backtest'; readonly job: BacktestJob };
export type PoolAnswer = { readonly kind: 'sweep'; readonly row: SweepRow } | { readonly kind: 'backtest'; readonly text?: string; readonly error?: string };

export interface SweepPoolOptions {
  /**
   * Start with one worker and add one, up to `size`, only when the first worker's runs say it would
   * finish the runs left clearly sooner (sweep-growth.ts). The CLI's default when `--workers` is not given.
   */
  readonly adaptive?: boolean;
  /** Cores the growth rule may count on; default the machine's. */
  readonly cores?: number;
  /** Told each time a worker is added: how many there are now. */
  readonly onGrow?: (workers: number) => void;
  /** The growth rule; default `anotherWorkerPays` (tests give one that does not depend on timings). */
  readonly grows?: typeof anotherWorkerPays;
  /**
   * Runs the whole search will ask for, over all its batches (an optimizer asks a few at a time): the
   * growth rule weighs the runs left in it, not only in the batch at hand. Default: the batch's.
   */
  readonly expectedRuns?: number;
}

export class SweepPool {
  readonly size: number;
  readonly #all = new Set<Worker>();
  #idle: Worker[] = [];
  readonly #waiting: Array<(worker: Worker) => void> = [];
  readonly #adaptive: boolean;
  readonly #cores: number;
  readonly #onGrow: ((workers: number) => void) | undefined;
  readonly #grows: typeof anotherWorkerPays;
  readonly #expectedRuns: number | undefined;
  /** Runs started by every `run` so far. */
  #started = 0;
  /** Runs that may go at once: `size`, or (adaptive) as many as the growth rule has allowed so far. */
  #allowed: number;
  /** The first worker's runs while it ran alone, for the growth rule. */
  readonly #samples: RunSample[] = [];

  constructor(size: number, options: SweepPoolOptions = {}) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`SweepPool: size must be a whole number ≥ 1, got ${size}`);
    this.size = size;
    this.#adaptive = options.adaptive === true && size > 1;
    this.#cores = options.cores ?? availableParallelism();
    this.#onGrow = options.onGrow;
    this.#grows = options.grows ?? anotherWorkerPays;
    this.#expectedRuns = options.expectedRuns;
    this.#allowed = this.#adaptive ? 1 : size;
  }

  /** Workers that may run at once now. */
  get workers(): number {
    return this.#allowed;
  }

  /** Threads started and alive. */
  get threads(): number {
    return this.#all.size;
  }

  /** Run the jobs, at most `workers` at once (adaptive: more as it grows); resolves with the rows in job order. */
  async run(jobs: readonly SweepJob[], onRow?: (row: SweepRow, done: number, total: number) => void): Promise<SweepRow[]> {
    const rows: SweepRow[] = new Array(jobs.length);
    let next = 0;
    let done = 0;
    let lanes = 0;
    const running: Promise<void>[] = [];
    const lane = async (): Promise<void> => {
      for (;;) {
        const i = next;
        if (i >= jobs.length) break;
        next += 1;
        this.#started += 1;
        const job = jobs[i]!;
        const alone = lanes === 1 && this.#adaptive && this.#allowed === 1;
        const wall0 = performance.now();
        const cpu0 = alone ? process.cpuUsage() : undefined;
        const answer = await this.#ask({ kind: 'sweep', job });
        if (cpu0 !== undefined && answer.kind === 'sweep' && answer.row.ok) {
          const cpu = process.cpuUsage(cpu0);
          this.#samples.push({ wallMs: performance.now() - wall0, cpuMs: (cpu.user + cpu.system) / 1000 });
        }
        const row = answer.kind === 'sweep' ? answer.row : { index: job.index, params: job.params, ok: false, error: answer.error ?? 'no answer' };
        rows[i] = row;
        done += 1;
        onRow?.(row, done, jobs.length);
        this.#maybeGrow(jobs.length - next, () => {
          lanes += 1;
          running.push(lane());
        });
      }
    };
    for (let n = Math.min(this.#allowed, jobs.length); lanes < n; ) {
      lanes += 1;
      running.push(lane());
    }
    // Lanes added while others run join the list; wait until none is left to wait for.
    for (let seen = 0; seen < running.length; ) {
      const batch = running.slice(seen);
      seen = running.length;
      await Promise.all(batch);
    }
    return rows;
  }

  /** `inBatch`: the runs of this `run` not started yet; a new lane takes them, later batches start with it. */
  #maybeGrow(inBatch: number, addLane: () => void): void {
    if (!this.#adaptive || this.#allowed >= this.size) return;
    const remaining = this.#expectedRuns === undefined ? inBatch : Math.max(inBatch, this.#expectedRuns - this.#started);
    if (!this.#grows(this.#samples, remaining, this.#allowed, this.#cores)) return;
    this.#allowed += 1;
    this.#onGrow?.(this.#allowed);
    if (inBatch > 0) addLane();
  }

  /** Run a whole backtest on a thread; its result as `result-codec` text. */
  async backtest(job: BacktestJob): Promise<string> {
    const answer = await this.#ask({ kind: 'backtest', job });
    if (answer.kind !== 'backtest' || answer.text === undefined) throw new Error(answer.kind === 'backtest' ? (answer.error ?? 'no answer') : 'unexpected answer');
    return answer.text;
  }

  async close(): Promise<void> {
    const workers = [...this.#all];
    this.#all.clear();
    this.#idle = [];
    await Promise.all(workers.map((w) => w.terminate()));
  }

  async #ask(task: PoolTask): Promise<PoolAnswer> {
    const worker = await this.#acquire();
    const { answer, dead } = await askThread(worker, task);
    this.#release(worker, dead);
    return answer;
  }

  #acquire(): Promise<Worker> {
    const idle = this.#idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.#all.size < this.size) return Promise.resolve(this.#start());
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(worker: Worker, dead: boolean): void {
    // a thread that died is replaced, so one crash does not shrink the pool
    if (dead) {
      this.#all.delete(worker);
      void worker.terminate();
    }
    const waiter = this.#waiting.shift();
    if (waiter) waiter(dead ? this.#start() : worker);
    else if (!dead) this.#idle.push(worker);
  }

  #start(): Worker {
    const fromSource = import.meta.url.endsWith('.ts');
    // By way of the folder, which holds wherever the build puts this code (in the bundle, import.meta.url is
    // this module's own dist/ file; scripts/bundle.ts).
    const url = new URL(`../runtime/sweep-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
    // Each run's young generation as a backtest's own (young-generation.ts), not doubled to 32 MB.
    const resourceLimits = workerYoungGeneration();
    const worker = fromSource ? new Worker(tsxBoot(url), { eval: true, resourceLimits }) : new Worker(url, { resourceLimits });
    this.#all.add(worker);
    return worker;
  }
}

/**
 * From source (tests, tsx) the worker is TypeScript too and needs tsx's loader. Node 20 does not apply
 * `--import tsx` given in a worker's execArgv to the worker's own entry, so a small script registers
 * tsx's hooks first and then imports the entry. tsx is found from here, not from the working directory.
 */
function tsxBoot(entry: URL): string {
  const pkgFile = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(path.join(path.dirname(pkgFile), pkg.exports['./esm/api']!.import.default)).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}

function askThread(worker: Worker, task: PoolTask): Promise<{ answer: PoolAnswer; dead: boolean }> {
  return new Promise((resolve) => {
    const onMessage = (answer: PoolAnswer): void => {
      cleanup();
      resolve({ answer, dead: false });
    };
    const onError = (error: Error): void => {
      cleanup();
      const message = `worker failed: ${error.message}`;
      const answer: PoolAnswer =
        task.kind === 'sweep' ? { kind: 'sweep', row: { index: task.job.index, params: task.job.params, ok: false, error: message } } : { kind: 'backtest', error: message };
      resolve({ answer, dead: true });
    };
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(task);
  });
}
