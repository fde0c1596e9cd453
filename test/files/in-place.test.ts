import { afterAll, describe, expect, it } from 'vitest';
import { detectLayout, type LineLayout } from '../../src/feed/files/layouts.js';
import { MAX_LINE_BYTES, readLinesForward } from '../../src/feed/files/lines.js';
import { readCandleFile } from '../../src/feed/files/candle-file.js';
import { DataFileError } from '../../src/feed/files/errors.js';
import { checkedForward, checkedLines, emptySummary, RowChecks, type MutableSummary } from '../../src/feed/files/row-checks.js';
import type { CandleRow } from '../../src/feed/files/types.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** The rows and summary of one read, by `read` (the in-place reader or the line-by-line one). */
function readWith(
  file: string,
  layout: LineLayout,
  read: (checks: RowChecks) => Iterable<CandleRow>,
): { rows: CandleRow[]; summary: MutableSummary } {
  const summary = emptySummary(file, layout.layout, null);
  const checks = new RowChecks(file, layout.layout, { maxBadRows: 10_000, keepDiagnostics: 10_000 }, summary, () => {});
  return { rows: [...read(checks)], summary };
}

/**
 * Rows of a 1-minute file with every kind of line the reader meets: plain rows, CRLF endings, blank
 * lines, a row in quotes (the general path), a bad price, a duplicate, a row back in time, rows of
 * too few and too many columns, a row with more decimals than fp9 and a gap, over several 64 KiB reads.
 */
function mixedFile(header: string, rows: number, extra: string): string {
  const t0 = Date.UTC(2021, 3, 20);
  const lines: string[] = [header];
  for (let i = 0; i < rows; i += 1) {
    if (i === 500) continue; // a gap
    const t = t0 + i * 60_000;
    const o = (50_000 + (i % 97) * 0.5).toFixed(2);
    const h = (50_100 + (i % 89) * 1.5).toFixed(2);
    const l = (49_900 - (i % 83) * 0.75).toFixed(2);
    const c = (50_000 + (i % 79) * 0.5).toFixed(2);
    const row = `${t},${o},${h},${l},${c},${(i % 13) + 0.123}${extra}`;
    const eol = i % 7 === 0 ? '\r\n' : '\n';
    if (i % 1000 === 11) lines.push(`"${t}","${o}","${h}","${l}","${c}","1"${extra}${eol}`);
    else if (i % 1000 === 23) lines.push(`${t},${o},abc,${l},${c},1${extra}${eol}`);
    else if (i % 1000 === 37) lines.push(`${row}${eol}`, `${row}${eol}`);
    else if (i % 1000 === 41) lines.push(`${t - 120_000},${o},${h},${l},${c},1${extra}${eol}`);
    else if (i % 1000 === 53) lines.push(`${t},${o}0000000001,${h},${l},${c},1${extra}${eol}`);
    else if (i % 1000 === 67) lines.push(`${eol}`, `${row}${eol}`);
    // one column short: the volume's, or the last of the columns read by nobody
    else if (i % 1000 === 79) lines.push(`${t},${o},${h},${l},${c}${extra === '' ? '' : `,1${extra.slice(0, extra.lastIndexOf(','))}`}${eol}`);
    else if (i % 1000 === 83) lines.push(`${row},9${eol}`);
    else lines.push(`${row}${eol}`);
  }
  return lines.map((l, i) => (i === 0 ? `${l}\n` : l)).join('');
}

describe('rows parsed in place', () => {
  for (const [name, header, extra] of [
    ['a header-less file', '', ''],
    ['a file with a header', 'timestamp_ms,open,high,low,close,volume', ''],
    // columns the plain read does not look at: only the column count keeps it inside the line
    ['a Binance kline file', '', ',1,2,3,4,5,6'],
  ] as const) {
    it(`give the rows, bad rows and summary the lines read one by one give (${name})`, async () => {
      const text = mixedFile(header, 4_000, extra).replace(/^\n/, '');
      expect(text.length).toBeGreaterThan(3 * 64 * 1024);
      const file = tmp.write(`mixed-${name.replaceAll(' ', '-')}.csv`, text);
      const layout = (await detectLayout(file)) as LineLayout;
      expect(layout.plain).toBeDefined();
      const inPlace = readWith(file, layout, (checks) => checkedForward(file, layout.dataStart, layout.dataLine, layout, checks));
      const byLine = readWith(file, layout, (checks) => checkedLines(readLinesForward(file, layout.dataStart, layout.dataLine), layout.parse, checks));
      expect(inPlace.rows).toEqual(byLine.rows);
      expect(inPlace.summary).toEqual(byLine.summary);
      // Every kind of fault was met, and a bad row's text is its whole line without the line break.
      expect(byLine.summary.badRows).toBe(5 * 4);
      expect(new Set(byLine.summary.badRowSamples.map((b) => b.reason))).toEqual(new Set(['price', 'duplicate', 'out_of_order', 'columns']));
      for (const bad of inPlace.summary.badRowSamples) {
        const line = text.split('\n')[bad.line - 1]!.replace(/\r$/, '');
        expect(bad.text).toBe(line);
      }
      // minute 500, and the minutes of the rows skipped as bad (price, back in time, columns)
      expect(byLine.summary.gaps).toBe(1 + 4 * 4);
      expect(byLine.summary.roundedRows).toBe(4);
      expect(byLine.rows.some((r) => r.openFp9 === undefined)).toBe(true);
    });
  }
});

describe('a line longer than the reader holds', () => {
  it('is refused at its own line number, by the line reader and by the in-place reader', async () => {
    // Two good rows, then a line of twice MAX_LINE_BYTES that spans many reads.
    const rows = '1618876800000,1,2,0.5,1.5,10\n1618876860000,1,2,0.5,1.5,10\n';
    const file = tmp.write('long-line.csv', rows + '9'.repeat(2 * MAX_LINE_BYTES) + '\n1618876920000,1,2,0.5,1.5,10\n');
    const refused = (read: () => unknown): DataFileError => {
      try {
        read();
      } catch (error) {
        if (error instanceof DataFileError) return error;
        throw error;
      }
      throw new Error('not refused');
    };
    const byLine = refused(() => [...readLinesForward(file)]);
    expect(byLine.line).toBe(3);
    expect(byLine.message).toContain(`${file}:3: expected lines shorter than ${MAX_LINE_BYTES} bytes`);
    const reader = readCandleFile(file);
    const rowsOf = await reader.open();
    const inPlace = refused(() => [...(rowsOf as Iterable<unknown>)]);
    expect(inPlace.line).toBe(3);
    expect(inPlace.message).toContain(`${file}:3: expected lines shorter than ${MAX_LINE_BYTES} bytes`);
  });
});
