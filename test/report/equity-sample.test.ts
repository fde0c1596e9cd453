/**
 * A report writes the equity of every sample from its fp9 integer, without a Decimal: the text and
 * the number must be exactly what the Decimal gives, for every sign, size and fraction.
 */
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { Fp9PrecisionError } from '../../src/core/errors.js';
import { equityNumber, equityRaw, equityText, Fp9EquitySample } from '../../src/report/equity-sample.js';
import { maxDrawdown } from '../../src/report/metrics.js';

const RAWS = [0n, 1n, -1n, 5n, 10n, 999_999_999n, 1_000_000_000n, -1_000_000_000n, 10_000_000_000_000n, 12_345_678_901_230n, -7_500_000_000n, 2n ** 53n + 7n, -(10n ** 30n) - 3n];

describe('equity samples written from their fp9 integer', () => {
  it('give the exact text and the number of their Decimal', () => {
    for (const raw of RAWS) {
      const sample = new Fp9EquitySample(0, raw);
      expect({ raw, text: equityText(sample), number: equityNumber(sample) }).toEqual({ raw, text: sample.equity.toFixed(), number: sample.equity.toNumber() });
    }
  });

  it('read the fp9 figure of a plain sample exactly, and refuse one with more than 9 decimals by name', () => {
    expect(equityRaw({ time: 0, equity: new Dec('100000.123456789') })).toBe(100_000_123_456_789n);
    const finer = [{ time: 0, equity: new Dec('100000') }, { time: 60_000, equity: new Dec('99000.0000000001') }];
    expect(() => maxDrawdown(new Dec(100_000), finer)).toThrow(Fp9PrecisionError);
    expect(() => maxDrawdown(new Dec(100_000), finer)).toThrow(/equity: 99000\.0000000001 has more than 9 decimal places/);
  });
});
