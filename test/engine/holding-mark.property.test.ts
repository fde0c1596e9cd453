/**
 * Property: the double-precision mark of a holding (holding-mark.ts) is the bigint `holdingPnl` to the
 * fp9 unit wherever its bound lets it run, and its bound refuses what a double cannot hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markHolding, prepareMark } from '../../src/engine/holding-mark.js';
import { holdingPnl } from '../../src/engine/pricing.js';
import type { HoldingRt } from '../../src/engine/state.js';

function holding(netSize: bigint, netNotional: bigint): HoldingRt {
  const h = { netSize, netNotional, upnl: 0n, count: 1, markSign: 1, markHi: 0, markLo: 0, markNotional: 0, markMaxPrice: 0 } as unknown as HoldingRt;
  prepareMark(h);
  return h;
}

/** fp9 integers spread over magnitudes: a few units to the edge of what the bound admits, any digits. */
const magnitude = (maxDigits: number): fc.Arbitrary<bigint> =>
  fc.tuple(fc.integer({ min: 1, max: maxDigits }), fc.bigInt({ min: 0n, max: 10n ** 30n })).map(([digits, x]) => (x % 10n ** BigInt(digits)) + 1n);

describe('markHolding', () => {
  it('equals holdingPnl for any size, notional and price inside its bound (longs and shorts)', () => {
    fc.assert(
      fc.property(magnitude(16), fc.boolean(), fc.bigInt({ min: -(2n ** 52n) + 1n, max: 2n ** 52n - 1n }), magnitude(16), (size, short, notional, price) => {
        const h = holding(short ? -size : size, notional);
        fc.pre(Number(price) < h.markMaxPrice);
        expect(markHolding(h, Number(price))).toBe(Number(holdingPnl(h.netSize, h.netNotional, price)));
      }),
      { numRuns: 5000 },
    );
  });

  it('is exact at the edges: remainders of zero and one, prices one unit under the bound', () => {
    const cases: Array<[bigint, bigint, bigint]> = [
      [1n, 0n, 1n],
      [-1n, 0n, 1n],
      [-1_000_000_000n, 5n, 57_000_000_000_000n],
      [-1_000_000_001n, 5n, 57_000_000_000_001n],
      [123_456_789n, -1n, 999_999_999n],
      [-123_456_789n, 7n, 1_000_000_000n],
      [999_999_999n, 0n, 999_999_999_999_999n],
    ];
    for (const [size, notional, price] of cases) {
      const h = holding(size, notional);
      expect(markHolding(h, Number(price))).toBe(Number(holdingPnl(size, notional, price)));
      const top = BigInt(h.markMaxPrice) - 1n;
      expect(markHolding(h, Number(top))).toBe(Number(holdingPnl(size, notional, top)));
    }
  });

  it('leaves to the bigint path what a double cannot hold: no size, a huge size or notional', () => {
    expect(holding(0n, 0n).markMaxPrice).toBe(0);
    expect(holding(2n ** 52n * 10n ** 9n, 0n).markMaxPrice).toBe(0);
    expect(holding(1n, 2n ** 52n).markMaxPrice).toBe(0);
    expect(holding(-1n, -(2n ** 52n)).markMaxPrice).toBe(0);
    // One bitcoin is marked in doubles up to 2^52 fp9 (4.5 M a unit), a thousand up to 4,503 a unit.
    expect(holding(10n ** 9n, 0n).markMaxPrice).toBe(2 ** 52);
    expect(holding(1n, 0n).markMaxPrice).toBe(2 ** 53);
    expect(holding(1000n * 10n ** 9n, 0n).markMaxPrice).toBe(Number((2n ** 52n * 10n ** 9n) / (1000n * 10n ** 9n)));
  });
});
