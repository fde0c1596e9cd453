import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BigIntColumn, Float64Column, Int32Column } from '../../src/core/columns.js';

describe('columns', () => {
  it('give back every value pushed, in order, across chunk boundaries', () => {
    const times = new Float64Column();
    const phases = new Int32Column();
    for (let i = 0; i < 20_000; i++) {
      times.push(1_700_000_000_000 + i * 60_000);
      phases.push(i % 3);
    }
    expect(times.length).toBe(20_000);
    expect(phases.length).toBe(20_000);
    for (const i of [0, 255, 256, 257, 511, 512, 8191, 8192, 8193, 16_383, 16_384, 19_999]) {
      expect(times.get(i)).toBe(1_700_000_000_000 + i * 60_000);
      expect(phases.get(i)).toBe(i % 3);
    }
  });

  it('keep any bigint exact, those past 64 bits and the int64 bounds included', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.constantFrom(-(1n << 63n), (1n << 63n) - 1n, 1n << 63n, 0n)), { maxLength: 200 }), (values) => {
        const column = new BigIntColumn();
        for (const v of values) column.push(v);
        expect(column.length).toBe(values.length);
        expect(Array.from({ length: column.length }, (_, i) => column.get(i))).toEqual(values);
      }),
    );
  });
});
