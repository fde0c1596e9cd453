/**
 * The engine's exact fp9 integer helpers agree with the project's Decimal codec on every input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { ConfigError } from '../../src/core/errors.js';
import { fromFp9Raw, toFp9Raw } from '../../src/core/fp9.js';
import { ceilDiv, DecMemo, decToRaw, floorDiv, fp9Quotient, parseRaw, rawHuman, rawToDec, type QuotientRounding } from '../../src/engine/fixed.js';
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

describe('fp9Quotient', () => {
  const MODES = { ceil: Dec.ROUND_CEIL, down: Dec.ROUND_DOWN, 'half-even': Dec.ROUND_HALF_EVEN } as const;
  /** The figure as the views used to work it out: Decimal division, then to 9 places. */
  const byDivision = (num: bigint, den: bigint, mode: QuotientRounding) => rawToDec(num).div(rawToDec(den)).toDecimalPlaces(9, MODES[mode]);
  const same = (num: bigint, den: bigint, mode: QuotientRounding): void => {
    const got = fp9Quotient(num, den, mode);
    const want = byDivision(num, den, mode);
    expect({ num, den, mode, text: got.toString(), json: JSON.stringify(got) }).toEqual({ num, den, mode, text: want.toString(), json: JSON.stringify(want) });
  };
  const mode = fc.constantFrom<QuotientRounding>('ceil', 'down', 'half-even');
  const nonZero = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).filter((d) => d !== 0n);

  it('equals the Decimal division rounded to 9 places, for any numerator, denominator and rounding', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), nonZero, mode, (num, den, m) => same(num, den, m)),
      { numRuns: 3000 },
    );
    // ties of half-even (den even, a remainder of half of it), exact quotients, a remainder of one,
    // zero over a negative (Decimal's -0) and a negative quotient rounded to zero
    const edges: Array<[bigint, bigint]> = [[0n, 1n], [0n, -7n], [3n, 3n], [1n, 2_000_000_000n], [3n, 2_000_000_000n], [5n, -2_000_000_000n], [-1n, 3n], [1n, -3n], [10n ** 20n + 1n, 10n ** 20n], [2n, 10n ** 30n], [-(10n ** 29n), 7n]];
    for (const [num, den] of edges) for (const m of Object.keys(MODES) as QuotientRounding[]) same(num, den, m);
  });

  it('keeps the Decimal way where the 60-digit division could round onto the point the 9 places decide on', () => {
    // |num/den| ≈ 1.4·10^41: 60 significant digits reach only the 9th decimal place, so the division
    // rounds half-even there and the ceiling after it has nothing left to round up.
    const num = 10n ** 51n + 5n; // ≡ 4 (mod 7): the fraction is 4/7 = 0.571428571|428…, rounded down at the 9th place
    const den = 7n;
    expect(ceilDiv(num * 1_000_000_000n, den)).not.toBe(decToRaw(byDivision(num, den, 'ceil')));
    for (const m of Object.keys(MODES) as QuotientRounding[]) {
      same(num, den, m);
      same(-num, den, m);
    }
  });
});
