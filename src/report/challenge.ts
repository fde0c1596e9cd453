/**
 * The challenge verdict of a run. The engine decides failures (it checks the floors on every price);
 * this module adds what the rules say about the whole run: target reached, profitable days, and the
 * consistency of the profit (the best day's share of it), over the whole run.
 */
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import type { Phase } from '../api/types.js';
import { toFp9Raw } from '../core/fp9.js';
import { firstAtOrAbove } from './equity-sample.js';
import { dailyPnlOf, finalEquityOf, tradingDaysOf } from './metrics.js';
import type { BacktestResult, DailyPnl } from './types.js';

const DAY_MS = 86_400_000;

export interface ChallengeOutcome {
  readonly phase: Phase;
  /**
   * Not failed, and every requirement the phase has is met: profit target (if any) reached, at least
   * `minProfitableDays` profitable days (if any), consistency (if any) met. A phase without a target
   * (funded) passes by not failing.
   */
  readonly passed: boolean;
  readonly failedRule: string | null;
  readonly failedAt: number | null;
  /** When equity first reached the target; null if never (or no target). */
  readonly targetReachedAt: number | null;
  /** Ordinal of the UTC day the target was first reached, the run's first day being day 1. */
  readonly daysToTarget: number | null;
  /** UTC days with at least one fill. */
  readonly tradingDays: number;
  /** UTC days whose pnl reached `profitableDayPct` of the initial balance. */
  readonly profitableDays: number;
  readonly bestDay: string | null;
  readonly bestDayPnl: Decimal | null;
  /** Best day's pnl as a percent of the run's net pnl; null unless both are positive. */
  readonly bestDayShare: Decimal | null;
  /** `bestDayShare ≤ consistencyLimitPct`; null when the phase has no limit or the share is undefined. */
  readonly consistencyMet: boolean | null;
}

/** `days`: the run's daily pnl when the caller already has it (`dailyPnlOf(result)`). */
export function computeChallenge(result: BacktestResult, days: readonly DailyPnl[] = dailyPnlOf(result)): ChallengeOutcome | null {
  const c = result.challenge;
  if (!c) return null;
  const initial = result.initialBalance;
  // The engine's verdict comes first: once it moved the account out of the starting phase, that
  // phase was passed then, whatever the equity samples (taken once a minute) happened to catch.
  const promoted = c.transitions?.find((t) => t.from === c.phase && t.to !== 'failed') ?? null;
  let targetReachedAt: number | null = promoted?.at ?? null;
  if (targetReachedAt === null && c.profitTargetPct !== null) {
    const target = initial.times(new Dec(1).plus(c.profitTargetPct.div(100)));
    // equity ≥ target ⟺ its fp9 integer ≥ ⌈target × 10^9⌉: one integer comparison a sample.
    const targetRaw = toFp9Raw(target, 'ceil', 'profit target');
    targetReachedAt = firstAtOrAbove(result.equity, initial, targetRaw);
  }
  const firstDay = Math.floor(result.startTime / DAY_MS);
  const daysToTarget = targetReachedAt === null ? null : Math.floor(targetReachedAt / DAY_MS) - firstDay + 1;
  const threshold = initial.times(c.profitableDayPct).div(100);
  const profitableDays = days.filter((d) => d.pnl.gt(0) && d.pnl.gte(threshold)).length;
  let best: (typeof days)[number] | undefined;
  for (const d of days) if (!best || d.pnl.gt(best.pnl)) best = d;
  const netPnl = finalEquityOf(result).minus(initial);
  const bestDayShare = best && best.pnl.gt(0) && netPnl.gt(0) ? best.pnl.div(netPnl).times(100) : null;
  const consistencyMet = c.consistencyLimitPct === null || bestDayShare === null ? null : bestDayShare.lte(c.consistencyLimitPct);
  const tradingDays = tradingDaysOf(result);
  // A failure after the promotion belongs to the next phase, not to this one.
  const failure = c.failure !== null && (promoted === null || c.failure.at < promoted.at) ? c.failure : null;
  const passed =
    failure === null &&
    (promoted !== null ||
      ((c.profitTargetPct === null || targetReachedAt !== null) &&
        (c.minProfitableDays === null || profitableDays >= c.minProfitableDays) &&
        consistencyMet !== false));
  return {
    phase: c.phase,
    passed,
    failedRule: failure?.rule ?? null,
    failedAt: failure?.at ?? null,
    targetReachedAt,
    daysToTarget,
    tradingDays,
    profitableDays,
    bestDay: best?.day ?? null,
    bestDayPnl: best?.pnl ?? null,
    bestDayShare,
    consistencyMet,
  };
}
