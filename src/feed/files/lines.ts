/**
 * Line readers that hold one chunk and one partial line at a time, whatever the file's length:
 * forwards from a byte offset, and backwards from the end (for newest-first files). Lines are split
 * on LF; a trailing CR is dropped, so CRLF files read the same.
 *
 * They are synchronous generators over fixed-size `readSync` chunks: a candle file is read once, at
 * full speed, by a backtest that has nothing else to do meanwhile, and a line then costs no promise
 * (`for await` takes them as well).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { DataFileError } from './errors.js';

export interface TextLine {
  readonly text: string;
  /** 1-based. */
  readonly line: number;
}

const CHUNK = 64 * 1024;
/** A longer line means the file is not a text candle file; refusing it keeps memory bounded. */
export const MAX_LINE_BYTES = 1024 * 1024;
const LF = 0x0a;
const CR = 0x0d;

function decodeLine(buf: Buffer): string {
  const end = buf.length > 0 && buf[buf.length - 1] === 0x0d ? buf.length - 1 : buf.length;
  return buf.toString('utf8', 0, end);
}

function tooLong(file: string, line: number): DataFileError {
  return new DataFileError(file, line, `lines shorter than ${MAX_LINE_BYTES} bytes`, 'a longer line (is this a text file?)');
}

/** Lines from byte `start` (which must be a line start, numbered `firstLine`) to the end of the file. */
export function* readLinesForward(file: string, start = 0, firstLine = 1): Generator<TextLine> {
  let line = firstLine;
  for (const block of forwardBlocks(file, start, () => line)) {
    for (let a = 0; a < block.length; line += 1) {
      const end = lineEnd(block, a);
      yield { text: block.slice(a, withoutCr(block, a, end)), line };
      a = end + 1;
    }
  }
}

/**
 * The text from byte `start` (a line start) to the end of the file as blocks of whole lines, one per
 * read: each block ends with its last LF (the file's last line may have none), and the lines are the
 * caller's to find (`lineEnd`), so a reader that parses a line in place makes no string of it.
 * `lineNow` gives the number of the line after the block last yielded (it names a line that is too long).
 */
export function* forwardBlocks(file: string, start: number, lineNow: () => number): Generator<string> {
  let rest: Buffer = Buffer.alloc(0);
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (let pos = start; ; ) {
      const got = readSync(fd, chunk, 0, CHUNK, pos);
      if (got === 0) break;
      pos += got;
      const buf = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, got)]) : chunk.subarray(0, got);
      // The whole lines of the chunk decode at once (an LF is never inside a UTF-8 sequence).
      const end = buf.lastIndexOf(LF);
      if (end !== -1) yield buf.toString('utf8', 0, end + 1);
      // copied: the chunk buffer is reused by the next read
      rest = Buffer.from(buf.subarray(end + 1));
      if (rest.length > MAX_LINE_BYTES) throw tooLong(file, lineNow());
    }
    if (rest.length > 0) yield rest.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Where the line starting at `from` of a block ends: its LF, or the end of the block. */
export function lineEnd(block: string, from: number): number {
  const nl = block.indexOf('\n', from);
  return nl === -1 ? block.length : nl;
}

/** The end of the line from `from` to `end` without its CR, if it has one (CRLF files read the same). */
export function withoutCr(block: string, from: number, end: number): number {
  return end > from && block.charCodeAt(end - 1) === CR ? end - 1 : end;
}

/** Number of lines in a file (a last line without LF counts). */
export function countLines(file: string): number {
  let count = 0;
  let last = LF;
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (let pos = 0; ; ) {
      const got = readSync(fd, chunk, 0, CHUNK, pos);
      if (got === 0) break;
      pos += got;
      for (let i = chunk.indexOf(LF); i !== -1 && i < got; i = chunk.indexOf(LF, i + 1)) count += 1;
      last = chunk[got - 1]!;
    }
  } finally {
    closeSync(fd);
  }
  return last === LF ? count : count + 1;
}

/**
 * Lines from the end of the file back to byte `stop` (a line start), newest line first. Reads the
 * file in fixed chunks from its end, so memory holds one chunk plus one partial line.
 * `lastLine` is the number of the file's last line (from `countLines`).
 */
export function* readLinesBackward(file: string, stop: number, lastLine: number, chunkSize = CHUNK): Generator<TextLine> {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    let pos = size;
    let line = lastLine;
    let rest: Buffer = Buffer.alloc(0);
    let atEnd = true;
    while (pos > stop) {
      const len = Math.min(chunkSize, pos - stop);
      pos -= len;
      const chunk = Buffer.alloc(len);
      let got = 0;
      while (got < len) {
        const bytesRead = readSync(fd, chunk, got, len - got, pos + got);
        if (bytesRead === 0) throw new DataFileError(file, line, 'a file that does not shrink while read', 'a short read');
        got += bytesRead;
      }
      const buf = rest.length > 0 ? Buffer.concat([chunk, rest]) : chunk;
      let end = buf.length;
      if (atEnd) {
        // a file ending in LF has no line after it
        if (end > 0 && buf[end - 1] === LF) end -= 1;
        atEnd = false;
      }
      while (end > 0) {
        const nl = buf.lastIndexOf(LF, end - 1);
        if (nl === -1) break;
        yield { text: decodeLine(buf.subarray(nl + 1, end)), line };
        line -= 1;
        end = nl;
      }
      rest = Buffer.from(buf.subarray(0, end));
      if (rest.length > MAX_LINE_BYTES) throw tooLong(file, line);
    }
    // what is left is the line that starts at `stop`
    if (size > stop) yield { text: decodeLine(rest), line };
  } finally {
    closeSync(fd);
  }
}
