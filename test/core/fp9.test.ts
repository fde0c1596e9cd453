import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { rawToDec } from '../../src/engine/fixed.js';
import { toRaw } from '../../src/risk/fixed.js';
import { Fp9FormatError, Fp9PrecisionError } from '../../src/core/errors.js';
import {
  FP9_PATTERN,
  decGreater,
  decLess,
  decPlaces,
  decodeFp9,
  encodeFp9,
  fp9Decimal,
  fp9Number,
  fp9Text,
  fromFp9Raw,
  parseFp9Raw,
  roundFp9,
  tagFp9,
  taggedFp9,
  toFp9Raw,
  type Fp9Rounding,
} from '../../src/core/fp9.js';

/** Any fp9 raw integer, from tiny to far beyond 2^64. */
const raw = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });
/** A decimal string with at most 9 places, built digit by digit so it is exact by construction. */
const decimalString = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 9 }))
  .map(([neg, int, frac]) => `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`);
/** A decimal with more than 9 places that are not all zero. */
const tooPrecise = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 9, maxLength: 9 }), fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 0, maxLength: 8 }), fc.constantFrom(...'123456789'))
  .map(([neg, int, nine, more, last]) => new Dec(`${neg ? '-' : ''}${int}.${nine}${more}${last}`));

const NANO = new Dec('1e-9');

describe('fp9 codec', () => {
  it('round-trips every decimal with at most 9 places', () => {
    fc.assert(
      fc.property(decimalString, (s) => {
        const d = new Dec(s);
        const wire = encodeFp9(d, 'exact', 'x');
        expect(wire).toMatch(FP9_PATTERN);
        expect(decodeFp9(wire).equals(d)).toBe(true);
        expect(toFp9Raw(d, 'exact')).toBe(parseFp9Raw(wire));
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips every fp9 raw string', () => {
    fc.assert(
      fc.property(raw, (r) => {
        const wire = r.toString();
        expect(encodeFp9(decodeFp9(wire), 'exact')).toBe(wire);
        expect(fromFp9Raw(r).equals(decodeFp9(wire))).toBe(true);
        expect(parseFp9Raw(wire)).toBe(r);
      }),
      { numRuns: 500 },
    );
  });

  it('preserves ordering', () => {
    fc.assert(
      fc.property(raw, raw, (a, b) => {
        const expected = a < b ? -1 : a > b ? 1 : 0;
        expect(decodeFp9(a.toString()).cmp(decodeFp9(b.toString()))).toBe(expected);
        const da = fromFp9Raw(a);
        const db = fromFp9Raw(b);
        const ra = toFp9Raw(da, 'exact');
        const rb = toFp9Raw(db, 'exact');
        expect(ra < rb ? -1 : ra > rb ? 1 : 0).toBe(da.cmp(db));
      }),
      { numRuns: 500 },
    );
  });

  it('gives 1.0 for 1000000000 and the spec examples', () => {
    expect(decodeFp9('1000000000').toString()).toBe('1');
    expect(decodeFp9('1000000').toString()).toBe('0.001');
    expect(decodeFp9('300000000').toString()).toBe('0.3');
    expect(decodeFp9('10000000000').toString()).toBe('10');
    expect(decodeFp9('-1').toString()).toBe('-0.000000001');
  });

  it('rejects every invalid form, naming the field', () => {
    const invalid: unknown[] = ['1.5', '0.0', '01', '00', '1e9', '1E9', '', '-0', '+1', ' 1', '1 ', '0x10', '1_000', '--1', '-', 'NaN', 'Infinity', '١٢'];
    const wrongTypes: unknown[] = [1, 0, 1.5, 10n, null, undefined, true, {}, ['1'], Number.NaN];
    for (const value of [...invalid, ...wrongTypes]) {
      let err: unknown;
      try {
        decodeFp9(value, 'orders[2].amount');
      } catch (e) {
        err = e;
      }
      expect(err, String(value)).toBeInstanceOf(Fp9FormatError);
      expect((err as Fp9FormatError).field).toBe('orders[2].amount');
      expect((err as Fp9FormatError).message).toContain('orders[2].amount');
    }
  });

  it('rejects float renderings and any string off the pattern', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (x) => {
        // A number is never accepted, not even an integral one.
        expect(() => decodeFp9(x)).toThrow(Fp9FormatError);
        // Its rendering is refused whenever it has a point or an exponent.
        if (/[.e]/i.test(String(x))) expect(() => decodeFp9(String(x))).toThrow(Fp9FormatError);
      }),
    );
    fc.assert(
      fc.property(fc.string().filter((s) => !FP9_PATTERN.test(s)), (s) => {
        expect(() => decodeFp9(s)).toThrow(Fp9FormatError);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.integer({ min: 1, max: 3 }), (n, zeros) => {
        expect(() => decodeFp9('0'.repeat(zeros) + n.toString())).toThrow(Fp9FormatError);
      }),
    );
  });

  it("refuses more than 9 places with 'exact', naming the field", () => {
    fc.assert(
      fc.property(tooPrecise, (d) => {
        let err: unknown;
        try {
          encodeFp9(d, 'exact', 'body.amount');
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(Fp9PrecisionError);
        expect((err as Fp9PrecisionError).field).toBe('body.amount');
      }),
    );
    // Trailing zeros beyond 9 places are not extra precision.
    expect(encodeFp9(new Dec('1.5000000000000'), 'exact')).toBe('1500000000');
  });

  it('refuses non-finite decimals', () => {
    expect(() => encodeFp9(new Dec(Infinity), 'down', 'x')).toThrow(Fp9FormatError);
    expect(() => encodeFp9(new Dec(NaN), 'half-even', 'x')).toThrow(Fp9FormatError);
  });

  const RULES: Exclude<Fp9Rounding, 'exact'>[] = ['down', 'up', 'floor', 'ceil', 'half-even', 'half-up'];

  it('rounds each rule in its direction, to within one nano', () => {
    fc.assert(
      fc.property(tooPrecise, (v) => {
        for (const rule of RULES) {
          const r = decodeFp9(encodeFp9(v, rule));
          expect(r.decimalPlaces()).toBeLessThanOrEqual(9);
          expect(r.minus(v).abs().lt(NANO)).toBe(true);
          expect(r.equals(v)).toBe(false); // v is never representable
          switch (rule) {
            case 'down':
              expect(r.abs().lt(v.abs())).toBe(true);
              break;
            case 'up':
              expect(r.abs().gt(v.abs())).toBe(true);
              break;
            case 'floor':
              expect(r.lt(v)).toBe(true);
              break;
            case 'ceil':
              expect(r.gt(v)).toBe(true);
              break;
            default:
              expect(r.minus(v).abs().lte(NANO.div(2))).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('breaks ties: half-even to the even nano, half-up away from zero', () => {
    const cases: [string, Fp9Rounding, string][] = [
      ['1.0000000005', 'half-even', '1000000000'],
      ['1.0000000015', 'half-even', '1000000002'],
      ['-1.0000000015', 'half-even', '-1000000002'],
      ['1.0000000005', 'half-up', '1000000001'],
      ['-1.0000000005', 'half-up', '-1000000001'],
      ['-1.0000000001', 'floor', '-1000000001'],
      ['-1.0000000009', 'ceil', '-1000000000'],
      ['-1.0000000009', 'down', '-1000000000'],
      ['-1.0000000001', 'up', '-1000000001'],
      ['0.0000000001', 'down', '0'],
      ['-0.0000000001', 'ceil', '0'],
    ];
    for (const [value, rule, expected] of cases) {
      expect(encodeFp9(new Dec(value), rule), `${value} ${rule}`).toBe(expected);
    }
    expect(roundFp9(new Dec('2.1234567894'), 'half-up').toString()).toBe('2.123456789');
  });

  it('never emits "-0"', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 5 }), (frac) => {
        for (const rule of RULES) {
          const wire = encodeFp9(new Dec(`-0.0000000000${frac}`), rule);
          expect(wire).toMatch(FP9_PATTERN);
        }
      }),
    );
  });
});

describe('fp9 tag on engine-built Decimals', () => {
  it('hands back the integer a Decimal was built from, and the Decimal still prints, compares and serialises as a plain one', () => {
    const raw = 43_512_370_000_001n;
    const d = rawToDec(raw);
    expect(taggedFp9(d)).toBe(raw);
    expect(toRaw(d)).toBe(raw);
    expect(d).toEqual(new Dec('43512.370000001'));
    expect(JSON.stringify({ d })).toBe('{"d":"43512.370000001"}');
    expect(Object.keys(d)).toEqual(Object.keys(new Dec('1.5')));
    expect(Object.getOwnPropertySymbols(d)).toEqual([]);
    expect({ ...d }).toEqual({ ...new Dec('43512.370000001') });
    expect(taggedFp9(new Dec('43512.370000001'))).toBeUndefined();
    // The tag is trusted as exact: toRaw takes it over the digits (which here would say otherwise).
    expect(toRaw(tagFp9(new Dec('7'), 5n))).toBe(5n);
  });
});

describe('decGreater / decLess', () => {
  it('order two Decimals as gt / lt do, tagged or not, on either side', () => {
    fc.assert(
      fc.property(raw, raw, fc.boolean(), fc.boolean(), (a, b, tagA, tagB) => {
        const x = tagA ? rawToDec(a) : fromFp9Raw(a);
        const y = tagB ? rawToDec(b) : fromFp9Raw(b);
        expect(decGreater(x, y)).toBe(x.gt(y));
        expect(decLess(x, y)).toBe(x.lt(y));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('fp9Number', () => {
  it('is the double the fp9 text parses to, below 2^53 by one division and beyond it through the text', () => {
    const near = fc.bigInt({ min: -(2n ** 53n) - 5n, max: 2n ** 53n + 5n });
    fc.assert(
      fc.property(fc.oneof(raw, near, fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n })), (r) => {
        expect(Object.is(fp9Number(r), Number(fp9Text(r)))).toBe(true);
      }),
      { numRuns: 5000 },
    );
    for (const r of [0n, 1n, -1n, 999_999_999n, 1_000_000_001n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 60_123_456_789_012n]) {
      expect(fp9Number(r)).toBe(Number(fp9Text(r)));
    }
  });
});

describe('fp9Text', () => {
  it("is Decimal's toFixed of the value, in doubles below 2^53 and in bigints beyond", () => {
    const near = fc.bigInt({ min: -(2n ** 53n) - 5n, max: 2n ** 53n + 5n });
    // whole numbers of units and one unit either side of them, up to the largest whole part below 2^53
    const edges = fc.tuple(fc.bigInt({ min: 0n, max: 9_007_199n }), fc.constantFrom(-1n, 0n, 1n), fc.boolean()).map(([k, d, neg]) => (neg ? -1n : 1n) * (k * 1_000_000_000n + d));
    fc.assert(
      fc.property(fc.oneof(raw, near, edges, fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n })), (r) => {
        expect(fp9Text(r)).toBe(fromFp9Raw(r).toFixed());
      }),
      { numRuns: 5000 },
    );
    for (const r of [0n, 1n, -1n, 10n, 100_000_000n, 999_999_999n, 1_000_000_000n, -1_000_000_001n, 2n ** 53n - 1n, 2n ** 53n, 9_007_198_999_999_999n, 123_450_000_000n]) {
      expect(fp9Text(r)).toBe(fromFp9Raw(r).toFixed());
    }
  });
});

describe('toNumber / decPlaces: a tagged Decimal read from its fp9 integer', () => {
  const raws = fc.oneof(
    fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }),
    fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
    fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).map((r) => r * 10n ** BigInt(Math.floor(Math.abs(Number(r % 10n))))),
  );

  it('give what the Decimal methods give, tagged or not', () => {
    fc.assert(
      fc.property(raws, (raw) => {
        const tagged = fp9Decimal(raw);
        const plain = new Dec(fp9Text(raw));
        expect(taggedFp9(tagged)).toBe(raw);
        // `plain` carries no fp9 integer: its toNumber is decimal.js's own, through the text.
        expect(taggedFp9(plain)).toBeUndefined();
        expect(tagged.toNumber()).toBe(plain.toNumber());
        expect(tagged.toNumber()).toBe(Number(plain.toString()));
        expect(decPlaces(tagged)).toBe(plain.decimalPlaces());
        expect(decPlaces(plain)).toBe(plain.decimalPlaces());
      }),
      { numRuns: 3000 },
    );
    for (const raw of [0n, 1n, -1n, 10n, 1_000_000_000n, -5_000_000_000n, 123_450_000_000n, 2n ** 53n, 10n ** 27n]) {
      expect(decPlaces(fp9Decimal(raw))).toBe(new Dec(fp9Text(raw)).decimalPlaces());
      expect(fp9Decimal(raw).toNumber()).toBe(new Dec(fp9Text(raw)).toNumber());
    }
  });

  it('leave every other Decimal to decimal.js: more places than 9, exponents, signs, a tag from elsewhere', () => {
    for (const text of ['0.1234567891234', '1e-30', '-1e+70', '123456789012345678901234567890.5', '-0', 'Infinity', '-Infinity', 'NaN']) {
      const d = new Dec(text);
      expect(Object.is(d.toNumber(), Number(text))).toBe(true);
    }
    // A Decimal tagged with a wrong integer would answer the integer: tags are set only where a
    // Decimal is built from its fp9 integer (fp9Decimal, decodeFp9), never on another.
    expect(tagFp9(new Dec('1.5'), 2_500_000_000n).toNumber()).toBe(2.5);
  });
});
