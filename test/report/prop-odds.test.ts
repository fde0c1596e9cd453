import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { computePropOdds } from '../../src/report/prop-odds.js';
import type { BacktestResult, ChallengeInfo, EquitySample } from '../../src/report/types.js';

const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 1);

/** The evaluation's rules (ENGINE-MODEL presets): target 5 %, daily 5 %, total 10 %, 3 profitable days. */
const EVALUATION: ChallengeInfo = {
  phase: 'active_evaluation',
  profitTargetPct: new Dec(5),
  maxDailyDrawdownPct: new Dec(5),
  maxTotalDrawdownPct: new Dec(10),
  maxTrailingDrawdownPct: null,
  minProfitableDays: 3,
  consistencyLimitPct: null,
  profitableDayPct: new Dec('0.5'),
  failure: null,
};

/** Equity as the engine reports it: an fp9 figure (the compounding below makes longer doubles). */
const fp9 = (v: number) => new Dec(v).toDecimalPlaces(9);

/** A run whose equity is given per day as [low, high, close] (samples at 06:00, 12:00, 23:00). */
function run(days: Array<[number, number, number]>, challenge: ChallengeInfo | null = EVALUATION): BacktestResult {
  const equity: EquitySample[] = [];
  days.forEach(([low, high, close], d) => {
    const t = START + d * DAY;
    equity.push({ time: t + 6 * 3_600_000, equity: fp9(low) }, { time: t + 12 * 3_600_000, equity: fp9(high) }, { time: t + 23 * 3_600_000, equity: fp9(close) });
  });
  return {
    name: 't',
    startTime: START,
    endTime: START + days.length * DAY,
    initialBalance: new Dec(100_000),
    equity,
    fills: [],
    trades: [],
    denials: [],
    perf: { snapshots: 0, candles: 0, wallMs: 0 },
    ...(challenge ? { challenge } : {}),
  };
}

describe('rolling-start challenge odds', () => {
  it('a steady 1 % a day passes from every start that has enough days left, on day 5', () => {
    // each day: dips to the previous close, peaks and closes 1 % up
    let e = 100_000;
    const days: Array<[number, number, number]> = [];
    for (let d = 0; d < 12; d += 1) {
      const close = e * 1.01;
      days.push([e, close, close]);
      e = close;
    }
    const odds = computePropOdds(run(days));
    // 1.01^5 = 1.051 ≥ 5 %: an attempt needs 5 days; the last 4 starts run out of data
    expect(odds.attempts).toBe(12);
    expect(odds.passed).toBe(8);
    expect(odds.failed).toBe(0);
    expect(odds.passProbability).toBeCloseTo(8 / 12, 10);
    expect(odds.medianDaysToPass).toBe(5);
    // the lows never go under the day's start
    expect(odds.worstDailyHeadroomPct!.toNumber()).toBe(100);
  });

  it('a day that falls 6 % under its start fails every attempt that lives through it, and breaks the daily headroom', () => {
    const days: Array<[number, number, number]> = [
      [100_000, 100_000, 100_000],
      [100_000, 100_000, 100_000],
      [94_000, 100_000, 96_000],
      [96_000, 96_000, 96_000],
    ];
    const odds = computePropOdds(run(days));
    expect(odds.failed).toBe(3);
    expect(odds.passed).toBe(0);
    expect(odds.passProbability).toBe(0);
    expect(odds.medianDaysToPass).toBeNull();
    // allowance 5 % of 100,000 = 5,000; the low is 1,000 under the floor: −20 % of the allowance
    expect(odds.worstDailyHeadroomPct!.toNumber()).toBe(-20);
    expect(odds.worstDailyHeadroomDay).toBe('2024-01-03');
  });

  it('counts the target only once enough days were profitable, and rebases each start to the initial balance', () => {
    // +6 % on day 1 alone; then three days of +0.6 %: the pass comes on day 3 of the first attempt
    const days: Array<[number, number, number]> = [
      [100_000, 106_000, 106_000],
      [106_000, 106_636, 106_636],
      [106_636, 107_275.8, 107_275.8],
    ];
    const odds = computePropOdds(run(days));
    // from day 1: target on day 1, 3rd profitable day on day 3 → pass on day 3. From days 2 and 3: never 5 %.
    expect(odds.passed).toBe(1);
    expect(odds.medianDaysToPass).toBe(3);
  });

  it('has no odds without challenge rules', () => {
    const odds = computePropOdds(run([[100_000, 100_000, 100_000]], null));
    expect(odds.passProbability).toBeNull();
    expect(odds.attempts).toBe(0);
  });
});
