/**
 * Exact fp9 integer arithmetic (value × 10^9 as a bigint) for the engine's hot path. Every rounding is
 * named at the call site: floor / ceil toward −∞ / +∞. Decimals only appear at the edges (requests in,
 * reads out), converted here.
 */
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { FP9_SCALE, fp9Decimal, fp9Text } from '../core/fp9.js';

export const S = FP9_SCALE;
export const S2 = S * S;

/** ⌊a / b⌋ for any signs (b ≠ 0). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  // Same signs: truncation is the floor. Otherwise a product tells exactness for less than a remainder.
  if ((a < 0n) === (b < 0n)) return q;
  return q * b === a ? q : q - 1n;
}

/** ⌈a / b⌉ for any signs (b ≠ 0). */
export function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  if ((a < 0n) !== (b < 0n)) return q;
  return q * b === a ? q : q + 1n;
}

/** a / b rounded half to even (b ≠ 0). */
function halfEvenDiv(a: bigint, b: bigint): bigint {
  const n = b < 0n ? -a : a;
  const d = b < 0n ? -b : b;
  const q = floorDiv(n, d);
  const twice = 2n * (n - q * d);
  if (twice > d || (twice === d && (q & 1n) !== 0n)) return q + 1n;
  return q;
}

/** How a quotient is rounded to 9 places: toward +∞, toward zero, or half to even. */
export type QuotientRounding = 'ceil' | 'down' | 'half-even';
const DEC_ROUNDING = { ceil: Dec.ROUND_CEIL, down: Dec.ROUND_DOWN, 'half-even': Dec.ROUND_HALF_EVEN } as const;
/** Numerators (fp9 units) from this size on are divided as Decimals (see fp9Quotient). */
const EXACT_QUOTIENT_BOUND = 10n ** 50n;
const NEGATIVE_ZERO = new Dec(-0);

/**
 * The fp9 values num / den as `Dec` division (60 significant digits, half-even) and then
 * toDecimalPlaces(9, rounding) give it, but by integer division of num·10⁹ by den: no Decimal
 * arithmetic in the views read at every fill or price step. The two agree unless the 60-digit
 * rounding moves the quotient q = num·10⁹/den (in fp9 units) onto or across the point where the
 * 9-place rounding decides: a whole number (ceil, down) or a half (half-even). Unless q is exactly
 * on it, q is at least 1/(2|den|) away from it, and the 60-digit rounding moves it by at most
 * |q|·5·10⁻⁶⁰ = |num|·5·10⁻⁵¹/|den|: so they agree for |num| < 10⁵⁰ fp9 units. Larger numerators are
 * divided as Decimals. A negative quotient rounded to zero is Decimal's −0, which prints as `-0`.
 */
export function fp9Quotient(num: bigint, den: bigint, rounding: QuotientRounding): Decimal {
  if (num >= EXACT_QUOTIENT_BOUND || num <= -EXACT_QUOTIENT_BOUND) return rawToDec(num).div(rawToDec(den)).toDecimalPlaces(9, DEC_ROUNDING[rounding]);
  const n = num * S;
  const q = rounding === 'ceil' ? ceilDiv(n, den) : rounding === 'down' ? n / den : halfEvenDiv(n, den);
  const negative = num < 0n !== den < 0n;
  return q === 0n && negative ? NEGATIVE_ZERO : fp9Decimal(q);
}

export const mulFloor = (a: bigint, b: bigint): bigint => floorDiv(a * b, S);
export const mulCeil = (a: bigint, b: bigint): bigint => ceilDiv(a * b, S);
export const divFloor = (a: bigint, b: bigint): bigint => floorDiv(a * S, b);

export const minB = (a: bigint, b: bigint): bigint => (a < b ? a : b);

const POW10N: number[] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
const POW10: bigint[] = [];
for (let i = 0n, p = 1n; i < 80n; i++, p *= 10n) POW10.push(p);

/**
 * The fp9 integer of a Decimal, read straight from decimal.js's digit words (base 10^7) to stay off
 * string formatting on the hot path. More than 9 decimals round half-even.
 */
export function decToRaw(d: Decimal): bigint {
  const words = (d as unknown as { d: number[] | null }).d;
  const e = (d as unknown as { e: number }).e;
  const sign = (d as unknown as { s: number }).s;
  if (!words) throw new RangeError(`not a finite number: ${d.toString()}`);
  if (words.length === 1 && words[0] === 0) return 0n;
  // Fast path: few digits and an exact result below 2^53 are computed in doubles (exact for integers).
  if (words.length <= 2) {
    const w0 = words[0]!;
    const num = words.length === 2 ? w0 * 10_000_000 + words[1]! : w0;
    const digits = (w0 >= 1e6 ? 7 : w0 >= 1e5 ? 6 : w0 >= 1e4 ? 5 : w0 >= 1e3 ? 4 : w0 >= 100 ? 3 : w0 >= 10 ? 2 : 1) + (words.length - 1) * 7;
    const shift = e + 1 - digits + 9;
    if (shift >= 0 && shift <= 15) {
      const v = num * POW10N[shift]!;
      if (Number.isSafeInteger(v)) return BigInt(sign < 0 ? -v : v);
    }
  }
  let acc = BigInt(words[0]!);
  let digits = String(words[0]).length;
  for (let i = 1; i < words.length; i++) {
    acc = acc * 10_000_000n + BigInt(words[i]!);
    digits += 7;
  }
  // value = acc × 10^(e + 1 − digits); fp9 = value × 10^9
  const shift = e + 1 - digits + 9;
  let raw: bigint;
  // The table covers everyday magnitudes; anything larger is still exact, only slower.
  if (shift >= 0) raw = acc * (POW10[shift] ?? 10n ** BigInt(shift));
  else raw = halfEvenDiv(acc, POW10[-shift] ?? 10n ** BigInt(-shift));
  return sign < 0 ? -raw : raw;
}

/** The Decimal of an fp9 integer (no division, no decimal text on the common path). */
export function rawToDec(raw: bigint): Decimal {
  // Most of an order view's prices are unset: zero without hashing a bigint key.
  if (raw === 0n) return ZERO_RAW_DEC;
  // Reads rebuild their objects on every call, and most fields (fees, ratios, sizes, balances) repeat
  // from one read to the next. Decimals are immutable, so a bounded cache of recent values can hand out
  // the same instance again. Fields read on every step keep their own last value instead (DecMemo).
  let d = DEC_CACHE.get(raw);
  if (d === undefined) {
    if (DEC_CACHE.size >= DEC_CACHE_MAX) DEC_CACHE.clear();
    d = fp9Decimal(raw);
    DEC_CACHE.set(raw, d);
  }
  return d;
}

/** Zero as `rawToDec` hands it out: fp9-tagged like every Decimal it makes (core's `ZERO` is not). */
const ZERO_RAW_DEC = fp9Decimal(0n);
const DEC_CACHE_MAX = 16_384;
const DEC_CACHE = new Map<bigint, Decimal>();

/**
 * A Decimal field of a view that is rebuilt on every read: the same instance while the fp9 value is
 * the same, a new one when it moves. One bigint comparison instead of a cache lookup.
 */
export class DecMemo {
  #raw: bigint | undefined;
  #dec: Decimal | undefined;

  of(raw: bigint): Decimal {
    if (raw !== this.#raw || this.#dec === undefined) {
      this.#raw = raw;
      this.#dec = fp9Decimal(raw);
    }
    return this.#dec;
  }
}



/** fp9 integer of an exact decimal string (presets); more than 9 decimals is a ConfigError naming `path`. */
export function parseRaw(value: string, path: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m) throw new ConfigError(path, `expected a decimal string like "0.0001", got ${JSON.stringify(value)}`);
  const frac = m[3] ?? '';
  if (frac.length > 9) throw new ConfigError(path, `"${value}" has more than 9 decimal places`);
  const raw = BigInt(m[2]! + frac.padEnd(9, '0'));
  return m[1] === '-' ? -raw : raw;
}

/** Human decimal of a raw integer, for messages. */
export const rawHuman: (raw: bigint) => string = fp9Text;
