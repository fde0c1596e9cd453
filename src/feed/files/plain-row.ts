/**
 * The row nearly every candle file is made of, read in one pass over the line: comma-separated,
 * an epoch time of digits (or, in a named time column, a date of the common forms), four plain
 * prices and a plain volume. It gives exactly what the general path (`splitCsv`, then
 * `candleFromFields`) gives for such a row, without splitting every column into a string, trimming,
 * or reading a price's digits twice. Anything else (quotes, spaces,
 * exponents, more than 9 decimals, a bad OHLC, a time out of range) returns undefined and goes the
 * general way, which also words the faults.
 */
import { fp9Digits } from '../../core/fp9.js';
import type { ParsedCandle } from './layouts.js';
import { EPOCH_FROM, TIME_WINDOW } from './parse-text.js';

/** Where a layout's columns are, and how its times are read. */
export interface PlainColumns {
  /** Columns a row must have. */
  readonly width: number;
  readonly time: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /** -1 without a volume column. */
  readonly volume: number;
  /**
   * `ms`: a `timestamp_ms` column; `any`: seconds or milliseconds by magnitude (header-less files);
   * `any-or-date`: those, or a UTC date text (a named time column, as `readTime` reads it).
   */
  readonly timeUnit: 'ms' | 'any' | 'any-or-date';
}

const DOT = 0x2e;
const ZERO = 0x30;
const DASH = 0x2d;
const COLON = 0x3a;
const SPACE = 0x20;
const T = 0x54;
const Z = 0x5a;

/**
 * A parse of the row from `a` to `b` of `text` into columns the caller reuses: start and end of each.
 * Returns false unless the row has exactly `width` columns (the general path counts them the same
 * way: one more than its commas).
 */
function columns(text: string, a: number, b: number, width: number, starts: Int32Array, ends: Int32Array): boolean {
  let from = a;
  for (let i = 0; i < width - 1; i += 1) {
    const comma = text.indexOf(',', from);
    if (comma === -1 || comma >= b) return false;
    starts[i] = from;
    ends[i] = comma;
    from = comma + 1;
  }
  const more = text.indexOf(',', from);
  if (more !== -1 && more < b) return false;
  starts[width - 1] = from;
  ends[width - 1] = b;
  return true;
}

/**
 * The fp9 integer of a price column as a double (`fp9Digits`), when it is a price the general path
 * keeps as written (`plainFp9Price`: above zero, no leading zero but a lone `0.`) and compares as a
 * number (finite: at most 6 integer digits, which a double holds exactly with its 9 places). NaN
 * otherwise: the general path reads it.
 */
function plainPrice(text: string, a: number, b: number): number {
  const fp9 = fp9Digits(text, a, b);
  if (!(fp9 > 0) || fp9 === Number.POSITIVE_INFINITY) return Number.NaN;
  if (b - a > 1 && text.charCodeAt(a) === ZERO && text.charCodeAt(a + 1) !== DOT) return Number.NaN;
  return fp9;
}

/** Whether the column is a plain decimal `parseDecimalText` keeps as written (`0`, or no leading zero; a dot with digits on both sides). */
function plainDecimal(text: string, a: number, b: number): boolean {
  if (a === b) return false;
  let dot = -1;
  for (let i = a; i < b; i += 1) {
    const c = text.charCodeAt(i);
    if (c === DOT && dot === -1 && i > a) dot = i;
    else if (c < ZERO || c > ZERO + 9) return false;
  }
  if (dot === b - 1) return false;
  const intEnd = dot === -1 ? b : dot;
  return !(intEnd - a > 1 && text.charCodeAt(a) === ZERO);
}

/** The value of the 1 to 15 digits from `a` to `b` (exact in a double); NaN for anything else. */
function digitsValue(text: string, a: number, b: number): number {
  if (a === b || b - a > 15) return Number.NaN;
  let value = 0;
  for (let i = a; i < b; i += 1) {
    const c = text.charCodeAt(i);
    if (c < ZERO || c > ZERO + 9) return Number.NaN;
    value = value * 10 + (c - ZERO);
  }
  return value;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * UTC ms of the date texts most files write, as `parseUtcDateText` reads them: `2019-10-17`,
 * CryptoDataDownload's `2019-10-17 09-AM` (12-AM is midnight, am/pm in either case), and
 * `2019-10-17 09:00` or `2019-10-17T09:00:00` with or without a `Z`. NaN for every other text
 * (fractions of a second, offsets, a day the month does not have, …): the general path reads those
 * and words the faults, where its regular expressions and a Date round trip cost more than the rest
 * of the row.
 */
function plainDate(text: string, a: number, b: number): number {
  const n = b - a;
  if (n !== 10 && n !== 16 && n !== 17 && n !== 19 && n !== 20) return Number.NaN;
  if (text.charCodeAt(a + 4) !== DASH || text.charCodeAt(a + 7) !== DASH) return Number.NaN;
  const y = digitsValue(text, a, a + 4);
  const mo = digitsValue(text, a + 5, a + 7);
  const d = digitsValue(text, a + 8, a + 10);
  // Date.UTC reads years below 100 as 19xx; the time window starts in 1970 anyway.
  if (!(y >= 1970 && mo >= 1 && mo <= 12 && d >= 1)) return Number.NaN;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > MONTH_DAYS[mo - 1]! + (mo === 2 && leap ? 1 : 0)) return Number.NaN;
  if (n === 10) return Date.UTC(y, mo - 1, d);
  const sep = text.charCodeAt(a + 10);
  if (n === 16 && sep === SPACE && text.charCodeAt(a + 13) === DASH) {
    const h12 = digitsValue(text, a + 11, a + 13);
    const half = text.charCodeAt(a + 14) | 0x20;
    if (!(h12 >= 1 && h12 <= 12) || (text.charCodeAt(a + 15) | 0x20) !== 0x6d || (half !== 0x61 && half !== 0x70)) return Number.NaN;
    return Date.UTC(y, mo - 1, d, (h12 % 12) + (half === 0x70 ? 12 : 0));
  }
  if (sep !== SPACE && sep !== T) return Number.NaN;
  const end = text.charCodeAt(b - 1) === Z ? b - 1 : b;
  const len = end - a;
  if ((len !== 16 && len !== 19) || text.charCodeAt(a + 13) !== COLON) return Number.NaN;
  const h = digitsValue(text, a + 11, a + 13);
  const mi = digitsValue(text, a + 14, a + 16);
  let s = 0;
  if (len === 19) {
    if (text.charCodeAt(a + 16) !== COLON) return Number.NaN;
    s = digitsValue(text, a + 17, a + 19);
  }
  if (!(h <= 23 && mi <= 59 && s <= 59)) return Number.NaN;
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/**
 * A reader of plain rows for one layout's columns (it reuses its column buffers: one per reader). It
 * reads the row from `from` to `to` of `text` (the whole text by default), so a file reader can parse
 * a row in place in the block of lines it decoded, without a string per line.
 */
export function plainRowReader(cols: PlainColumns): (text: string, from?: number, to?: number) => ParsedCandle | undefined {
  const starts = new Int32Array(cols.width);
  const ends = new Int32Array(cols.width);
  return (text, from = 0, to = text.length) => {
    if (!columns(text, from, to, cols.width, starts, ends)) return undefined;
    const epoch = digitsValue(text, starts[cols.time]!, ends[cols.time]!);
    let time: number;
    let unit: 'ms' | 's' | 'date';
    const date = cols.timeUnit === 'any-or-date' && Number.isNaN(epoch) ? plainDate(text, starts[cols.time]!, ends[cols.time]!) : Number.NaN;
    if (date >= 0) {
      time = date;
      unit = 'date';
    } else if (cols.timeUnit === 'ms') {
      time = epoch;
      unit = 'ms';
    } else if (epoch >= EPOCH_FROM.s && epoch < EPOCH_FROM.ms) {
      time = epoch * 1000;
      unit = 's';
    } else if (epoch >= EPOCH_FROM.ms && epoch < EPOCH_FROM.us) {
      time = epoch;
      unit = 'ms';
    } else return undefined;
    if (!(time >= TIME_WINDOW.from && time < TIME_WINDOW.to)) return undefined;
    const o = plainPrice(text, starts[cols.open]!, ends[cols.open]!);
    const h = plainPrice(text, starts[cols.high]!, ends[cols.high]!);
    const l = plainPrice(text, starts[cols.low]!, ends[cols.low]!);
    const c = plainPrice(text, starts[cols.close]!, ends[cols.close]!);
    // NaN fails every comparison: one test covers the prices and their order.
    if (!(h >= o && h >= c && l <= o && l <= c)) return undefined;
    let volume: string | null = null;
    if (cols.volume >= 0) {
      const va = starts[cols.volume]!;
      const vb = ends[cols.volume]!;
      if (va !== vb) {
        if (!plainDecimal(text, va, vb)) return undefined;
        volume = text.slice(va, vb);
      }
    }
    return {
      ok: true,
      time,
      open: text.slice(starts[cols.open]!, ends[cols.open]!),
      high: text.slice(starts[cols.high]!, ends[cols.high]!),
      low: text.slice(starts[cols.low]!, ends[cols.low]!),
      close: text.slice(starts[cols.close]!, ends[cols.close]!),
      volume,
      unit,
      // plainPrice's readings are exact (a finite fp9 integer above zero) or the row was refused.
      openFp9: BigInt(o),
      highFp9: BigInt(h),
      lowFp9: BigInt(l),
      closeFp9: BigInt(c),
    };
  };
}
