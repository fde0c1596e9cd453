/**
 * Nonsense a candle file may hold that must never become a silent result: prices beyond the fp9 range
 * or finer than its precision, timestamps outside 1970–2099, a unit that changes inside a file, and
 * millisecond times of year 10000 that would read as microseconds of 1978.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DataFileError, readCandleFile, type BadRow } from '../../src/feed/files/index.js';
import { collect, diagnostics, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const HEADER = 'timestamp_ms,open,high,low,close,volume\n';
const T0 = Date.UTC(2021, 0, 4);
const rows = (n: number, step: number, start: number, price = '100'): string =>
  Array.from({ length: n }, (_, i) => `${start + i * step},${price},${price},${price},${price},1\n`).join('');

async function badRows(text: string, name: string): Promise<{ bad: BadRow[]; summary: ReturnType<typeof readCandleFile>['summary']; lines: number[] }> {
  const d = diagnostics();
  const reader = readCandleFile(tmp.write(name, text), d);
  const got = await collect(reader);
  return { bad: d.list.filter((x): x is BadRow => x.kind === 'bad_row'), summary: reader.summary, lines: got.map((r) => r.line) };
}

describe('prices against the fp9 range and precision', () => {
  it('a price above the largest fp9 value is a bad row naming the limit', async () => {
    const { bad, lines } = await badRows(HEADER + rows(2, 60_000, T0) + `${T0 + 120_000},1e40,1e40,1e40,1e40,1\n` + rows(1, 60_000, T0 + 180_000), 'huge.csv');
    expect(lines).toEqual([2, 3, 5]);
    expect(bad).toEqual([expect.objectContaining({ line: 4, reason: 'price' })]);
    expect(bad[0]!.message).toContain('above the largest fp9 price 9223372036.854775807');
  });

  it('more than 9 decimals round half-even and are counted; a price that rounds to zero is refused', async () => {
    const text = HEADER + `${T0},0.1234567894,0.1234567895,0.1234567885,0.1234567894,1\n` + `${T0 + 60_000},0.0000000001,0.0000000001,0.0000000001,0.0000000001,1\n` + rows(1, 60_000, T0 + 120_000, '0.5');
    const d = diagnostics();
    const reader = readCandleFile(tmp.write('fine.csv', text), d);
    const got = await collect(reader);
    expect(got[0]).toMatchObject({ open: '0.123456789', high: '0.12345679', low: '0.123456788' });
    expect(reader.summary).toMatchObject({ roundedRows: 1, firstRoundedLine: 2, badRows: 1 });
    expect((d.list[0] as BadRow).message).toContain("below the platform's precision");
  });
});

describe('timestamps: one unit per file, inside a sane window', () => {
  it('millisecond times of year 10000 under a timestamp_ms header are refused, not read as microseconds of 1978', async () => {
    const y10k = Date.UTC(10000, 0, 1);
    const err = await collect(readCandleFile(tmp.write('y10k.csv', HEADER + rows(3, 60_000, y10k)))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataFileError);
    expect((err as Error).message).toMatch(/read as milliseconds is \+010000-01-01T.*, outside 1970–2099/);
  });

  it('the same times without a header (unit by magnitude) are refused as candles 60 ms apart', async () => {
    const y10k = Date.UTC(10000, 0, 1);
    const err = await collect(readCandleFile(tmp.write('y10k-bare.csv', rows(20, 60_000, y10k)))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataFileError);
    expect((err as Error).message).toContain('rows 60 ms apart with the times read as microseconds; are they milliseconds of a year after 5000?');
  });

  it('the unit is decided by the first row and stated; a row in another unit is a bad row', async () => {
    const secs = (t: number) => String(t / 1000);
    const text = [0, 1, 2].map((i) => `${secs(T0 + i * 60_000)},1,1,1,1,1\n`).join('') + `${T0 + 180_000},1,1,1,1,1\n` + `${secs(T0 + 240_000)},1,1,1,1,1\n`;
    const { bad, summary, lines } = await badRows(text, 'mixed.csv');
    expect(summary.timeUnit).toBe('s');
    expect(lines).toEqual([1, 2, 3, 5]);
    expect(bad).toEqual([expect.objectContaining({ line: 4, reason: 'timestamp' })]);
    expect(bad[0]!.message).toBe("time in milliseconds, but the file's times are seconds (line 1)");
  });

  it('a date before 1970 is a bad row', async () => {
    const text = 'date,open,high,low,close\n1969-12-31,1,1,1,1\n2001-01-02,1,1,1,1\n2001-01-03,1,1,1,1\n';
    const { bad, summary } = await badRows(text, 'old.csv');
    expect(bad).toEqual([expect.objectContaining({ line: 2, reason: 'timestamp' })]);
    expect(bad[0]!.message).toContain('outside 1970–2099');
    expect(summary.timeUnit).toBe('date');
  });
});
