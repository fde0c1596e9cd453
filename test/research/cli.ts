/**
 * The research tests' child processes: `propbot …` runs and `propbot worker`s, from the build, each
 * with the working directory and environment a test gives it (a cache folder of its own, say); and
 * the sweep job most of them run.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import type { SweepJob } from '../../src/runtime/sweep.js';
import { REPO } from '../backtest/helpers.js';
import { COINBASE_BTC_1H } from '../data.js';

export const BIN = path.join(REPO, 'bin/propbot.js');
export const BTC = COINBASE_BTC_1H;

export interface RunOptions {
  readonly cwd?: string;
  /** Added to this process's environment. */
  readonly env?: Record<string, string>;
}

export function propbot(args: string[], o: RunOptions = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: o.cwd ?? REPO, env: { ...process.env, ...o.env }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  log: string;
  /** Resolves when a line matching `re` has been printed. */
  until(re: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** `propbot worker --queue url` with a short stall time, so a killed worker's run moves on quickly. */
export function startWorker(url: string, extra: string[] = [], o: RunOptions = {}): WorkerProcess {
  const child = spawn(process.execPath, [BIN, 'worker', '--queue', url, '--stall-ms', '1500', ...extra], {
    cwd: o.cwd ?? REPO,
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const waiters: Array<{ re: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  const w: WorkerProcess = {
    child,
    log: '',
    until: (re) =>
      new Promise((resolve) => {
        const m = w.log.match(re);
        if (m) resolve(m);
        else waiters.push({ re, resolve });
      }),
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  const onData = (b: Buffer): void => {
    w.log += b.toString();
    for (const waiter of [...waiters]) {
      const m = w.log.match(waiter.re);
      if (m) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(m);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return w;
}

/** SIGTERM, and SIGKILL if it has not exited 20 s later: a failing test must not leave a worker behind. */
export async function stopWorker(w: WorkerProcess): Promise<void> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  const timer = setTimeout(() => w.child.kill('SIGKILL'), 20_000);
  await w.exited;
  clearTimeout(timer);
}

/** `fn` with a worker that is ready, stopped after whatever `fn` does. */
export async function withWorker<T>(url: string, extra: string[], o: RunOptions, fn: (w: WorkerProcess) => Promise<T>): Promise<T> {
  const w = startWorker(url, extra, o);
  try {
    await w.until(/worker ready/);
    return await fn(w);
  } finally {
    await stopWorker(w);
  }
}

/** A sweep job of the SMA example on the shipped hourly BTC data (fast 3, slow 12 unless `over` says). */
export function smaJob(from: number, to: number, over: Partial<SweepJob> = {}): SweepJob {
  return {
    index: 0,
    params: { fast: 3, slow: 12 },
    strategy: path.join(REPO, 'strategies/sma-cross.ts'),
    baseParams: { period: '1h', amount: '15000', leverage: '3' },
    markets: [{ asset: 'BTC', file: BTC }],
    balance: '100000',
    accountType: 'real',
    seed: 'propbot',
    cwd: REPO,
    from,
    to,
    ...over,
  };
}

/** A sweep's rows keyed by their parameters, without the wall time (the only figure that may differ). */
export function byParams(sweep: { ranked: Array<Record<string, unknown>> }): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const { wallMs: _w, index: _i, ...row } of sweep.ranked) {
    const key = JSON.stringify(row['params']);
    expect(out.has(key), `${key} reported twice`).toBe(false);
    out.set(key, row);
  }
  return out;
}
