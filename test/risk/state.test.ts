import { describe, expect, it } from 'vitest';
import type { Decimal } from 'decimal.js';
import type { GuardStateChange } from '../../src/risk/index.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { consistencyRule } from '../../src/risk/index.js';
import {
  account,
  ACCOUNT,
  cancelIntent,
  closeAllIntent,
  closeIntent,
  D,
  market,
  marketSnap,
  merge,
  only,
  openIntent,
  order,
  position,
  positionsSnap,
  protectIntent,
  riskSnap,
  riskStatus,
  setup,
  T0,
  ULP,
} from './builders.js';

function record(guard: ReturnType<typeof setup>['guard']) {
  const states: GuardStateChange[] = [];
  const intents: OrderIntent[] = [];
  guard.state$.subscribe((s) => states.push(s));
  guard.intents$.subscribe((i) => intents.push(i));
  return { states, intents };
}

describe('consistency rule', () => {
  // period start 100000, equity 101000: period profit 1000; limit 30% − buffer 2% = 28% → 280
  const consistent = (dayStart: Decimal, maxDelta: Decimal | null = null) =>
    riskStatus({
      currentEquity: D(101000),
      currentBalance: D(101000),
      dayStartEquity: dayStart,
      periodStartEquity: D(100000),
      maxPeriodDailyEquityDelta: maxDelta,
      consistencyRuleApplies: true,
    });

  it("today's gain up to 28% of the period profit passes; one unit more is denied", () => {
    const ok = setup({ config: only('consistency'), risk: consistent(D(100720)) }).guard;
    const i = openIntent();
    expect(consistencyRule(i, ok.context(i))).toBeUndefined();
    expect(ok.check(i).verdict).toBe('approved');
    const over = setup({ config: only('consistency'), risk: consistent(D(100720).minus(ULP)) }).guard;
    expect(consistencyRule(i, over.context(i))).toMatchObject({ code: 'consistency_limit' });
    expect(over.check(i).verdict).toBe('denied');
    expect(over.check(closeIntent()).verdict).toBe('approved');
  });

  it('does not apply when today is not the best day, when the rule does not apply, or without a period', () => {
    const i = openIntent();
    const notBest = setup({ config: only('consistency'), risk: consistent(D(100000), D(1000).plus(ULP)) }).guard;
    expect(consistencyRule(i, notBest.context(i))).toBeUndefined();
    const off = setup({ config: only('consistency'), risk: { ...consistent(D(100000)), consistencyRuleApplies: false } }).guard;
    expect(off.check(i).verdict).toBe('approved');
    const noPeriod = setup({ config: only('consistency'), risk: { ...consistent(D(100000)), periodStartEquity: null } }).guard;
    expect(noPeriod.check(i).verdict).toBe('approved');
  });

  it("applies when today's gain reaches the period's best day (a tie included), and not without a period profit", () => {
    const i = openIntent();
    // today's gain 1000 against a best earlier day of 1000 (a tie: today is a best day) and of 999
    for (const best of [D(1000), D(999)]) {
      const { guard } = setup({ config: only('consistency'), risk: consistent(D(100000), best) });
      expect(consistencyRule(i, guard.context(i))).toMatchObject({ code: 'consistency_limit' });
      expect(guard.state(ACCOUNT)).toBe('REDUCING');
      expect(guard.check(i).verdict).toBe('denied');
    }
    // today +1000 after earlier days that lost exactly as much: no period profit to take a share of
    const flat = setup({ config: only('consistency'), risk: { ...consistent(D(100000)), periodStartEquity: D(101000) } }).guard;
    expect(consistencyRule(i, flat.context(i))).toBeUndefined();
    expect(flat.check(i).verdict).toBe('approved');
  });

  it('latches REDUCING for the rest of the UTC day, even if the gain shrinks', () => {
    const { guard, clock } = setup({ config: only('consistency'), risk: consistent(D(100000)) });
    expect(guard.state(ACCOUNT)).toBe('REDUCING');
    expect(guard.stateReason(ACCOUNT)).toContain('consistency');
    const { states } = record(guard);
    guard.observeRisk(riskSnap(consistent(D(100900)), T0 + 1000));
    expect(guard.check(openIntent())).toMatchObject({ code: 'guard_reducing' });
    clock.set(Date.UTC(2021, 4, 20));
    guard.observeRisk(riskSnap(consistent(D(101000)), Date.UTC(2021, 4, 20)));
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    expect(states.at(-1)).toMatchObject({ from: 'REDUCING', to: 'ACTIVE' });
  });

  it("the next UTC day's first check lifts the latch by itself, with no tick or snapshot in between", () => {
    const { guard, clock } = setup({ config: only('consistency'), risk: consistent(D(100000)) });
    // the gain shrinks below the limit the same day: still REDUCING, latched
    guard.observeRisk(riskSnap(consistent(D(100900)), T0 + 1000));
    clock.set(Date.UTC(2021, 4, 20) - 1);
    expect(guard.check(openIntent())).toMatchObject({ code: 'guard_reducing' });
    clock.set(Date.UTC(2021, 4, 20));
    expect(guard.check(openIntent()).verdict).toBe('approved');
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
  });
});

describe('guard states', () => {
  it('publishes every change with its reason: locked → REDUCING, failed → HALTED, active → ACTIVE', () => {
    const { guard } = setup({ config: only('accountStatus') });
    const { states } = record(guard);
    guard.observeAccount(account({ status: 'trading_locked_by_funded_limit' }));
    guard.observeAccount(account({ status: 'failed' }));
    guard.observeAccount(account({ status: 'active' }));
    expect(states.map((s) => [s.from, s.to])).toEqual([
      ['ACTIVE', 'REDUCING'],
      ['REDUCING', 'HALTED'],
      ['HALTED', 'ACTIVE'],
    ]);
    expect(states[0]!.reason).toContain('trading_locked_by_funded_limit');
    expect(states[1]!.reason).toContain('failed');
  });

  it('REDUCING passes only reducing intents; HALTED only cancel and close_all', () => {
    const { guard } = setup({ config: only() });
    guard.reduce(ACCOUNT, 'operator');
    expect(guard.check(openIntent())).toMatchObject({ code: 'guard_reducing', rule: 'guard_state' });
    for (const i of [closeIntent(), protectIntent(), cancelIntent(), closeAllIntent()]) expect(guard.check(i).verdict).toBe('approved');
    guard.halt(ACCOUNT, 'operator');
    for (const i of [openIntent(), closeIntent(), protectIntent()]) expect(guard.check(i)).toMatchObject({ code: 'guard_halted' });
    for (const i of [cancelIntent(), closeAllIntent()]) expect(guard.check(i).verdict).toBe('approved');
    guard.resume(ACCOUNT, 'operator');
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });

  it('every decision goes out on decisions$', () => {
    const { guard } = setup({ config: merge(only('leverage')) });
    const seen: string[] = [];
    guard.decisions$.subscribe((d) => seen.push(d.verdict === 'denied' ? d.code : 'approved'));
    guard.check(openIntent());
    guard.check(openIntent({ leverage: 20 }));
    expect(seen).toEqual(['approved', 'leverage_above_max']);
  });
});

describe('kill switch', () => {
  const cfg = merge(only('killSwitch', 'drawdown'), { killSwitch: { share: '0.2' } });

  it('within share × allowance of the daily floor: flattens, HALTED until the next UTC day', () => {
    // daily floor 95000, allowance 5000, share 20% → trips at equity ≤ 96000
    const { guard, clock } = setup({ config: cfg, risk: riskStatus({ currentEquity: D(96000).plus(ULP) }) });
    const { states, intents } = record(guard);
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    guard.observeRisk(riskSnap(riskStatus({ currentEquity: D(96000) }), T0 + 1000));
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ from: 'ACTIVE', to: 'HALTED' });
    expect(states[0]!.reason).toContain('kill switch');
    expect(states[0]!.reason).toContain('kill_switch_floor');
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ strategy: 'risk-guard', kind: 'close_all', scope: 'account', accountId: ACCOUNT });
    // its own flattening passes, opens do not
    expect(guard.check(intents[0]!).verdict).toBe('approved');
    expect(guard.check(openIntent())).toMatchObject({ code: 'guard_halted' });
    // no second flatten while halted, even as equity recovers
    guard.observeRisk(riskSnap(riskStatus({ currentEquity: D(99000) }), T0 + 2000));
    expect(intents).toHaveLength(1);
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    // the next trading day lifts it
    clock.set(Date.UTC(2021, 4, 20) - 1);
    guard.tick();
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    clock.set(Date.UTC(2021, 4, 20));
    guard.tick();
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });

  it("the next UTC day's first check lifts the halt by itself, with no tick or snapshot in between", () => {
    const { guard, clock } = setup({ config: cfg, risk: riskStatus({ currentEquity: D(96000) }) });
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    guard.observeRisk(riskSnap(riskStatus({ currentEquity: D(99000) }), T0 + 2000));
    clock.set(Date.UTC(2021, 4, 20) - 1);
    expect(guard.check(openIntent())).toMatchObject({ code: 'guard_halted' });
    clock.set(Date.UTC(2021, 4, 20));
    expect(guard.check(openIntent()).verdict).toBe('approved');
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
  });

  it('the same for the total floor', () => {
    // total floor 90000, allowance 10000 → trips at ≤ 92000; day start 92500 keeps the daily floor (87875) away
    const { guard } = setup({ config: cfg, risk: riskStatus({ currentEquity: D(92000).plus(ULP), dayStartEquity: D(92500) }) });
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    guard.observeRisk(riskSnap(riskStatus({ currentEquity: D(92000), dayStartEquity: D(92500) }), T0));
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    expect(guard.stateReason(ACCOUNT)).toContain('total');
  });

  it('trips when the open book’s worst case no longer fits above a floor, as prices move', () => {
    // long 1 BTC at 50000 without stop: worst from price P = 5% × P; equity 100000 at 50000
    const pos = position({ size: D(1), notional: D(50000), margin: D(10000) });
    const config = merge(cfg, { killSwitch: { share: '0' } });
    const { guard } = setup({ config, positions: [pos], risk: riskStatus() });
    const { intents } = record(guard);
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    // price 97500/… : equity marks to 100000 + (P − 50000); trips when that − 0.05 P < 95000 → P < 47368.42…
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(47369) } }), T0 + 1000));
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(47368) } }), T0 + 2000));
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    expect(guard.stateReason(ACCOUNT)).toContain('kill_switch_exposure');
    expect(intents).toHaveLength(1);
  });

  it('a snapshot of another market in between does not hide the next move of the position’s market', () => {
    const pos = position({ size: D(1), notional: D(50000), margin: D(10000) });
    const { guard } = setup({ config: merge(cfg, { killSwitch: { share: '0' } }), positions: [pos], risk: riskStatus() });
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(47369) } }), T0 + 1000));
    guard.observeMarket(marketSnap(market({ id: 'eth-market', config: { baseAsset: 'ETH' }, state: { indexPrice: D(3000) } }), T0 + 1500));
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(47368) } }), T0 + 2000));
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    expect(guard.stateReason(ACCOUNT)).toContain('kill_switch_exposure');
  });

  it('a pending entry on a market not seen yet counts once that market’s first snapshot prices it', () => {
    // daily floor 95000, equity 95060: an entry of 2000 notional without a stop risks more than the 60 left
    const entry = order({ market: 'eth-market', amount: D(2000), leverage: D(1), limitPrice: D(3000), triggerPrice: D(3000) });
    const { guard } = setup({
      config: merge(cfg, { killSwitch: { share: '0' } }),
      orders: [entry],
      risk: riskStatus({ currentEquity: D(95060), currentBalance: D(95060) }),
    });
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
    guard.observeMarket(marketSnap(market({ id: 'eth-market', config: { baseAsset: 'ETH' }, state: { indexPrice: D(3000) } }), T0 + 1000));
    expect(guard.state(ACCOUNT)).toBe('HALTED');
    expect(guard.stateReason(ACCOUNT)).toContain('kill_switch_exposure');
  });

  it('a disabled kill switch never flattens', () => {
    const { guard } = setup({ config: only('drawdown'), risk: riskStatus({ currentEquity: D(95100) }) });
    expect(guard.state(ACCOUNT)).toBe('ACTIVE');
  });

  it('positions seen after the risk snapshot are marked from the price at that time', () => {
    const { guard } = setup({ config: merge(cfg, { killSwitch: { share: '0' } }), risk: riskStatus() });
    guard.observePositions(positionsSnap([position({ size: D(1), notional: D(50000), margin: D(10000) })], 'BTC', T0));
    guard.observeMarket(marketSnap(market({ state: { indexPrice: D(47368) } }), T0 + 1000));
    expect(guard.state(ACCOUNT)).toBe('HALTED');
  });
});
