/**
 * The guard keeps the figures derived from a risk read (floors, consistency) while the fields they are
 * made of stand, since a read comes with every price while a position is open. Every field that moves
 * must still move the floors, whether it comes in the same Decimal instance or a new one.
 */
import { describe, expect, it } from 'vitest';
import { ACCOUNT, D, position, positionsSnap, riskSnap, riskStatus, setup, T0 } from './builders.js';

const floors = (guard: ReturnType<typeof setup>['guard']): Record<string, string> =>
  Object.fromEntries(guard.accountView(ACCOUNT)!.floors.map((f) => [f.rule, f.floor.toString()]));

describe('base figures kept between risk reads', () => {
  it('follow a new day-start, a new balance and a new peak, and only the equity moves between them', () => {
    const base = riskStatus();
    const { guard } = setup({ risk: base, positions: [position()] });
    expect(floors(guard)).toMatchObject({ daily: '95000', total: '90000' });

    // Same instances but the equity: the floors stand.
    guard.observeRisk(riskSnap({ ...base, currentEquity: D(99000) }, T0));
    expect(floors(guard)).toMatchObject({ daily: '95000' });

    // A new day-start in a new instance moves the daily floor; an equal value in a new instance too is fine.
    guard.observeRisk(riskSnap({ ...base, currentEquity: D(99000), dayStartEquity: D(90000) }, T0));
    expect(floors(guard)).toMatchObject({ daily: '85500' });
    guard.observeRisk(riskSnap({ ...base, currentEquity: D(99000), dayStartEquity: D(100000) }, T0));
    expect(floors(guard)).toMatchObject({ daily: '95000' });

    // A new highest equity moves the trailing floor when the phase has one (configured here).
    const trailing = setup({ config: { drawdown: { phases: { active_evaluation: { daily: '0.05', total: '0.1', trailing: '0.08' } } } }, risk: base });
    expect(floors(trailing.guard)).toMatchObject({ trailing: '92000' });
    trailing.guard.observeRisk(riskSnap({ ...base, maxEquity: D(110000), currentEquity: D(110000) }, T0));
    expect(floors(trailing.guard)).toMatchObject({ trailing: '101200' });
  });

  it('without a highest equity the trailing base follows the equity of each read', () => {
    const base = riskStatus({ maxEquity: null });
    const { guard } = setup({ config: { drawdown: { phases: { active_evaluation: { daily: '0.05', total: '0.1', trailing: '0.08' } } } }, risk: base });
    expect(floors(guard)).toMatchObject({ trailing: '92000' });
    guard.observeRisk(riskSnap({ ...base, currentEquity: D(120000) }, T0));
    expect(floors(guard)).toMatchObject({ trailing: '110400' });
    // The positions read keeps the guard's equity from the risk read's balance, not the stale figure.
    guard.observePositions(positionsSnap([], 'BTC', T0));
    expect(floors(guard)).toMatchObject({ trailing: '110400' });
  });
});
