/** The figures report.json and report.html both show, computed once when both are written. */
import { computeChallenge, type ChallengeOutcome } from './challenge.js';
import { computeMetrics, dailyPnlOf, type ReportMetrics } from './metrics.js';
import type { BacktestResult, DailyPnl } from './types.js';

export interface ReportFigures {
  readonly days: readonly DailyPnl[];
  readonly metrics: ReportMetrics;
  readonly challenge: ChallengeOutcome | null;
}

export function reportFigures(result: BacktestResult): ReportFigures {
  const days = dailyPnlOf(result);
  return { days, metrics: computeMetrics(result, days), challenge: computeChallenge(result, days) };
}

