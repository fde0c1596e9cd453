/**
 * Recognising a file's layout from its first bytes, and parsing one text row of each line-based
 * layout into a candle (or the reason it is bad).
 */
import { open } from 'node:fs/promises';
import { fp9Digits } from '../../core/fp9.js';
import { DataFileError } from './errors.js';
import { plainRowReader, type PlainColumns } from './plain-row.js';
import { comparePlain, fp9Price, isPositive, parseDecimalText, readEpoch, readTime, TIME_WINDOW, type ReadTime } from './parse-text.js';
import type { BadRowReason, FileLayout, TimeUnit } from './types.js';

export interface ParsedCandle {
  readonly ok: true;
  readonly time: number;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string | null;
  /** The unit the time was read in (the reader holds the file to its first row's). */
  readonly unit: TimeUnit;
  /** A price had more than 9 decimals and was rounded half-even to them. */
  readonly rounded?: boolean;
  /** Each price's fp9 integer where the parse read it in one pass, undefined where not (see `CandleRow.openFp9`). */
  readonly openFp9: bigint | undefined;
  readonly highFp9: bigint | undefined;
  readonly lowFp9: bigint | undefined;
  readonly closeFp9: bigint | undefined;
}
export interface RowFault {
  readonly ok: false;
  readonly reason: BadRowReason;
  readonly message: string;
}
export type RowParse = ParsedCandle | RowFault;

export function fault(reason: BadRowReason, message: string): RowFault {
  return { ok: false, reason, message };
}

/** How to read the data lines of a line-based file. */
export interface LineLayout {
  readonly layout: Exclude<FileLayout, 'freqtrade-json'>;
  /** Byte offset of the first data line and its 1-based number. */
  readonly dataStart: number;
  readonly dataLine: number;
  /** Whether rows may come newest first (then the reader checks and reads from the end). */
  readonly mayBeDescending: boolean;
  readonly parse: (text: string) => RowParse;
  /**
   * The one-pass read of a plain row from `from` to `to` of `text` (see plain-row.ts), where the layout
   * has one: undefined when the row is not plain, and `parse` then reads (and words) it. The same
   * candle `parse` gives for that line.
   */
  readonly plain?: (text: string, from: number, to: number) => ParsedCandle | undefined;
}

/** A CSV layout's readers: each line the general way, and a plain row in place. */
type CsvReaders = Pick<LineLayout, 'parse' | 'plain'>;

export type DetectedLayout = LineLayout | { readonly layout: 'freqtrade-json' };

const HEAD_BYTES = 64 * 1024;
const TIME_COLUMNS = ['timestamp_ms', 'open_time', 'unix', 'unix timestamp', 'timestamp', 'time', 'date', 'datetime'];
const EXPECTED_LAYOUTS =
  'a known layout: a `timestamp_ms,open,high,low,close,volume` CSV, Binance kline CSV (12 columns), ' +
  'a CryptoDataDownload CSV (banner line, then `date,symbol,open,high,low,close,…`), a freqtrade JSON ' +
  'array of [ms, open, high, low, close, volume], or propbot snapshot JSON lines';

/** How a bad row whose time no reader takes begins; a file of nothing else is told `TIME_FORMS`. */
export const UNREADABLE_TIME = 'cannot read the time';
/** What a time column may hold, said when no row's time could be read. */
export const TIME_FORMS =
  '; times are read as epoch seconds, milliseconds or microseconds, or as dates like 2024-01-03, ' +
  '2024-01-03 09:00, 2024-01-03T09:00:00Z or 2024-01-03T10:00:00+01:00 (03/01/2024 is not read: day or month first cannot be told)';

function show(text: string): string {
  return JSON.stringify(text.length > 80 ? text.slice(0, 80) + '…' : text);
}

function splitCsv(text: string): string[] {
  const fields = text.split(',');
  for (let i = 0; i < fields.length; i++) {
    const raw = fields[i]!;
    // Most fields start and end with a digit: nothing to trim then.
    let f = raw.length > 0 && isDigit(raw.charCodeAt(0)) && isDigit(raw.charCodeAt(raw.length - 1)) ? raw : raw.trim();
    if (f.length >= 2 && f.charCodeAt(0) === QUOTE && f.charCodeAt(f.length - 1) === QUOTE) f = f.slice(1, -1);
    fields[i] = f;
  }
  return fields;
}
const QUOTE = 0x22;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** The reason a candle's prices are inconsistent, or undefined. */
export function ohlcFault(open: string, high: string, low: string, close: string): RowFault | undefined {
  return ohlcFaultOf(open, high, low, close, [fp9Digits(open), fp9Digits(high), fp9Digits(low), fp9Digits(close)]);
}

/** `ohlcFault` given the prices' `fp9Digits`, read once per column. */
function ohlcFaultOf(open: string, high: string, low: string, close: string, [o, h, l, c]: readonly number[]): RowFault | undefined {
  // Most rows: four short plain prices, compared as the exact integers of their digits.
  if (Number.isFinite(o! + h! + l! + c!) && h! >= o! && h! >= c! && l! <= o! && l! <= c!) return undefined;
  if (comparePlain(high, open) < 0 || comparePlain(high, close) < 0 || comparePlain(high, low) < 0) {
    return fault('ohlc', `high ${high} is below open, close or low`);
  }
  if (comparePlain(low, open) > 0 || comparePlain(low, close) > 0) return fault('ohlc', `low ${low} is above open or close`);
  return undefined;
}

/** Validate the text fields of one candle. */
export function candleFromFields(
  timeText: string,
  timeOf: (text: string) => ReadTime | undefined,
  openText: string,
  highText: string,
  lowText: string,
  closeText: string,
  volumeText: string | undefined,
): RowParse {
  const read = timeOf(timeText);
  if (read === undefined) return fault('timestamp', `${UNREADABLE_TIME} ${show(timeText)}`);
  const { time, unit } = read;
  if (!(time >= TIME_WINDOW.from && time < TIME_WINDOW.to)) {
    const as = unit === 'date' ? '' : ` read as ${UNIT_NAMES[unit]}`;
    const when = Math.abs(time) <= 8.64e15 ? new Date(time).toISOString() : 'beyond any date';
    return fault('timestamp', `time ${show(timeText)}${as} is ${when}, outside 1970–2099`);
  }
  // Each column's digits read once, for the plain-price test and the OHLC comparison.
  const digits = [fp9Digits(openText), fp9Digits(highText), fp9Digits(lowText), fp9Digits(closeText)];
  const open = priceField('open', openText, digits[0]!);
  if (typeof open !== 'string') return open;
  const high = priceField('high', highText, digits[1]!);
  if (typeof high !== 'string') return high;
  const low = priceField('low', lowText, digits[2]!);
  if (typeof low !== 'string') return low;
  const close = priceField('close', closeText, digits[3]!);
  if (typeof close !== 'string') return close;
  const rounded = open !== openText || high !== highText || low !== lowText || close !== closeText ? wasRounded(openText, highText, lowText, closeText) : false;
  let volume: string | null = null;
  if (volumeText !== undefined && volumeText !== '') {
    const v = parseDecimalText(volumeText);
    if (v === undefined) return fault('volume', `volume ${show(volumeText)} is not a non-negative decimal`);
    volume = v;
  }
  // A column the general path rewrote has the same value (a leading zero or sign dropped), or had
  // more than 9 places and so no digits (NaN, and the texts decide).
  const bad = ohlcFaultOf(open, high, low, close, digits);
  if (bad) return bad;
  return {
    ok: true,
    time,
    open,
    high,
    low,
    close,
    volume,
    unit,
    ...(rounded ? { rounded } : {}),
    openFp9: exactDigits(digits[0]!),
    highFp9: exactDigits(digits[1]!),
    lowFp9: exactDigits(digits[2]!),
    closeFp9: exactDigits(digits[3]!),
  };
}

/**
 * A price's fp9 integer from its `fp9Digits`, where they are exact: above zero and finite (a text the
 * general path rewrote, such as `0123.5`, has the same value; one with more than 9 places has none).
 */
function exactDigits(digits: number): bigint | undefined {
  return digits > 0 && digits < Number.POSITIVE_INFINITY ? BigInt(digits) : undefined;
}

/** A price column as a plain fp9 decimal string, or the fault of the row; `digits` is its `fp9Digits`. */
function priceField(name: string, text: string, digits: number): string | RowFault {
  if (plainFp9Price(text, digits)) return text;
  const p = parseDecimalText(text);
  if (p === undefined || !isPositive(p)) return fault('price', `${name} ${show(text)} is not a positive decimal`);
  const checked = fp9Price(p);
  if ('error' in checked) return fault('price', `${name} ${show(text)} ${checked.error}`);
  return checked.price;
}

/**
 * What nearly every price column holds: a plain decimal (`fp9Digits` reads it: at most one dot with 1
 * to 9 digits after it) above zero, with no leading zero but a lone `0.` and at most 9 integer digits
 * (so below `FP9_MAX_PRICE`). The general path would keep such a text as it is.
 */
export function plainFp9Price(text: string, digits: number = fp9Digits(text)): boolean {
  // NaN (not plain) and 0 fail; Infinity (over 15 digits, no leading zero) is above zero.
  if (!(digits > 0)) return false;
  const dot = text.indexOf('.');
  const intDigits = dot === -1 ? text.length : dot;
  return intDigits <= 9 && !(intDigits > 1 && text.charCodeAt(0) === 0x30);
}

/** Whether one of the prices (already known good) had more than 9 decimals. */
function wasRounded(...texts: string[]): boolean {
  return texts.some((t) => {
    const p = parseDecimalText(t)!;
    return (fp9Price(p) as { rounded: boolean }).rounded;
  });
}

export const UNIT_NAMES: Record<TimeUnit, string> = { s: 'seconds', ms: 'milliseconds', us: 'microseconds', date: 'UTC dates' };

/** Epoch milliseconds, as a `timestamp_ms` column says (no guessing from the magnitude). */
const readMs = (text: string): ReadTime | undefined => readEpoch(text, 'ms');
/** Epoch s, ms or µs by magnitude (header-less and JSON files); the reader then holds the file to one unit. */
export const readAnyEpoch = (text: string): ReadTime | undefined => readEpoch(text);

function mappedParser(header: string[]): CsvReaders | undefined {
  const idx = (name: string) => header.indexOf(name);
  const timeIdx = TIME_COLUMNS.map(idx).find((i) => i >= 0);
  const o = idx('open');
  const h = idx('high');
  const l = idx('low');
  const c = idx('close');
  if (timeIdx === undefined || o < 0 || h < 0 || l < 0 || c < 0) return undefined;
  const v = header.findIndex((name) => name.startsWith('volume'));
  const timeUnit = header[timeIdx] === 'timestamp_ms' ? 'ms' : 'any-or-date';
  return csvParser({ width: header.length, time: timeIdx, open: o, high: h, low: l, close: c, volume: v, timeUnit });
}

/** A header-less layout: time, open, high, low, close and (with 6 columns or more) volume first. */
function fixedParser(width: number): CsvReaders {
  return csvParser({ width, time: 0, open: 1, high: 2, low: 3, close: 4, volume: width > 5 ? 5 : -1, timeUnit: 'any' });
}

/** How the general path reads a layout's time column, by its `timeUnit`. */
const TIME_READERS: Record<PlainColumns['timeUnit'], (text: string) => ReadTime | undefined> = { ms: readMs, any: readAnyEpoch, 'any-or-date': readTime };

/** A CSV layout's rows: a plain row in one pass, any other the general way (which also words its faults). */
function csvParser(cols: PlainColumns): CsvReaders {
  const plain = plainRowReader(cols);
  return { parse: (text) => plain(text) ?? generalRow(text, cols), plain };
}

/** A row split into its columns and each read on its own: what the one-pass read must give, and where it leaves a row. */
export function generalRow(text: string, cols: PlainColumns): RowParse {
  const f = splitCsv(text);
  if (f.length !== cols.width) return fault('columns', `expected ${cols.width} columns, got ${f.length}`);
  return candleFromFields(f[cols.time]!, TIME_READERS[cols.timeUnit], f[cols.open]!, f[cols.high]!, f[cols.low]!, f[cols.close]!, cols.volume >= 0 ? f[cols.volume] : undefined);
}

/** Parses a snapshot JSON line into a 1-tick candle; asset checks are the reader's. */
export function parseSnapshotLine(text: string): { ok: true; asset: string; takenAt: number; indexPrice: string; rounded?: boolean } | RowFault {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fault('json', 'not a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fault('json', 'not a JSON object');
  const o = value as Record<string, unknown>;
  if (typeof o['asset'] !== 'string' || o['asset'] === '') return fault('asset', '`asset` must be a non-empty string');
  const takenAt = o['takenAt'];
  if (typeof takenAt !== 'number' || !Number.isSafeInteger(takenAt) || takenAt <= 0) {
    return fault('timestamp', '`takenAt` must be unix milliseconds (a positive integer)');
  }
  if (takenAt < TIME_WINDOW.from || takenAt >= TIME_WINDOW.to) return fault('timestamp', `takenAt ${takenAt} (unix ms) is outside 1970–2099`);
  const priceText = o['indexPrice'];
  if (typeof priceText !== 'string') return fault('price', '`indexPrice` must be a decimal string (a JSON number would lose digits)');
  const plain = parseDecimalText(priceText);
  if (plain === undefined || !isPositive(plain)) return fault('price', `indexPrice ${show(priceText)} is not a positive decimal`);
  const checked = fp9Price(plain);
  if ('error' in checked) return fault('price', `indexPrice ${show(priceText)} ${checked.error}`);
  return { ok: true, asset: o['asset'], takenAt, indexPrice: checked.price, ...(checked.rounded ? { rounded: true } : {}) };
}

/** A parsed snapshot line as a 1-tick candle (open = high = low = close = the index price). */
export function snapshotAsCandle(s: ReturnType<typeof parseSnapshotLine>): RowParse {
  if (!s.ok) return s;
  const fp9 = exactDigits(fp9Digits(s.indexPrice));
  return {
    ok: true,
    time: s.takenAt,
    open: s.indexPrice,
    high: s.indexPrice,
    low: s.indexPrice,
    close: s.indexPrice,
    volume: null,
    unit: 'ms',
    ...(s.rounded ? { rounded: true } : {}),
    openFp9: fp9,
    highFp9: fp9,
    lowFp9: fp9,
    closeFp9: fp9,
  };
}

/** The header line `SnapshotRecorder` writes; readers skip it. */
export const SNAPSHOT_HEADER = { format: 'propbot-snapshots', version: 1 } as const;

function isSnapshotHeader(text: string): boolean {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    return v['format'] === SNAPSHOT_HEADER.format;
  } catch {
    return false;
  }
}

/** Read the first bytes of `file` and decide its layout (or refuse it). */
export async function detectLayout(file: string, forced?: FileLayout): Promise<DetectedLayout> {
  const handle = await open(file, 'r').catch((cause: unknown) => {
    throw new DataFileError(file, 0, 'a readable file', String((cause as Error).message ?? cause), { cause });
  });
  let head: Buffer;
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    head = buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  let offset = 0;
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) offset = 3;
  // the first two lines with their byte offsets
  const lines: { text: string; start: number; next: number }[] = [];
  let pos = offset;
  while (lines.length < 2 && pos < head.length) {
    const nl = head.indexOf(0x0a, pos);
    const end = nl === -1 ? head.length : nl;
    const raw = head.subarray(pos, end);
    const text = raw.toString('utf8').replace(/\r$/, '');
    lines.push({ text, start: pos, next: nl === -1 ? head.length : nl + 1 });
    if (nl === -1) break;
    pos = nl + 1;
  }
  const first = lines[0];
  if (!first || head.subarray(offset).toString('utf8').trim() === '') {
    throw new DataFileError(file, 0, EXPECTED_LAYOUTS, 'an empty file');
  }
  const lead = first.text.trimStart();
  if (forced === 'freqtrade-json' || (forced === undefined && lead.startsWith('['))) return { layout: 'freqtrade-json' };
  if (forced === 'propbot-snapshots' || (forced === undefined && lead.startsWith('{'))) {
    const hasHeader = isSnapshotHeader(first.text);
    const snapshot: LineLayout = {
      layout: 'propbot-snapshots',
      dataStart: hasHeader ? first.next : first.start,
      dataLine: hasHeader ? 2 : 1,
      mayBeDescending: false,
      parse: (text) => snapshotAsCandle(parseSnapshotLine(text)),
    };
    return snapshot;
  }
  const lower = (t: string) => splitCsv(t).map((f) => f.toLowerCase());
  // CryptoDataDownload: a banner line naming the site, then the header
  const banner = /cryptodatadownload/i.test(first.text);
  const headerLine = banner ? lines[1] : first;
  if (!headerLine) throw new DataFileError(file, 2, 'a header line after the CryptoDataDownload banner', 'the end of the file');
  const header = lower(headerLine.text);
  const headerNo = banner ? 2 : 1;
  const isCdd = banner || (header.includes('date') && header.includes('symbol'));
  if (forced === 'cryptodatadownload' || (forced === undefined && isCdd)) {
    const readers = mappedParser(header);
    if (!readers) {
      throw new DataFileError(file, headerNo, 'a CryptoDataDownload header like `date,symbol,open,high,low,close,volume_btc,volume`', show(headerLine.text));
    }
    return { layout: 'cryptodatadownload', dataStart: headerLine.next, dataLine: headerNo + 1, mayBeDescending: true, ...readers };
  }
  const numeric = header.length > 0 && header.every((f) => /^[0-9.eE+-]+$/.test(f));
  if (numeric) {
    if ((forced ?? (header.length === 12 ? 'binance-kline' : undefined)) === 'binance-kline' && header.length === 12) {
      return { layout: 'binance-kline', dataStart: first.start, dataLine: 1, mayBeDescending: true, ...fixedParser(12) };
    }
    if ((forced === undefined || forced === 'propbot-csv') && (header.length === 6 || header.length === 5)) {
      return { layout: 'propbot-csv', dataStart: first.start, dataLine: 1, mayBeDescending: true, ...fixedParser(header.length) };
    }
    throw new DataFileError(file, 1, `${EXPECTED_LAYOUTS}; a header-less row must have 6 (timestamp_ms,open,high,low,close,volume) or 12 (Binance kline) columns`, `${header.length} columns: ${show(first.text)}`);
  }
  const readers = mappedParser(header);
  if (readers) {
    const layout: FileLayout = forced ?? (header[0] === 'open_time' ? 'binance-kline' : 'propbot-csv');
    return { layout: layout as LineLayout['layout'], dataStart: first.next, dataLine: 2, mayBeDescending: true, ...readers };
  }
  throw new DataFileError(file, 1, EXPECTED_LAYOUTS, `${show(first.text)}${headerHint(first.text, header)}`);
}

/**
 * Why a first line is no header propbot reads, when that can be told: another separator than the
 * comma, or the candle columns it lacks (by the names the readers look for).
 */
function headerHint(text: string, header: readonly string[]): string {
  if (!text.includes(',')) {
    const separator = [';', '\t', '|'].find((c) => text.includes(c));
    if (separator !== undefined) return `; its fields are separated by ${separator === '\t' ? 'tabs' : `"${separator}"`}, and propbot reads comma-separated files`;
    return '';
  }
  const missing = [
    ...(TIME_COLUMNS.some((c) => header.includes(c)) ? [] : [`time column (${TIME_COLUMNS.join(', ')})`]),
    ...['open', 'high', 'low', 'close'].filter((c) => !header.includes(c)),
  ];
  return missing.length > 0 && missing.length < 5 ? `; its header has no ${missing.join(', ')} (names are matched without regard to case)` : '';
}
