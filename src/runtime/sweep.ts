/**
 * Parameter sweeps: the job and row types, grid parsing and combinations. Running and ranking them is
 * `research/search.ts` (grid, random or TPE) on the thread pool of `sweep-pool.ts`.
 */
import { ConfigError } from '../core/errors.js';

/** A market of a job: its local data file and, when the data was given as a URL, the URL. */
export interface JobMarket {
  readonly asset: string;
  readonly file: string;
  readonly url?: string;
  readonly category?: string;
  readonly layout?: string;
  readonly preset?: string;
}

/** What a worker needs to run one backtest: plain data only (it crosses a thread boundary). */
export interface SweepJob {
  readonly index: number;
  readonly params: Record<string, unknown>;
  readonly strategy: string;
  readonly baseParams: Record<string, unknown>;
  readonly markets: readonly JobMarket[];
  readonly balance: string;
  readonly accountType: string;
  readonly phase?: string;
  readonly from?: number;
  readonly to?: number;
  readonly seed: string;
  readonly risk?: Record<string, unknown>;
  readonly cwd: string;
  /** Trade from here on (unix ms); the replay from `from` warms the strategy up. */
  readonly tradeFrom?: number;
  /** Stop the run early when the account fails a challenge rule (the combination is excluded anyway). */
  readonly stopOnFailure?: boolean;
  /** Stop the run early when its return at a checkpoint is under the floor other trials set there. */
  readonly prune?: PruneSpec;
}

/** Checkpoint times (unix ms) and the least return (percent) a run must have at each; null: no floor yet. */
export interface PruneSpec {
  readonly checkpoints: readonly number[];
  readonly minReturnPct: ReadonlyArray<number | null>;
}

export interface SweepRow {
  readonly index: number;
  readonly params: Record<string, unknown>;
  readonly ok: boolean;
  readonly error?: string;
  readonly summary?: Record<string, unknown>;
  readonly challenge?: { passed: boolean; failedRule: string | null; daysToTarget: number | null } | null;
  /** Rolling-start challenge odds (see report/prop-odds.ts); percent figures as decimal strings. */
  readonly prop?: { passProbability: number | null; medianDaysToPass: number | null; worstDailyHeadroomPct: string | null } | null;
  /** Return (percent) at each prune checkpoint reached. */
  readonly checkpoints?: readonly number[];
  /** Set when the run was stopped early: when, and why. */
  readonly stopped?: { at: number; reason: 'pruned' | 'failed_rule' };
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

