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

/** Below this an fp9 integer is an exact double (the fast paths of fp9Text, fp9Number, fp9Decimal). */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An fp9 integer as its plain decimal text, without trailing zeros (`Decimal#toFixed()` of its value):
 * for messages, reasons and report files, without building a Decimal.
 */
export function fp9Text(raw: bigint): string {
  // Below 2^53 in doubles (exact there): no bigint division and no regular expression. A report
  // writes one a minute of the run.
  if (raw <= MAX_SAFE && raw >= -MAX_SAFE) {
    const n = Number(raw);
    const abs = n < 0 ? -n : n;
    // The quotient is rounded, but never up to a whole number it is below: it is then at least 10^-9
    // below it, more than half the spacing of doubles under 2^24 (the whole part is under 9.1·10^6).
    const int = Math.floor(abs / 1e9);
    let frac = abs - int * 1e9;
    const sign = n < 0 ? '-' : '';
    if (frac === 0) return `${sign}${int}`;
    let places = 9;
    while (frac % 10 === 0) {
      frac /= 10;
      places -= 1;
    }
    return `${sign}${int}.${PAD_ZEROS[places - String(frac).length]}${frac}`;
  }
  const neg = raw < 0n;
  const abs = neg ? -raw : raw;
  const frac = (abs % FP9_SCALE).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${abs / FP9_SCALE}${frac ? `.${frac}` : ''}`;
}
const PAD_ZEROS = ['', '0', '00', '000', '0000', '00000', '000000', '0000000', '00000000'];

/**
 * The double nearest an fp9 integer's value, as `Number(fp9Text(raw))` reads it (for charts). Below
 * 2^53 both the integer and 10^9 are exact doubles and IEEE division rounds their quotient once, to the
 * nearest double, as the text's parse does; larger values go through the text.
 */
export function fp9Number(raw: bigint): number {
  if (raw <= MAX_SAFE && raw >= -MAX_SAFE) return Number(raw) / 1e9;
  return Number(fp9Text(raw));
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/**
 * The fp9 integer of a plain decimal text (digits, at most one dot with 1 to 9 digits after it) as a
 * double, read in one pass: exact while it has at most 15 digits (below 2^53). NaN when the text is
 * not such a decimal, Infinity when it is one with more digits (read it as a bigint then). File
 * readers call this several times per row; `start` and `end` read a column of a line in place.
 */
export function fp9Digits(text: string, start = 0, end = text.length): number {
  const n = end - start;
  if (n <= 0) return Number.NaN;
  let dot = -1;
  let value = 0;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x2e && dot === -1 && i > start) dot = i;
    else if (c < 0x30 || c > 0x39) return Number.NaN;
    else value = value * 10 + (c - 0x30);
  }
  const places = dot === -1 ? 0 : end - dot - 1;
  if (dot !== -1 && (places < 1 || places > 9)) return Number.NaN;
  if ((dot === -1 ? n : n - 1) + 9 - places > 15) return Number.POSITIVE_INFINITY;
  return value * POW10[9 - places]!;
}

/** The decimal of an fp9 integer. */
export function fromFp9Raw(raw: bigint): Decimal {
  return new Dec(raw.toString()).div(SCALE_DEC);
}

/**
 * Decimals the engine builds from its fp9 integers carry that integer, so the guard, which works in
 * fp9, takes it back with one field read instead of converting the Decimal's digits. It is a private
 * field stamped onto the Decimal (a base class constructor that returns the object it is given): no
 * property a program can see, so a tagged Decimal prints, compares, spreads and serialises as any
 * other, and stamping costs a fraction of Object.defineProperty, which matters at one per price.
 */
class Passthrough {
  constructor(target: object) {
    return target;
  }
}

class Fp9Tag extends Passthrough {
  readonly #raw: bigint;

  constructor(target: object, raw: bigint) {
    super(target);
    this.#raw = raw;
  }

  static of(value: object): bigint | undefined {
    return #raw in value ? (value as Fp9Tag).#raw : undefined;
  }
}

/** Mark `value` as exactly `raw` × 10^-9 (the caller built it from `raw`). Once per object. */
export function tagFp9<T extends object>(value: T, raw: bigint): T {
  new Fp9Tag(value, raw);
  return value;
}

/** The fp9 integer a Decimal was built from by `tagFp9`, or undefined. */
export function taggedFp9(value: object): bigint | undefined {
  return Fp9Tag.of(value);
}

/**
 * `toNumber()` of every Decimal answers from the fp9 integer when the Decimal carries one: the same
 * double (see `fp9Number`), without decimal.js's way through the decimal text. The engine's prices
 * and money are such Decimals, and strategies turn candle prices into numbers for their indicators
 * on every candle (a sweep of hourly data spent 2% of its time there). Untagged Decimals keep
 * decimal.js's own method. Installed once, on the prototype every `Dec` shares, wherever a tagged
 * Decimal can exist (they are made only through this module).
 */
const PLAIN_TO_NUMBER = (Dec.prototype as Decimal).toNumber;
(Dec.prototype as { toNumber(this: Decimal): number }).toNumber = function toNumber(this: Decimal): number {
  const raw = Fp9Tag.of(this);
  return raw !== undefined ? fp9Number(raw) : PLAIN_TO_NUMBER.call(this);
};

/** `d.decimalPlaces()`, from the fp9 integer when `d` carries one: 9 less its trailing zeros. */
export function decPlaces(d: Decimal): number {
  const raw = Fp9Tag.of(d);
  if (raw === undefined) return d.decimalPlaces();
  if (raw === 0n) return 0;
  let places = 9;
  let r = raw < 0n ? -raw : raw;
  while (places > 0 && r % 10n === 0n) {
    r /= 10n;
    places -= 1;
  }
  return places;
}

/** a > b, on the fp9 integers when both carry one (the replay's prices do), else on the Decimals. */
export function decGreater(a: Decimal, b: Decimal): boolean {
  const ra = Fp9Tag.of(a);
  const rb = ra === undefined ? undefined : Fp9Tag.of(b);
  return rb !== undefined ? ra! > rb : a.gt(b);
}

/** a < b, as `decGreater`. */
export function decLess(a: Decimal, b: Decimal): boolean {
  const ra = Fp9Tag.of(a);
  const rb = ra === undefined ? undefined : Fp9Tag.of(b);
  return rb !== undefined ? ra! < rb : a.lt(b);
}

const DEC_PROTO = Object.getPrototypeOf(new Dec(1)) as object;
const digitsOf = (w: number): number => (w >= 1e6 ? 7 : w >= 1e5 ? 6 : w >= 1e4 ? 5 : w >= 1e3 ? 4 : w >= 100 ? 3 : w >= 10 ? 2 : 1);

/**
 * A new Decimal of an fp9 integer, tagged with it. Below 2^53 (prices and balances up to ~9 million
 * with 9 places) its digit words are computed in doubles, which are exact for such integers, and set
 * as decimal.js's own constructor sets them; larger values go through the decimal text. A check at
 * load and the property tests compare both ways on the same values.
 */
export function fp9Decimal(raw: bigint): Decimal {
  if (FAST && raw <= MAX_SAFE && raw >= -MAX_SAFE) return tagFp9(wordsDec(Number(raw)), raw);
  return tagFp9(fromFp9Raw(raw), raw);
}

/** decimal.js's representation of n × 10^-9: sign, base-10 exponent and base-10^7 words aligned on the point. */
function wordsDec(n: number): Decimal {
  const x = Object.create(DEC_PROTO) as { constructor: unknown; s: number; e: number; d: number[] };
  x.constructor = Dec;
  x.s = n < 0 ? -1 : 1;
  const a = n < 0 ? -n : n;
  if (a === 0) {
    x.e = 0;
    x.d = [0];
    return x as unknown as Decimal;
  }
  // |n| < 2^53 makes the integer part < 10^7: one word. The 9 fractional digits are a word of 7
  // and one of 2 (padded to 7), as decimal.js aligns words on the decimal point.
  // Each word `| 0`: computed in doubles, the words made arrays of doubles, where decimal.js's own
  // are arrays of small integers, and its compiled word loops (compare, subtract, divide) met both
  // kinds and were thrown away ("wrong map"), a divide 45 ms of compiling each time. Every word is
  // below 10^7, so `| 0` is exact.
  const int = Math.floor(a / 1e9) | 0;
  const frac = a - int * 1e9;
  const f1 = Math.floor(frac / 100) | 0;
  const f2 = ((frac - f1 * 100) * 1e5) | 0;
  let d: number[];
  let e: number;
  if (int > 0) {
    e = digitsOf(int) - 1;
    d = f2 !== 0 ? [int, f1, f2] : f1 !== 0 ? [int, f1] : [int];
  } else if (f1 > 0) {
    e = digitsOf(f1) - 8;
    d = f2 !== 0 ? [f1, f2] : [f1];
  } else {
    e = digitsOf(f2) - 15;
    d = [f2];
  }
  x.e = e;
  x.d = d;
  return x as unknown as Decimal;
}

/** The words path agrees with decimal.js's parser on edge values, or it is not used. */
const FAST = ((): boolean => {
  const probes = [0n, 1n, -1n, 99n, 100n, 1_000_000_000n, 123_456_789n, 60_123_450_000_000n, -9_000_000_999_999_999n, 9_007_199_254_740_991n, 10_000_000n, 1_000_000_000_000_000n];
  return probes.every((raw) => {
    const fast = wordsDec(Number(raw));
    const slow = fromFp9Raw(raw);
    const f = fast as unknown as { s: number; e: number; d: number[] };
    const w = slow as unknown as { s: number; e: number; d: number[] };
    return f.s === w.s && f.e === w.e && f.d.length === w.d.length && f.d.every((v, i) => v === w.d[i]) && fast.eq(slow) && fast.toString() === slow.toString();
  });
})();
