/**
 * The engine's exact fp9 integer helpers agree with the project's Decimal codec on every input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { ConfigError } from '../../src/core/errors.js';
import { fromFp9Raw, toFp9Raw } from '../../src/core/fp9.js';
import { ceilDiv, DecMemo, decToRaw, floorDiv, parseRaw, rawHuman, rawToDec } from '../../src/engine/fixed.js';
import { consistencyRatio } from '../../src/engine/views.js';
import { fp9Decimal, taggedFp9 } from '../../src/core/fp9.js';

const decimalString = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 14 }))
  .map(([neg, digits, places]) => {
    const s = digits.toString().padStart(places + 1, '0');
    const v = places > 0 ? `${s.slice(0, -places)}.${s.slice(-places)}` : s;
    return neg ? `-${v}` : v;
  });

describe('fp9 integer helpers', () => {
  it('decToRaw equals toFp9Raw(half-even) for any decimal', () => {
    fc.assert(
      fc.property(decimalString, (s) => {
        const d = new Dec(s);
        expect(decToRaw(d)).toBe(toFp9Raw(d, 'half-even'));
      }),
      { numRuns: 3000 },
    );
  });
  it('decToRaw stays exact past its power-of-ten table (a value of 10^60 and beyond)', () => {
    for (const e of [70, 71, 90, 200]) {
      expect(decToRaw(new Dec(`1e${e}`))).toBe(10n ** BigInt(e + 9));
      expect(decToRaw(new Dec(`-7e${e}`))).toBe(-7n * 10n ** BigInt(e + 9));
    }
  });
  it('floorDiv / ceilDiv match the floor and ceiling of the exact quotient for any signs', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).filter((b) => b !== 0n), (a, b) => {
        const q = new Dec(a.toString()).div(b.toString());
        expect(floorDiv(a, b).toString()).toBe(q.floor().toFixed(0));
        expect(ceilDiv(a, b).toString()).toBe(q.ceil().toFixed(0));
      }),
      { numRuns: 3000 },
    );
    // Exact quotients of every sign pairing: the branch that tells exactness by a product.
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).filter((b) => b < -1n || b > 1n), (k, b) => {
        expect(floorDiv(k * b, b)).toBe(k);
        expect(ceilDiv(k * b, b)).toBe(k);
        expect(floorDiv(k * b + 1n, b)).toBe(b > 0n ? k : k - 1n);
        expect(ceilDiv(k * b + 1n, b)).toBe(b > 0n ? k + 1n : k);
      }),
      { numRuns: 1000 },
    );
  });
  it('parseRaw reads preset strings exactly and names the key on bad input; rawHuman/rawToDec round-trip', () => {
    expect(parseRaw('0.00008', 'k')).toBe(80_000n);
    expect(parseRaw('-2', 'k')).toBe(-2_000_000_000n);
    expect(() => parseRaw('1e-5', 'markets.crypto.fee')).toThrow(ConfigError);
    expect(() => parseRaw('0.0000000001', 'markets.crypto.fee')).toThrow(/markets\.crypto\.fee/);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (raw) => {
        expect(parseRaw(rawHuman(raw), 'k')).toBe(raw);
        expect(decToRaw(rawToDec(raw))).toBe(raw);
      }),
    );
  });
  it('rawToDec (cached) equals the core codec, also after its cache has been cleared and refilled', () => {
    const seen = [123_456_789n, -5n, 10n ** 20n];
    const before = seen.map((r) => rawToDec(r).toString());
    const wrong: bigint[] = [];
    for (let i = 0n; i < 20_000n; i++) {
      const r = i * 7n - 1n;
      const got = rawToDec(r);
      if (i % 50n === 0n && !got.eq(fromFp9Raw(r))) wrong.push(r);
    }
    expect(wrong).toEqual([]);
    expect(seen.map((r) => rawToDec(r).toString())).toEqual(before);
    expect(seen.map((r) => rawToDec(r).eq(fromFp9Raw(r)))).toEqual([true, true, true]);
  });
  it('fp9Decimal builds the very Decimal the decimal text parses to: digit words, exponent, sign, arithmetic', () => {
    const internals = (x: unknown) => {
      const { s, e, d } = x as { s: number; e: number; d: number[] };
      return { s, e, d: [...d] };
    };
    // Around 2^53 the fast path hands over to the text path; both sides of it are drawn.
    const raws = fc.oneof(
      fc.bigInt({ min: -(2n ** 53n) - 10n, max: 2n ** 53n + 10n }),
      fc.bigInt({ min: -1_000_000_000n, max: 1_000_000_000n }),
      fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }),
    );
    fc.assert(
      fc.property(raws, (raw) => {
        const fast = fp9Decimal(raw);
        const text = new Dec(rawHuman(raw));
        expect(internals(fast)).toEqual(internals(text));
        expect(fast.toString()).toBe(text.toString());
        expect(fast.constructor).toBe(text.constructor);
        expect(fast.times(7).div(3).toString()).toBe(text.times(7).div(3).toString());
        expect(taggedFp9(fast)).toBe(raw);
        expect(JSON.stringify({ v: fast })).toBe(JSON.stringify({ v: text }));
      }),
      { numRuns: 5000 },
    );
  });
  it('DecMemo hands out the same Decimal while the value stands and a new one when it moves', () => {
    const memo = new DecMemo();
    const a = memo.of(60_000_000_000_000n);
    expect(memo.of(60_000_000_000_000n)).toBe(a);
    const b = memo.of(60_000_500_000_000n);
    expect(b).not.toBe(a);
    expect(b.toString()).toBe('60000.5');
    expect(memo.of(60_000_000_000_000n).toString()).toBe('60000');
  });
});

describe('consistencyRatio', () => {
  /** The figure as the risk view used to work it out: Decimal division, then up to 9 places. */
  const byDivision = (best: bigint, delta: bigint) => rawToDec(best).div(rawToDec(delta)).toDecimalPlaces(9, Dec.ROUND_CEIL);
  const same = (best: bigint, delta: bigint): void => {
    const got = consistencyRatio(best, delta);
    const want = byDivision(best, delta);
    expect(got.toString()).toBe(want.toString());
    expect(got.eq(want)).toBe(true);
    expect(JSON.stringify(got)).toBe(JSON.stringify(want));
  };

  it('equals the Decimal division rounded up to 9 places, for any best day and profit', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 30n }), (best, delta) => same(best, delta)),
      { numRuns: 3000 },
    );
    // exact quotients, one unit past them either way, and a remainder of one
    for (const [best, delta] of [[0n, 1n], [3n, 3n], [300_000_000_000n, 1_000_000_000_000n], [1n, 3n], [-1n, 3n], [10n ** 20n + 1n, 10n ** 20n], [2n, 10n ** 30n], [-(10n ** 29n), 7n]] as const) same(best, delta);
  });

  it('keeps the Decimal way where the 60-digit division could round onto a 9-place boundary', () => {
    // |best/delta| ≈ 1.4·10^41: 60 significant digits reach only the 9th decimal place, so the
    // division rounds half-even there and the ceiling after it has nothing left to round up.
    const best = 10n ** 51n + 5n; // ≡ 4 (mod 7): the fraction is 4/7 = 0.571428571|428…, rounded down at the 9th place
    const delta = 7n;
    expect(ceilDiv(best * 1_000_000_000n, delta)).not.toBe(decToRaw(byDivision(best, delta)));
    same(best, delta);
    same(-best, delta);
  });
});
