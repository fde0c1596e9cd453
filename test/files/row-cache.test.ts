/**
 * The rows cache (src/feed/files/row-cache.ts): a replay's second read of a file gives what its first
 * gave, from numbers kept on disk, and nothing stale, partial or foreign is ever read back.
 */
import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backtestOptions, buildScenario } from '../../src/cli/backtest-run.js';
import { ConfigError } from '../../src/core/errors.js';
import { DataFileError, readCandleFile, type CandleFileOptions, type Diagnostic, type ReadSummary } from '../../src/feed/files/index.js';
import { pruneRowCache } from '../../src/feed/files/row-cache.js';
import type { ReplayRow } from '../../src/feed/files/types.js';
import { buildReportJson } from '../../src/report/report-json.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { COINBASE_BTC_1H, ORCL_1D } from '../data.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const HEADER = 'timestamp_ms,open,high,low,close,volume\n';
/** Bad rows among the rows the period is inferred from and later, a gap, a duplicate, a bad last line. */
const MIXED =
  HEADER +
  '1600000000000,10,11,9,10.5,1\n' +
  '1600000060000,10,11,9\n' +
  '1600000120000,10.25,11,9,10,2\n' +
  '1600000180000,10,9.5,9,10,1\n' +
  '1600000240000,10,12.125,9,11,1\n' +
  '1600000600000,11,12,10.000000001,11.5,1\n' +
  '1600000600000,11,12,10,11.5,1\n' +
  '1600000660000,11.5,13,11,12.75,3\n' +
  'not a row\n';

let cacheDir: string;
let saved: { dir: string | undefined; off: string | undefined };
beforeEach(() => {
  saved = { dir: process.env['PROPBOT_CACHE_DIR'], off: process.env['PROPBOT_ROWS_CACHE'] };
  cacheDir = path.join(tmp.dir, `cache-${Math.random().toString(36).slice(2)}`);
  process.env['PROPBOT_CACHE_DIR'] = cacheDir;
  delete process.env['PROPBOT_ROWS_CACHE'];
});
afterEach(() => {
  delete process.env['PROPBOT_ROWS_CACHE_MAX_BYTES'];
  for (const [k, v] of [['PROPBOT_CACHE_DIR', saved.dir], ['PROPBOT_ROWS_CACHE', saved.off]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const entries = (): string[] => {
  try {
    return readdirSync(path.join(cacheDir, 'rows'));
  } catch {
    return [];
  }
};

interface Read {
  /** Rows and diagnostics in the order the read gave them. */
  readonly events: Array<{ row: Pick<ReplayRow, 'time' | 'line' | 'openFp9' | 'highFp9' | 'lowFp9' | 'closeFp9'> } | { diagnostic: Diagnostic }>;
  readonly summary: ReadSummary;
  /** Whether the rows carried their texts (a text read) or not (the cache). */
  readonly texts: boolean;
}

async function replayRead(file: string, options: CandleFileOptions = {}, stopAfter = Number.POSITIVE_INFINITY): Promise<Read> {
  const events: Read['events'] = [];
  const reader = readCandleFile(file, { ...options, onDiagnostic: (d) => events.push({ diagnostic: d }) });
  const rows = (await reader.openReplay()) as Iterable<ReplayRow>;
  let texts = false;
  let n = 0;
  for (const r of rows) {
    texts ||= r.open !== undefined;
    events.push({ row: { time: r.time, line: r.line, openFp9: r.openFp9, highFp9: r.highFp9, lowFp9: r.lowFp9, closeFp9: r.closeFp9 } });
    if (++n >= stopAfter) break;
  }
  return { events, summary: structuredClone(reader.summary), texts };
}

describe('rows cache', () => {
  it.each([
    ['bad rows, a gap, a duplicate and a bad last line', () => tmp.write('mixed.csv', MIXED)],
    ['a newest-first CryptoDataDownload file (shipped, 20k hourly rows)', () => COINBASE_BTC_1H],
    ['daily rows with weekend session breaks (shipped)', () => ORCL_1D],
  ])('gives a second read what the first gave, from the cache: %s', async (_name, fileOf) => {
    const file = fileOf();
    const first = await replayRead(file);
    expect(first.texts).toBe(true);
    expect(entries()).toHaveLength(1);
    const second = await replayRead(file);
    expect(second.texts).toBe(false);
    expect(second.events).toEqual(first.events);
    expect(second.summary).toEqual(first.summary);
    // …and the text read's, through the public reader, to the row.
    const reader = readCandleFile(file);
    const plain: Array<Pick<ReplayRow, 'time' | 'line' | 'openFp9' | 'highFp9' | 'lowFp9' | 'closeFp9'>> = [];
    for (const r of (await reader.open()) as Iterable<ReplayRow>) plain.push({ time: r.time, line: r.line, openFp9: r.openFp9, highFp9: r.highFp9, lowFp9: r.lowFp9, closeFp9: r.closeFp9 });
    expect(second.events.flatMap((e) => ('row' in e ? [e.row] : []))).toEqual(plain);
  });

  it('reports each diagnostic before the same row as the text read, and a trailing one after the last', async () => {
    const file = tmp.write(
      'order.csv',
      HEADER +
        '1600000000000,10,11,9,10,1\n' + // 2
        '1600000060000,10,11\n' + // 3 bad, while the period is inferred
        '1600000060000,10,11,9,10,1\n' + // 4
        '1600000120000,10,11,9,10,1\n' + // 5: the third row, the period is known
        '1600000180000,10,9,9,10,1\n' + // 6 bad: high below open
        '1600000600000,10,11,9,10,1\n' + // 7 after a gap
        '1600000600000,10,11,9,10,1\n' + // 8 duplicate
        '1600000660000,10,11,9,10,1\n' + // 9
        'not a row\n', // 10
    );
    const first = await replayRead(file, { inferFromRows: 3 });
    const second = await replayRead(file, { inferFromRows: 3 });
    expect(second.texts).toBe(false);
    const order = (r: Read): string[] => r.events.map((e) => ('row' in e ? `row ${e.row.line}` : `${e.diagnostic.kind} ${e.diagnostic.line}`));
    expect(order(first)).toEqual(['bad_row 3', 'row 2', 'row 4', 'row 5', 'bad_row 6', 'gap 7', 'row 7', 'bad_row 8', 'row 9', 'bad_row 10']);
    expect(order(second)).toEqual(order(first));
    expect(second.events.every((e) => 'row' in e || e.diagnostic.file === file)).toBe(true);
  });

  it('reads a changed file again, and replaces its entry', async () => {
    const file = tmp.write('changed.csv', MIXED);
    await replayRead(file);
    expect(entries()).toHaveLength(1);
    // Same size, one price different.
    writeFileSync(file, MIXED.replace('12.75', '12.70'));
    const changed = await replayRead(file);
    expect(changed.texts).toBe(true);
    const closes = changed.events.flatMap((e) => ('row' in e ? [e.row.closeFp9] : []));
    expect(closes.at(-1)).toBe(12_700_000_000n);
    const again = await replayRead(file);
    expect(again.texts).toBe(false);
    expect(again.events).toEqual(changed.events);
    expect(entries()).toHaveLength(1);
  });

  it('keeps a copy of the file at another path apart, and a read with other options apart', async () => {
    const file = tmp.write('one.csv', MIXED);
    await replayRead(file);
    const copy = path.join(tmp.dir, 'copy.csv');
    copyFileSync(file, copy);
    expect((await replayRead(copy)).texts).toBe(true);
    const fewer = await replayRead(file, { keepDiagnostics: 1 });
    expect(fewer.texts).toBe(true);
    expect(fewer.summary.badRowSamples).toHaveLength(1);
    const fewerAgain = await replayRead(file, { keepDiagnostics: 1 });
    expect(fewerAgain.texts).toBe(false);
    expect(fewerAgain.summary).toEqual(fewer.summary);
    expect(entries()).toHaveLength(3);
  });

  it('keeps the rows of a read stopped early as a prefix, and goes on past it with the text read', async () => {
    const file = tmp.write('stopped.csv', MIXED);
    const whole = await replayRead(file, { inferFromRows: 2 });
    rmSync(path.join(cacheDir, 'rows'), { recursive: true });
    const part = await replayRead(file, { inferFromRows: 2 }, 3);
    expect(part.events.filter((e) => 'row' in e)).toHaveLength(3);
    expect(entries()).toHaveLength(1);
    expect(entries()[0]).toMatch(/\.rows$/);
    // A read that stops inside the prefix reads it from the cache.
    const again = await replayRead(file, { inferFromRows: 2 }, 3);
    expect(again.texts).toBe(false);
    expect(again.events).toEqual(part.events);
    // One that goes on: the same rows and diagnostics, each once, as a read without the cache.
    const longer = await replayRead(file, { inferFromRows: 2 });
    expect(longer.texts).toBe(true);
    expect(longer.events).toEqual(whole.events);
    expect(longer.summary).toEqual(whole.summary);
    // …and it left the whole file's entry.
    const last = await replayRead(file, { inferFromRows: 2 });
    expect(last.texts).toBe(false);
    expect(last.events).toEqual(whole.events);
    expect(entries()).toHaveLength(1);
  });

  it('makes no entry of a read that fails', async () => {
    const file = tmp.write('refused.csv', HEADER + '1600000000000,1,1,1,1,1\n' + 'x\n'.repeat(5));
    await expect(replayRead(file, { maxBadRows: 2 })).rejects.toBeInstanceOf(DataFileError);
    expect(entries()).toEqual([]);
  });

  it('makes no entry of prices the fp9 integers cannot hold exactly as numbers', async () => {
    const places = tmp.write('places.csv', HEADER + '1600000000000,10.0000000001,11,9,10,1\n1600000060000,10,11,9,10,1\n');
    const huge = tmp.write('huge.csv', HEADER + '1600000000000,10000000,10000001,9999999,10000000.5,1\n1600000060000,10,11,9,10,1\n');
    for (const file of [places, huge]) {
      await replayRead(file);
      expect((await replayRead(file)).texts).toBe(true);
    }
    expect(entries()).toEqual([]);
  });

  it('reads a damaged entry as no entry, and writes it again', async () => {
    const file = tmp.write('damaged.csv', MIXED);
    const first = await replayRead(file);
    const entry = path.join(cacheDir, 'rows', entries()[0]!);
    truncateSync(entry, statSync(entry).size - 10);
    const damaged = await replayRead(file);
    expect(damaged.texts).toBe(true);
    expect(damaged.events).toEqual(first.events);
    expect((await replayRead(file)).texts).toBe(false);
  });

  it('reads on from the text where a block of an entry was changed on disk, and writes the entry again', async () => {
    // 3,000 one-minute rows (blocks of 1,365): three minutes missing just before row 1,365, the first
    // of the second block, so a gap is reported right where the cache hands over; a bad row in the third.
    const ROW0 = 1_600_000_000_000;
    let text = HEADER;
    for (let i = 0; i < 3000; i += 1) {
      const t = ROW0 + (i < 1365 ? i : i + 3) * 60_000;
      text += `${t},${100 + (i % 7)},${120 + (i % 5)},${90 + (i % 3)},${100 + (i % 11)}.5,1\n`;
      if (i === 2500) text += 'not a row\n';
    }
    const file = tmp.write('blocks.csv', text);
    const first = await replayRead(file);
    expect(first.texts).toBe(true);
    expect(first.summary.gaps).toBe(1);
    expect(first.summary.badRows).toBe(1);
    const entry = path.join(cacheDir, 'rows', entries()[0]!);
    // The entry's layout (row-cache.ts): a 32-byte header, then each row as six doubles (time, line, open, high, low, close).
    const rowAt = (row: number, field: number): number => 32 + row * 48 + field * 8;
    for (const [row, field] of [
      [1365 + 20, 2], // an open price in the second block: the first block comes from the entry
      [3, 0], // a time in the first: everything from the text
    ] as const) {
      const fd = openSync(entry, 'r+');
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, rowAt(row, field));
      byte[0] = byte[0]! ^ 0x10;
      writeSync(fd, byte, 0, 1, rowAt(row, field));
      closeSync(fd);
      const changed = await replayRead(file);
      expect(changed.texts).toBe(true);
      expect(changed.events).toEqual(first.events);
      expect(changed.summary).toEqual(first.summary);
      // The read wrote the entry again, whole.
      const again = await replayRead(file);
      expect(again.texts).toBe(false);
      expect(again.events).toEqual(first.events);
    }
    expect(entries()).toHaveLength(1);
  });

  it('is off with PROPBOT_ROWS_CACHE=off, and unused in a folder others may write', async () => {
    const file = tmp.write('off.csv', MIXED);
    process.env['PROPBOT_ROWS_CACHE'] = 'off';
    await replayRead(file);
    expect((await replayRead(file)).texts).toBe(true);
    expect(entries()).toEqual([]);
    delete process.env['PROPBOT_ROWS_CACHE'];
    await replayRead(file);
    expect(entries()).toHaveLength(1);
    chmodSync(path.join(cacheDir, 'rows'), 0o777);
    expect((await replayRead(file)).texts).toBe(true);
  });

  it('keeps the entries within PROPBOT_ROWS_CACHE_MAX_BYTES, dropping the one used longest ago, and a dead writer\'s file', async () => {
    const [a, b, c] = ['a.csv', 'b.csv', 'c.csv'].map((n) => tmp.write(`cap-${n}`, MIXED)) as [string, string, string];
    await replayRead(a);
    const entryOf = (): string[] => entries().map((e) => path.join(cacheDir, 'rows', e));
    const [entryA] = entryOf();
    const size = statSync(entryA!).size;
    process.env['PROPBOT_ROWS_CACHE_MAX_BYTES'] = String(2 * size + size / 2);
    await replayRead(b);
    const entryB = entryOf().find((e) => e !== entryA)!;
    const now = Date.now() / 1000;
    utimesSync(entryA!, now - 200, now - 200);
    utimesSync(entryB, now - 100, now - 100);
    // A is used again (from the cache): B is now the one used longest ago.
    expect((await replayRead(a)).texts).toBe(false);
    const dead = path.join(cacheDir, 'rows', 'x.rows.1.dead.tmp');
    const writing = path.join(cacheDir, 'rows', 'y.rows.2.live.tmp');
    writeFileSync(dead, 'partial');
    writeFileSync(writing, 'partial');
    utimesSync(dead, now - 7200, now - 7200);
    const before = new Set(entryOf());
    await replayRead(c);
    const entryC = entryOf().find((e) => !before.has(e))!;
    expect(entryC).toMatch(/\.rows$/);
    expect(entryOf().sort()).toEqual([entryA!, entryC, writing].sort());
    expect((await replayRead(a)).texts).toBe(false);
    expect((await replayRead(b)).texts).toBe(true);
  });

  it('prunes the entries used longest ago first, whatever their names', () => {
    const folder = path.join(cacheDir, 'prune');
    mkdirSync(folder, { recursive: true });
    const now = Date.now() / 1000;
    // Names in no relation to their ages: f, a, d, b, e, c from the newest to the oldest use.
    const byAge = ['f', 'a', 'd', 'b', 'e', 'c'].map((n, i) => {
      const file = path.join(folder, `${n}.rows`);
      writeFileSync(file, Buffer.alloc(1000));
      utimesSync(file, now - 10 * i, now - 10 * i);
      return file;
    });
    // Kept: the entry just written (the oldest here) and the two used last.
    pruneRowCache(byAge[5]!, 3000);
    expect(readdirSync(folder).sort()).toEqual(['a.rows', 'c.rows', 'f.rows']);
  });

  it('names the variable when PROPBOT_ROWS_CACHE or PROPBOT_ROWS_CACHE_MAX_BYTES is not a value it takes', async () => {
    const file = tmp.write('env.csv', MIXED);
    process.env['PROPBOT_ROWS_CACHE'] = 'sometimes';
    await expect(replayRead(file)).rejects.toThrow(ConfigError);
    await expect(replayRead(file)).rejects.toThrow(/PROPBOT_ROWS_CACHE: expected on or off, got "sometimes"/);
    process.env['PROPBOT_ROWS_CACHE'] = 'ON';
    process.env['PROPBOT_ROWS_CACHE_MAX_BYTES'] = '1 GiB';
    await expect(replayRead(file)).rejects.toThrow(/PROPBOT_ROWS_CACHE_MAX_BYTES: expected a whole number of bytes, got "1 GiB"/);
  });

  it('gives backtests over a whole file and over ranges the same reports with their rows from the cache', async () => {
    const report = async (range: { from?: number; to?: number } = {}): Promise<string> => {
      const scenario = buildScenario(undefined, { strategy: 'sma-cross', data: [`BTC=${COINBASE_BTC_1H}`], params: { period: '4h' }, ...range });
      const { result } = await runBacktest({ ...backtestOptions(scenario), keepPrices: false });
      const { perf: _perf, ...json } = buildReportJson(result);
      return JSON.stringify(json);
    };
    /** The first difference with some context, not two whole reports. */
    const same = (got: string, want: string): void => {
      let at = 0;
      while (at < want.length && want[at] === got[at]) at += 1;
      expect(got.slice(Math.max(0, at - 80), at + 80)).toBe(want.slice(Math.max(0, at - 80), at + 80));
      expect(got.length).toBe(want.length);
    };
    const range = { from: Date.parse('2018-01-01T00:00:00Z'), to: Date.parse('2018-07-01T00:00:00Z') };
    process.env['PROPBOT_ROWS_CACHE'] = 'off';
    const [wholeText, rangeText] = [await report(), await report(range)];
    expect(entries()).toEqual([]);
    delete process.env['PROPBOT_ROWS_CACHE'];
    // A range first: its read stops in 2018 and leaves a prefix entry, which the same range then reads.
    same(await report(range), rangeText);
    expect(entries()).toHaveLength(1);
    same(await report(range), rangeText);
    // The whole file goes on past the prefix, then finds the whole file's entry.
    same(await report(), wholeText);
    same(await report(), wholeText);
    same(await report(range), rangeText);
    expect(entries()).toHaveLength(1);
    expect(JSON.parse(wholeText).fills.length).toBeGreaterThan(10);
    expect(JSON.parse(rangeText).fills.length).toBeGreaterThan(5);
  });
});
