import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataFileError, readCandleFile, type BadRow, type Gap } from '../../src/feed/files/index.js';
import { COINBASE_BTC_1H, sharedFile } from '../data.js';
import { collect, diagnostics, tempDir } from './helpers.js';

const BTC_1M = sharedFile('binance-btcusdt-1m-2021-04-20_2021-05-20.csv', 'the real 285-minute exchange gap');

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const HEADER = 'timestamp_ms,open,high,low,close,volume\n';

describe('gaps', () => {
  it.skipIf(!BTC_1M)('finds the 285-minute exchange gap after 2021-04-25 04:00 in the BTC 1m file, and only it', async () => {
    const d = diagnostics();
    const reader = readCandleFile(BTC_1M!, d);
    await collect(reader);
    const gaps = d.list.filter((x): x is Gap => x.kind === 'gap');
    expect(gaps).toHaveLength(1);
    const gap = gaps[0]!;
    expect(new Date(gap.afterTime).toISOString()).toBe('2021-04-25T04:00:00.000Z');
    expect(gap.nextTime - gap.afterTime).toBe(285 * 60_000);
    expect(gap.missingPeriods).toBe(284);
    expect(gap.line).toBe(6201);
    expect(reader.summary).toMatchObject({ gaps: 1, missingPeriods: 284, gapSamples: [gap] });
  });

  it('uses a given period instead of inferring one', async () => {
    const file = tmp.write('p.csv', HEADER + '1600000000000,1,1,1,1,1\n1600000600000,1,1,1,1,1\n');
    const d = diagnostics();
    await collect(readCandleFile(file, { periodMs: 60_000, onDiagnostic: d.onDiagnostic }));
    expect(d.list).toEqual([expect.objectContaining({ kind: 'gap', missingPeriods: 9, line: 3 })]);
  });
});

describe('bad rows', () => {
  it('skips and reports bad rows with their line numbers and reasons', async () => {
    const file = tmp.write(
      'bad.csv',
      HEADER +
        '1600000000000,10,11,9,10.5,1\n' + // 2 ok
        '1600000060000,10,11,9\n' + // 3 columns
        'yesterday,10,11,9,10,1\n' + // 4 timestamp
        '1600000120000,10,abc,9,10,1\n' + // 5 price
        '1600000180000,10,9.5,9,10,1\n' + // 6 ohlc: high below open
        '1600000240000,0,1,0,1,1\n' + // 7 price not positive
        '\n' + // 8 blank: ignored
        '1600000300000,10,11,9,10,1\n' + // 9 ok
        '1600000300000,10,11,9,10,1\n' + // 10 duplicate
        '1600000000000,10,11,9,10,1\n' + // 11 out of order
        '1600000360000,10,11,9,10,-1\n' + // 12 volume
        '1600000420000,10,11,9,10,1\n' + // 13 ok
        '   \n' + // 14 spaces only: blank, ignored
        '\t \r\n' + // 15 a tab and a CR: blank, ignored
        '1600000480000,10,11,9,10,1\n', // 16 ok
    );
    const d = diagnostics();
    const reader = readCandleFile(file, d);
    const rows = await collect(reader);
    expect(rows.map((r) => r.line)).toEqual([2, 9, 13, 16]);
    const bad = d.list.filter((x): x is BadRow => x.kind === 'bad_row');
    expect(bad.map((b) => [b.line, b.reason])).toEqual([
      [3, 'columns'],
      [4, 'timestamp'],
      [5, 'price'],
      [6, 'ohlc'],
      [7, 'price'],
      [10, 'duplicate'],
      [11, 'out_of_order'],
      [12, 'volume'],
    ]);
    expect(bad[0]!.message).toBe('expected 6 columns, got 4');
    expect(bad[5]!.message).toContain('line 9');
    expect(reader.summary.badRows).toBe(8);
  });

  it('reports the relabelled hours of the Coinbase file as out of order (lines counted from the top)', async () => {
    const d = diagnostics();
    const reader = readCandleFile(COINBASE_BTC_1H, d);
    await collect(reader);
    const bad = d.list.filter((x): x is BadRow => x.kind === 'bad_row');
    expect(bad.map((b) => [b.line, b.reason])).toEqual([
      [16908, 'out_of_order'],
      [16906, 'out_of_order'],
      [16904, 'out_of_order'],
      [16902, 'out_of_order'],
      [16900, 'out_of_order'],
    ]);
    expect(bad[0]!.text.startsWith('2017-11-11 11-PM,BTCUSD')).toBe(true);
    const gaps = d.list.filter((x): x is Gap => x.kind === 'gap');
    expect(gaps).toEqual([
      expect.objectContaining({ afterTime: Date.UTC(2017, 10, 11, 22), nextTime: Date.UTC(2017, 10, 12, 4), missingPeriods: 5, line: 16909 }),
    ]);
  });
});

describe('refusals', () => {
  const refusal = async (file: string, options = {}) => {
    try {
      await collect(readCandleFile(file, options));
    } catch (err) {
      return err as DataFileError;
    }
    throw new Error('expected a DataFileError');
  };

  it('refuses a file of unknown layout, naming the file, the line and what was expected', async () => {
    const file = tmp.write('notes.txt', 'hello world\nthis is not a candle file\n');
    const err = await refusal(file);
    expect(err).toBeInstanceOf(DataFileError);
    expect(err.code).toBe('data_file_invalid');
    expect(err.file).toBe(file);
    expect(err.line).toBe(1);
    expect(err.message).toContain(`${file}:1: expected a known layout`);
    expect(err.message).toContain('"hello world"');
    expect(err.message.endsWith('got "hello world"')).toBe(true);
  });

  it('a file whose every time is unreadable says which forms of time are read', async () => {
    const us = await refusal(tmp.write('us.csv', 'Date,Open,High,Low,Close\n01/02/2024,10,11,9,10.5\n01/03/2024,10,11,9,10.5\n'));
    expect(us.message).toContain('got only bad rows (2); the latest: cannot read the time "01/03/2024"; times are read as epoch seconds, milliseconds or microseconds, or as dates like');
    expect(us.message).toContain('(03/01/2024 is not read: day or month first cannot be told)');
  });

  it('says why a header is not read: another separator, or the candle columns it lacks', async () => {
    const semicolons = await refusal(tmp.write('semi.csv', 'time;open;high;low;close;volume\n1704153600000;10;11;9;10.5;1\n'));
    expect(semicolons.message.endsWith('got "time;open;high;low;close;volume"; its fields are separated by ";", and propbot reads comma-separated files')).toBe(true);
    const tabs = await refusal(tmp.write('tabs.tsv', 'time\topen\thigh\tlow\tclose\n1704153600000\t10\t11\t9\t10.5\n'));
    expect(tabs.message).toContain('its fields are separated by tabs');
    const last = await refusal(tmp.write('last.csv', 'Date,Open,High,Low,Last,Volume\n2024-01-02,10,11,9,10.5,1\n'));
    expect(last.message.endsWith('got "Date,Open,High,Low,Last,Volume"; its header has no close (names are matched without regard to case)')).toBe(true);
    const when = await refusal(tmp.write('when.csv', 'when,open,high,low,close\n2024-01-02,10,11,9,10.5\n'));
    expect(when.message).toContain('its header has no time column (timestamp_ms, open_time, unix, unix timestamp, timestamp, time, date, datetime)');
  });

  it('refuses an empty file and a header without rows', async () => {
    expect((await refusal(tmp.write('empty.csv', ''))).message).toContain('got an empty file');
    const headerOnly = await refusal(tmp.write('header.csv', HEADER));
    expect(headerOnly.message).toContain('expected at least one valid propbot-csv row, got no data rows');
  });

  it('refuses a missing file', async () => {
    const err = await refusal(path.join(tmp.dir, 'nope.csv'));
    expect(err.message).toContain('expected a readable file');
  });

  it('refuses a file past maxBadRows, at the line where it gave up', async () => {
    const lines = Array.from({ length: 5 }, (_, i) => `${1600000000000 + i * 60000},1,1,1\n`).join('');
    const err = await refusal(tmp.write('short.csv', HEADER + lines), { maxBadRows: 3 });
    expect(err.line).toBe(5);
    expect(err.message).toContain('at most 3 bad rows');
    expect(err.message).toContain('expected 6 columns, got 4');
  });

  it('refuses a header-less row with an unknown column count', async () => {
    const err = await refusal(tmp.write('eight.csv', '1,2,3,4,5,6,7,8\n'));
    expect(err.message).toContain('8 columns');
  });

  it('refuses a freqtrade JSON array that never closes, or has nested values', async () => {
    const open = await refusal(tmp.write('open.json', '[[1618951320000,1,1,1,1,1],[1618951380000,1,1,1,1,1]'));
    expect(open.message).toContain('expected the closing `]` of the JSON array, got the end of the file');
    const nested = await refusal(tmp.write('nested.json', '[\n[1618951320000,[1],1,1,1,1]]'));
    expect(nested.line).toBe(2);
    expect(nested.message).toContain('nested');
  });

  it('refuses a snapshot file holding several assets unless told which to read', async () => {
    const file = tmp.write(
      'multi.jsonl',
      '{"asset":"BTC","takenAt":1618951320000,"indexPrice":"56738.76"}\n{"asset":"ETH","takenAt":1618951320000,"indexPrice":"2302.25"}\n' +
        '{"asset":"BTC","takenAt":1618951325000,"indexPrice":"56739"}\n',
    );
    const err = await refusal(file);
    expect(err.line).toBe(2);
    expect(err.message).toContain('a snapshot of ETH');
    const eth = await collect(readCandleFile(file, { asset: 'ETH' }));
    expect(eth.map((r) => r.close)).toEqual(['2302.25']);
  });
});
