/**
 * What a search optimises and what it refuses. An objective reads one figure of a sweep row and says
 * which way is better; a constraint excludes a row from the ranking altogether (it is listed, not
 * ranked low). Rows from `runtime/sweep-job.ts` carry the backtest summary, the challenge verdict and
 * the rolling-start odds of `report/prop-odds.ts`.
 */
import { ConfigError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import type { SweepRow } from '../runtime/sweep.js';

interface ObjectiveSpec {
  readonly better: 'higher' | 'lower';
  readonly read: (row: SweepRow) => unknown;
  readonly about: string;
}

const summary = (key: string) => (row: SweepRow) => row.summary?.[key];

export const OBJECTIVES = {
  returnPct: { better: 'higher', read: summary('returnPct'), about: 'return, percent of the initial balance' },
  sharpe: { better: 'higher', read: summary('sharpe'), about: 'Sharpe ratio of daily returns (×√365)' },
  sortino: { better: 'higher', read: summary('sortino'), about: 'Sortino ratio of daily returns (×√365)' },
  profitFactor: { better: 'higher', read: summary('profitFactor'), about: 'gross profit over gross loss of closed trades' },
  winRate: { better: 'higher', read: summary('winRate'), about: 'percent of closed trades that won' },
  netPnl: { better: 'higher', read: summary('netPnl'), about: 'net pnl' },
  maxDrawdownPct: { better: 'lower', read: summary('maxDrawdownPct'), about: 'largest drawdown, percent of the peak' },
  passProbability: { better: 'higher', read: (r) => r.prop?.passProbability, about: 'share of rolling daily starts that pass the phase' },
  daysToTarget: { better: 'lower', read: (r) => r.prop?.medianDaysToPass, about: 'median days to pass, over the rolling starts that pass' },
  dailyHeadroom: { better: 'higher', read: (r) => r.prop?.worstDailyHeadroomPct, about: 'least headroom to the daily floor on any day, percent of the allowance' },
} as const satisfies Record<string, ObjectiveSpec>;

export type ObjectiveName = keyof typeof OBJECTIVES;
export const OBJECTIVE_NAMES = Object.keys(OBJECTIVES) as ObjectiveName[];

export function objectiveOf(value: string, flag = '--objective'): ObjectiveName {
  if (value in OBJECTIVES) return value as ObjectiveName;
  throw new ConfigError(flag, `expected one of ${OBJECTIVE_NAMES.join(', ')}, got ${JSON.stringify(value)}${didYouMean(value, OBJECTIVE_NAMES)}`);
}

/** The objective's figure of a finished, unstopped row; null when it has none (no trade, no pass…). */
export function objectiveValue(row: SweepRow, name: ObjectiveName): number | null {
  if (!row.ok || row.stopped) return null;
  const raw = OBJECTIVES[name].read(row);
  if (raw === null || raw === undefined) return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

/** Lower is better: what the optimizer minimises. */
export function lossOf(row: SweepRow, name: ObjectiveName): number | null {
  const v = objectiveValue(row, name);
  return v === null ? null : OBJECTIVES[name].better === 'higher' ? -v : v;
}

/** `rules` (no challenge rule failed) or `<objective><op><number>`, e.g. `maxDrawdownPct<=8`. */
export type Constraint = { readonly kind: 'rules' } | { readonly kind: 'bound'; readonly objective: ObjectiveName; readonly op: '<' | '<=' | '>' | '>='; readonly value: number; readonly text: string };

const BOUND = /^([A-Za-z]+)\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)$/;

export function parseConstraint(text: string): Constraint {
  const t = text.trim();
  if (t === 'rules') return { kind: 'rules' };
  const m = BOUND.exec(t);
  if (!m) throw new ConfigError('--constraint', `expected 'rules' or NAME<=N (NAME one of ${OBJECTIVE_NAMES.join(', ')}), got ${JSON.stringify(text)}`);
  return { kind: 'bound', objective: objectiveOf(m[1]!, '--constraint'), op: m[2] as '<' | '<=' | '>' | '>=', value: Number(m[3]), text: t };
}

/** Why a row is excluded, or null when it satisfies every constraint. */
export function violation(row: SweepRow, constraints: readonly Constraint[]): string | null {
  if (!row.ok) return `error: ${row.error ?? 'unknown'}`;
  if (row.stopped?.reason === 'pruned') return 'pruned';
  for (const c of constraints) {
    if (c.kind === 'rules') {
      const failed = row.challenge?.failedRule ?? (row.stopped?.reason === 'failed_rule' ? 'a challenge rule' : null);
      if (failed) return `failed ${failed}`;
      continue;
    }
    const raw = OBJECTIVES[c.objective].read(row);
    const v = raw === null || raw === undefined ? NaN : Number(raw);
    const ok = Number.isFinite(v) && (c.op === '<' ? v < c.value : c.op === '<=' ? v <= c.value : c.op === '>' ? v > c.value : v >= c.value);
    if (!ok) return `${c.text} not met (${Number.isFinite(v) ? v : 'none'})`;
  }
  return null;
}
