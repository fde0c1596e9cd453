/**
 * Parameter sweeps: every combination of a grid (or a seeded random sample of it) backtested on worker
 * threads, ranked by a chosen metric, each with its challenge verdict. A combination that fails (a
 * parameter the strategy refuses, say) is reported with its error instead of stopping the sweep.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ConfigError } from '../core/errors.js';

export const SWEEP_METRICS = ['returnPct', 'sharpe', 'sortino', 'profitFactor', 'winRate', 'maxDrawdownPct', 'netPnl'] as const;
export type SweepMetric = (typeof SWEEP_METRICS)[number];
/** Lower is better for these. */
const ASCENDING: ReadonlySet<SweepMetric> = new Set(['maxDrawdownPct']);

/** What a worker needs to run one backtest: plain data only (it crosses a thread boundary). */
export interface SweepJob {
  readonly index: number;
  readonly params: Record<string, unknown>;
  readonly strategy: string;
  readonly baseParams: Record<string, unknown>;
  readonly markets: ReadonlyArray<{ asset: string; file: string; category?: string; layout?: string; preset?: string }>;
  readonly balance: string;
  readonly accountType: string;
  readonly phase?: string;
  readonly from?: number;
  readonly to?: number;
  readonly seed: string;
  readonly risk?: Record<string, unknown>;
  readonly cwd: string;
}

export interface SweepRow {
  readonly index: number;
  readonly params: Record<string, unknown>;
  readonly ok: boolean;
  readonly error?: string;
  readonly summary?: Record<string, unknown>;
  readonly challenge?: { passed: boolean; failedRule: string | null; daysToTarget: number | null } | null;
  readonly wallMs?: number;
}

/** Every combination of the grid, in a stable order (the last key varies fastest). */
export function gridCombinations(grid: Readonly<Record<string, readonly unknown[]>>): Record<string, unknown>[] {
  const keys = Object.keys(grid);
  let combos: Record<string, unknown>[] = [{}];
  for (const key of keys) {
    const values = grid[key]!;
    if (values.length === 0) throw new ConfigError(`--grid ${key}`, 'has no values');
    combos = combos.flatMap((c) => values.map((v) => ({ ...c, [key]: v })));
  }
  return combos;
}

/** `count` combinations drawn without replacement by a seeded shuffle (all of them when fewer exist). */
export function sampleCombinations<T>(all: readonly T[], count: number, seed: number): T[] {
  const out = [...all];
  let state = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: small, seedable, good enough to pick combinations.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out.slice(0, Math.min(count, out.length));
}

/** Parse `key=v1,v2,…` grid flags; values are JSON where they parse (numbers, booleans), else strings. */
export function parseGrid(flags: readonly string[]): Record<string, unknown[]> {
  const grid: Record<string, unknown[]> = {};
  for (const flag of flags) {
    const i = flag.indexOf('=');
    if (i <= 0) throw new ConfigError('--grid', `expected key=v1,v2,…, got ${JSON.stringify(flag)}`);
    const key = flag.slice(0, i);
    const values = flag
      .slice(i + 1)
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v.length > 0)
      .map((v) => {
        try {
          return JSON.parse(v) as unknown;
        } catch {
          return v;
        }
      });
    if (values.length === 0) throw new ConfigError(`--grid ${key}`, 'expected at least one value');
    grid[key] = values;
  }
  if (Object.keys(grid).length === 0) throw new ConfigError('--grid', 'expected at least one --grid key=v1,v2,…');
  return grid;
}

/** Sort rows best first by `metric`; failed runs and missing figures go last. */
export function rankRows(rows: readonly SweepRow[], metric: SweepMetric): SweepRow[] {
  const value = (r: SweepRow): number | null => {
    const v = r.summary?.[metric];
    if (v === null || v === undefined) return null;
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  };
  const sign = ASCENDING.has(metric) ? 1 : -1;
  return [...rows].sort((a, b) => {
    const va = a.ok ? value(a) : null;
    const vb = b.ok ? value(b) : null;
    if (va === null && vb === null) return a.index - b.index;
    if (va === null) return 1;
    if (vb === null) return -1;
    return sign * (va - vb) || a.index - b.index;
  });
}

export interface SweepRunOptions {
  readonly workers?: number;
  readonly onRow?: (row: SweepRow, done: number, total: number) => void;
}

/** Run every job on a pool of worker threads; resolves with the rows in job order. */
export async function runSweep(jobs: readonly SweepJob[], options: SweepRunOptions = {}): Promise<SweepRow[]> {
  const size = Math.max(1, Math.min(options.workers ?? availableParallelism(), jobs.length));
  const rows: SweepRow[] = new Array(jobs.length);
  let nextJob = 0;
  let done = 0;
  const workerUrl = new URL(`./sweep-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  // From source (tests, tsx) the worker is TypeScript too and needs tsx's loader.
  const execArgv = import.meta.url.endsWith('.ts') ? ['--import', 'tsx'] : [];
  await Promise.all(
    Array.from({ length: size }, async () => {
      const worker = new Worker(workerUrl, { execArgv });
      try {
        for (;;) {
          const i = nextJob;
          if (i >= jobs.length) break;
          nextJob += 1;
          const row = await runOne(worker, jobs[i]!);
          rows[i] = row;
          done += 1;
          options.onRow?.(row, done, jobs.length);
        }
      } finally {
        await worker.terminate();
      }
    }),
  );
  return rows;
}

function runOne(worker: Worker, job: SweepJob): Promise<SweepRow> {
  return new Promise((resolve) => {
    const onMessage = (row: SweepRow): void => {
      cleanup();
      resolve(row);
    };
    const onError = (error: Error): void => {
      cleanup();
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

export function metricOf(value: string): SweepMetric {
  if ((SWEEP_METRICS as readonly string[]).includes(value)) return value as SweepMetric;
  throw new ConfigError('--metric', `expected one of ${SWEEP_METRICS.join(', ')}, got ${JSON.stringify(value)}`);
}
