/**
 * The candle file reader: detects the layout, streams the rows oldest first (reading newest-first
 * files from their end), skips and reports bad rows, reports gaps, and refuses files it can not read.
 */
import { DataFileError } from './errors.js';
import { readFreqtradeJson } from './freqtrade-json.js';
import { detectLayout, parseSnapshotLine, snapshotAsCandle, UNIT_NAMES, type DetectedLayout, type LineLayout } from './layouts.js';
import { countLines, readLinesBackward, readLinesForward } from './lines.js';
import { cachedRows, RecordingRows, RowCacheWriter, rowCacheSlot, type RowCacheSlot } from './row-cache.js';
import { checkedAsync, checkedForward, checkedLines, checkedSync, DEFAULT_KEEP, emptySummary, RowChecks, type MutableSummary, type RawRow } from './row-checks.js';
import type { CandleFileOptions, CandleRow, Diagnostic, FileLayout, ReadSummary, ReplayRow, TimeUnit } from './types.js';

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
    return emptySummary(this.file, layout, this.#options.periodMs ?? null);
  }

  async *#read(): AsyncGenerator<CandleRow> {
    yield* await this.open();
  }

  /**
   * Detect the layout and start a read: the rows, synchronous for every line layout (a replay then
   * costs no promise per row), asynchronous for Freqtrade JSON (parsed as a stream). The summary
   * describes this read from here on.
   */
  async open(): Promise<Iterable<CandleRow> | AsyncIterable<CandleRow>> {
    return this.#rowsOf(await detectLayout(this.file, this.#options.layout), this.#options);
  }

  /**
   * `open` for a replay: the rows from the rows cache when it holds this file as it is now and read
   * with these options (row-cache.ts), else the text read's, which fill the cache once read to their
   * end. A cached row carries its time, line and fp9 prices but no texts; the summary and the
   * diagnostics are the text read's. `PROPBOT_ROWS_CACHE=off` reads the text every time.
   */
  async openReplay(): Promise<Iterable<ReplayRow> | AsyncIterable<ReplayRow>> {
    const detected = await detectLayout(this.file, this.#options.layout);
    // JSON is streamed asynchronously and snapshot files are filtered by asset: neither is cached.
    if (detected.layout === 'freqtrade-json' || detected.layout === 'propbot-snapshots') return this.#rowsOf(detected, this.#options);
    const slot = rowCacheSlot(this.file, detected.layout, this.#options);
    if (slot === undefined) return this.#rowsOf(detected, this.#options);
    const keep = this.#options.keepDiagnostics ?? DEFAULT_KEEP;
    const cached = cachedRows(slot, this.file, detected.layout, keep, this.#options.onDiagnostic, () => this.#recordedText(detected, slot));
    if (cached !== undefined) {
      this.#summary = cached.summary;
      return cached.rows;
    }
    return this.#recordedText(detected, slot).rows;
  }

  /** A text read whose rows and diagnostics also fill the entry of `slot` (when one can be written); `quiet` holds the diagnostics back from `onDiagnostic`. */
  #recordedText(detected: DetectedLayout, slot: RowCacheSlot): { rows: IterableIterator<CandleRow>; quiet(on: boolean): void } {
    const user = this.#options.onDiagnostic;
    const writer = RowCacheWriter.start(slot);
    let quiet = false;
    const onDiagnostic = (d: Diagnostic): void => {
      writer?.diagnostic(d);
      if (!quiet) user?.(d);
    };
    const rows = (this.#rowsOf(detected, { ...this.#options, onDiagnostic }) as Iterable<CandleRow>)[Symbol.iterator]() as IterableIterator<CandleRow>;
    return {
      rows: writer === undefined ? rows : new RecordingRows(rows, writer, () => this.#summary),
      quiet: (on) => {
        quiet = on;
      },
    };
  }

  /** A read of `detected` with `options` from its start: the summary describes it from here on. */
  #rowsOf(detected: DetectedLayout, options: CandleFileOptions): Iterable<CandleRow> | AsyncIterable<CandleRow> {
    const summary = this.#emptySummary(detected.layout);
    this.#summary = summary;
    const checks = new RowChecks(this.file, detected.layout, options, summary, (period, unit, held) => this.#checkPeriod(period, detected.layout, unit, held));
    if (detected.layout === 'freqtrade-json') return checkedAsync(readFreqtradeJson(this.file), checks);
    return this.#lineRows(detected as LineLayout, summary, checks);
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

  #lineRows(layout: LineLayout, summary: MutableSummary, checks: RowChecks): Iterable<CandleRow> {
    if (layout.layout === 'propbot-snapshots') return checkedSync(this.#assetFilter(layout), checks);
    if (layout.mayBeDescending && this.#isDescending(layout)) {
      summary.order = 'descending';
      const lastLine = countLines(this.file);
      return checkedLines(readLinesBackward(this.file, layout.dataStart, lastLine), layout.parse, checks);
    }
    return checkedForward(this.file, layout.dataStart, layout.dataLine, layout, checks);
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

/** Shorthand: `new CandleFileReader(file, options)`. */
export function readCandleFile(file: string, options: CandleFileOptions = {}): CandleFileReader {
  return new CandleFileReader(file, options);
}
