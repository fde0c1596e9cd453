/**
 * What the candle reader checks row by row, whatever the source: blank and bad rows (skipped,
 * counted, reported, and too many of them refused), one time unit per file, duplicates and rows out of
 * order, the period inferred from the first rows (held back until it is known), gaps against the data's
 * own calendar, and the summary. Push-based, so a synchronous line source and an asynchronous JSON
 * stream share it.
 */
import { DataFileError } from './errors.js';
import { TIME_FORMS, UNIT_NAMES, UNREADABLE_TIME, type LineLayout, type RowParse } from './layouts.js';
import { forwardBlocks, lineEnd, withoutCr, type TextLine } from './lines.js';
import type { BadRow, CandleFileOptions, CandleRow, Diagnostic, FileLayout, Gap, ReadSummary, TimeUnit } from './types.js';

export interface RawRow {
  readonly line: number;
  readonly text: string;
  readonly parsed: RowParse;
}

export type MutableSummary = {
  -readonly [K in keyof ReadSummary]: ReadSummary[K] extends readonly (infer T)[] ? T[] : ReadSummary[K];
};

/** The summary of a read about to start. */
export function emptySummary(file: string, layout: FileLayout, periodMs: number | null): MutableSummary {
  return {
    file,
    layout,
    order: 'ascending',
    periodMs,
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

const DEFAULT_MAX_BAD_ROWS = 100;
const DEFAULT_INFER_ROWS = 16;
/** How many bad rows and gaps a summary keeps as samples unless `keepDiagnostics` says. */
export const DEFAULT_KEEP = 50;
const DAY_MS = 86_400_000;
const NONE: readonly CandleRow[] = [];

export class RowChecks {
  readonly #file: string;
  readonly #layout: FileLayout;
  readonly #options: CandleFileOptions;
  readonly #summary: MutableSummary;
  /** Refuses an inferred period (too short for candles, …). */
  readonly #checkPeriod: (period: number, unit: TimeUnit | null, held: readonly CandleRow[]) => void;
  readonly #maxBad: number;
  readonly #keep: number;
  readonly #inferRows: number;
  #period: number | null;
  #last: CandleRow | undefined;
  #lastBad: BadRow | undefined;
  #held: CandleRow[] = [];
  #unitLine = 0;
  #weekendSeen = false;
  #yieldedLast: CandleRow | undefined;
  readonly #one: CandleRow[] = [];

  constructor(
    file: string,
    layout: FileLayout,
    options: CandleFileOptions,
    summary: MutableSummary,
    checkPeriod: (period: number, unit: TimeUnit | null, held: readonly CandleRow[]) => void,
  ) {
    this.#file = file;
    this.#layout = layout;
    this.#options = options;
    this.#summary = summary;
    this.#checkPeriod = checkPeriod;
    this.#maxBad = options.maxBadRows ?? DEFAULT_MAX_BAD_ROWS;
    this.#keep = options.keepDiagnostics ?? DEFAULT_KEEP;
    this.#inferRows = Math.max(2, options.inferFromRows ?? DEFAULT_INFER_ROWS);
    this.#period = options.periodMs ?? null;
  }

  /**
   * The rows that can go out after this one: none (skipped or held back), this one, or the held ones.
   * Given as its parts, so the line readers make no RawRow. The array returned is valid until the next
   * call: a one-row answer reuses one array, since nearly every row is one.
   */
  push(line: number, text: string, p: RowParse): readonly CandleRow[] {
    if (isBlank(text)) return NONE;
    return this.pushAt(line, p, text, 0, text.length);
  }

  /**
   * `push` of a line that is `from` to `to` of `text` and is not blank (a row a plain read took):
   * its string is made only if the row is bad.
   */
  pushAt(line: number, p: RowParse, text: string, from: number, to: number): readonly CandleRow[] {
    const summary = this.#summary;
    if (!p.ok) {
      this.#bad(line, lineText(text, from, to), p.reason, p.message);
      return NONE;
    }
    // One unit per file, from its first row: a row in another unit is a mistake to report, not a
    // date to guess (a millisecond time of year 10000 would otherwise read as microseconds of 1978).
    if (summary.timeUnit === null) {
      summary.timeUnit = p.unit;
      this.#unitLine = line;
    } else if (p.unit !== summary.timeUnit) {
      this.#bad(line, lineText(text, from, to), 'timestamp', `time in ${UNIT_NAMES[p.unit]}, but the file's times are ${UNIT_NAMES[summary.timeUnit]} (line ${this.#unitLine})`);
      return NONE;
    }
    if (p.rounded) {
      summary.roundedRows += 1;
      summary.firstRoundedLine ??= line;
    }
    const last = this.#last;
    if (last && p.time <= last.time) {
      if (p.time === last.time) this.#bad(line, lineText(text, from, to), 'duplicate', `time ${iso(p.time)} repeats the row on line ${last.line}`);
      else this.#bad(line, lineText(text, from, to), 'out_of_order', `time ${iso(p.time)} is before ${iso(last.time)} (line ${last.line})`);
      return NONE;
    }
    const row: CandleRow = {
      time: p.time,
      open: p.open,
      high: p.high,
      low: p.low,
      close: p.close,
      volume: p.volume,
      line,
      openFp9: p.openFp9,
      highFp9: p.highFp9,
      lowFp9: p.lowFp9,
      closeFp9: p.closeFp9,
    };
    this.#last = row;
    if (this.#period === null) {
      this.#held.push(row);
      if (this.#held.length < this.#inferRows) return NONE;
      this.#period = inferPeriod(this.#held);
      this.#checkPeriod(this.#period, summary.timeUnit, this.#held);
      summary.periodMs = this.#period;
      return this.#release();
    }
    this.#accept(row);
    this.#one[0] = row;
    return this.#one;
  }

  /** At the end of the source: the rows still held back; refuses a file without one valid row. */
  finish(): readonly CandleRow[] {
    const summary = this.#summary;
    let out = NONE;
    if (this.#held.length > 0) {
      this.#period = this.#held.length >= 2 ? inferPeriod(this.#held) : null;
      if (this.#period !== null) this.#checkPeriod(this.#period, summary.timeUnit, this.#held);
      summary.periodMs = this.#period;
      out = this.#release();
    }
    if (summary.rows === 0) {
      const lastBad = this.#lastBad;
      throw new DataFileError(
        this.#file,
        lastBad?.line ?? 0,
        `at least one valid ${this.#layout} row`,
        lastBad ? `only bad rows (${summary.badRows}); the latest: ${lastBad.message}${lastBad.message.startsWith(UNREADABLE_TIME) ? TIME_FORMS : ''}` : 'no data rows',
      );
    }
    return out;
  }

  #release(): readonly CandleRow[] {
    const held = this.#held;
    this.#held = [];
    for (const h of held) this.#accept(h);
    return held;
  }

  #bad(line: number, text: string, reason: BadRow['reason'], message: string): void {
    const summary = this.#summary;
    const row: BadRow = { kind: 'bad_row', file: this.#file, line, reason, message, text: text.length > 120 ? text.slice(0, 120) + '…' : text };
    summary.badRows += 1;
    if (summary.badRowSamples.length < this.#keep) summary.badRowSamples.push(row);
    this.#lastBad = row;
    this.#emit(row);
    if (summary.badRows > this.#maxBad) {
      throw new DataFileError(
        this.#file,
        line,
        `at most ${this.#maxBad} bad rows in a ${this.#layout} file (options.maxBadRows)`,
        `${summary.badRows}; the latest: ${row.message}. Is the file in the ${this.#layout} layout?`,
      );
    }
  }

  #emit(d: Diagnostic): void {
    this.#options.onDiagnostic?.(d);
  }

  /** Gap check and bookkeeping for a row that is about to go out. */
  #accept(row: CandleRow): void {
    const summary = this.#summary;
    const prev = this.#yieldedLast;
    const period = this.#period;
    if (prev && period !== null) {
      const missing = Math.floor((row.time - prev.time) / period) - 1;
      if (missing >= 1) {
        // Judged against the data's own calendar: a market never seen trading on a weekend is
        // closed then, and its Friday-to-Monday step is a session break, not missing data.
        const first = prev.time + period;
        const last = prev.time + missing * period;
        const sessionBreak = !this.#weekendSeen && isWeekend(first) && isWeekend(last) && last - first < 2 * DAY_MS;
        const gap: Gap = { kind: 'gap', file: this.#file, afterTime: prev.time, nextTime: row.time, missingPeriods: missing, line: row.line, ...(sessionBreak ? { sessionBreak } : {}) };
        if (sessionBreak) summary.sessionBreaks += 1;
        else {
          summary.gaps += 1;
          summary.missingPeriods += missing;
          if (summary.gapSamples.length < this.#keep) summary.gapSamples.push(gap);
        }
        this.#emit(gap);
      }
    }
    this.#weekendSeen ||= isWeekend(row.time);
    summary.rows += 1;
    summary.firstTime ??= row.time;
    summary.lastTime = row.time;
    this.#yieldedLast = row;
  }
}

/** The checked rows of a synchronous source. */
export function* checkedSync(source: Iterable<RawRow>, checks: RowChecks): Generator<CandleRow> {
  for (const raw of source) {
    const rows = checks.push(raw.line, raw.text, raw.parsed);
    for (let i = 0; i < rows.length; i += 1) yield rows[i]!;
  }
  yield* checks.finish();
}

/**
 * The checked rows of a file's lines, each parsed by `parse`: `checkedSync` of the lines' RawRows, in
 * one generator (a replay reads every row of its files through this, and each layer of generators
 * and each object per row showed in its count of instructions).
 */
export function* checkedLines(lines: Iterable<TextLine>, parse: (text: string) => RowParse, checks: RowChecks): Generator<CandleRow> {
  for (const l of lines) {
    const rows = checks.push(l.line, l.text, parse(l.text));
    for (let i = 0; i < rows.length; i += 1) yield rows[i]!;
  }
  yield* checks.finish();
}

/**
 * The checked rows of a file from byte `start` (a line start, numbered `firstLine`) on: `checkedLines`
 * of its lines, with each plain row parsed in place in the decoded block (`layout.plain`), so such a
 * row costs no string of its line, no line object and no generator of lines.
 */
export function* checkedForward(file: string, start: number, firstLine: number, layout: Pick<LineLayout, 'parse' | 'plain'>, checks: RowChecks): Generator<CandleRow> {
  const { parse, plain } = layout;
  let line = firstLine;
  for (const block of forwardBlocks(file, start, () => line)) {
    for (let a = 0; a < block.length; line += 1) {
      const end = lineEnd(block, a);
      const b = withoutCr(block, a, end);
      const p = plain?.(block, a, b);
      let rows: readonly CandleRow[];
      if (p !== undefined) rows = checks.pushAt(line, p, block, a, b);
      else {
        const text = block.slice(a, b);
        rows = checks.push(line, text, parse(text));
      }
      for (let i = 0; i < rows.length; i += 1) yield rows[i]!;
      a = end + 1;
    }
  }
  yield* checks.finish();
}

/** The checked rows of an asynchronous source. */
export async function* checkedAsync(source: AsyncIterable<RawRow>, checks: RowChecks): AsyncGenerator<CandleRow> {
  for await (const raw of source) {
    const rows = checks.push(raw.line, raw.text, raw.parsed);
    for (let i = 0; i < rows.length; i += 1) yield rows[i]!;
  }
  yield* checks.finish();
}

/** The smallest positive step between consecutive held rows. */
function inferPeriod(rows: readonly CandleRow[]): number {
  let best = Infinity;
  for (let i = 1; i < rows.length; i++) best = Math.min(best, rows[i]!.time - rows[i - 1]!.time);
  return best;
}

/** The line from `from` to `to` of `text`, as a string. */
function lineText(text: string, from: number, to: number): string {
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

/** `text.trim() === ''` without making the trimmed string: a data row starts with no blank. */
function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  // Anything trim() would not remove first (a digit, a quote, a letter) settles it.
  if (c > 0x20 && c < 0x7f) return false;
  return text.trim() === '';
}

/** Saturday or Sunday, UTC. */
function isWeekend(ms: number): boolean {
  const day = new Date(ms).getUTCDay();
  return day === 0 || day === 6;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
