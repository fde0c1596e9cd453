/**
 * The console summary's reasons for "not passed": each requirement of the phase the run did not meet,
 * and nothing when it lacks none.
 */
import { describe, expect, it } from 'vitest';
import { unmet } from '../../src/cli/backtest-run.js';
import type { ReportSummaryJson } from '../../src/report/write.js';

type Challenge = NonNullable<ReportSummaryJson['challenge']>;

const rules: Challenge['rules'] = {
  profitTargetPct: '8',
  maxDailyDrawdownPct: '5',
  maxTotalDrawdownPct: '10',
  maxTrailingDrawdownPct: null,
  minProfitableDays: 5,
  consistencyLimitPct: '40',
  profitableDayPct: '0.5',
};
const base: Challenge = {
  phase: 'active_verification',
  passed: false,
  failedRule: null,
  failedAt: null,
  targetReachedAt: '2021-05-01T10:00:00.000Z',
  daysToTarget: 11,
  tradingDays: 20,
  profitableDays: 6,
  bestDay: '2021-05-01',
  bestDayPnl: '3000',
  bestDayShare: '30',
  consistencyMet: true,
  transitions: [],
  rules,
};

describe('unmet: what a run that neither passed nor failed lacks', () => {
  it('names the target, the profitable days and the consistency limit, each with its figures', () => {
    expect(unmet({ ...base, targetReachedAt: null, daysToTarget: null })).toBe(' (profit target +8% not reached)');
    expect(unmet({ ...base, profitableDays: 2 })).toBe(' (2 of 5 profitable days)');
    expect(unmet({ ...base, bestDayShare: '62.5', consistencyMet: false })).toBe(' (best day 62.5% of the profit, over the 40% consistency limit)');
    expect(unmet({ ...base, targetReachedAt: null, profitableDays: 0, consistencyMet: false, bestDayShare: '100' })).toBe(
      ' (profit target +8% not reached; 0 of 5 profitable days; best day 100% of the profit, over the 40% consistency limit)',
    );
  });

  it('asks only what the phase asks: no target, no minimum of days, no limit', () => {
    const none = { ...rules, profitTargetPct: null, minProfitableDays: null, consistencyLimitPct: null };
    expect(unmet({ ...base, rules: none, targetReachedAt: null, profitableDays: 0, consistencyMet: null })).toBe('');
    expect(unmet(base)).toBe('');
  });
});
