/**
 * The rows cache: a candle file's checked rows, kept as numbers after a replay has read them, so the
 * next replay of the same file (as it is now) reads numbers instead of parsing text again. A
 * fresh backtest of the 1-minute month spent ~50 of its ~310 ms in the text reader, cold code that
 * V8's one compile helper also has to optimise while the replay waits for it.
 *
 * What a cached read gives is what the text read gave a replay: each row's open time, line and four
 * prices as fp9 integers, in the same order, and every bad-row and gap diagnostic before the same row
 * as the text read reported it, with the summary growing as it did. It gives no texts (a `ReplayRow`,
 * not a `CandleRow`): a replay reads only the integers, and a file whose prices do not all fit them
 * (more than 9 decimals, or 2^53 fp9 and over) is not cached, nor is a read that failed. A read
 * stopped early (a replay's range ended before the file did) keeps the rows it gave as a prefix entry:
 * a later replay reads them from it and, if it goes on past them, reads the text from the start again,
 * skips what the entry gave and records a longer entry.
 *
 * An entry is one file in `rows/` of the user's cache folder (core/cache-folders.ts), named for the data
 * file's real path and the read's options, so a changed file replaces its own entry instead of adding
 * one. It holds the key it was made for: the file's size, device, inode and its modification and
 * change times to the nanosecond (a write changes the change time, which no tool can set back), the
 * options, the format and the byte order; an entry whose key differs is not used. The folder must be
 * this user's and writable by no one else (rows read from it become prices: `ownedCacheFolder`). Entries are written
 * under a temporary name and renamed into place, so a reader sees a whole entry or none. Each block of
 * rows carries its CRC-32, checked as it is read: a block changed on disk since (a disk fault, a hand)
 * hands the rest of the read to the text, from that block's first row on, and the read writes the
 * entry again. The entries take at most `PROPBOT_ROWS_CACHE_MAX_BYTES` together (1 GiB unless set;
 * ~48 bytes a row, less than the text): after each write the ones used longest ago go.
 * `PROPBOT_ROWS_CACHE=off` turns the cache off.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type BigIntStats, closeSync, fstatSync, futimesSync, openSync, readdirSync, readSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { byteSetting } from '../../core/byte-setting.js';
import { ownedCacheFolder } from '../../core/cache-folders.js';
import { ConfigError } from '../../core/errors.js';
import { emptySummary, type MutableSummary } from './row-checks.js';
import type { CandleFileOptions, Diagnostic, FileLayout, ReadSummary, ReplayRow } from './types.js';

/** Bumped whenever what a read yields for the same bytes could change (the readers' rules, this format). */
const FORMAT = 2;
const MAGIC = Buffer.from('propbot-rows 1\n\0', 'latin1');
/** Magic, then the row count and the trailer's offset as doubles. */
const HEADER_BYTES = 32;
/** time, line, open, high, low, close: doubles, the prices fp9 integers below 2^53. */
const FIELDS = 6;
const ROW_BYTES = FIELDS * 8;
/** Rows a block: what is written, read and checked at once (64 KB). */
const BLOCK_ROWS = 1365;
/** fp9 integers a double holds exactly. */
const MAX_FP9 = Number.MAX_SAFE_INTEGER;
/** More diagnostics than this and the read is not cached (they are held in memory until the end). */
const MAX_DIAGNOSTICS = 100_000;
const DEFAULT_MAX_BYTES = 1024 ** 3;
/** A temporary file older than this is a writer's that died (a killed process): removed when the folder is pruned. */
const STALE_TEMP_MS = 3_600_000;

interface Trailer {
  readonly key: string;
  readonly rows: number;
  /** False for the rows a read had given when it was stopped: a prefix of the file's rows. */
  readonly complete: boolean;
  /** The read's summary when it ended or was stopped, without `file` (the path it is read by next time may differ). */
  readonly summary: Omit<ReadSummary, 'file' | 'badRowSamples' | 'gapSamples'>;
  /** Each diagnostic with the number of rows yielded before it, without `file`. */
  readonly diagnostics: ReadonlyArray<{ readonly at: number; readonly d: Omit<Diagnostic, 'file'> }>;
  /** The CRC-32 of each block of rows' bytes, in order. */
  readonly blocks: readonly number[];
}

/** Where the entry of a file read with some options lives, the key it must hold, and the folder's cap. */
export interface RowCacheSlot {
  readonly path: string;
  readonly key: string;
  /** What the folder's entries may take together (`rowCacheMaxBytes`). */
  readonly maxBytes: number;
}

/** Whether `PROPBOT_ROWS_CACHE` turns the cache off (`off`); on when unset, empty or `on`. */
export function rowCacheOn(env: NodeJS.ProcessEnv = process.env): boolean {
  const text = (env['PROPBOT_ROWS_CACHE'] ?? '').trim().toLowerCase();
  if (text === '' || text === 'on') return true;
  if (text === 'off') return false;
  throw new ConfigError('PROPBOT_ROWS_CACHE', `expected on or off, got ${JSON.stringify(env['PROPBOT_ROWS_CACHE'])}`);
}

/** `$PROPBOT_ROWS_CACHE_MAX_BYTES` (a whole number of bytes), else 1 GiB: what the entries may take together. */
export function rowCacheMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  return byteSetting('PROPBOT_ROWS_CACHE_MAX_BYTES', DEFAULT_MAX_BYTES, env);
}

/** The cache folder, made if missing; null when turned off, or when it is not a folder of this user's that only they can write. */
export function rowCacheFolder(env: NodeJS.ProcessEnv = process.env): string | null {
  return rowCacheOn(env) ? ownedCacheFolder('rows', env) : null;
}

/** The slot of `file` (its real path and state now) read with `options` as `layout`; undefined when the cache is off or unusable. */
export function rowCacheSlot(file: string, layout: FileLayout, options: CandleFileOptions, env: NodeJS.ProcessEnv = process.env): RowCacheSlot | undefined {
  const maxBytes = rowCacheMaxBytes(env);
  const folder = rowCacheFolder(env);
  if (folder === null) return undefined;
  let real: string;
  let st: BigIntStats;
  try {
    real = realpathSync(file);
    st = statSync(real, { bigint: true });
  } catch {
    return undefined;
  }
  if (!st.isFile()) return undefined;
  const read = [layout, options.layout ?? null, options.periodMs ?? null, options.inferFromRows ?? null, options.maxBadRows ?? null, options.keepDiagnostics ?? null];
  const name = createHash('sha256').update(JSON.stringify([FORMAT, real, read])).digest('hex').slice(0, 40);
  const key = JSON.stringify([FORMAT, endianness(), real, read, String(st.size), String(st.dev), String(st.ino), String(st.mtimeNs), String(st.ctimeNs)]);
  return { path: path.join(folder, `${name}.rows`), key, maxBytes };
}

/**
 * Keeps the folder of `kept` within `maxBytes`: removes the entries used longest ago (an entry's
 * modification time is set when it is used) until the rest fit, never `kept` itself, and temporary
 * files a dead writer left. Failures leave the folder as it is.
 */
export function pruneRowCache(kept: string, maxBytes: number, now = Date.now()): void {
  const folder = path.dirname(kept);
  try {
    const entries: Array<{ file: string; size: number; usedAt: number }> = [];
    let total = 0;
    for (const name of readdirSync(folder)) {
      const file = path.join(folder, name);
      const st = statSync(file);
      if (name.endsWith('.tmp')) {
        if (now - st.mtimeMs > STALE_TEMP_MS) unlinkSync(file);
        continue;
      }
      if (!name.endsWith('.rows')) continue;
      total += st.size;
      if (file !== kept) entries.push({ file, size: st.size, usedAt: st.mtimeMs });
    }
    entries.sort((a, b) => a.usedAt - b.usedAt);
    for (const e of entries) {
      if (total <= maxBytes) break;
      unlinkSync(e.file);
      total -= e.size;
    }
  } catch {
    // another process pruning at the same time, or the folder gone: the next write prunes again
  }
}

/**
 * Writes an entry while a read goes on: `row` each row yielded, `diagnostic` each one reported,
 * then `finish` with the read's summary (or `abandon`). Any failure only abandons the entry.
 */
export class RowCacheWriter {
  readonly #slot: RowCacheSlot;
  readonly #temp: string;
  #fd: number | null;
  readonly #buf = new Float64Array(BLOCK_ROWS * FIELDS);
  #inBuf = 0;
  #rows = 0;
  readonly #diagnostics: Array<{ at: number; d: Omit<Diagnostic, 'file'> }> = [];
  readonly #blocks: number[] = [];

  private constructor(slot: RowCacheSlot, temp: string, fd: number) {
    this.#slot = slot;
    this.#temp = temp;
    this.#fd = fd;
  }

  /** A writer for `slot`, or undefined when its temporary file can not be made. */
  static start(slot: RowCacheSlot): RowCacheWriter | undefined {
    const temp = `${slot.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const fd = openSync(temp, 'wx', 0o600);
      const w = new RowCacheWriter(slot, temp, fd);
      writeSync(fd, Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0);
      return w;
    } catch {
      return undefined;
    }
  }

  row(r: ReplayRow): void {
    if (this.#fd === null) return;
    const { openFp9: o, highFp9: h, lowFp9: l, closeFp9: c } = r;
    if (o === undefined || h === undefined || l === undefined || c === undefined) {
      this.abandon();
      return;
    }
    // A price of 2^53 fp9 or more converts inexactly, and converts to 2^53 or more: the check is on the doubles.
    const on = Number(o);
    const hn = Number(h);
    const ln = Number(l);
    const cn = Number(c);
    if (!(ln >= 0 && on <= MAX_FP9 && hn <= MAX_FP9 && ln <= MAX_FP9 && cn <= MAX_FP9)) {
      this.abandon();
      return;
    }
    const b = this.#buf;
    let i = this.#inBuf * FIELDS;
    b[i++] = r.time;
    b[i++] = r.line;
    b[i++] = on;
    b[i++] = hn;
    b[i++] = ln;
    b[i] = cn;
    this.#rows += 1;
    if (++this.#inBuf === BLOCK_ROWS) this.#flush();
  }

  diagnostic(d: Diagnostic): void {
    if (this.#fd === null) return;
    if (this.#diagnostics.length >= MAX_DIAGNOSTICS) {
      this.abandon();
      return;
    }
    const { file: _file, ...rest } = d;
    this.#diagnostics.push({ at: this.#rows, d: rest });
  }

  /**
   * The read ended (`complete`), or was stopped with its rows so far a prefix worth keeping: write the
   * trailer and the header, and put the entry in place.
   */
  finish(summary: ReadSummary, complete = true): void {
    if (this.#fd === null) return;
    if (summary.roundedRows > 0 || (complete ? summary.rows !== this.#rows : this.#rows === 0)) {
      this.abandon();
      return;
    }
    try {
      this.#flush();
      const { file: _file, badRowSamples: _b, gapSamples: _g, ...rest } = summary;
      const trailer: Trailer = { key: this.#slot.key, rows: this.#rows, complete, summary: rest, diagnostics: this.#diagnostics, blocks: this.#blocks };
      const at = HEADER_BYTES + this.#rows * ROW_BYTES;
      const text = Buffer.from(JSON.stringify(trailer), 'utf8');
      writeSync(this.#fd, text, 0, text.length, at);
      const head = Buffer.alloc(HEADER_BYTES);
      MAGIC.copy(head, 0);
      head.writeDoubleLE(this.#rows, 16);
      head.writeDoubleLE(at, 24);
      writeSync(this.#fd, head, 0, HEADER_BYTES, 0);
      closeSync(this.#fd);
      this.#fd = null;
      renameSync(this.#temp, this.#slot.path);
    } catch {
      this.abandon();
      return;
    }
    pruneRowCache(this.#slot.path, this.#slot.maxBytes);
  }

  /** The read stopped early or failed, or the rows can not be cached: no entry. */
  abandon(): void {
    if (this.#fd !== null) {
      try {
        closeSync(this.#fd);
      } catch {
        // closing is all that is left to do
      }
      this.#fd = null;
    }
    try {
      unlinkSync(this.#temp);
    } catch {
      // already gone
    }
  }

  #flush(): void {
    if (this.#inBuf === 0 || this.#fd === null) return;
    const bytes = Buffer.from(this.#buf.buffer, 0, this.#inBuf * ROW_BYTES);
    try {
      writeSync(this.#fd, bytes, 0, bytes.length, HEADER_BYTES + (this.#rows - this.#inBuf) * ROW_BYTES);
      this.#blocks.push(crc32(bytes));
      this.#inBuf = 0;
    } catch {
      this.abandon();
    }
  }
}

/**
 * The rows of the entry in `slot`, read as `file` with `layout`, or undefined when there is no usable
 * entry (none, another key, not whole). `summary` is filled as the rows go out, as the text read fills
 * it (keeping the first `keep` samples of each kind); `onDiagnostic` gets each diagnostic before the
 * row it came before.
 */
export function cachedRows(
  slot: RowCacheSlot,
  file: string,
  layout: FileLayout,
  keep: number,
  onDiagnostic: ((d: Diagnostic) => void) | undefined,
  resume: Resume,
): { rows: IterableIterator<ReplayRow>; summary: MutableSummary } | undefined {
  let fd: number;
  try {
    fd = openSync(slot.path, 'r');
  } catch {
    return undefined;
  }
  let trailer: Trailer;
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(HEADER_BYTES);
    if (size < HEADER_BYTES || readSync(fd, head, 0, HEADER_BYTES, 0) !== HEADER_BYTES || !head.subarray(0, 16).equals(MAGIC)) throw new Error('not an entry');
    const rows = head.readDoubleLE(16);
    const at = head.readDoubleLE(24);
    if (!Number.isSafeInteger(rows) || at !== HEADER_BYTES + rows * ROW_BYTES || at > size) throw new Error('not whole');
    const text = Buffer.alloc(size - at);
    if (readSync(fd, text, 0, text.length, at) !== text.length) throw new Error('not whole');
    trailer = JSON.parse(text.toString('utf8')) as Trailer;
    if (trailer.key !== slot.key || trailer.rows !== rows || trailer.summary.layout !== layout || typeof trailer.complete !== 'boolean') throw new Error('another key');
    if (!Array.isArray(trailer.blocks) || trailer.blocks.length !== Math.ceil(rows / BLOCK_ROWS)) throw new Error('not whole');
  } catch {
    closeSync(fd);
    return undefined;
  }
  try {
    // Used now: the last to go when the folder is pruned.
    const now = new Date();
    futimesSync(fd, now, now);
  } catch {
    // a read-only cache is still a cache
  }
  const summary = emptySummary(file, layout, trailer.summary.periodMs);
  summary.order = trailer.summary.order;
  summary.timeUnit = trailer.summary.timeUnit;
  return { rows: new CachedRows(fd, trailer, file, summary, keep, onDiagnostic, resume), summary };
}

/**
 * A text read of the file from its start, for a replay that goes on past a prefix entry's rows: its
 * rows (recorded into a new entry where one can be written), and a switch that holds back its
 * diagnostics while the prefix's rows are read again.
 */
export type Resume = () => { readonly rows: Iterator<ReplayRow>; quiet(on: boolean): void };

/**
 * One row of an entry. A class, not a literal: V8 starts every object literal of six fields from one
 * map, so any six-field literal whose `time` is a text (a report's, a plugin's) would make the rows'
 * `time` a field for any value, and throw away the replay's row loop compiled for numbers (performance
 * log, fifteenth round). A class's rows have a map of their own. They are plain data all the same, own
 * fields only, which a spread, JSON and a structured clone keep; fields declared, not defined, so
 * each is first stored with its value (a field defined as undefined first would hold any value).
 */
class CachedRow implements ReplayRow {
  declare readonly time: number;
  declare readonly line: number;
  declare readonly openFp9: bigint;
  declare readonly highFp9: bigint;
  declare readonly lowFp9: bigint;
  declare readonly closeFp9: bigint;

  constructor(time: number, line: number, openFp9: bigint, highFp9: bigint, lowFp9: bigint, closeFp9: bigint) {
    this.time = time;
    this.line = line;
    this.openFp9 = openFp9;
    this.highFp9 = highFp9;
    this.lowFp9 = lowFp9;
    this.closeFp9 = closeFp9;
  }
}

/** The rows of an entry, a block of them read at a time; the file closes at the end or on `return`. */
class CachedRows implements IterableIterator<ReplayRow> {
  #fd: number | null;
  readonly #rows: number;
  readonly #diagnostics: Trailer['diagnostics'];
  readonly #checksums: Trailer['blocks'];
  readonly #file: string;
  readonly #summary: MutableSummary;
  readonly #keep: number;
  readonly #onDiagnostic: ((d: Diagnostic) => void) | undefined;
  readonly #block = new Float64Array(BLOCK_ROWS * FIELDS);
  readonly #bytes = Buffer.from(this.#block.buffer);
  #inBlock = 0;
  #next = 0;
  #done = 0;
  /** Set in the constructor (stored twice): a field stored once is a constant to V8 until its first change. */
  #diag: number;
  readonly #complete: boolean;
  readonly #resume: Resume;
  /** The text read that goes on past a prefix entry's rows, once it has. */
  #after: Iterator<ReplayRow> | undefined;

  constructor(fd: number, trailer: Trailer, file: string, summary: MutableSummary, keep: number, onDiagnostic: ((d: Diagnostic) => void) | undefined, resume: Resume) {
    this.#fd = fd;
    this.#rows = trailer.rows;
    this.#complete = trailer.complete;
    this.#resume = resume;
    this.#diagnostics = trailer.diagnostics;
    this.#checksums = trailer.blocks;
    this.#diag = 0;
    this.#file = file;
    this.#summary = summary;
    this.#onDiagnostic = onDiagnostic;
    this.#keep = keep;
  }

  next(): IteratorResult<ReplayRow> {
    if (this.#after !== undefined) return this.#after.next();
    const done = this.#done;
    // A block is read and checked before the diagnostics that come before its first row are reported:
    // the text read that takes over from a changed block reports them itself.
    if (this.#next === this.#inBlock && done < this.#rows && !this.#read()) return (this.#after = this.#textAfter(done)).next();
    if (this.#diag < this.#diagnostics.length && this.#diagnostics[this.#diag]!.at === done) this.#report(done);
    if (done === this.#rows) {
      if (!this.#complete) return (this.#after = this.#textAfter(done)).next();
      this.#close();
      return { value: undefined, done: true };
    }
    const b = this.#block;
    const i = this.#next * FIELDS;
    this.#next += 1;
    const row = new CachedRow(b[i]!, b[i + 1]!, BigInt(b[i + 2]!), BigInt(b[i + 3]!), BigInt(b[i + 4]!), BigInt(b[i + 5]!));
    this.#done = done + 1;
    const s = this.#summary;
    s.rows += 1;
    s.firstTime ??= row.time;
    s.lastTime = row.time;
    return { value: row, done: false };
  }

  return(value?: unknown): IteratorResult<ReplayRow> {
    this.#close();
    return this.#after?.return?.(value) ?? { value: undefined, done: true };
  }

  [Symbol.iterator](): IterableIterator<ReplayRow> {
    return this;
  }

  /**
   * The text read from the file's start, past the `rows` rows this entry gave (read again, their
   * diagnostics already reported): the replay goes on where a prefix entry ends or a changed block
   * starts, and the read fills a new entry.
   */
  #textAfter(rows: number): Iterator<ReplayRow> {
    this.#close();
    const text = this.#resume();
    text.quiet(true);
    for (let i = 0; i < rows; i += 1) {
      const r = text.rows.next();
      if (r.done === true) throw new Error(`${this.#file}: its rows cache entry holds more rows than the file (PROPBOT_ROWS_CACHE=off reads the file without it)`);
    }
    text.quiet(false);
    return text.rows;
  }

  /** The diagnostics the text read reported after `at` rows, with the summary's counts as it kept them. */
  #report(at: number): void {
    const list = this.#diagnostics;
    const s = this.#summary;
    for (; this.#diag < list.length && list[this.#diag]!.at === at; this.#diag += 1) {
      const d = { ...list[this.#diag]!.d, file: this.#file } as Diagnostic;
      if (d.kind === 'bad_row') {
        s.badRows += 1;
        if (s.badRowSamples.length < this.#keep) s.badRowSamples.push(d);
      } else if (d.sessionBreak) s.sessionBreaks += 1;
      else {
        s.gaps += 1;
        s.missingPeriods += d.missingPeriods;
        if (s.gapSamples.length < this.#keep) s.gapSamples.push(d);
      }
      this.#onDiagnostic?.(d);
    }
  }

  /** The next block into `#block`; false when its bytes are not the ones written (its checksum differs). */
  #read(): boolean {
    const want = Math.min(BLOCK_ROWS, this.#rows - this.#done);
    const bytes = want * ROW_BYTES;
    const got = readSync(this.#fd!, this.#bytes, 0, bytes, HEADER_BYTES + this.#done * ROW_BYTES);
    if (got !== bytes) {
      this.#close();
      throw new Error(`${this.#file}: its rows cache entry ended early (PROPBOT_ROWS_CACHE=off reads the file without it)`);
    }
    if (crc32(this.#bytes.subarray(0, bytes)) !== this.#checksums[this.#done / BLOCK_ROWS]) return false;
    this.#inBlock = want;
    this.#next = 0;
    return true;
  }

  #close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }
}

/**
 * The text read's rows as they go out, each also written to `writer`; the entry is put in place when
 * they end, or as a prefix entry when the read is stopped early (a replay's range ended, or the run
 * was stopped), and abandoned when the read fails.
 */
export class RecordingRows<R extends ReplayRow> implements IterableIterator<R> {
  readonly #inner: Iterator<R>;
  readonly #writer: RowCacheWriter;
  readonly #summary: () => ReadSummary;

  constructor(inner: Iterator<R>, writer: RowCacheWriter, summary: () => ReadSummary) {
    this.#inner = inner;
    this.#writer = writer;
    this.#summary = summary;
  }

  next(): IteratorResult<R> {
    let r: IteratorResult<R>;
    try {
      r = this.#inner.next();
    } catch (err) {
      this.#writer.abandon();
      throw err;
    }
    if (r.done === true) this.#writer.finish(this.#summary());
    else this.#writer.row(r.value);
    return r;
  }

  return(value?: unknown): IteratorResult<R> {
    this.#writer.finish(this.#summary(), false);
    return this.#inner.return?.(value) ?? { value: undefined, done: true };
  }

  [Symbol.iterator](): IterableIterator<R> {
    return this;
  }
}
