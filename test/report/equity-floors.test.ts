import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { equityChartLines } from '../../src/report/chart-lines.js';
import { Fp9EquitySeries } from '../../src/report/equity-sample.js';
import { EquityFloors, floorsFromEquity } from '../../src/report/metrics.js';
import type { BacktestResult, ChallengeInfo } from '../../src/report/types.js';

const DAY = 86_400_000;
const start = Date.UTC(2021, 3, 20, 22);
const fp9 = (v: number): bigint => BigInt(v) * 1_000_000_000n;
const challenge = { maxDailyDrawdownPct: new Dec(5), maxTotalDrawdownPct: new Dec(10), maxTrailingDrawdownPct: new Dec(8) } as ChallengeInfo;

describe('EquityFloors: the challenge floors drawn under the equity', () => {
  it('daily from the day-start equity (the last sample before the day), total from the initial balance, trailing from the highest equity', () => {
    const floors = new EquityFloors(challenge, new Dec(100_000));
    const seen: Array<[string | undefined, string | undefined, string | undefined]> = [];
    const at = (time: number, equity: number): void => {
      floors.add(time, fp9(equity));
      seen.push([floors.daily?.toFixed(), floors.total?.toFixed(), floors.trailing?.toFixed()]);
    };
    at(start, 100_000);
    at(start + 60_000, 101_000); // a new high: trailing 101,000 × 0.92
    at(start + 120_000, 99_000); // lower: nothing moves
    at(start + 2 * 3_600_000, 100_500); // the next UTC day: daily from 99,000, the last sample before it
    at(start + DAY + 3 * 3_600_000, 102_000); // the day after: daily from 100,500, and a new high
    expect(seen).toEqual([
      ['95000', '90000', '92000'],
      ['95000', '90000', '92920'],
      ['95000', '90000', '92920'],
      ['94050', '90000', '92920'],
      ['95475', '90000', '93840'],
    ]);
  });

  it('are the floors the report lists and the page draws', () => {
    const series = new Fp9EquitySeries(fp9(100_000));
    const equities = [100_000, 101_000, 99_000, 100_500, 102_000];
    const times = [start, start + 60_000, start + 120_000, start + 2 * 3_600_000, start + DAY + 3 * 3_600_000];
    equities.forEach((e, i) => series.push(times[i]!, fp9(e)));
    const result = { equity: series, initialBalance: new Dec(100_000), challenge } as unknown as BacktestResult;
    expect(floorsFromEquity(result).map((f) => f.daily?.toNumber())).toEqual([95_000, 95_000, 95_000, 94_050, 95_475]);
    const lines = equityChartLines(result, 100);
    expect(lines.daily).toEqual(times.map((t, i) => [t, [95_000, 95_000, 95_000, 94_050, 95_475][i]]));
    expect(lines.trailing.map((p) => p[1])).toEqual([92_000, 92_920, 92_920, 92_920, 93_840]);
    expect(lines.total.map((p) => p[1])).toEqual([90_000, 90_000, 90_000, 90_000, 90_000]);
  });
});
