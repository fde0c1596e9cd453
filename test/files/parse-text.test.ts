import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { comparePlain, parseDecimalText, parseEpochText, parseUtcDateText } from '../../src/feed/files/parse-text.js';

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
});
