import fc from 'fast-check';
import type { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { fp9Number } from '../../src/core/fp9.js';
import { equityChartLines } from '../../src/report/chart-lines.js';
import { MinMaxLine, StepLine } from '../../src/report/downsample.js';
import { Fp9EquitySeries, forEachEquityRaw } from '../../src/report/equity-sample.js';
import { eachFloorFromEquity } from '../../src/report/metrics.js';
import type { BacktestResult, ChallengeInfo } from '../../src/report/types.js';

/** The lines as the page drew them before the one-pass builder: five line objects, the floors from `eachFloorFromEquity`. */
function reference(result: BacktestResult, maxPoints: number) {
  const n = result.equity.length;
  const equity = new MinMaxLine(n, maxPoints);
  const drawdown = new MinMaxLine(n, maxPoints);
  let peak = result.initialBalance.toNumber();
  forEachEquityRaw(result.equity, (time, raw) => {
    const e = fp9Number(raw);
    equity.add(time, e);
    if (e > peak) peak = e;
    drawdown.add(time, peak > 0 ? -((peak - e) / peak) * 100 : 0);
  });
  const daily = new StepLine(n, maxPoints);
  const total = new StepLine(n, maxPoints);
  const trailing = new StepLine(n, maxPoints);
  const num = (d: Decimal | null) => d?.toNumber();
  eachFloorFromEquity(result, (time, d, t, tr) => {
    daily.add(time, num(d));
    total.add(time, num(t));
    trailing.add(time, num(tr));
  });
  return { equity: equity.points(), drawdown: drawdown.points(), daily: daily.points(), total: total.points(), trailing: trailing.points() };
}

const MINUTE = 60_000;
const pct = fc.option(fc.constantFrom('4', '5', '10', '2.5'), { nil: null });

const results = fc
  .record({
    n: fc.integer({ min: 0, max: 3000 }),
    // Minutes between samples (cycled), with gaps of up to a few days so day changes come in runs and jumps.
    steps: fc.array(fc.oneof({ weight: 8, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 4000 }) }), { minLength: 1, maxLength: 40 }),
    moves: fc.array(fc.integer({ min: -2_000_000_000_000, max: 2_000_000_000_000 }), { minLength: 1, maxLength: 50 }),
    start: fc.integer({ min: 0, max: 1439 }),
    daily: pct,
    total: pct,
    trailing: pct,
    challenge: fc.boolean(),
  })
  .map(({ n, steps, moves, start, daily, total, trailing, challenge }) => {
    const initial = 100_000n * 1_000_000_000n;
    const series = new Fp9EquitySeries(initial);
    let time = Date.UTC(2021, 3, 20) + start * MINUTE;
    let raw = initial;
    for (let i = 0; i < n; i++) {
      time += steps[i % steps.length]! * MINUTE;
      raw += BigInt(moves[(i * 7) % moves.length]!);
      series.push(time, raw);
    }
    const c = challenge
      ? ({ maxDailyDrawdownPct: daily && new Dec(daily), maxTotalDrawdownPct: total && new Dec(total), maxTrailingDrawdownPct: trailing && new Dec(trailing) } as ChallengeInfo)
      : undefined;
    return { equity: series, initialBalance: new Dec(100_000), ...(c ? { challenge: c } : {}) } as unknown as BacktestResult;
  });

describe('equityChartLines: the equity chart in one pass', () => {
  it('draws the points the five line objects drew, floors included, for any length and point budget', () => {
    fc.assert(
      fc.property(results, fc.integer({ min: 2, max: 120 }), (result, maxPoints) => {
        const lines = equityChartLines(result, maxPoints);
        const want = reference(result, maxPoints);
        expect(lines.equity).toEqual(want.equity);
        expect(lines.drawdown).toEqual(want.drawdown);
        expect(lines.daily).toEqual(want.daily);
        expect(lines.total).toEqual(want.total);
        expect(lines.trailing).toEqual(want.trailing);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves the floors to the caller when the result carries its own', () => {
    const series = new Fp9EquitySeries(100_000_000_000_000n);
    series.push(Date.UTC(2021, 3, 20), 100_000_000_000_000n);
    const result = { equity: series, initialBalance: new Dec(100_000), challenge: { maxDailyDrawdownPct: new Dec(5), maxTotalDrawdownPct: new Dec(10), maxTrailingDrawdownPct: null } } as unknown as BacktestResult;
    expect(equityChartLines(result, 100).daily).toEqual([[Date.UTC(2021, 3, 20), 95_000]]);
    expect(equityChartLines(result, 100, true)).toMatchObject({ daily: [], total: [], trailing: [], equity: [[Date.UTC(2021, 3, 20), 100_000]] });
  });
});
