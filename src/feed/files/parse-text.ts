/**
 * Field parsers shared by the layouts. They return `undefined` for a bad field so the caller can
 * report the row with its line; they never throw per row.
 */
import { Dec } from '../../core/decimal.js';
import type { TimeUnit } from './types.js';

const PLAIN_DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;
const ANY_DECIMAL = /^\+?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/**
 * A non-negative decimal as a plain string (no exponent, no sign). The text is kept as written when
 * it already is plain (`32.00` stays `32.00`); otherwise it is normalised exactly through Decimal.
 */
export function parseDecimalText(text: string): string | undefined {
  if (PLAIN_DECIMAL.test(text)) return text;
  if (!ANY_DECIMAL.test(text)) return undefined;
  return new Dec(text.startsWith('+') ? text.slice(1) : text).toFixed();
}

/** True when a plain decimal string is above zero. */
export function isPositive(plain: string): boolean {
  return /[1-9]/.test(plain);
}

const DAY_MS = 86_400_000;
/**
 * An epoch value from one bound up to the next is read in that unit (years 1973 to 5138 for each);
 * µs up to US_MAX. The one-pass row read (plain-row.ts) reads s and ms by the same bounds.
 */
export const EPOCH_FROM = { s: 100_000_000, ms: 100_000_000_000, us: 100_000_000_000_000 } as const; // 1e8, 1e11, 1e14
const US_MAX = 100_000_000_000_000_000; // 1e17

export type EpochUnit = Exclude<TimeUnit, 'date'>;

/** A time read from a file, with the unit it was read in. */
export interface ReadTime {
  readonly time: number;
  readonly unit: TimeUnit;
}

/**
 * Candle times outside this window are refused, whatever the unit: a timestamp of year 10000 or of
 * 1900 in a candle file is a unit or a column mistake, not history.
 */
export const TIME_WINDOW = { from: Date.UTC(1970, 0, 1), to: Date.UTC(2100, 0, 1) } as const;

/** The unit an epoch number is in by its magnitude alone (s, ms or µs), if any. */
export function epochUnitOf(text: string): EpochUnit | undefined {
  if (!/^[0-9]{1,17}$/.test(text)) return undefined;
  const big = BigInt(text);
  if (big < BigInt(EPOCH_FROM.s)) return undefined;
  if (big < BigInt(EPOCH_FROM.ms)) return 's';
  if (big < BigInt(EPOCH_FROM.us)) return 'ms';
  if (big < BigInt(US_MAX)) return 'us';
  return undefined;
}

/**
 * An epoch timestamp in `unit` (or, without one, in the unit its magnitude says: newer Binance dumps
 * use µs), in ms. Fractions of a millisecond are refused. The reader decides the unit once per file
 * from its first row, so a row in another unit is reported instead of being read as another date.
 */
export function readEpoch(text: string, unit: EpochUnit | undefined = epochUnitOf(text)): ReadTime | undefined {
  if (unit === undefined || !digitsOnly(text, 17)) return undefined;
  // A double holds these exactly (ms up to 15 digits, s up to 12 and their 1000×): no bigint per row.
  if (unit === 'ms' && text.length <= 15) return { time: Number(text), unit };
  if (unit === 's' && text.length <= 12) return { time: Number(text) * 1000, unit };
  const big = BigInt(text);
  if (unit === 's') return { time: Number(big * 1000n), unit };
  if (unit === 'ms') return { time: Number(big), unit };
  if (big % 1000n !== 0n) return undefined;
  return { time: Number(big / 1000n), unit };
}

/** Whether `text` is 1 to `most` ASCII digits (a loop: this runs on every row of a file). */
function digitsOnly(text: string, most: number): boolean {
  const n = text.length;
  if (n === 0 || n > most) return false;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** `readEpoch` by magnitude, the time only (unix ms). */
export function parseEpochText(text: string): number | undefined {
  return readEpoch(text)?.time;
}

const DATE_AMPM = /^(\d{4})-(\d{2})-(\d{2}) (\d{2})-(AM|PM)$/i;
const DATE_ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|([+-])(\d{2}):?(\d{2}))?$/;

/**
 * A UTC date as CryptoDataDownload writes it: `2019-10-17 09-AM` (12-AM is midnight, 12-PM noon),
 * `2019-10-17 09:00:00`, `2019-10-17 09:00`, `2019-10-17`, optionally ISO with `T` and `Z`. A time
 * with an offset (`2019-10-17T11:00:00+02:00`, as exports in local time write it) names one instant,
 * read as its UTC time; without one, a time is UTC.
 */
export function parseUtcDateText(text: string): number | undefined {
  let y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0, offsetMs = 0;
  const ampm = DATE_AMPM.exec(text);
  if (ampm) {
    y = Number(ampm[1]);
    mo = Number(ampm[2]);
    d = Number(ampm[3]);
    const h12 = Number(ampm[4]);
    if (h12 < 1 || h12 > 12) return undefined;
    h = (h12 % 12) + (ampm[5]!.toUpperCase() === 'PM' ? 12 : 0);
  } else {
    const iso = DATE_ISO.exec(text);
    if (!iso) return undefined;
    y = Number(iso[1]);
    mo = Number(iso[2]);
    d = Number(iso[3]);
    h = Number(iso[4] ?? 0);
    mi = Number(iso[5] ?? 0);
    s = Number(iso[6] ?? 0);
    ms = Number((iso[7] ?? '0').padEnd(3, '0'));
    if (h > 23 || mi > 59 || s > 59) return undefined;
    if (iso[9] !== undefined) {
      const oh = Number(iso[10]);
      const om = Number(iso[11]);
      if (oh > 23 || om > 59) return undefined;
      offsetMs = (iso[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
    }
  }
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const check = new Date(t);
  // Date.UTC rolls 2019-02-30 over to March: refuse instead
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  return t - offsetMs;
}

/** A date column: an epoch number (s/ms/µs) or a UTC date text. */
export function parseTimeText(text: string): number | undefined {
  return readTime(text)?.time;
}

/** A date column with the unit it was read in. */
export function readTime(text: string): ReadTime | undefined {
  if (/^[0-9]+$/.test(text)) return readEpoch(text);
  const time = parseUtcDateText(text);
  return time === undefined ? undefined : { time, unit: 'date' };
}

export { DAY_MS };

/**
 * Compare two plain non-negative decimal strings (as `parseDecimalText` returns) exactly, without
 * building Decimals or new strings: this runs several times per row of every file.
 */
export function comparePlain(a: string, b: string): number {
  const da = a.indexOf('.');
  const db = b.indexOf('.');
  const ea = da === -1 ? a.length : da;
  const eb = db === -1 ? b.length : db;
  // Integer parts without their leading zeros (one digit kept): a longer one is the larger number.
  let sa = 0;
  while (sa < ea - 1 && a.charCodeAt(sa) === ZERO) sa += 1;
  let sb = 0;
  while (sb < eb - 1 && b.charCodeAt(sb) === ZERO) sb += 1;
  if (ea - sa !== eb - sb) return ea - sa < eb - sb ? -1 : 1;
  for (let i = 0; i < ea - sa; i += 1) {
    const ca = a.charCodeAt(sa + i);
    const cb = b.charCodeAt(sb + i);
    if (ca !== cb) return ca < cb ? -1 : 1;
  }
  // Fractions digit by digit, the shorter one padded with zeros.
  const fa = da === -1 ? 0 : a.length - da - 1;
  const fb = db === -1 ? 0 : b.length - db - 1;
  const n = fa > fb ? fa : fb;
  for (let i = 0; i < n; i += 1) {
    const ca = i < fa ? a.charCodeAt(da + 1 + i) : ZERO;
    const cb = i < fb ? b.charCodeAt(db + 1 + i) : ZERO;
    if (ca !== cb) return ca < cb ? -1 : 1;
  }
  return 0;
}

const ZERO = 48;

/** The largest price an fp9 value holds in a signed 64-bit integer, as the platform's wire values do. */
export const FP9_MAX_PRICE = '9223372036.854775807';

/**
 * A plain positive price brought to the platform's precision (9 decimals): more decimals round
 * half-even and say so (`rounded`), a price that rounds to zero or exceeds the fp9 range is refused
 * with the reason (`error` reads after the value: "is above …").
 */
export function fp9Price(plain: string): { price: string; rounded: boolean } | { error: string } {
  const dot = plain.indexOf('.');
  let price = plain;
  let rounded = false;
  if (dot !== -1 && plain.length - dot - 1 > 9) {
    price = new Dec(plain).toDecimalPlaces(9, Dec.ROUND_HALF_EVEN).toFixed();
    rounded = true;
    if (!isPositive(price)) return { error: "is below the platform's precision of 0.000000001" };
  }
  if (comparePlain(price, FP9_MAX_PRICE) > 0) return { error: `is above the largest fp9 price ${FP9_MAX_PRICE}` };
  return { price, rounded };
}
