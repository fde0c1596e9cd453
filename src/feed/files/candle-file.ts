/**
 * The candle file reader: detects the layout, streams the rows oldest first (reading newest-first
 * files from their end), skips and reports bad rows, reports gaps, and refuses files it can not read.
 */
import { DataFileError } from './errors.js';
import { readFreqtradeJson } from './freqtrade-json.js';
import { detectLayout, parseSnapshotLine, snapshotAsCandle, UNIT_NAMES, type DetectedLayout, type LineLayout, type RowParse } from './layouts.js';
import { countLines, readLinesBackward, readLinesForward } from './lines.js';
import type { BadRow, CandleFileOptions, CandleRow, Diagnostic, FileLayout, Gap, ReadSummary, TimeUnit } from './types.js';

interface RawRow {
  readonly line: number;
  readonly text: string;
  readonly parsed: RowParse;
}

type MutableSummary = {
  -readonly [K in keyof ReadSummary]: ReadSummary[K] extends readonly (infer T)[] ? T[] : ReadSummary[K];
};

const DEFAULT_MAX_BAD_ROWS = 100;
const DEFAULT_INFER_ROWS = 16;
const DEFAULT_KEEP = 50;

/**
 * A candle file, read as an `AsyncIterable<CandleRow>`, oldest row first. Each iteration reads the
 * file anew; `summary` describes the latest read (complete once the iteration has ended).
 *
 * Memory stays bounded whatever the file's length: rows are parsed line by line from a stream (or,
 * for newest-first files, from fixed-size chunks read backwards from the end of the file), and only
 * the first `inferFromRows` rows are held back until the period is known.
 *
 * Order: CSV layouts may be newest first (CryptoDataDownload, Yahoo-style exports): the first and
 * last data rows are compared and such a file is read from its end. JSON and snapshot files must
 * be oldest first. A row not later than the previous one is a bad row (`duplicate` /
 * `out_of_order`), skipped and reported; its line number is always counted from the top.
 */
export class CandleFileReader implements AsyncIterable<CandleRow> {
  readonly file: string;
  readonly #options: CandleFileOptions;
  #summary: MutableSummary;

  constructor(file: string, options: CandleFileOptions = {}) {
    this.file = file;
    this.#options = options;
    if (options.periodMs !== undefined && !(Number.isSafeInteger(options.periodMs) && options.periodMs > 0)) {
      throw new RangeError(`CandleFileReader: options.periodMs must be a positive integer of ms, got ${options.periodMs}`);
    }
    if (options.maxBadRows !== undefined && !(options.maxBadRows >= 0)) {
      throw new RangeError(`CandleFileReader: options.maxBadRows must be ≥ 0, got ${options.maxBadRows}`);
    }
    this.#summary = this.#emptySummary(options.layout ?? 'propbot-csv');
  }

  /** The layout of the file, from its first bytes (or `options.layout`). */
  async layout(): Promise<FileLayout> {
    return (await detectLayout(this.file, this.#options.layout)).layout;
  }

  get summary(): ReadSummary {
    return this.#summary;
  }

  [Symbol.asyncIterator](): AsyncIterator<CandleRow> {
    return this.#read();
  }

  #emptySummary(layout: FileLayout): MutableSummary {
    return {
      file: this.file,
      layout,
      order: 'ascending',
      periodMs: this.#options.periodMs ?? null,
      rows: 0,
      firstTime: null,
      lastTime: null,
      badRows: 0,
      gaps: 0,
      missingPeriods: 0,
      sessionBreaks: 0,
      timeUnit: null,
      roundedRows: 0,
      firstRoundedLine: null,
      badRowSamples: [],
      gapSamples: [],
    };
  }

  async *#read(): AsyncGenerator<CandleRow> {
    const detected = await detectLayout(this.file, this.#options.layout);
    const summary = this.#emptySummary(detected.layout);
    this.#summary = summary;
    const opts = this.#options;
    const maxBad = opts.maxBadRows ?? DEFAULT_MAX_BAD_ROWS;
    const keep = opts.keepDiagnostics ?? DEFAULT_KEEP;
    const inferRows = Math.max(2, opts.inferFromRows ?? DEFAULT_INFER_ROWS);
    let period = opts.periodMs ?? null;
    let last: CandleRow | undefined;
    let lastBad: BadRow | undefined;
    const held: CandleRow[] = [];
    let unitLine = 0;
    let weekendSeen = false;

    const emit = (d: Diagnostic): void => {
      opts.onDiagnostic?.(d);
    };
    const bad = (line: number, text: string, reason: BadRow['reason'], message: string): void => {
      const row: BadRow = { kind: 'bad_row', file: this.file, line, reason, message, text: text.length > 120 ? text.slice(0, 120) + '…' : text };
      summary.badRows += 1;
      if (summary.badRowSamples.length < keep) summary.badRowSamples.push(row);
      lastBad = row;
      emit(row);
      if (summary.badRows > maxBad) {
        throw new DataFileError(
          this.file,
          line,
          `at most ${maxBad} bad rows in a ${detected.layout} file (options.maxBadRows)`,
          `${summary.badRows}; the latest: ${row.message}. Is the file in the ${detected.layout} layout?`,
        );
      }
    };
    /** Gap check and bookkeeping for a row that is about to be yielded. */
    const accept = (row: CandleRow, prev: CandleRow | undefined): void => {
      if (prev && period !== null) {
        const missing = Math.floor((row.time - prev.time) / period) - 1;
        if (missing >= 1) {
          // Judged against the data's own calendar: a market never seen trading on a weekend is
          // closed then, and its Friday-to-Monday step is a session break, not missing data.
          const first = prev.time + period;
          const last = prev.time + missing * period;
          const sessionBreak = !weekendSeen && isWeekend(first) && isWeekend(last) && last - first < 2 * DAY_MS;
          const gap: Gap = { kind: 'gap', file: this.file, afterTime: prev.time, nextTime: row.time, missingPeriods: missing, line: row.line, ...(sessionBreak ? { sessionBreak } : {}) };
          if (sessionBreak) summary.sessionBreaks += 1;
          else {
            summary.gaps += 1;
            summary.missingPeriods += missing;
            if (summary.gapSamples.length < keep) summary.gapSamples.push(gap);
          }
          emit(gap);
        }
      }
      weekendSeen ||= isWeekend(row.time);
      summary.rows += 1;
      summary.firstTime ??= row.time;
      summary.lastTime = row.time;
    };

    const source = await this.#rows(detected, summary);
    let yieldedLast: CandleRow | undefined;
    for await (const raw of source) {
      if (raw.text.trim() === '') continue;
      const p = raw.parsed;
      if (!p.ok) {
        bad(raw.line, raw.text, p.reason, p.message);
        continue;
      }
      // One unit per file, from its first row: a row in another unit is a mistake to report, not a
      // date to guess (a millisecond time of year 10000 would otherwise read as microseconds of 1978).
      if (summary.timeUnit === null) {
        summary.timeUnit = p.unit;
        unitLine = raw.line;
      } else if (p.unit !== summary.timeUnit) {
        bad(raw.line, raw.text, 'timestamp', `time in ${UNIT_NAMES[p.unit]}, but the file's times are ${UNIT_NAMES[summary.timeUnit]} (line ${unitLine})`);
        continue;
      }
      if (p.rounded) {
        summary.roundedRows += 1;
        summary.firstRoundedLine ??= raw.line;
      }
      if (last && p.time <= last.time) {
        if (p.time === last.time) bad(raw.line, raw.text, 'duplicate', `time ${iso(p.time)} repeats the row on line ${last.line}`);
        else bad(raw.line, raw.text, 'out_of_order', `time ${iso(p.time)} is before ${iso(last.time)} (line ${last.line})`);
        continue;
      }
      const row: CandleRow = { time: p.time, open: p.open, high: p.high, low: p.low, close: p.close, volume: p.volume, line: raw.line };
      last = row;
      if (period === null) {
        held.push(row);
        if (held.length < inferRows) continue;
        period = inferPeriod(held);
        this.#checkPeriod(period, detected.layout, summary.timeUnit, held);
        summary.periodMs = period;
        for (const h of held) {
          accept(h, yieldedLast);
          yieldedLast = h;
          yield h;
        }
        held.length = 0;
        continue;
      }
      accept(row, yieldedLast);
      yieldedLast = row;
      yield row;
    }
    if (held.length > 0) {
      period = held.length >= 2 ? inferPeriod(held) : null;
      if (period !== null) this.#checkPeriod(period, detected.layout, summary.timeUnit, held);
      summary.periodMs = period;
      for (const h of held) {
        accept(h, yieldedLast);
        yieldedLast = h;
        yield h;
      }
    }
    if (summary.rows === 0) {
      throw new DataFileError(
        this.file,
        lastBad?.line ?? 0,
        `at least one valid ${detected.layout} row`,
        lastBad ? `only bad rows (${summary.badRows}); the latest: ${lastBad.message}` : 'no data rows',
      );
    }
  }

  /**
   * Candles less than a second apart are no candle file: most likely the times are in another unit
   * than their magnitude suggests. Refuse, naming the unit they were read in. Recorded snapshots
   * may be closer together and are left alone.
   */
  #checkPeriod(period: number, layout: FileLayout, unit: TimeUnit | null, held: readonly CandleRow[]): void {
    if (this.#options.periodMs !== undefined || layout === 'propbot-snapshots' || period >= 1000) return;
    const hint = unit === 'us' ? '; are they milliseconds of a year after 5000?' : '';
    throw new DataFileError(this.file, held[1]?.line ?? 0, 'candles at least one second apart', `rows ${period} ms apart with the times read as ${UNIT_NAMES[unit ?? 'ms']}${hint}`);
  }

  async #rows(detected: DetectedLayout, summary: MutableSummary): Promise<AsyncIterable<RawRow> | Iterable<RawRow>> {
    if (detected.layout === 'freqtrade-json') return readFreqtradeJson(this.file);
    const layout = detected as LineLayout;
    const parseLines = function* (lines: Iterable<{ text: string; line: number }>): Generator<RawRow> {
      for (const l of lines) yield { line: l.line, text: l.text, parsed: layout.parse(l.text) };
    };
    const snapshots = layout.layout === 'propbot-snapshots' ? this.#assetFilter(layout) : undefined;
    if (snapshots) return snapshots;
    if (layout.mayBeDescending && this.#isDescending(layout)) {
      summary.order = 'descending';
      const lastLine = countLines(this.file);
      return parseLines(readLinesBackward(this.file, layout.dataStart, lastLine));
    }
    return parseLines(readLinesForward(this.file, layout.dataStart, layout.dataLine));
  }

  /** Snapshot files may hold several assets: keep `options.asset`, or refuse a second asset. */
  *#assetFilter(layout: LineLayout): Generator<RawRow> {
    let only = this.#options.asset;
    for (const l of readLinesForward(this.file, layout.dataStart, layout.dataLine)) {
      if (l.text.trim() === '') continue;
      const s = parseSnapshotLine(l.text);
      if (s.ok) {
        if (only === undefined) only = s.asset;
        else if (s.asset !== only) {
          if (this.#options.asset !== undefined) continue;
          throw new DataFileError(
            this.file,
            l.line,
            `snapshots of one asset (${only}) or options.asset naming the one to read`,
            `a snapshot of ${s.asset}`,
          );
        }
      }
      // Parsed once: the asset check and the row come from the same parse.
      yield { line: l.line, text: l.text, parsed: snapshotAsCandle(s) };
    }
  }

  /** Compare the first and the last data rows: newest-first files are read from the end. */
  #isDescending(layout: LineLayout): boolean {
    const firstTime = firstValidTime(readLinesForward(this.file, layout.dataStart, layout.dataLine), layout);
    const lastTime = firstValidTime(readLinesBackward(this.file, layout.dataStart, 0), layout);
    return firstTime !== undefined && lastTime !== undefined && firstTime > lastTime;
  }
}

/** Time of the first parseable row among the first few lines of `lines`. */
function firstValidTime(lines: Generator<{ text: string }>, layout: LineLayout): number | undefined {
  let tries = 0;
  try {
    for (const l of lines) {
      if (l.text.trim() === '') continue;
      const p = layout.parse(l.text);
      if (p.ok) return p.time;
      if (++tries >= 8) return undefined;
    }
    return undefined;
  } finally {
    lines.return(undefined);
  }
}

/** The smallest positive step between consecutive held rows. */
function inferPeriod(rows: readonly CandleRow[]): number {
  let best = Infinity;
  for (let i = 1; i < rows.length; i++) best = Math.min(best, rows[i]!.time - rows[i - 1]!.time);
  return best;
}

const DAY_MS = 86_400_000;

/** Saturday or Sunday, UTC. */
function isWeekend(ms: number): boolean {
  const day = new Date(ms).getUTCDay();
  return day === 0 || day === 6;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Shorthand: `new CandleFileReader(file, options)`. */
export function readCandleFile(file: string, options: CandleFileOptions = {}): CandleFileReader {
  return new CandleFileReader(file, options);
}
