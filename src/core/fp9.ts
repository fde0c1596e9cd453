import { Decimal } from 'decimal.js';
import { Dec } from './decimal.js';
import { Fp9FormatError, Fp9PrecisionError } from './errors.js';

/** The wire pattern of an fp9 raw string, from the API spec. */
export const FP9_PATTERN = /^(?:-?[1-9][0-9]*|0)$/;
export const FP9_SCALE = 1_000_000_000n;
const SCALE_DEC = new Dec(1_000_000_000);

/**
 * How to bring a decimal with more than 9 places to fp9. There is deliberately no default: every
 * call site states its rule (an amount to reserve rounds down, a stop trigger rounds away from the
 * market, …). `exact` throws `Fp9PrecisionError` instead of rounding.
 */
export type Fp9Rounding = 'exact' | 'down' | 'up' | 'floor' | 'ceil' | 'half-even' | 'half-up';

const ROUNDING: Record<Exclude<Fp9Rounding, 'exact'>, Decimal.Rounding> = {
  down: Decimal.ROUND_DOWN,
  up: Decimal.ROUND_UP,
  floor: Decimal.ROUND_FLOOR,
  ceil: Decimal.ROUND_CEIL,
  'half-even': Decimal.ROUND_HALF_EVEN,
  'half-up': Decimal.ROUND_HALF_UP,
};

/** Decode an fp9 raw string to an exact Decimal. Anything else is an `Fp9FormatError` naming `field`. */
export function decodeFp9(value: unknown, field = 'value'): Decimal {
  return new Dec(parseFp9Raw(value, field).toString()).div(SCALE_DEC);
}

/** Decode an fp9 raw string to its integer (the value × 10^9) as a bigint. */
export function parseFp9Raw(value: unknown, field = 'value'): bigint {
  if (typeof value !== 'string') throw new Fp9FormatError(field, value, `a ${typeof value} is not a string`);
  if (!FP9_PATTERN.test(value)) {
    throw new Fp9FormatError(field, value, 'not an integer without sign, leading zeros, decimals or exponent');
  }
  return BigInt(value);
}

/** Round a decimal to 9 places by `rounding` (or check it already has at most 9 with `exact`). */
export function roundFp9(value: Decimal, rounding: Fp9Rounding, field = 'value'): Decimal {
  if (!value.isFinite()) throw new Fp9FormatError(field, value.toString(), 'not a finite number');
  if (rounding === 'exact') {
    if (value.decimalPlaces() > 9) throw new Fp9PrecisionError(field, value.toString());
    return value;
  }
  return value.toDecimalPlaces(9, ROUNDING[rounding]);
}

/** Encode a decimal as an fp9 raw string, rounding it to 9 places by the stated rule first. */
export function encodeFp9(value: Decimal, rounding: Fp9Rounding, field = 'value'): string {
  return toFp9Raw(value, rounding, field).toString();
}

/** The fp9 integer of a decimal, rounded to 9 places by the stated rule first. */
export function toFp9Raw(value: Decimal, rounding: Fp9Rounding, field = 'value'): bigint {
  const rounded = roundFp9(value, rounding, field);
  return BigInt(rounded.times(SCALE_DEC).toFixed(0));
}

/** The decimal of an fp9 integer. */
export function fromFp9Raw(raw: bigint): Decimal {
  return new Dec(raw.toString()).div(SCALE_DEC);
}

/**
 * Decimals the engine builds from its fp9 integers carry that integer under this key (non-enumerable,
 * so they still print, compare and serialise as plain Decimals): the guard, which works in fp9, takes
 * it back with one property read instead of converting the Decimal's digits.
 */
const FP9_TAG = Symbol('propbot.fp9');

/** Mark `value` as exactly `raw` × 10^-9 (the caller built it from `raw`). */
export function tagFp9<T extends object>(value: T, raw: bigint): T {
  Object.defineProperty(value, FP9_TAG, { value: raw });
  return value;
}

/** The fp9 integer a Decimal was built from by `tagFp9`, or undefined. */
export function taggedFp9(value: object): bigint | undefined {
  return (value as { [FP9_TAG]?: bigint })[FP9_TAG];
}
