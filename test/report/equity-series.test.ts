import { describe, expect, it } from 'vitest';
import { Fp9EquitySeries } from '../../src/report/equity-sample.js';

describe('Fp9EquitySeries', () => {
  const series = new Fp9EquitySeries();
  const T = 1_700_000_000_000;
  series.push(T, 100_000_000_000_000n);
  series.push(T + 60_000, 99_999_500_000_001n);
  // past 2^63: a funded account's equity in fp9 is far below it, but nothing is ever cut
  series.push(T + 120_000, 10n ** 20n + 1n);

  it('reads as the array of samples it stands for', () => {
    expect(series.length).toBe(3);
    expect(Array.from(series, (s) => [s.time, s.equity.toFixed()])).toEqual([
      [T, '100000'],
      [T + 60_000, '99999.500000001'],
      [T + 120_000, '100000000000.000000001'],
    ]);
    expect(series.at(-1)!.time).toBe(T + 120_000);
    expect(series.at(1)!.raw).toBe(99_999_500_000_001n);
    expect(series.at(3)).toBeUndefined();
    expect(series.at(-4)).toBeUndefined();
  });

  it('serialises like an array of plain samples', () => {
    expect(JSON.parse(JSON.stringify(series))).toEqual([
      { time: T, equity: '100000' },
      { time: T + 60_000, equity: '99999.500000001' },
      { time: T + 120_000, equity: '100000000000.000000001' },
    ]);
  });
});
