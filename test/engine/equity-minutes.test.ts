import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EquityMinutes } from '../../src/engine/equity-minutes.js';

describe('EquityMinutes', () => {
  it('reads every minute as pushing it minute by minute would, in any order of reads', () => {
    const equity = fc.oneof(fc.constantFrom(100_000_000_000_000n, 99_999_000_000_001n, 0n, -5n), fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(equity, fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 700 })), { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        (pushes, jumps) => {
          const kept = new EquityMinutes();
          const minutes: Array<[bigint, number]> = [];
          for (const [e, phase, count] of pushes) {
            kept.pushRepeated(e, phase, count);
            for (let i = 0; i < count; i++) minutes.push([e, phase]);
          }
          expect(kept.length).toBe(minutes.length);
          // Forward, minute by minute (the equity-history read), then jumping back and forth.
          for (let i = 0; i < minutes.length; i++) expect([kept.equityAt(i), kept.phaseAt(i)]).toEqual(minutes[i]);
          for (const j of jumps) {
            if (minutes.length === 0) break;
            const i = j % minutes.length;
            expect([kept.equityAt(i), kept.phaseAt(i)]).toEqual(minutes[i]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps one run for minutes that closed at the same equity in the same phase', () => {
    const kept = new EquityMinutes();
    kept.pushRepeated(100n, 0, 15);
    // No minute: no run, and the next minutes at 100 still join the first one.
    kept.pushRepeated(999n, 0, 0);
    kept.pushRepeated(100n, 0, 45);
    kept.pushRepeated(100n, 1, 1);
    kept.pushRepeated(101n, 1, 1);
    expect(kept.length).toBe(62);
    expect(kept.runs).toBe(3);
    expect([kept.equityAt(59), kept.phaseAt(59), kept.phaseAt(60), kept.equityAt(61)]).toEqual([100n, 0, 1, 101n]);
  });
});
