import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { candleFromFields, ohlcFault, plainFp9Price, readAnyEpoch } from '../../src/feed/files/layouts.js';
import { comparePlain, fp9Price, isPositive, parseDecimalText, parseEpochText, parseUtcDateText } from '../../src/feed/files/parse-text.js';

describe('field parsers', () => {
  it('compares plain decimal strings exactly as Decimal does', () => {
    const plain = fc
      .tuple(fc.stringMatching(/^[0-9]{1,6}$/), fc.option(fc.stringMatching(/^[0-9]{1,8}$/)))
      .map(([i, f]) => (f === null ? i : `${i}.${f}`));
    fc.assert(
      fc.property(plain, plain, (a, b) => {
        expect(comparePlain(a, b)).toBe(new Dec(a).comparedTo(new Dec(b)));
      }),
      { numRuns: 500 },
    );
  });

  it('reads decimals, epochs in s/ms/µs and CryptoDataDownload dates; refuses the rest', () => {
    expect(parseDecimalText('32.00')).toBe('32.00');
    expect(parseDecimalText('1.5e-3')).toBe('0.0015');
    expect(parseDecimalText('-1')).toBeUndefined();
    expect(parseDecimalText('1,5')).toBeUndefined();
    expect(parseEpochText('1618951320')).toBe(1618951320000);
    expect(parseEpochText('1618951320000')).toBe(1618951320000);
    expect(parseEpochText('1618951320000000')).toBe(1618951320000);
    expect(parseEpochText('1618951320000001')).toBeUndefined(); // a fraction of a ms
    expect(parseEpochText('12')).toBeUndefined();
    expect(parseUtcDateText('2019-10-17 12-AM')).toBe(Date.UTC(2019, 9, 17, 0));
    expect(parseUtcDateText('2019-10-17 12-PM')).toBe(Date.UTC(2019, 9, 17, 12));
    expect(parseUtcDateText('2019-10-17 09:30:15')).toBe(Date.UTC(2019, 9, 17, 9, 30, 15));
    expect(parseUtcDateText('2019-10-17')).toBe(Date.UTC(2019, 9, 17));
    expect(parseUtcDateText('2019-02-30 01-AM')).toBeUndefined();
    expect(parseUtcDateText('2019-10-17 13-PM')).toBeUndefined();
    expect(parseUtcDateText('17/10/2019')).toBeUndefined();
  });

  it('reads a time with an offset as the instant it names, and refuses an offset that is no offset', () => {
    expect(parseUtcDateText('2019-10-17T11:30:00+02:00')).toBe(Date.UTC(2019, 9, 17, 9, 30));
    expect(parseUtcDateText('2019-10-17 04:30-0500')).toBe(Date.UTC(2019, 9, 17, 9, 30));
    expect(parseUtcDateText('2019-10-17T00:30:00+05:30')).toBe(Date.UTC(2019, 9, 16, 19, 0));
    expect(parseUtcDateText('2019-10-17T09:00:00+00:00')).toBe(Date.UTC(2019, 9, 17, 9));
    expect(parseUtcDateText('2019-10-17T09:00:00+24:00')).toBeUndefined();
    expect(parseUtcDateText('2019-10-17T09:00:00+02:60')).toBeUndefined();
    expect(parseUtcDateText('2019-10-17T09:00:00+2')).toBeUndefined();
  });
});

describe('plainFp9Price: the one-pass test of a price column', () => {
  it('holds exactly for the texts the general path keeps as they are, positive and in the fp9 range', () => {
    const texts = fc.oneof(
      fc.tuple(fc.stringMatching(/^[0-9]{1,11}$/), fc.option(fc.stringMatching(/^[0-9]{0,11}$/))).map(([i, f]) => (f === null ? i : `${i}.${f}`)),
      fc.stringMatching(/^[0-9.+eE -]{0,14}$/),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const plain = parseDecimalText(text);
        const checked = plain !== undefined && isPositive(plain) ? fp9Price(plain) : undefined;
        // Everything the general path keeps unchanged with at most 9 integer digits: the fast test says yes.
        const kept = plain === text && checked !== undefined && 'price' in checked && checked.price === text && !checked.rounded;
        const intDigits = text.includes('.') ? text.indexOf('.') : text.length;
        expect(plainFp9Price(text)).toBe(kept && intDigits <= 9);
      }),
      { numRuns: 2000 },
    );
    for (const t of ['57000.01', '0.5', '1', '999999999.999999999', '0.000000001']) expect(plainFp9Price(t)).toBe(true);
    for (const t of ['0', '0.0', '00.5', '1.', '.5', '1.0000000001', '1234567890', '-1', '1e3', ' 1']) expect(plainFp9Price(t)).toBe(false);
  });
});

describe('ohlcFault: the candle price checks', () => {
  it('finds a fault exactly when high is not the highest or low not the lowest, short prices or long', () => {
    // Up to 12 integer digits and 9 places: both sides of the 15 digits a double holds exactly.
    const price = fc
      .tuple(fc.stringMatching(/^[1-9][0-9]{0,11}$/), fc.option(fc.stringMatching(/^[0-9]{1,9}$/)))
      .map(([i, f]) => (f === null ? i : `${i}.${f}`));
    fc.assert(
      fc.property(price, price, price, price, (open, high, low, close) => {
        const [o, h, l, c] = [open, high, low, close].map((t) => new Dec(t));
        const bad = h!.lt(o!) || h!.lt(c!) || h!.lt(l!) || l!.gt(o!) || l!.gt(c!);
        expect(ohlcFault(open, high, low, close) !== undefined).toBe(bad);
      }),
      { numRuns: 2000 },
    );
    // Rows that are fine, where only the integers tell: 15-digit neighbours and equal values.
    expect(ohlcFault('999999.999999999', '999999.999999999', '999999.999999998', '999999.999999999')).toBeUndefined();
    expect(ohlcFault('9007199.254740993', '9007199.254740993', '9007199.254740992', '9007199.254740993')).toBeUndefined();
    expect(ohlcFault('9007199.254740993', '9007199.254740992', '9007199.254740992', '9007199.254740992')?.reason).toBe('ohlc');
  });
});

describe('candleFromFields: prices the general path rewrites', () => {
  it('compares a rewritten price by its new text: leading zeros, a sign, more than 9 places', () => {
    const row = (o: string, h: string, l: string, c: string) => candleFromFields('1618951320000', readAnyEpoch, o, h, l, c, undefined);
    expect(row('+100', '100.0000000004', '99', '100')).toMatchObject({ ok: true, open: '100', high: '100', rounded: true });
    expect(row('00101', '100.9999999999', '99', '100')).toMatchObject({ ok: true, open: '101', high: '101' });
    expect(row('00102', '101.00000000001', '99', '100')).toMatchObject({ reason: 'ohlc' });
    expect(row('0102.5', '102.4', '99', '100')).toMatchObject({ reason: 'ohlc' });
  });
});
