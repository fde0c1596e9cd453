import { afterAll, describe, expect, it } from 'vitest';
import { readCandleFile, rowToCandle } from '../../src/feed/files/index.js';
import { COINBASE_BTC_1H, ORCL_1D } from '../data.js';
import { collect, diagnostics, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const iso = (ms: number) => new Date(ms).toISOString();

describe('propbot CSV layout (timestamp_ms,open,high,low,close,volume)', () => {
  it('reads the shipped ORCL daily file oldest first with prices as the exact strings of the file', async () => {
    const reader = readCandleFile(ORCL_1D);
    expect(await reader.layout()).toBe('propbot-csv');
    let count = 0;
    let first: unknown;
    let prev = -Infinity;
    let ordered = true;
    let lastRow;
    for await (const row of reader) {
      if (count === 0) first = row;
      if (row.time <= prev) ordered = false;
      prev = row.time;
      lastRow = row;
      count += 1;
    }
    expect(count).toBe(248);
    expect(ordered).toBe(true);
    expect(first).toEqual({
      time: 978393600000,
      open: '29.56',
      high: '29.75',
      low: '25.62',
      close: '26.37',
      volume: '46285300',
      line: 2,
      // the replay's integers: value × 10⁹, read with the texts
      openFp9: 29_560_000_000n,
      highFp9: 29_750_000_000n,
      lowFp9: 25_620_000_000n,
      closeFp9: 26_370_000_000n,
    });
    // "13.80" stays as written: no float round trip
    expect(lastRow).toMatchObject({ time: 1009756800000, high: '14.23', low: '13.80', line: 249 });
    expect(reader.summary).toMatchObject({ layout: 'propbot-csv', order: 'ascending', periodMs: 86_400_000, rows: 248, badRows: 0 });
  });

  it('reads the shipped PyAlgoTrade daily file, inferring a one-day period', async () => {
    const reader = readCandleFile(ORCL_1D);
    const rows = await collect(reader);
    expect(rows).toHaveLength(248);
    expect(rows[1]).toMatchObject({ time: 978480000000, close: '32.00', line: 3 });
    expect(reader.summary.periodMs).toBe(86_400_000);
    // A stock market closes on weekends: those 46 steps are session breaks by the data's own calendar
    // (no weekend row anywhere), not gaps. What stays are the holidays and the 9/11 closure.
    expect(reader.summary).toMatchObject({ gaps: 9, missingPeriods: 24, sessionBreaks: 46, timeUnit: 'ms' });
    expect(reader.summary.gapSamples.map((g) => new Date(g.afterTime).toISOString().slice(0, 10))).toContain('2001-09-10');
  });

  it('reads a newest-first CSV from its end', async () => {
    const file = tmp.write(
      'desc.csv',
      'timestamp_ms,open,high,low,close,volume\n' +
        '1600000120000,3,3,3,3,1\n1600000060000,2,2,2,2,1\n1600000000000,1,1,1,1,1\n',
    );
    const reader = readCandleFile(file);
    const rows = await collect(reader);
    expect(rows.map((r) => [r.time, r.close, r.line])).toEqual([
      [1600000000000, '1', 4],
      [1600000060000, '2', 3],
      [1600000120000, '3', 2],
    ]);
    expect(reader.summary.order).toBe('descending');
  });

  it('normalises exponent notation exactly and converts rows to Candles with Decimal prices', async () => {
    const file = tmp.write('exp.csv', 'timestamp_ms,open,high,low,close,volume\n1600000000000,1e-5,2.5E-5,0.5e-5,1.5e-5,0\n');
    const [row] = await collect(readCandleFile(file));
    expect(row).toMatchObject({ open: '0.00001', high: '0.000025', low: '0.000005', close: '0.000015', volume: '0' });
    const candle = rowToCandle(row!, 'XYZ', '1m');
    expect(candle.high.toFixed()).toBe('0.000025');
    expect(candle.closeTime - candle.openTime).toBe(60_000);
  });
});

describe('CryptoDataDownload layout', () => {
  it('loads the shipped Coinbase file as is: banner, newest first, 09-AM dates, oldest first out', async () => {
    const d = diagnostics();
    const reader = readCandleFile(COINBASE_BTC_1H, d);
    expect(await reader.layout()).toBe('cryptodatadownload');
    const rows = await collect(reader);
    // 20,111 rows in the file; 5 are relabelled copies out of time order (see the bad-rows test)
    expect(rows).toHaveLength(20_106);
    expect(rows[0]).toEqual({
      time: Date.UTC(2017, 6, 1, 11),
      open: '2505.56',
      high: '2513.38',
      low: '2495.12',
      close: '2509.17',
      volume: '114.6',
      line: 20_113,
      openFp9: 2_505_560_000_000n,
      highFp9: 2_513_380_000_000n,
      lowFp9: 2_495_120_000_000n,
      closeFp9: 2_509_170_000_000n,
    });
    expect(iso(rows[1]!.time)).toBe('2017-07-01T12:00:00.000Z'); // 12-PM is noon
    expect(rows.at(-1)).toMatchObject({ time: Date.UTC(2019, 9, 17, 9), close: '8035.88', line: 3 });
    expect(reader.summary).toMatchObject({ order: 'descending', periodMs: 3_600_000 });
    expect(rows.every((r, i) => i === 0 || r.time > rows[i - 1]!.time)).toBe(true);
  });

  it('reads the `2019-10-17 09:00:00` date form, 12-AM as midnight, and a file without the banner', async () => {
    const withBanner = tmp.write(
      'cdd-iso.csv',
      'Timestamps are UTC timezone,https://www.CryptoDataDownload.com\r\n' +
        'date,symbol,open,high,low,close,volume_btc,volume\r\n' +
        '2019-10-17 10:00:00,BTCUSD,8035.88,8040,8030,8039,1.5,12000\r\n' +
        '2019-10-17 09:00:00,BTCUSD,8051,8056.83,8021.23,8035.88,61.25,492394.56\r\n',
    );
    const rows = await collect(readCandleFile(withBanner));
    expect(rows.map((r) => iso(r.time))).toEqual(['2019-10-17T09:00:00.000Z', '2019-10-17T10:00:00.000Z']);
    expect(rows[0]!.volume).toBe('61.25'); // base volume (volume_btc), not the USD column

    const noBanner = tmp.write(
      'cdd-ampm.csv',
      'date,symbol,open,high,low,close,volume_btc,volume\n' +
        '2019-10-17 01-AM,BTCUSD,2,2,2,2,1,2\n2019-10-17 12-AM,BTCUSD,1,1,1,1,1,1\n2019-10-16 11-PM,BTCUSD,1,1,1,1,1,1\n',
    );
    const r2 = await collect(readCandleFile(noBanner));
    expect(r2.map((r) => iso(r.time))).toEqual(['2019-10-16T23:00:00.000Z', '2019-10-17T00:00:00.000Z', '2019-10-17T01:00:00.000Z']);
  });
});

describe('freqtrade JSON layout', () => {
  it('streams a one-line JSON array of [ms, o, h, l, c, v] rows, keeping number text exact', async () => {
    const file = tmp.write(
      'BTC_USDT-1m.json',
      '[[1618951320000,56738.76,56840.3,56733.23,56813.98,50.9752],[1618951380000,56813.98,56813.98,56755.41,56777.0,42.089461],\n' +
        ' [1618951440000, 56777.0, 56839.95, 56775.78, 56833.57, 4.9644513e1]]\n',
    );
    const reader = readCandleFile(file);
    expect(await reader.layout()).toBe('freqtrade-json');
    const rows = await collect(reader);
    expect(rows.map((r) => r.close)).toEqual(['56813.98', '56777.0', '56833.57']);
    expect(rows[2]).toMatchObject({ time: 1618951440000, volume: '49.644513', line: 2 });
    expect(reader.summary.periodMs).toBe(60_000);
  });
});

describe('Binance kline CSV layout', () => {
  const kline = (openTime: string, o: string, c: string) =>
    `${openTime},${o},${o > c ? o : c},${o < c ? o : c},${c},12.5,${openTime.slice(0, -3)}59999,700000.1,321,6.1,350000.2,0`;

  it('reads header-less 12-column rows with millisecond open times', async () => {
    const file = tmp.write('BTCUSDT-1m-2021-04.csv', [kline('1618951320000', '56738.76', '56813.98'), kline('1618951380000', '56813.98', '56777.00')].join('\n') + '\n');
    const reader = readCandleFile(file);
    expect(await reader.layout()).toBe('binance-kline');
    const rows = await collect(reader);
    expect(rows.map((r) => [r.time, r.open, r.close, r.volume])).toEqual([
      [1618951320000, '56738.76', '56813.98', '12.5'],
      [1618951380000, '56813.98', '56777.00', '12.5'],
    ]);
  });

  it('reads the microsecond open times of newer dumps, and the header some dumps carry', async () => {
    const file = tmp.write(
      'BTCUSDT-1m-2025-01.csv',
      'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore\n' +
        '1735689600000000,93576.00,93610.93,93537.50,93610.93,8.21827,1735689659999999,769003.7,1629,4.5,420000.1,0\n' +
        '1735689660000000,93610.93,93652.00,93606.94,93650.00,5.1,1735689719999999,477000.2,1300,2.5,234000.1,0\n',
    );
    const reader = readCandleFile(file);
    expect(await reader.layout()).toBe('binance-kline');
    const rows = await collect(reader);
    expect(rows.map((r) => iso(r.time))).toEqual(['2025-01-01T00:00:00.000Z', '2025-01-01T00:01:00.000Z']);
    expect(rows[0]!.high).toBe('93610.93');
  });
});

describe('recorded snapshot layout', () => {
  it('reads snapshots of one asset as 1-tick candles (open = high = low = close = index price)', async () => {
    const file = tmp.write(
      'snap.jsonl',
      '{"format":"propbot-snapshots","version":1}\n' +
        '{"asset":"BTC","takenAt":1618951320000,"indexPrice":"56738.76"}\n' +
        '{"asset":"BTC","takenAt":1618951325000,"indexPrice":"56740.10"}\n' +
        '{"asset":"BTC","takenAt":1618951330000,"indexPrice":"56741"}\n',
    );
    const reader = readCandleFile(file);
    expect(await reader.layout()).toBe('propbot-snapshots');
    const rows = await collect(reader);
    expect(rows[1]).toEqual({
      time: 1618951325000,
      open: '56740.10',
      high: '56740.10',
      low: '56740.10',
      close: '56740.10',
      volume: null,
      line: 3,
      openFp9: 56_740_100_000_000n,
      highFp9: 56_740_100_000_000n,
      lowFp9: 56_740_100_000_000n,
      closeFp9: 56_740_100_000_000n,
    });
    expect(reader.summary.periodMs).toBe(5_000);
  });
});
