/**
 * The engine's exact fp9 integer helpers agree with the project's Decimal codec on every input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { ConfigError } from '../../src/core/errors.js';
import { fromFp9Raw, toFp9Raw } from '../../src/core/fp9.js';
import { ceilDiv, decToRaw, floorDiv, parseRaw, rawHuman, rawToDec } from '../../src/engine/fixed.js';

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
});
