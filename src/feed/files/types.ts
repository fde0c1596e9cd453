/**
 * Rows read from candle and snapshot files. Prices stay decimal strings (exactly as written, or
 * normalised to plain notation when the file used an exponent): the replay turns them into Decimals,
 * never into JS numbers. Timestamps are numbers (unix ms), which is exact for every date in range.
 */

/** The layouts the readers recognise from a file's first bytes. */
export const FILE_LAYOUTS = [
  'propbot-csv',
  'binance-kline',
  'cryptodatadownload',
  'freqtrade-json',
  'propbot-snapshots',
  /** The daemon's sqlite store: its recorded market snapshots. */
  'propbot-store',
] as const;
export type FileLayout = (typeof FILE_LAYOUTS)[number];

/** One candle of a file, oldest first. */
export interface CandleRow {
  /** Candle open time, unix ms (UTC). */
  readonly time: number;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  /** Base-asset volume; null when the layout has none (snapshots). */
  readonly volume: string | null;
  /** 1-based line of the row in the file (for JSON files: the line its `[` is on). */
  readonly line: number;
  /**
   * `open` as the engine's fp9 integer (its value × 10⁹), as the file readers read it with the text
   * where that takes one pass (a plain decimal of at most 15 digits); undefined where it does not.
   * The replay takes it instead of reading the text again; a row without it (made elsewhere, or a
   * longer price) is read from its text. Where given, it must be the text's value.
   */
  readonly openFp9?: bigint | undefined;
  /** As `openFp9`, of `high`. */
  readonly highFp9?: bigint | undefined;
  /** As `openFp9`, of `low`. */
  readonly lowFp9?: bigint | undefined;
  /** As `openFp9`, of `close`. */
  readonly closeFp9?: bigint | undefined;
}

/**
 * A row as a replay reads it: its time, line and prices as fp9 integers, with the texts only where the
 * integers are missing (a price of more than 9 decimals). A `CandleRow` is one; so is a row from the
 * rows cache (row-cache.ts), which keeps no texts.
 */
export type ReplayRow = Pick<CandleRow, 'time' | 'line' | 'openFp9' | 'highFp9' | 'lowFp9' | 'closeFp9'> &
  Partial<Pick<CandleRow, 'open' | 'high' | 'low' | 'close'>>;

/** One recorded market snapshot (see `snapshots.ts` for the file format). */
export interface SnapshotRow {
  readonly asset: string;
  /** When the snapshot was taken, unix ms. */
  readonly takenAt: number;
  /** Index price, decimal string. */
  readonly indexPrice: string;
  readonly line: number;
}

export type BadRowReason =
  | 'columns'
  | 'timestamp'
  | 'price'
  | 'volume'
  | 'ohlc'
  | 'duplicate'
  | 'out_of_order'
  | 'json'
  | 'asset';

/** A row the reader skipped. */
export interface BadRow {
  readonly kind: 'bad_row';
  readonly file: string;
  readonly line: number;
  readonly reason: BadRowReason;
  /** What was wrong, for a human. */
  readonly message: string;
  /** The row's text, cut to 120 characters. */
  readonly text: string;
}

/** Missing periods between two consecutive rows. */
export interface Gap {
  readonly kind: 'gap';
  readonly file: string;
  /** Open time of the last row before the gap, unix ms. */
  readonly afterTime: number;
  /** Open time of the first row after the gap, unix ms. */
  readonly nextTime: number;
  /** Whole periods missing between the two rows (`(nextTime − afterTime) / period − 1`, rounded down). */
  readonly missingPeriods: number;
  /** Line of the row after the gap. */
  readonly line: number;
  /**
   * True when every missing candle falls on a weekend (UTC) and the file has had no weekend row
   * before: the market was closed (a session break by the data's own calendar), not a hole in the data.
   */
  readonly sessionBreak?: boolean;
}

export type Diagnostic = BadRow | Gap;

/**
 * How a file's timestamps were read, decided once per file from its first row: epoch seconds,
 * milliseconds or microseconds (by magnitude, or by a `timestamp_ms` column), or date text (UTC).
 */
export type TimeUnit = 's' | 'ms' | 'us' | 'date';

/** What a finished (or running) read found. */
export interface ReadSummary {
  readonly file: string;
  readonly layout: FileLayout;
  /** `descending` when the file was newest first and was read from its end. */
  readonly order: 'ascending' | 'descending';
  /** Candle period in ms (given, or inferred from the first rows); null before it is known. */
  readonly periodMs: number | null;
  /** Rows yielded. */
  readonly rows: number;
  readonly firstTime: number | null;
  readonly lastTime: number | null;
  readonly badRows: number;
  readonly gaps: number;
  /** Sum of `missingPeriods` over all gaps. */
  readonly missingPeriods: number;
  /** Weekend closes of a market that does not trade on weekends (not counted in `gaps`). */
  readonly sessionBreaks: number;
  /** How the timestamps were read; null before the first row. */
  readonly timeUnit: TimeUnit | null;
  /** Rows whose prices had more than 9 decimals (the platform's fp9 precision), rounded half-even. */
  readonly roundedRows: number;
  /** Line of the first such row. */
  readonly firstRoundedLine: number | null;
  /** The first bad rows (at most `keepDiagnostics`). */
  readonly badRowSamples: readonly BadRow[];
  /** The first gaps (at most `keepDiagnostics`). */
  readonly gapSamples: readonly Gap[];
}

export interface CandleFileOptions {
  /** Skip detection and read the file as this layout. */
  layout?: FileLayout;
  /** Candle period in ms; by default inferred as the smallest step among the first `inferFromRows` rows. */
  periodMs?: number;
  /** How many leading rows the period is inferred from (default 16). They are held back until then. */
  inferFromRows?: number;
  /** Called for every bad row and every gap, as they are found. */
  onDiagnostic?: (diagnostic: Diagnostic) => void;
  /**
   * Refuse the file (DataFileError) once it has more bad rows than this (default 100): past that,
   * the file is most likely not in the layout it was taken for. `Infinity` never refuses.
   */
  maxBadRows?: number;
  /** How many bad rows and gaps the summary keeps as samples (default 50). */
  keepDiagnostics?: number;
  /**
   * Snapshot files only: the asset to read. Required when the file holds several assets; a row of
   * another asset is then skipped silently.
   */
  asset?: string;
}
