/**
 * A report writes the equity of every sample from its fp9 integer, without a Decimal: the text and
 * the number must be exactly what the Decimal gives, for every sign, size and fraction.
 */
import { describe, expect, it } from 'vitest';
import { equityNumber, equityText, Fp9EquitySample } from '../../src/report/equity-sample.js';

const RAWS = [0n, 1n, -1n, 5n, 10n, 999_999_999n, 1_000_000_000n, -1_000_000_000n, 10_000_000_000_000n, 12_345_678_901_230n, -7_500_000_000n, 2n ** 53n + 7n, -(10n ** 30n) - 3n];

describe('equity samples written from their fp9 integer', () => {
  it('give the exact text and the number of their Decimal', () => {
    for (const raw of RAWS) {
      const sample = new Fp9EquitySample(0, raw);
      expect({ raw, text: equityText(sample), number: equityNumber(sample) }).toEqual({ raw, text: sample.equity.toFixed(), number: sample.equity.toNumber() });
    }
  });
});
