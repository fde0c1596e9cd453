import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// The reference: what the general path makes of a row with these columns.
import { generalRow } from '../../src/feed/files/layouts.js';
import { plainRowReader, type PlainColumns } from '../../src/feed/files/plain-row.js';

const plainPrice = fc
  .tuple(fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,5}$/)), fc.option(fc.stringMatching(/^[0-9]{1,9}$/)))
  .map(([i, f]) => (f === null ? i : `${i}.${f}`))
  .filter((p) => /[1-9]/.test(p));
/** Columns the general path reads, rewrites or refuses: each must send the row the general way. */
const oddPrice = fc.constantFrom(
  '0', '0.0', '00.5', '007', '.5', '5.', '1e3', '1E3', ' 5', '5 ', '"5"', '', '-1', '+1', '1.1234567891', '1234567.5',
  '123456789', '1234567890', '1..2', '1.2.3', '0x10', '٣',
);
const price = fc.oneof({ weight: 6, arbitrary: plainPrice }, { weight: 1, arbitrary: oddPrice });
const epoch = fc.oneof(
  fc.integer({ min: 946_684_800, max: 4_102_444_799 }).map(String), // seconds, 2000–2099
  fc.integer({ min: 946_684_800_000, max: 4_102_444_799_999 }).map(String), // ms
  fc.integer({ min: 0, max: 4_200_000_000_000 }).map(String), // anything up to past 2099
  fc.constantFrom('1618951320000000', '0001618951320000', '99999999', '100000000', '100000000000', '99999999999999', '100000000000000', '', ' 1618951320000', '1618951320000.0', '4102444800000'),
);
const pad = (n: number, w: number): string => String(n).padStart(w, '0');
/** Date texts of every form `parseUtcDateText` reads or refuses, around the days months do and do not have. */
const dateText = fc
  .record({
    y: fc.oneof(fc.integer({ min: 1999, max: 2025 }), fc.constantFrom(1900, 1969, 1970, 2000, 2099, 2100, 85, 1)),
    mo: fc.integer({ min: 0, max: 13 }),
    d: fc.integer({ min: 0, max: 32 }),
    h: fc.integer({ min: 0, max: 25 }),
    mi: fc.integer({ min: 0, max: 61 }),
    s: fc.integer({ min: 0, max: 61 }),
    form: fc.constantFrom('date', 'ampm', 'hm', 'hms', 'hmsZ', 'Thms', 'ThmZ', 'tail'),
    half: fc.constantFrom('AM', 'PM', 'am', 'Pm', 'XM', 'AN'),
    tail: fc.constantFrom('.5', '.123', '.1234', '+00:00', '+0000', '+01:00', 'z', 'Z ', ' ', 'Z'),
  })
  .map(({ y, mo, d, h, mi, s, form, half, tail }) => {
    const day = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
    const hm = `${pad(h, 2)}:${pad(mi, 2)}`;
    if (form === 'date') return day;
    if (form === 'ampm') return `${day} ${pad(h % 14, 2)}-${half}`;
    if (form === 'hm') return `${day} ${hm}`;
    if (form === 'hms') return `${day} ${hm}:${pad(s, 2)}`;
    if (form === 'hmsZ') return `${day} ${hm}:${pad(s, 2)}Z`;
    if (form === 'Thms') return `${day}T${hm}:${pad(s, 2)}`;
    if (form === 'ThmZ') return `${day}T${hm}Z`;
    return `${day}T${hm}:${pad(s, 2)}${tail}`;
  });
const volume = fc.oneof(plainPrice, fc.constantFrom('0', '0.0', '00', '.5', '5.', '1e3', '', ' 1', '-1', '12'));

const layouts: Record<string, PlainColumns> = {
  'timestamp_ms CSV': { width: 6, time: 0, open: 1, high: 2, low: 3, close: 4, volume: 5, timeUnit: 'ms' },
  'header-less, 5 columns': { width: 5, time: 0, open: 1, high: 2, low: 3, close: 4, volume: -1, timeUnit: 'any' },
  'Binance kline (12 columns)': { width: 12, time: 0, open: 1, high: 2, low: 3, close: 4, volume: 5, timeUnit: 'any' },
  'mapped, shuffled columns': { width: 8, time: 2, open: 5, high: 3, low: 7, close: 0, volume: 1, timeUnit: 'any-or-date' },
  'CryptoDataDownload (a date column)': { width: 8, time: 0, open: 2, high: 3, low: 4, close: 5, volume: 7, timeUnit: 'any-or-date' },
};

/** A row of `cols`: the time, prices and volume where they go, the other columns plain numbers or junk. */
function row(cols: PlainColumns, prices: fc.Arbitrary<string>) {
  return fc
    .record({
      time: cols.timeUnit === 'any-or-date' ? fc.oneof(epoch, dateText) : epoch,
      o: prices,
      h: prices,
      l: prices,
      c: prices,
      v: volume,
      other: fc.array(fc.oneof(plainPrice, fc.constantFrom('', 'x', ' "q" ')), { minLength: cols.width, maxLength: cols.width }),
      extra: fc.constantFrom(0, 0, 0, 0, 1, -1),
    })
    .map(({ time, o, h, l, c, v, other, extra }) => {
      const f = [...other];
      f[cols.time] = time;
      f[cols.open] = o;
      f[cols.high] = h;
      f[cols.low] = l;
      f[cols.close] = c;
      if (cols.volume >= 0) f[cols.volume] = v;
      if (extra === 1) f.push('1');
      if (extra === -1) f.pop();
      return f.join(',');
    });
}

describe('plainRowReader: the one-pass read of a plain row', () => {
  for (const [name, cols] of Object.entries(layouts)) {
    it(`gives what the general path gives, or leaves the row to it (${name})`, () => {
      const plain = plainRowReader(cols);
      fc.assert(
        fc.property(row(cols, price), (text) => {
          const fast = plain(text);
          if (fast !== undefined) expect(fast).toStrictEqual(generalRow(text, cols));
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('reads every good row of plain numbers itself', () => {
    const cols = layouts['timestamp_ms CSV']!;
    const plain = plainRowReader(cols);
    // Prices in order (low ≤ open, close ≤ high) and a time inside 1970–2099: the rows the general path accepts as written.
    const good = fc
      .tuple(fc.integer({ min: 0, max: 4_102_444_799_999 }), fc.array(plainPrice, { minLength: 4, maxLength: 4 }), plainPrice)
      .map(([t, ps, v]) => {
        const sorted = [...ps].sort((a, b) => Number(a) - Number(b));
        return `${t},${sorted[1]},${sorted[3]},${sorted[0]},${sorted[2]},${v}`;
      });
    fc.assert(
      fc.property(good, (text) => {
        expect(generalRow(text, cols).ok).toBe(true);
        expect(plain(text)).toStrictEqual(generalRow(text, cols));
      }),
      { numRuns: 2000 },
    );
    expect(plain('1618951320000,56738.76,56840.3,56733.23,56813.98,50.9752')).toStrictEqual({
      ok: true,
      time: 1618951320000,
      open: '56738.76',
      high: '56840.3',
      low: '56733.23',
      close: '56813.98',
      volume: '50.9752',
      unit: 'ms',
      openFp9: 56_738_760_000_000n,
      highFp9: 56_840_300_000_000n,
      lowFp9: 56_733_230_000_000n,
      closeFp9: 56_813_980_000_000n,
    });
  });

  it('leaves prices a double cannot hold exactly to the general path, which compares their texts', () => {
    const plain = plainRowReader(layouts['timestamp_ms CSV']!);
    // high is one fp9 unit below open: equal as doubles, a bad row as texts.
    const text = '1618951320000,123456789.123456789,123456789.123456788,1,123456789.123456788,1';
    expect(generalRow(text, layouts['timestamp_ms CSV']!)).toMatchObject({ ok: false, reason: 'ohlc' });
    expect(plain(text)).toBeUndefined();
  });

  it('reads a header-less time as seconds or milliseconds by its magnitude, as the general path does', () => {
    const plain = plainRowReader(layouts['header-less, 5 columns']!);
    expect(plain('1618951320,1,2,1,2')).toMatchObject({ time: 1618951320000, unit: 's' });
    expect(plain('1618951320000,1,2,1,2')).toMatchObject({ time: 1618951320000, unit: 'ms' });
    // Microseconds and out-of-range times are the general path's.
    expect(plain('1618951320000000,1,2,1,2')).toBeUndefined();
    expect(plain('4102444800000,1,2,1,2')).toBeUndefined();
  });

  it('reads the date texts of CryptoDataDownload and ISO exports itself, as the general path does', () => {
    const cols = layouts['CryptoDataDownload (a date column)']!;
    const plain = plainRowReader(cols);
    const rowAt = (date: string): string => `${date},BTCUSD,8051,8056.83,8021.23,8035.88,61.25,492394.56`;
    const cases: Array<[string, string]> = [
      ['2019-10-17 09-AM', '2019-10-17T09:00:00.000Z'],
      ['2019-10-17 12-AM', '2019-10-17T00:00:00.000Z'],
      ['2019-10-17 12-PM', '2019-10-17T12:00:00.000Z'],
      ['2019-10-17 01-pm', '2019-10-17T13:00:00.000Z'],
      ['2019-10-17', '2019-10-17T00:00:00.000Z'],
      ['2019-10-17 09:05', '2019-10-17T09:05:00.000Z'],
      ['2019-10-17T09:05:07Z', '2019-10-17T09:05:07.000Z'],
      ['2020-02-29 23:59:59', '2020-02-29T23:59:59.000Z'],
      ['2000-02-29', '2000-02-29T00:00:00.000Z'],
    ];
    for (const [date, iso] of cases) {
      const fast = plain(rowAt(date));
      expect(fast, date).toMatchObject({ ok: true, time: Date.parse(iso), unit: 'date' });
      expect(fast).toStrictEqual(generalRow(rowAt(date), cols));
    }
    // Any date text on an otherwise good row: the same as the general path whenever read, and every
    // form the general path reads as a date within 1970–2099 is read, but fractions, offsets and
    // spaces around it (which the general path trims).
    fc.assert(
      fc.property(fc.oneof(dateText, dateText.map((d) => d.replace('T', 't')), dateText.map((d) => d.replace('Z', 'z'))), (date) => {
        const want = generalRow(rowAt(date), cols);
        const fast = plain(rowAt(date));
        if (fast !== undefined) expect(fast).toStrictEqual(want);
        else if (want.ok && date === date.trim() && !/[.+]/.test(date)) expect.fail(`${date} left to the general path`);
      }),
      { numRuns: 4000 },
    );
    // Days a month does not have, hours past the clock, years Date.UTC would read as 19xx, and the
    // forms left to the general path (fractions, offsets).
    for (const date of ['2019-02-29', '1900-02-29', '2019-04-31', '2019-13-01', '2019-10-17 00-AM', '2019-10-17 13-PM', '2019-10-17 24:00', '2019-10-17 09:60', '0085-01-01', '2019-10-17 09:00:00.5', '2019-10-17T09:00+00:00']) {
      expect(plain(rowAt(date)), date).toBeUndefined();
    }
  });
});
