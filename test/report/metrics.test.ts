import { describe, expect, it } from 'vitest';
import { Dec, ZERO } from '../../src/core/decimal.js';
import {
  buildReportJson,
  computeChallenge,
  computeMetrics,
  dailyPnlFromEquity,
  maxDrawdown,
  type BacktestResult,
  type ChallengeInfo,
  type EquitySample,
  type TradeRecord,
} from '../../src/report/index.js';

const D = (s: string | number) => new Dec(s);
const DAY = 86_400_000;
const T0 = Date.UTC(2021, 3, 20); // a midnight
const eq = (time: number, equity: string | number): EquitySample => ({ time, equity: D(equity) });

function trade(net: string, i: number, closed = true): TradeRecord {
  return {
    positionId: `p${i}`,
    market: 'BTC',
    direction: i % 2 ? 'short' : 'long',
    openedAt: T0 + i * 1000,
    closedAt: closed ? T0 + i * 1000 + 500 : null,
    entryPrice: D(100),
    exitPrice: closed ? D(101) : null,
    size: D(1),
    realizedPnl: D(net),
    fees: ZERO,
    funding: ZERO,
    status: closed ? 'closed' : 'open',
  };
}

function result(over: Partial<BacktestResult>): BacktestResult {
  return {
    name: 't',
    startTime: T0,
    endTime: T0 + 3 * DAY,
    initialBalance: D(100),
    equity: [],
    fills: [],
    trades: [],
    denials: [],
    perf: { snapshots: 0, candles: 0, wallMs: 0 },
    ...over,
  };
}

const evaluation: ChallengeInfo = {
  phase: 'active_evaluation',
  profitTargetPct: D(5),
  maxDailyDrawdownPct: D(5),
  maxTotalDrawdownPct: D(10),
  maxTrailingDrawdownPct: null,
  minProfitableDays: 2,
  consistencyLimitPct: null,
  profitableDayPct: D('0.5'),
  failure: null,
};

describe('max drawdown', () => {
  it('is the largest fall from a running peak, the initial balance being the first peak', () => {
    // 100 → 110 → 99 (−10%) → 120 → 90 (−25%) → 95
    const path = [110, 99, 120, 90, 95].map((v, i) => eq(T0 + i * 60_000, v));
    const dd = maxDrawdown(D(100), path);
    expect(dd.pct.toFixed()).toBe('25');
    expect(dd.amount.toFixed()).toBe('30');
    expect(dd.peakAt).toBe(T0 + 2 * 60_000);
    expect(dd.troughAt).toBe(T0 + 3 * 60_000);
    // a first sample under the initial balance is already a drawdown
    expect(maxDrawdown(D(100), [eq(T0, 96)]).pct.toFixed()).toBe('4');
    expect(maxDrawdown(D(100), [eq(T0, 101), eq(T0 + 1, 102)]).pct.toFixed()).toBe('0');
  });
});

describe('trade statistics', () => {
  it('win rate and profit factor over closed trades, net of fees and funding', () => {
    const trades = [trade('30', 0), trade('-10', 1), trade('20', 2), trade('-5', 3), trade('1000', 4, false)];
    // fees turn a small win into a loss
    trades.push({ ...trade('1', 5), fees: D('1.5') });
    const m = computeMetrics(result({ trades }));
    // closed nets: 30, −10, 20, −5, −0.5 → profit 50, loss 15.5
    expect(m.totalTrades).toBe(5);
    expect(m.openTrades).toBe(1);
    expect(m.winRate!.toFixed()).toBe('40');
    expect(m.profitFactor!.toDecimalPlaces(6).toFixed()).toBe('3.225806');
  });

  it('has no profit factor without a losing trade and no win rate without trades', () => {
    expect(computeMetrics(result({ trades: [trade('5', 0)] })).profitFactor).toBeNull();
    expect(computeMetrics(result({})).winRate).toBeNull();
  });
});

describe('daily returns, sharpe and sortino', () => {
  // days end at 110, 99, 108.9: returns +10%, −10%, +10%
  const equity = [eq(T0 + 3600_000, 105), eq(T0 + DAY - 60_000, 110), eq(T0 + DAY + 60_000, 99), eq(T0 + 2 * DAY + 60_000, '108.9')];

  it('groups equity by UTC day, each day starting from the previous day end', () => {
    const days = dailyPnlFromEquity(D(100), equity);
    expect(days.map((d) => [d.day, d.startEquity.toFixed(), d.endEquity.toFixed(), d.pnl.toFixed()])).toEqual([
      ['2021-04-20', '100', '110', '10'],
      ['2021-04-21', '110', '99', '-11'],
      ['2021-04-22', '99', '108.9', '9.9'],
    ]);
  });

  it('annualises with 365 days: sharpe = mean/stdev·√365, sortino = mean/downside·√365', () => {
    const m = computeMetrics(result({ equity }));
    // mean 1/30, sample variance 1/75 → √(75·365)/30; downside √(0.01/3) → √1095/3
    expect(m.sharpe!.toNumber()).toBeCloseTo(Math.sqrt(75 * 365) / 30, 10);
    expect(m.sortino!.toNumber()).toBeCloseTo(Math.sqrt(1095) / 3, 10);
  });

  it('has the sign of the drift', () => {
    const down = [eq(T0, 99), eq(T0 + DAY, 97), eq(T0 + 2 * DAY, 96), eq(T0 + 3 * DAY, 92)];
    const up = [eq(T0, 101), eq(T0 + DAY, 103), eq(T0 + 2 * DAY, 104), eq(T0 + 3 * DAY, 108)];
    expect(computeMetrics(result({ equity: down })).sharpe!.isNegative()).toBe(true);
    expect(computeMetrics(result({ equity: up })).sharpe!.isPositive()).toBe(true);
    // no losing day: the downside deviation is zero, sortino undefined
    expect(computeMetrics(result({ equity: up })).sortino).toBeNull();
    expect(computeMetrics(result({ equity: [eq(T0, 101)] })).sharpe).toBeNull();
  });
});

describe('challenge section', () => {
  it('passes an evaluation that reaches the target with enough profitable days', () => {
    // day 1 +3 (profitable), day 2 −0.2 (traded), day 3 +2.7 → 105.5 ≥ target 105 on day 3
    const equity = [eq(T0 + 60_000, 101), eq(T0 + DAY - 1, 103), eq(T0 + DAY + 5, '102.8'), eq(T0 + 2 * DAY + 5, 104), eq(T0 + 2 * DAY + 600_000, '105.5')];
    const fills = [T0 + 100, T0 + DAY + 100].map((time) => ({
      time, market: 'BTC', direction: 'long' as const, type: 'market', price: D(1), size: D(1), fee: ZERO, realizedPnl: null, intentId: 'i',
    }));
    const ch = computeChallenge(result({ equity, fills, challenge: evaluation }))!;
    expect(ch).toMatchObject({ passed: true, failedRule: null, tradingDays: 2, profitableDays: 2, daysToTarget: 3, targetReachedAt: T0 + 2 * DAY + 600_000 });
    // best day +3 of a net +5.5
    expect(ch.bestDay).toBe('2021-04-20');
    expect(ch.bestDayShare!.toDecimalPlaces(4).toFixed()).toBe('54.5455');
    expect(ch.consistencyMet).toBeNull();
    // with one profitable day required more, it does not pass
    expect(computeChallenge(result({ equity, fills, challenge: { ...evaluation, minProfitableDays: 3 } }))!.passed).toBe(false);
    // a day counts as profitable only from profitableDayPct of the initial balance: at 2.8%, day 3 (+2.7) does not
    const strict = computeChallenge(result({ equity, fills, challenge: { ...evaluation, profitableDayPct: D('2.8') } }))!;
    expect(strict).toMatchObject({ profitableDays: 1, passed: false });
  });

  it('reports the engine failure and the consistency limit', () => {
    const equity = [eq(T0 + 60_000, 110), eq(T0 + DAY + 60_000, 112)];
    const failed = computeChallenge(result({ equity, challenge: { ...evaluation, failure: { rule: 'max_daily_drawdown', at: T0 + 5 } } }))!;
    expect(failed).toMatchObject({ passed: false, failedRule: 'max_daily_drawdown', failedAt: T0 + 5 });
    const funded: ChallengeInfo = { ...evaluation, phase: 'funded', profitTargetPct: null, minProfitableDays: null, consistencyLimitPct: D(30) };
    // best day +10 of a net +12: 83% > 30%
    const f = computeChallenge(result({ equity, challenge: funded }))!;
    expect(f.bestDayShare!.toDecimalPlaces(2).toFixed()).toBe('83.33');
    expect(f).toMatchObject({ consistencyMet: false, passed: false });
    const even = [eq(T0 + 60_000, 103), eq(T0 + DAY + 60_000, 106), eq(T0 + 2 * DAY + 60_000, 109), eq(T0 + 3 * DAY + 60_000, 112)];
    expect(computeChallenge(result({ equity: even, challenge: funded }))!).toMatchObject({ consistencyMet: true, passed: true });
  });
});

describe('challenge section: the engine moved the account on', () => {
  // The samples never show the target (they are a minute apart); the engine promoted the account anyway.
  const equity = [eq(T0 + 60_000, 101), eq(T0 + DAY + 60_000, 104.9)];
  const promoted = { at: T0 + DAY + 30_000, from: 'active_evaluation', to: 'active_verification' };

  it('a promotion out of the starting phase is a pass, at the moment of the promotion', () => {
    const ch = computeChallenge(result({ equity, challenge: { ...evaluation, transitions: [promoted] } }))!;
    expect(ch).toMatchObject({ passed: true, targetReachedAt: promoted.at, daysToTarget: 2, failedRule: null });
    // Without the promotion the same samples do not pass.
    expect(computeChallenge(result({ equity, challenge: evaluation }))!.passed).toBe(false);
  });

  it('a failure in the next phase does not fail the phase that was passed; a failure before it does', () => {
    const later = { rule: 'max_total_drawdown', at: T0 + DAY + 50_000 };
    const after = computeChallenge(result({ equity, challenge: { ...evaluation, failure: later, transitions: [promoted, { at: later.at, from: 'active_verification', to: 'failed' }] } }))!;
    expect(after).toMatchObject({ passed: true, failedRule: null });
    const before = { rule: 'max_daily_drawdown', at: T0 + 90_000 };
    const failed = computeChallenge(result({ equity, challenge: { ...evaluation, failure: before, transitions: [{ at: before.at, from: 'active_evaluation', to: 'failed' }] } }))!;
    expect(failed).toMatchObject({ passed: false, failedRule: 'max_daily_drawdown' });
  });
});

describe('report.json', () => {
  it('writes money as exact decimal strings and ratios rounded to 6 places', () => {
    const fills = [
      { time: T0 + 1, market: 'BTC', direction: 'long' as const, type: 'market', price: D('56738.76'), size: D('0.1'), fee: D('0.000000001'), realizedPnl: null, intentId: 'a' },
      { time: T0 + 2, market: 'BTC', direction: 'long' as const, type: 'take', price: D('56800'), size: D('0.1'), fee: D('0.000000002'), realizedPnl: D('6.124'), intentId: 'b' },
    ];
    const r = result({
      initialBalance: D(3),
      equity: [eq(T0 + 60_000, '3.000000001'), eq(T0 + DAY + 60_000, '4')],
      fills,
      trades: [{ ...trade('6.124', 0), fees: D('0.000000003'), funding: D('-0.1') }],
      denials: [
        { at: T0, intentId: 'x', code: 'market_paused', reason: 'paused', rule: 'market' },
        { at: T0 + 1, intentId: 'y', code: 'market_paused', reason: 'paused', rule: 'market' },
      ],
      challenge: evaluation,
      perf: { snapshots: 1000, candles: 10, wallMs: 500 },
    });
    const json = JSON.parse(JSON.stringify(buildReportJson(r)));
    expect(json).toMatchObject({ format: 'propbot-backtest-report', version: 1, name: 't', strategy: null });
    expect(json.summary).toMatchObject({
      initialBalance: '3',
      finalEquity: '4',
      netPnl: '1',
      returnPct: '33.333333',
      fees: '0.000000003',
      funding: '-0.1',
      totalTrades: 1,
      totalFills: 2,
      tradingDays: 1,
      profitFactor: null,
      winRate: '100',
    });
    expect(json.trades[0]).toMatchObject({ netPnl: '6.023999997', realizedPnl: '6.124', openedAt: '2021-04-20T00:00:00.000Z' });
    expect(json.dailyPnl[0]).toEqual({ day: '2021-04-20', startEquity: '3', endEquity: '3.000000001', pnl: '0.000000001' });
    expect(json.denials).toMatchObject({ total: 2, byCode: { market_paused: 2 } });
    expect(json.challenge).toMatchObject({ phase: 'active_evaluation', passed: false, rules: { profitTargetPct: '5', profitableDayPct: '0.5' } });
    expect(json.perf).toEqual({ snapshots: 1000, quietSteps: 0, candles: 10, wallMs: 500, snapshotsPerSecond: 2000 });
    expect(json.fills).toHaveLength(r.fills.length);
    expect(json.fills[0]).toMatchObject({ market: r.fills[0]!.market, price: r.fills[0]!.price.toFixed(), size: r.fills[0]!.size.toFixed() });
    expect(json.equity).toHaveLength(r.equity.length);
    expect(json.equity.at(-1)).toEqual({ time: r.equity.at(-1)!.time, equity: r.equity.at(-1)!.equity.toFixed() });
    // every money field is a string, never a JSON number
    for (const key of ['initialBalance', 'finalEquity', 'netPnl', 'fees', 'funding', 'maxDrawdown']) expect(typeof json.summary[key]).toBe('string');
  });

  it('takes the funding records and the daily pnl the backtester gives over the ones derived', () => {
    const equity = [eq(T0 + 60_000, 101), eq(T0 + DAY + 60_000, 102)];
    const trades = [{ ...trade('1', 0), funding: D('-0.1') }];
    const funding = [
      { time: T0 + 1, market: 'BTC', amount: D('-0.1') },
      { time: T0 + 2, market: 'ETH', amount: D('-0.25') },
    ];
    expect(computeMetrics(result({ equity, trades })).funding.toFixed()).toBe('-0.1');
    expect(computeMetrics(result({ equity, trades, funding })).funding.toFixed()).toBe('-0.35');
    const dailyPnl = [{ day: '2021-04-20', startEquity: D(100), endEquity: D(103), pnl: D(3) }];
    const json = JSON.parse(JSON.stringify(buildReportJson(result({ equity, dailyPnl, challenge: evaluation }))));
    expect(json.dailyPnl).toEqual([{ day: '2021-04-20', startEquity: '100', endEquity: '103', pnl: '3' }]);
    expect(json.challenge).toMatchObject({ bestDay: '2021-04-20', bestDayPnl: '3' });
  });

  it('refuses a non-positive initial balance', () => {
    expect(() => buildReportJson(result({ initialBalance: ZERO }))).toThrow('initialBalance must be positive');
  });
});
