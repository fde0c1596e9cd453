/**
 * Exact fp9 integer arithmetic for the guard's hot path. decimal.js at precision 60 costs 1–4 µs per
 * division, which alone would blow the guard's budget of a few µs per check; bigint fp9 integers
 * (value × 10^9) are exact for sums and differences, and every product or quotient below states which
 * way it rounds, always towards the conservative side for the caller (a worst-case loss rounds up).
 */
import { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { fp9Text, taggedFp9 } from '../core/fp9.js';
import { ceilDiv, floorDiv } from '../engine/fixed.js';

/** 1.0 in fp9. */
export const UNIT = 1_000_000_000n;
const UNIT_DEC = new Dec(1_000_000_000);
const POW10: readonly bigint[] = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));

/** Decimal → fp9 integer. `floor`/`ceil` say which way a value with more than 9 places goes. */
export function toRaw(value: Decimal, rounding: 'floor' | 'ceil' | 'half-even' = 'half-even'): bigint {
  // Snapshots hand the same Decimal instances again and again (the engine and the wire decoder reuse
  // unchanged values); an exact value converts the same whatever the rounding, so it is remembered.
  // Built by the engine from an fp9 integer: that integer, exactly.
  const tagged = taggedFp9(value);
  if (tagged !== undefined) return tagged;
  const known = EXACT.get(value);
  if (known !== undefined) return known;
  const exact = exactRaw(value);
  if (exact !== undefined) {
    EXACT.set(value, exact);
    return exact;
  }
  const mode =
    rounding === 'floor' ? Decimal.ROUND_FLOOR : rounding === 'ceil' ? Decimal.ROUND_CEIL : Decimal.ROUND_HALF_EVEN;
  return BigInt(value.times(UNIT_DEC).toFixed(0, mode));
}

const EXACT = new WeakMap<Decimal, bigint>();

/**
 * The fp9 integer of a value with at most 9 places, read from decimal.js's own digits (base-1e7 words
 * `d`, exponent `e`, sign `s`, all part of its documented instance properties) — about 5x faster than
 * going through text; undefined when it would need rounding (or is too long for this path).
 */
function exactRaw(value: Decimal): bigint | undefined {
  const words = (value as unknown as { d: number[] | null }).d;
  if (words === null || words.length === 0 || words.length > 8) return undefined;
  // Up to two words (14 digits) fit a double exactly: one BigInt conversion instead of one per word.
  let digits: bigint;
  if (words.length === 1) digits = BigInt(words[0]!);
  else if (words.length === 2) digits = BigInt(words[0]! * 10_000_000 + words[1]!);
  else {
    digits = 0n;
    for (let i = 0; i < words.length; i++) digits = digits * 10_000_000n + BigInt(words[i]!);
  }
  const shift = value.e + 1 - (digitCount(words[0]!) + 7 * (words.length - 1)) + 9;
  if (shift >= 0 && shift < POW10.length) {
    const r = digits * POW10[shift]!;
    return value.s < 0 ? -r : r;
  }
  if (shift < 0 && -shift < POW10.length) {
    const p = POW10[-shift]!;
    if (digits % p === 0n) {
      const r = digits / p;
      return value.s < 0 ? -r : r;
    }
  }
  return undefined;
}

function digitCount(word: number): number {
  return word < 10 ? 1 : word < 100 ? 2 : word < 1000 ? 3 : word < 10_000 ? 4 : word < 100_000 ? 5 : word < 1_000_000 ? 6 : 7;
}

/** fp9 integer → Decimal (exact). */
export function fromRaw(raw: bigint): Decimal {
  return new Dec(raw.toString()).div(UNIT_DEC);
}

/** fp9 integer as a plain decimal string without trailing zeros, for reasons. */
export const fmt: (raw: bigint) => string = fp9Text;

// The guard rounds as the engine does, with the engine's own integer division (floor and ceiling
// for any signs).
export { ceilDiv, floorDiv };

/** a × b in fp9, rounded up. */
export function mulUp(a: bigint, b: bigint): bigint {
  return ceilDiv(a * b, UNIT);
}

/** a × b in fp9, rounded down. */
export function mulDown(a: bigint, b: bigint): bigint {
  return floorDiv(a * b, UNIT);
}

/** a / b in fp9, rounded up. */
export function divUp(a: bigint, b: bigint): bigint {
  return ceilDiv(a * UNIT, b);
}

/** a / b in fp9, rounded down. */
export function divDown(a: bigint, b: bigint): bigint {
  return floorDiv(a * UNIT, b);
}

export function minRaw(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function maxRaw(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** A ratio (0.05 = 5%) as a percent string for reasons. */
export function pct(raw: bigint): string {
  return `${fmt(raw * 100n)}%`;
}
