/**
 * Market snapshots recorded by the daemon, read straight from its sqlite store file, as 1-tick candles
 * oldest first: a live or paper session can be replayed by the backtester later. The file is opened
 * read-only (a running daemon may keep writing; WAL lets both work) and read in pages by
 * (taken_at, id), so memory does not grow with the recording's length.
 */
import { open } from 'node:fs/promises';
import type sqlite3 from 'sqlite3';
import { DataFileError } from './errors.js';
import type { CandleRow, ReadSummary } from './types.js';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** Whether the file is an sqlite database (the daemon's store). */
export async function isSqliteFile(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return false;
  }
  try {
    const buf = Buffer.alloc(16);
    const { bytesRead } = await handle.read(buf, 0, 16, 0);
    return bytesRead === 16 && buf.toString('latin1') === SQLITE_MAGIC;
  } finally {
    await handle.close();
  }
}

export interface StoreSnapshotOptions {
  /** The market to read (the store may hold several). */
  readonly asset: string;
  /** Rows per query. Default 5000. */
  readonly pageSize?: number;
}

interface Row {
  id: number;
  taken_at: number;
  index_price: string;
}

export class StoreSnapshotReader implements AsyncIterable<CandleRow> {
  readonly file: string;
  readonly #options: StoreSnapshotOptions;
  // Progress of the latest read; the summary is built from it when asked, not once per row.
  #rows = 0;
  #first: number | null = null;
  #last: number | null = null;
  #period: number | null = null;
  #skipped = 0;

  constructor(file: string, options: StoreSnapshotOptions) {
    this.file = file;
    this.#options = options;
  }

  get summary(): ReadSummary {
    return summaryOf(this.file, this.#rows, this.#first, this.#last, this.#period, this.#skipped);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<CandleRow> {
    const db = await openReadOnly(this.file);
    try {
      const pageSize = this.#options.pageSize ?? 5000;
      let after = { takenAt: -1, id: -1 };
      this.#rows = 0;
      this.#first = this.#last = this.#period = null;
      this.#skipped = 0;
      for (;;) {
        const page = await all<Row>(
          db,
          `SELECT id, taken_at, index_price FROM market_snapshots
           WHERE asset = ? AND (taken_at > ? OR (taken_at = ? AND id > ?))
           ORDER BY taken_at, id LIMIT ?`,
          [this.#options.asset, after.takenAt, after.takenAt, after.id, pageSize],
          this.file,
        );
        for (const r of page) {
          after = { takenAt: r.taken_at, id: r.id };
          // Two snapshots in the same millisecond: the first one stands, as a candle file's duplicate would.
          const last = this.#last;
          if (last !== null && r.taken_at <= last) continue;
          // A market that had no price yet (recorded by an older version) is no quote to replay.
          if (!/^\d+(\.\d+)?$/.test(r.index_price) || /^0+(\.0+)?$/.test(r.index_price)) {
            this.#skipped += 1;
            continue;
          }
          if (last !== null && (this.#period === null || r.taken_at - last < this.#period)) this.#period = r.taken_at - last;
          this.#first ??= r.taken_at;
          this.#last = r.taken_at;
          this.#rows += 1;
          const p = r.index_price;
          yield { time: r.taken_at, open: p, high: p, low: p, close: p, volume: null, line: r.id };
        }
        if (page.length < pageSize) break;
      }
      if (this.#rows === 0) {
        throw new DataFileError(this.file, 0, `market snapshots of ${this.#options.asset}`, 'none in this store file');
      }
    } finally {
      await new Promise<void>((resolve) => db.close(() => resolve()));
    }
  }
}

function summaryOf(file: string, rows: number, first: number | null, last: number | null, period: number | null, skipped: number): ReadSummary {
  return {
    file,
    layout: 'propbot-store',
    order: 'ascending',
    // A recording has no candle period; one tick per snapshot, spaced by the poll interval.
    periodMs: period ?? (rows > 0 ? 1000 : null),
    rows,
    firstTime: first,
    lastTime: last,
    badRows: skipped,
    gaps: 0,
    missingPeriods: 0,
    sessionBreaks: 0,
    timeUnit: rows > 0 ? 'ms' : null,
    roundedRows: 0,
    firstRoundedLine: null,
    badRowSamples: [],
    gapSamples: [],
  };
}

async function openReadOnly(file: string): Promise<sqlite3.Database> {
  // The native binding is loaded when a store file is read, not by every backtest.
  const { default: sqlite } = await import('sqlite3');
  return new Promise((resolve, reject) => {
    const db = new sqlite.Database(file, sqlite.OPEN_READONLY, (err) => {
      if (err) reject(new DataFileError(file, 0, 'a propbot store (sqlite) file', err.message));
      else resolve(db);
    });
  });
}

function all<T>(db: sqlite3.Database, sql: string, params: unknown[], file: string): Promise<T[]> {
  return new Promise((resolve, reject) => {
    db.all(sql, params, (err, rows) => {
      if (err) reject(new DataFileError(file, 0, 'a propbot store with recorded market snapshots', err.message));
      else resolve(rows as T[]);
    });
  });
}
