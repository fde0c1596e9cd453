/**
 * Conformance: accounts, the challenge rules checked on every price update (failures, phase changes),
 * risk status, equity history windows, account events and statuses.
 */
import { describe, expect, it } from 'vitest';
import { ChallengeClosedError, ValidationError } from '../../src/api/errors.js';
import { Dec, dec } from '../../src/core/decimal.js';
import { Engine } from '../../src/engine/index.js';
import { D, DAY, FLAT, HOUR, MIN, T0, rejects, world } from './helpers.js';

describe('opening accounts', () => {
  it('a real account: phase rules from the preset, buy_challenge event with amount and provider', async () => {
    const w = world();
    const acc = w.engine.getAccount(w.accountId)!;
    expect(acc.type).toBe('real');
    expect(acc.initialPhase).toBe('active_evaluation');
    expect(acc.currentPhase).toBe('active_evaluation');
    expect(acc.status).toBe('active');
    expect(acc.profitTarget!.toString()).toBe('5');
    expect(acc.maxDailyDrawdown!.toString()).toBe('5');
    expect(acc.maxTotalDrawdown!.toString()).toBe('10');
    expect(acc.maxTrailingTotalDrawdown).toBeNull();
    expect(acc.minTradingDays).toBe(3);
    expect(acc.accountBalance.toString()).toBe('10000');
    expect(acc.initialAccountBalance.toString()).toBe('10000');
    expect(acc.apiTrading).toBe(true);
    expect(acc.paymentId).not.toBeNull();
    const ev = await w.ex.listAccountEvents();
    expect(ev.totalCount).toBe(1);
    expect(ev.data[0]!.eventType).toBe('buy_challenge');
    expect(ev.data[0]!.payload).toEqual({ amount: String(10000n * 5_000_000n), provider: 'engine' });
    expect(ev.data[0]!.account.accountId).toBe(w.accountId);
  });
  it('verification preset: target 8%, 5 profitable days; a demo account has no target', () => {
    const e = new Engine({ startMs: T0 });
    const v = e.openAccount({ userId: 'u', type: 'real', phase: 'active_verification', initialBalance: dec(5000) });
    expect([v.profitTarget!.toString(), v.minTradingDays]).toEqual(['8', 5]);
    const d = e.openAccount({ userId: 'u', type: 'demo', initialBalance: dec(5000) });
    expect(d.profitTarget).toBeNull();
    expect(d.paymentId).toBeNull();
  });
});

describe('failures on price updates', () => {
  it('daily drawdown: equity below day-start × 95% fails the account, cancels orders (stop_accounts_fail), force-closes positions', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) }); // ≈ 12,497 notional
    const pending = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(40000) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.price('48200', 5 * MIN); // ≈ −450: equity above 9500
    expect(w.engine.getAccount(w.accountId)!.status).toBe('active');
    w.price('47800', 5 * MIN); // ≈ −550: below 9500
    const acc = w.engine.getAccount(w.accountId)!;
    expect(acc.status).toBe('failed');
    expect(acc.failureReason).toBe('max_daily_drawdown');
    expect(acc.failedAt!.getTime()).toBe(w.engine.now());
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    const [ev] = await w.ex.getPositionHistory(p!.idx);
    expect(ev!.eventName).toBe('forceClose');
    expect(ev!.order).toBeNull();
    expect(ev!.closeReason).toBe('stop_accounts_fail');
    const hist = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data;
    const cancelled = hist.find((o) => o.id === pending.value.id)!;
    expect([cancelled.status, cancelled.reason]).toEqual(['canceled', 'stop_accounts_fail']);
    const events = await w.ex.listAccountEvents();
    expect(events.data[0]!.eventType).toBe('challenge_failed');
    expect(events.data[0]!.payload['failureReason']).toBe('max_daily_drawdown');
    expect(events.data[0]!.account.status).toBe('failed');
    await rejects(w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) }), ChallengeClosedError, 'challenge_closed');
  });
  it('total drawdown: equity below initial × 90%', async () => {
    const w = world({ market: { overrides: FLAT }, account: { rules: { maxDailyDrawdown: null } } });
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) });
    w.price('46500', MIN);
    expect(w.engine.getAccount(w.accountId)!.status).toBe('active');
    w.price('45000', MIN); // ≈ −1250
    const acc = w.engine.getAccount(w.accountId)!;
    expect([acc.status, acc.failureReason]).toEqual(['failed', 'max_total_drawdown']);
  });
  it('trailing drawdown: equity below the highest equity × (1 − trailing)', async () => {
    const w = world({ market: { overrides: FLAT }, account: { rules: { maxDailyDrawdown: null, maxTotalDrawdown: null, maxTrailingTotalDrawdown: '3' } } });
    await w.order({ type: 'market', direction: 'long', amount: D(2000), leverage: D(5) }); // ≈ 9,998 notional
    w.price('55000', MIN); // ≈ +1000 → max equity ≈ 10,999
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.maxEquity!.toString()).toBe(rs.currentEquity.toString());
    w.price('52000', MIN); // ≈ 10,399: −5.4% from the peak, still above the initial balance
    const acc = w.engine.getAccount(w.accountId)!;
    expect([acc.status, acc.failureReason]).toEqual(['failed', 'max_trailing_total_drawdown']);
    expect(acc.maxEquity!.toString()).toBe(rs.maxEquity!.toString());
  });
  it('failure is checked on funding too, after the rules of the step (a later day does not revive it)', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) });
    w.price('45500', MIN);
    w.engine.advanceTo(w.engine.now() + 2 * DAY);
    expect(w.engine.getAccount(w.accountId)!.status).toBe('failed');
  });
});

describe('phase changes', () => {
  /** One profitable day: open long, the price rises 1.2%, close after the 60-second window. */
  async function profitableDay(w: ReturnType<typeof world>, base: number) {
    await w.order({ type: 'market', direction: 'long', amount: D(2000), leverage: D(5) });
    w.price(String(Math.round(base * 1.012)), 2 * MIN);
    await w.ex.closeAllPositions(w.accountId, { idempotencyKey: null });
    w.price(String(base), MIN);
  }
  it('evaluation → verification → funded with enough profitable days, as the presets say', async () => {
    const w = world({ market: { overrides: { ...FLAT, fundingRate: '0' } } });
    const phases: string[] = [];
    for (let day = 0; day < 20; day++) {
      const start = T0 + day * DAY + HOUR;
      w.engine.setIndexPrice(w.market.id, dec(50000), start);
      await profitableDay(w, 50000);
      phases.push(w.engine.getAccount(w.accountId)!.currentPhase);
    }
    // evaluation: 5% target with ≥ 3 profitable days → passed on the day the balance reached +5%
    const firstVer = phases.indexOf('active_verification');
    const firstFunded = phases.indexOf('funded');
    expect(firstVer).toBeGreaterThanOrEqual(2);
    expect(firstFunded).toBeGreaterThan(firstVer + 4);
    const acc = w.engine.getAccount(w.accountId)!;
    expect(acc.currentPhase).toBe('funded');
    expect(acc.initialPhase).toBe('active_evaluation');
    expect(acc.fundedAt).not.toBeNull();
    const types = (await w.ex.listAccountEvents({ limit: 100 })).data.map((e) => e.eventType).reverse();
    expect(types).toEqual(['buy_challenge', 'phase_passed', 'phase_passed', 'account_funded']);
    const passed = (await w.ex.listAccountEvents({ limit: 100 })).data.filter((e) => e.eventType === 'phase_passed').reverse();
    expect(passed.map((e) => [e.payload['fromPhase'], e.payload['toPhase']])).toEqual([
      ['active_evaluation', 'active_verification'],
      ['active_verification', 'funded'],
    ]);
    // the new phase starts from the initial balance; consistency applies in funded
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.consistencyRuleApplies).toBe(true);
    expect(rs.consistencyRuleLimit.toString()).toBe('0.3');
    expect(rs.periodStartEquity!.toString()).toBe('10000');
    expect(rs.payoutBaselineBalance.toString()).toBe('10000');
    // the equity history marks each sample with its phase and the phase's starting equity
    const eq = await w.ex.getEquityHistory(w.accountId, { duration: -30 * DAY });
    const idx = [...new Set(eq.map((p) => p.phaseIndex))];
    expect(idx).toEqual([0, 1, 2]);
    expect(eq.every((p) => p.phaseStartEquity.toString() === '10000')).toBe(true);
    // orders and chart events are limited to the current phase
    expect((await w.ex.listOrderHistory(w.accountId, 'BTC', { limit: 100 })).data.every((o) => o.createdAt.getTime() >= acc.fundedAt!.getTime())).toBe(true);
    const chart = await w.ex.listChartEvents(w.accountId, 'BTC', { executedFrom: T0 / 1000, executedTo: T0 / 1000 + 30 * 86_400, limit: 1000 });
    expect(chart.totalCount).toBeGreaterThan(0);
    expect(chart.data.every((c) => c.executedAt * 1000 >= acc.fundedAt!.getTime() - 1000)).toBe(true);
    const daysFunded = phases.length - firstFunded;
    expect(chart.totalCount).toBeLessThanOrEqual(daysFunded * 2);
  });
  it('reaching the target without enough profitable days does not pass', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) });
    w.price('52500', 2 * MIN); // +5% × 1.25 ≈ +6.2%
    expect(w.engine.getAccount(w.accountId)!.currentPhase).toBe('active_evaluation');
    expect(w.engine.getAccount(w.accountId)!.status).toBe('active');
  });
});

describe('risk status', () => {
  it('every field: trading days, balance and equity, day start after rollover, max equity null before the first trade', async () => {
    const w = world({ market: { overrides: { ...FLAT, fundingRate: '0' } } });
    let rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.accountId).toBe(w.accountId);
    expect(rs.tradingDays).toBe(0);
    expect(rs.maxEquity).toBeNull();
    expect(rs.currentBalance.toString()).toBe('10000');
    expect(rs.dayStartEquity.toString()).toBe('10000');
    expect(rs.periodStartEquity).toBeNull();
    expect(rs.maxPeriodDailyEquityDelta).toBeNull();
    expect(rs.maxPeriodDailyEquityDeltaAt).toBeNull();
    expect(rs.consistencyRuleApplies).toBe(false);
    expect(rs.consistencyRuleMet).toBeNull();
    expect(rs.consistencyRuleRatio).toBeNull();
    expect(rs.isPayoutBaselineRequirementMet).toBe(false);
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    w.price('51000', HOUR);
    rs = await w.ex.getRiskStatus(w.accountId);
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const upnl = p!.size.times(51000).toDecimalPlaces(9, Dec.ROUND_DOWN).minus(p!.notional);
    expect(rs.tradingDays).toBe(1);
    expect(rs.currentBalance.toString()).toBe(D(10000).minus(p!.fee).toString());
    expect(rs.currentEquity.toString()).toBe(rs.currentBalance.plus(upnl).toString());
    expect(rs.isPayoutBaselineRequirementMet).toBe(true);
    w.engine.advanceTo(T0 + DAY);
    const next = await w.ex.getRiskStatus(w.accountId);
    expect(next.dayStartEquity.toString()).toBe(rs.currentEquity.toString());
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(5) });
    expect((await w.ex.getRiskStatus(w.accountId)).tradingDays).toBe(2);
  });
  it('funded: consistency ratio = best day / period profit, met against the 30% limit', async () => {
    const w = world({ market: { overrides: { ...FLAT, fundingRate: '0' } }, account: { phase: 'funded' } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    w.price('51000', HOUR); // day 1 ≈ +100
    w.engine.advanceTo(T0 + DAY);
    let rs = await w.ex.getRiskStatus(w.accountId);
    const day1 = rs.currentEquity.minus(10000);
    expect(rs.maxPeriodDailyEquityDelta!.toString()).toBe(day1.toString());
    expect(rs.maxPeriodDailyEquityDeltaAt!.getTime()).toBe(T0);
    expect(rs.consistencyRuleRatio!.toString()).toBe('1');
    expect(rs.consistencyRuleMet).toBe(false);
    w.price('60000', HOUR); // much more profit today (not a closed day yet)
    rs = await w.ex.getRiskStatus(w.accountId);
    const ratio = day1.div(rs.currentEquity.minus(10000)).toDecimalPlaces(9, Dec.ROUND_CEIL);
    expect(rs.consistencyRuleRatio!.toString()).toBe(ratio.toString());
    expect(rs.consistencyRuleMet).toBe(ratio.lte('0.3'));
    expect(rs.consistencyRuleMet).toBe(true);
  });
  it('listRiskStatuses: only api_trading accounts when called by API key', async () => {
    const w = world();
    const off = w.engine.openAccount({ userId: w.user, type: 'demo', initialBalance: dec(1000), apiTrading: false });
    const all = await w.ex.listRiskStatuses();
    expect(all.map((r) => r.accountId)).toEqual([w.accountId, off.accountId]);
    const api = await w.engine.exchangeFor(w.user, { viaApiKey: true }).listRiskStatuses();
    expect(api.map((r) => r.accountId)).toEqual([w.accountId]);
    const evs = await w.engine.exchangeFor(w.user, { viaApiKey: true }).listAccountEvents();
    expect(evs.data.every((e) => e.accountId === w.accountId)).toBe(true);
  });
});

describe('equity history', () => {
  async function traded() {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    // minute 0 ends at 50000, minute 1 at 50500, minute 2 at 51000, then now is inside minute 3
    w.price('50500', MIN);
    w.price('51000', MIN);
    w.price('51000', MIN + 30_000);
    return w;
  }
  it('one point per minute, oldest first, with the live equity appended when no timestamp', async () => {
    const w = await traded();
    const pts = await w.ex.getEquityHistory(w.accountId, { duration: -10 * MIN });
    expect(pts.map((p) => p.timestamp)).toEqual([T0, T0 + MIN, T0 + 2 * MIN, w.engine.now()]);
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const eqAt = (px: number) => D(10000).minus(p!.fee).plus(p!.size.times(px).toDecimalPlaces(9, Dec.ROUND_DOWN).minus(p!.notional));
    expect(pts.map((x) => x.volume.toString())).toEqual([eqAt(50000), eqAt(50500), eqAt(51000), eqAt(51000)].map(String));
    expect(pts.every((x) => x.phaseIndex === 0)).toBe(true);
  });
  it('positive duration spans forward from timestamp, negative backward; zero is refused', async () => {
    const w = await traded();
    const fwd = await w.ex.getEquityHistory(w.accountId, { timestamp: T0 + MIN, duration: MIN });
    expect(fwd.map((p) => p.timestamp)).toEqual([T0 + MIN, T0 + 2 * MIN]);
    const back = await w.ex.getEquityHistory(w.accountId, { timestamp: T0 + MIN, duration: -MIN });
    expect(back.map((p) => p.timestamp)).toEqual([T0, T0 + MIN]);
    await rejects(w.ex.getEquityHistory(w.accountId, { duration: 0 }), ValidationError, 'duration_zero');
    await rejects(w.ex.getEquityHistory(w.accountId, { duration: 1.5 }), ValidationError, 'duration_invalid');
    await rejects(w.ex.getEquityHistory(w.accountId, { timestamp: Number.NaN }), ValidationError, 'timestamp_invalid');
    // the default window is 5 days back from now
    const def = await w.ex.getEquityHistory(w.accountId);
    expect(def.length).toBe(4);
  });
  it('a failed account is anchored at the failure moment', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) });
    w.price('45000', 5 * MIN);
    const failedAt = w.engine.getAccount(w.accountId)!.failedAt!.getTime();
    w.engine.advanceTo(failedAt + 3 * HOUR);
    const pts = await w.ex.getEquityHistory(w.accountId, { duration: -DAY });
    expect(pts[pts.length - 1]!.timestamp).toBe(failedAt);
    expect(pts.every((p) => p.timestamp <= failedAt)).toBe(true);
    const fwd = await w.ex.getEquityHistory(w.accountId, { timestamp: T0, duration: DAY });
    expect(fwd.every((p) => p.timestamp <= failedAt)).toBe(true);
    expect(fwd.length).toBe(6);
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(pts[pts.length - 1]!.volume.toString()).toBe(rs.currentEquity.toString());
  });
});

describe('account statuses and events', () => {
  it('a managed-capital lock and unlock raise events and set fundedLimitUnlockedAt; events page newest first', async () => {
    const w = world();
    w.engine.setAccountStatus(w.accountId, 'trading_locked_by_funded_limit');
    w.engine.advanceTo(T0 + HOUR);
    w.engine.setAccountStatus(w.accountId, 'active');
    const acc = w.engine.getAccount(w.accountId)!;
    expect(acc.fundedLimitUnlockedAt!.getTime()).toBe(T0 + HOUR);
    const page1 = await w.ex.listAccountEvents({ limit: 2 });
    expect(page1.totalCount).toBe(3);
    expect(page1.data.map((e) => e.eventType)).toEqual(['funded_limit_unlocked', 'funded_limit_locked']);
    const page2 = await w.ex.listAccountEvents({ limit: 2, offset: 2 });
    expect(page2.data.map((e) => e.eventType)).toEqual(['buy_challenge']);
    await rejects(w.ex.listAccountEvents({ limit: 101 }), ValidationError, 'limit_out_of_range');
    await rejects(w.ex.listAccountEvents({ offset: -1 }), ValidationError, 'offset_out_of_range');
  });
});

describe('withdrawal periods (funded)', () => {
  it('a 14-day period closes at the day rollover: event, profitable days moved to the previous period, new start equity', async () => {
    const w = world({ market: { overrides: { ...FLAT, fundingRate: '0' } }, account: { phase: 'funded' } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    w.price('51000', HOUR); // day 1: ≈ +100, a profitable day (≥ 0.5% of 10,000)
    w.engine.advanceTo(T0 + 14 * DAY - 1);
    let acc = w.engine.getAccount(w.accountId)!;
    expect(acc.profitableDays).toBe(1);
    expect(acc.currentWithdrawalPeriodStartedAt!.getTime()).toBe(T0);
    const equity = (await w.ex.getRiskStatus(w.accountId)).currentEquity;
    w.engine.advanceTo(T0 + 14 * DAY);
    acc = w.engine.getAccount(w.accountId)!;
    expect([acc.profitableDays, acc.prevPeriodProfitableDays]).toEqual([0, 1]);
    expect(acc.currentWithdrawalPeriodStartedAt!.getTime()).toBe(T0 + 14 * DAY);
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.periodStartEquity!.toString()).toBe(equity.toString());
    expect(rs.maxPeriodDailyEquityDelta).toBeNull();
    expect(rs.consistencyRuleRatio).toBeNull();
    const [ev] = (await w.ex.listAccountEvents()).data;
    expect(ev!.eventType).toBe('withdrawal_period_closed');
    expect(ev!.payload).toEqual({ periodStartEquity: '10000000000000', periodEndEquity: (BigInt(equity.times(1e9).toFixed(0))).toString(), profitableDays: 1 });
  });
  it('other status changes raise status_changed', async () => {
    const w = world();
    w.engine.setAccountStatus(w.accountId, 'frozen');
    const [ev] = (await w.ex.listAccountEvents()).data;
    expect([ev!.eventType, ev!.payload]).toEqual(['status_changed', { from: 'active', to: 'frozen' }]);
  });
});

