import { describe, expect, it } from 'vitest';
import { lossOf, objectiveValue, parseConstraint, violation } from '../../src/research/objectives.js';
import { rank } from '../../src/research/search.js';
import type { SweepRow } from '../../src/runtime/sweep.js';

function row(index: number, over: Partial<SweepRow> & { returnPct?: string; maxDrawdownPct?: string } = {}): SweepRow {
  const { returnPct = '1', maxDrawdownPct = '2', ...rest } = over;
  return {
    index,
    params: { n: index },
    ok: true,
    summary: { returnPct, maxDrawdownPct, sharpe: null },
    challenge: { passed: false, failedRule: null, daysToTarget: null },
    prop: { passProbability: 0.25, medianDaysToPass: 9, worstDailyHeadroomPct: '40' },
    ...rest,
  };
}

describe('objectives and constraints', () => {
  it('reads figures the way each objective counts: higher or lower is better', () => {
    expect(objectiveValue(row(0), 'passProbability')).toBe(0.25);
    expect(lossOf(row(0), 'passProbability')).toBe(-0.25);
    expect(lossOf(row(0), 'daysToTarget')).toBe(9);
    expect(lossOf(row(0), 'dailyHeadroom')).toBe(-40);
    // no figure (no trade), a stopped run or an error: no value at all
    expect(objectiveValue(row(0), 'sharpe')).toBeNull();
    expect(objectiveValue(row(0, { stopped: { at: 1, reason: 'pruned' } }), 'returnPct')).toBeNull();
    expect(objectiveValue({ index: 1, params: {}, ok: false, error: 'x' }, 'returnPct')).toBeNull();
  });

  it('parses constraints and says which one a row breaks', () => {
    expect(parseConstraint('rules')).toEqual({ kind: 'rules' });
    const dd = parseConstraint('maxDrawdownPct<=8');
    expect(violation(row(0, { maxDrawdownPct: '8' }), [dd])).toBeNull();
    expect(violation(row(0, { maxDrawdownPct: '8.5' }), [dd])).toBe('maxDrawdownPct<=8 not met (8.5)');
    expect(violation(row(0, { challenge: { passed: false, failedRule: 'max_daily_drawdown', daysToTarget: null } }), [parseConstraint('rules')])).toBe('failed max_daily_drawdown');
    expect(violation(row(0, { stopped: { at: 1, reason: 'failed_rule' }, challenge: null }), [parseConstraint('rules')])).toBe('failed a challenge rule');
    expect(() => parseConstraint('drawdown<5')).toThrow(/--constraint: expected one of returnPct.*got "drawdown"$/);
    expect(() => parseConstraint('maxDrawdownPc<=8')).toThrow(/got "maxDrawdownPc"; did you mean "maxDrawdownPct"\?$/);
    expect(() => parseConstraint('maxDrawdownPct=5')).toThrow(/expected 'rules' or NAME<=N/);
  });

  it('ranks what meets the constraints best first, leaves the rest out with the reason, errors last', () => {
    const rows = [
      row(0, { returnPct: '3', maxDrawdownPct: '9' }),
      row(1, { returnPct: '2' }),
      { index: 2, params: { n: 2 }, ok: false, error: 'bad parameter' },
      row(3, { returnPct: '5', challenge: { passed: false, failedRule: 'max_total_drawdown', daysToTarget: null } }),
      row(4, { returnPct: '1' }),
      row(5, { returnPct: '9', stopped: { at: 5, reason: 'pruned' } }),
    ];
    const r = rank(rows, 'returnPct', [parseConstraint('rules'), parseConstraint('maxDrawdownPct<=8')]);
    expect(r.ranked.map((x) => x.index)).toEqual([1, 4, 2]);
    expect(r.excluded.map((e) => [e.row.index, e.reason])).toEqual([
      [0, 'maxDrawdownPct<=8 not met (9)'],
      [3, 'failed max_total_drawdown'],
      [5, 'pruned'],
    ]);
    // without constraints the rule-failing run is only ranked, and the pruned one still left out
    expect(rank(rows, 'returnPct', []).ranked.map((x) => x.index)).toEqual([3, 0, 1, 4, 2]);
  });
});
