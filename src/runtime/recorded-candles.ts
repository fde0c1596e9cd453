/**
 * A candle file read once per thread and replayed to every sweep run over the same data and period.
 * Each run of a sweep reads the same file over the same range: parsing it again was ~15% of a run's
 * CPU (a newest-first file is read from its oldest row up to `to`) and most of its garbage, which the
 * GC threads then collect on the core a second worker needs.
 *
 * The rows are the ones the session itself would keep (`rangeCheck`, the same read stopping at the
 * first row at or past `to`), and the summary is the reader's once it has read that far: what a run
 * that replays to its end reports. A run stopped early (pruned, or failed with --stop-on-failure)
 * reports the whole range's summary where its own read would have stopped sooner; a sweep's rows
 * carry no data summary.
 */
import { stat } from 'node:fs/promises';
import { readCandleFile } from '../feed/files/candle-file.js';
import { isSqliteFile } from '../feed/files/store-snapshots.js';
import type { FileLayout, ReadSummary, ReplayRow } from '../feed/files/types.js';
import { rangeCheck, type ReplaySource } from './local-session.js';

export class RecordedCandles implements ReplaySource {
  readonly summary: ReadSummary;
  readonly #rows: readonly ReplayRow[];

  constructor(summary: ReadSummary, rows: readonly ReplayRow[]) {
    this.summary = summary;
    this.#rows = rows;
  }

  get rows(): number {
    return this.#rows.length;
  }

  async openReplay(): Promise<Iterable<ReplayRow>> {
    return this.#rows;
  }
}

/**
 * The rows of a candle file from `from` to before `to`, as a session reads them; undefined for a store
 * file, and for a range of more than `maxRows` rows (the session then streams the file itself).
 */
export async function recordCandles(
  file: string,
  layout: FileLayout | undefined,
  from: number | undefined,
  to: number | undefined,
  maxRows = Number.POSITIVE_INFINITY,
): Promise<RecordedCandles | undefined> {
  if (layout === 'propbot-store' || (layout === undefined && (await isSqliteFile(file)))) return undefined;
  const reader = readCandleFile(file, layout !== undefined ? { layout } : {});
  const where = rangeCheck(from === undefined ? undefined : () => from, to);
  // The replay's read: from the rows cache when it holds the file (a worker's first run reads no text).
  const rows: ReplayRow[] = [];
  for await (const row of await reader.openReplay()) {
    const w = where(row);
    if (w === 'after') break;
    if (w === 'inside' && rows.push(row) > maxRows) return undefined;
  }
  return new RecordedCandles(reader.summary, rows);
}

/** Reads kept per thread: a few (a queue worker sees several data sets), none longer than this. */
const MAX_KEPT = 4;
const MAX_KEPT_ROWS = 100_000;
const kept = new Map<string, Promise<RecordedCandles | undefined>>();

/**
 * `recordCandles`, kept for the next run of this thread over the same file (as it is now: its size
 * and modification time are part of the key) and range. A range longer than `maxRows` rows is not
 * recorded at all (the runs stream the file, as a backtest does) and that verdict is kept too: a
 * thread's memory stays bounded whatever the data.
 */
export async function keptCandles(
  file: string,
  layout: FileLayout | undefined,
  from: number | undefined,
  to: number | undefined,
  maxRows = MAX_KEPT_ROWS,
): Promise<RecordedCandles | undefined> {
  const { size, mtimeMs } = await stat(file);
  const key = JSON.stringify([file, size, mtimeMs, layout ?? null, from ?? null, to ?? null, maxRows]);
  let read = kept.get(key);
  if (read === undefined) {
    read = recordCandles(file, layout, from, to, maxRows);
    kept.set(key, read);
    if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
  }
  return read.catch((err: unknown) => {
    kept.delete(key);
    throw err;
  });
}
