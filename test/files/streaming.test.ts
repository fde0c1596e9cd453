import { appendFileSync, copyFileSync, openSync, readFileSync, closeSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCandleFile } from '../../src/feed/files/index.js';
import { writeCandles } from '../backtest/helpers.js';
import { COINBASE_BTC_1H, shippedCandles } from '../data.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

// These tests prove the readers stream: they change the file AFTER the first row was yielded and
// see the change come out at the end. A reader that loaded the file before yielding could not.
describe('streaming (memory does not grow with the file)', () => {
  it('yields the first of 20,106 BTC rows before it has read the end of the file', async () => {
    // The shipped hourly candles, oldest first in propbot's own layout (about 1 MB).
    const hours = await shippedCandles(COINBASE_BTC_1H);
    expect(hours).toHaveLength(20_106);
    const file = writeCandles(tmp.dir, 'btc.csv', hours);
    const iterator = readCandleFile(file)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({ line: 2 });
    // appended after the first row came out: only a streaming reader can still see it
    const next = hours.at(-1)!.time + 3_600_000;
    appendFileSync(file, `${next},8035.88,8040.00,8030.00,8040.00,1.5\n`);
    let last;
    let count = 1;
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
      last = r.value;
      count += 1;
    }
    expect(count).toBe(20_107);
    expect(last).toMatchObject({ time: next, close: '8040.00', line: 20_108 });
  });

  it('reads a newest-first file backwards in chunks: the top of the file is read after the first row', async () => {
    const file = path.join(tmp.dir, 'cdd.csv');
    copyFileSync(COINBASE_BTC_1H, file);
    const text = readFileSync(file, 'latin1');
    const newest = '2019-10-17 09-AM,BTCUSD,8051,8056.83,8021.23,8035.88,';
    const at = text.indexOf(newest);
    expect(at).toBeGreaterThan(0);
    const iterator = readCandleFile(file)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toMatchObject({ time: Date.UTC(2017, 6, 1, 11) });
    // rewrite the newest row's close in place (same length) now that reading has started at the end
    const fd = openSync(file, 'r+');
    writeSync(fd, '8035.99', at + newest.length - '8035.88,'.length);
    closeSync(fd);
    let last;
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) last = r.value;
    expect(last).toMatchObject({ time: Date.UTC(2019, 9, 17, 9), close: '8035.99' });
  });

  it('streams a one-line freqtrade JSON array: a row far down is read after the first row came out', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `[${1618951320000 + i * 60_000},100.5,101.5,99.5,100.75,12.5]`);
    const file = tmp.write('big.json', `[${rows.join(',')}]`);
    const iterator = readCandleFile(file)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ close: '100.75' });
    // change the close of the last row in place (same length)
    const text = readFileSync(file, 'latin1');
    const fd = openSync(file, 'r+');
    writeSync(fd, '100.25', text.lastIndexOf('100.75'));
    closeSync(fd);
    let last;
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) last = r.value;
    expect(last).toMatchObject({ time: 1618951320000 + 19_999 * 60_000, close: '100.25' });
  });

  it('closes the file when the consumer stops early', async () => {
    const reader = readCandleFile(COINBASE_BTC_1H);
    let n = 0;
    for await (const _ of reader) {
      if (++n === 20) break;
    }
    expect(reader.summary.rows).toBe(20);
  });
});
