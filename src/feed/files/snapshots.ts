/**
 * The file format of recorded market snapshots: JSON lines, UTF-8, one snapshot per line, oldest
 * first, after an optional header line that names the format:
 *
 * ```
 * {"format":"propbot-snapshots","version":1}
 * {"asset":"BTC","takenAt":1618951320000,"indexPrice":"56738.76"}
 * {"asset":"ETH","takenAt":1618951320000,"indexPrice":"2302.25"}
 * ```
 * `takenAt` is unix ms; `indexPrice` is a decimal STRING so no digit is lost. Several assets may
 * share a file. `SnapshotRecorder` appends to it; the candle reader replays it as 1-tick candles
 * (`readCandleFile(file, { asset })`) and `readSnapshotFile` gives the raw snapshots back.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import type { Decimal } from 'decimal.js';
import { DataFileError } from './errors.js';
import { detectLayout, parseSnapshotLine, SNAPSHOT_HEADER, type LineLayout } from './layouts.js';
import { readLinesForward } from './lines.js';
import type { BadRow, Diagnostic, SnapshotRow } from './types.js';

export interface SnapshotRecord {
  readonly asset: string;
  readonly takenAt: number;
  readonly indexPrice: Decimal | string;
}

/** One line of the format (without the newline). */
export function formatSnapshotLine(s: SnapshotRecord): string {
  if (typeof s.asset !== 'string' || s.asset === '') throw new TypeError('formatSnapshotLine: asset must be a non-empty string');
  if (!Number.isSafeInteger(s.takenAt) || s.takenAt <= 0) {
    throw new TypeError(`formatSnapshotLine: takenAt must be unix ms (a positive integer), got ${s.takenAt}`);
  }
  const price = typeof s.indexPrice === 'string' ? s.indexPrice : s.indexPrice.toFixed();
  return JSON.stringify({ asset: s.asset, takenAt: s.takenAt, indexPrice: price });
}

/** Appends snapshots to a file in the format above, writing the header when the file is new or empty. */
export class SnapshotRecorder {
  readonly file: string;
  #stream: WriteStream | undefined;
  #opening: Promise<WriteStream> | undefined;

  constructor(file: string) {
    this.file = file;
  }

  async #open(): Promise<WriteStream> {
    const size = await stat(this.file).then((s) => s.size, () => 0);
    const stream = createWriteStream(this.file, { flags: 'a' });
    await once(stream, 'open');
    if (size === 0) stream.write(JSON.stringify(SNAPSHOT_HEADER) + '\n');
    this.#stream = stream;
    return stream;
  }

  /** Append one snapshot; resolves once the stream can take more (back-pressure). */
  async record(s: SnapshotRecord): Promise<void> {
    const line = formatSnapshotLine(s) + '\n';
    const stream = this.#stream ?? (await (this.#opening ??= this.#open()));
    if (!stream.write(line)) await once(stream, 'drain');
  }

  /** Flush and close the file. */
  async close(): Promise<void> {
    const stream = this.#stream ?? (this.#opening ? await this.#opening : undefined);
    if (!stream) return;
    this.#stream = undefined;
    this.#opening = undefined;
    await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
}

export interface SnapshotFileOptions {
  /** Keep only this asset's snapshots. */
  asset?: string;
  onDiagnostic?: (d: Diagnostic) => void;
  /** Refuse the file past this many bad lines (default 100). */
  maxBadRows?: number;
}

/**
 * The raw snapshots of a recorded file, in file order. Bad lines are skipped and reported; a
 * snapshot older than the one before it is a bad row (`out_of_order`), as is a repeated
 * (asset, takenAt).
 */
export async function* readSnapshotFile(file: string, options: SnapshotFileOptions = {}): AsyncGenerator<SnapshotRow> {
  const detected = await detectLayout(file);
  if (detected.layout !== 'propbot-snapshots') {
    throw new DataFileError(file, 1, 'propbot snapshot JSON lines ({"asset","takenAt","indexPrice"} per line)', `a ${detected.layout} file`);
  }
  const layout = detected as LineLayout;
  const maxBad = options.maxBadRows ?? 100;
  let badCount = 0;
  let lastTime = -Infinity;
  const lastByAsset = new Map<string, number>();
  let rows = 0;
  const bad = (line: number, text: string, reason: BadRow['reason'], message: string) => {
    badCount += 1;
    options.onDiagnostic?.({ kind: 'bad_row', file, line, reason, message, text: text.slice(0, 120) });
    if (badCount > maxBad) throw new DataFileError(file, line, `at most ${maxBad} bad snapshot lines`, `${badCount}; the latest: ${message}`);
  };
  for await (const l of readLinesForward(file, layout.dataStart, layout.dataLine)) {
    if (l.text.trim() === '') continue;
    const s = parseSnapshotLine(l.text);
    if (!s.ok) {
      bad(l.line, l.text, s.reason, s.message);
      continue;
    }
    if (options.asset !== undefined && s.asset !== options.asset) continue;
    if (s.takenAt < lastTime) {
      bad(l.line, l.text, 'out_of_order', `takenAt ${s.takenAt} is before the previous snapshot's ${lastTime}`);
      continue;
    }
    if (lastByAsset.get(s.asset) === s.takenAt) {
      bad(l.line, l.text, 'duplicate', `a second ${s.asset} snapshot at ${s.takenAt}`);
      continue;
    }
    lastTime = s.takenAt;
    lastByAsset.set(s.asset, s.takenAt);
    rows += 1;
    yield { asset: s.asset, takenAt: s.takenAt, indexPrice: s.indexPrice, line: l.line };
  }
  if (rows === 0 && badCount > 0) throw new DataFileError(file, 0, 'at least one valid snapshot line', `only ${badCount} bad lines`);
}
