import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { rawHuman } from '../../src/engine/fixed.js';
import { candleFromFields, readAnyEpoch } from '../../src/feed/files/layouts.js';
import type { CandleRow } from '../../src/feed/files/types.js';
import { candleTicks, exactFp9, TickInterleaver, type ReplayMarket } from '../../src/runtime/replay.js';

const row = (time: number, open: string, high: string, low: string, close: string): CandleRow => ({ time, open, high, low, close, volume: '1', line: 2 });

describe('candle → ticks', () => {
  it('reads a plain price of up to 9 places straight to fp9, and nothing else', () => {
    // Up to 21 digits: both sides of the 15-digit line where the digits stop fitting a double exactly.
    const plain = fc
      .tuple(fc.stringMatching(/^[0-9]{1,12}$/), fc.option(fc.stringMatching(/^[0-9]{1,9}$/)))
      .map(([i, f]) => (f === null ? i : `${i}.${f}`));
    fc.assert(
      fc.property(plain, (text) => {
        expect(exactFp9(text)).toBe(BigInt(new Dec(text).times(1e9).toFixed(0)));
      }),
      { numRuns: 500 },
    );
    for (const [text, fp9] of [['999999.999999999', 999999999999999n], ['9999999.99999999', 9999999999999990n], ['9007199.254740993', 9007199254740993n], ['0.000000001', 1n], ['000123', 123000000000n]] as const) {
      expect(exactFp9(text)).toBe(fp9);
    }
    for (const bad of ['', '.5', '5.', '1.0000000001', '1e3', '-1', '1.2.3', ' 1', '1,5']) expect(exactFp9(bad)).toBeUndefined();
  });

  it("takes the reader's fp9 readings of a row's prices, which make the same ticks as its texts", () => {
    // Texts a reader keeps, rewrites (a leading zero), rounds (10 places) or reads past a double (16+ digits).
    const text = fc.oneof(
      fc.tuple(fc.stringMatching(/^[1-9][0-9]{0,8}$/), fc.option(fc.stringMatching(/^[0-9]{1,9}$/))).map(([i, f]) => (f === null ? i : `${i}.${f}`)),
      fc.constantFrom('00.5', '0.5', '1.1234567891', '123456789.123456789', '9007199.254740993', '0.000000001'),
    );
    let exact = 0;
    fc.assert(
      fc.property(fc.array(text, { minLength: 4, maxLength: 4 }), ([a, b, c, d]) => {
        const [low, open, close, high] = [a!, b!, c!, d!].sort((x, y) => new Dec(x).cmp(new Dec(y)));
        const parsed = candleFromFields('1618951320000', readAnyEpoch, open!, high!, low!, close!, '1');
        if (!parsed.ok) return;
        const read: CandleRow = { ...parsed, line: 2 };
        const fromTexts: CandleRow = { time: parsed.time, open: parsed.open, high: parsed.high, low: parsed.low, close: parsed.close, volume: '1', line: 2 };
        expect(candleTicks(read, 60_000)).toEqual(candleTicks(fromTexts, 60_000));
        for (const [fp9, t] of [[read.openFp9, parsed.open], [read.highFp9, parsed.high], [read.lowFp9, parsed.low], [read.closeFp9, parsed.close]] as const) {
          // the exact integer, or none past 15 digits (not read in one pass) or where the row was rounded
          if (fp9 === undefined) expect(parsed.rounded === true || exactFp9(t)! >= 10n ** 15n).toBe(true);
          else (exact += 1, expect(fp9).toBe(exactFp9(t)));
        }
      }),
      { numRuns: 400 },
    );
    expect(exact).toBeGreaterThan(400);
    // The integer is what the replay reads when a row has one (the reader's contract: it is the text's value).
    const carried = candleTicks({ ...row(0, '10', '15', '8', '12'), openFp9: 11_000_000_000n, highFp9: 15_000_000_000n, lowFp9: 8_000_000_000n, closeFp9: 12_000_000_000n }, 60_000);
    expect(carried.map((t) => rawHuman(t.priceFp9))).toEqual(['11', '8', '15', '12']);
  });

  it('a rising candle goes open, low, high, close; a falling one open, high, low, close', () => {
    const up = candleTicks(row(0, '10', '15', '8', '12'), 60_000).map((t) => rawHuman(t.priceFp9));
    expect(up).toEqual(['10', '8', '15', '12']);
    const down = candleTicks(row(0, '10', '15', '8', '9'), 60_000).map((t) => rawHuman(t.priceFp9));
    expect(down).toEqual(['10', '15', '8', '9']);
  });

  it('keeps every tick inside the period, in time order, and skips repeated prices but never the open', () => {
    const ticks = candleTicks(row(1_000_000, '10', '10', '10', '10'), 60_000);
    expect(ticks).toEqual([{ time: 1_000_000, priceFp9: 10_000_000_000n }]);
    const full = candleTicks(row(1_000_000, '10', '15', '8', '12'), 60_000);
    expect(full.map((t) => t.time)).toEqual([1_000_000, 1_020_000, 1_040_000, 1_059_999]);
  });

  it('reads prices exactly as fp9; more than 9 places round half-even, repeats judged on the exact values', () => {
    expect(candleTicks(row(0, '0.000000001', '0.000000003', '0.000000001', '0.000000002'), 60_000).map((t) => t.priceFp9)).toEqual([1n, 3n, 2n]);
    // 10.0000000005 and 10.0000000015 both have 10 places: they round to 10.000000000 and 10.000000002,
    // and the low (10.0000000004) differs from the open as a value, so it is sent though it rounds alike.
    const long = candleTicks(row(0, '10.0000000005', '10.0000000015', '10.0000000004', '10.0000000015'), 60_000);
    expect(long.map((t) => rawHuman(t.priceFp9))).toEqual(['10', '10', '10.000000002']);
  });

  it('interleaves markets of different periods by time, markets in order on ties', () => {
    const markets = new Map<string, ReplayMarket>([
      ['H', { asset: 'H', marketId: 'h', periodMs: 3_600_000 }],
      ['M', { asset: 'M', marketId: 'm', periodMs: 60_000 }],
    ]);
    const rows = [
      { key: 'H', source: 0, row: row(0, '1', '2', '0.5', '1.5') },
      { key: 'M', source: 1, row: row(0, '10', '11', '9', '10.5') },
      { key: 'M', source: 1, row: row(60_000, '10.5', '11', '10', '10.8') },
      { key: 'H', source: 0, row: row(3_600_000, '1.5', '1.6', '1.4', '1.45') },
    ];
    const interleaver = new TickInterleaver(markets);
    const steps = [...rows.flatMap((r) => interleaver.add(r.key, r.source, r.row)), ...interleaver.flush()];
    const times = steps.map((s) => s.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // At time 0 both markets open; H (listed first) goes first.
    expect(steps.slice(0, 2).map((s) => s.market.asset)).toEqual(['H', 'M']);
    // The hour candle's close (at 3_599_999) comes after both minute candles.
    const hClose = steps.findIndex((s) => s.market.asset === 'H' && s.time === 3_599_999);
    const lastMinute = steps.findLastIndex((s) => s.market.asset === 'M');
    expect(hClose).toBeGreaterThan(lastMinute);
    expect(steps.filter((s) => s.candleStart).length).toBe(4);
  });

  it('with reuseSteps, plays the same steps, and one market’s replay writes a few objects over and over', () => {
    const markets = new Map<string, ReplayMarket>([
      ['H', { asset: 'H', marketId: 'h', periodMs: 3_600_000 }],
      ['M', { asset: 'M', marketId: 'm', periodMs: 60_000 }],
    ]);
    // One market (every add releases every pending step), then two (some adds release part of them).
    const one = Array.from({ length: 200 }, (_, i) => ({ key: 'M', source: 1, row: row(i * 60_000, String(10 + (i % 7)), String(12 + (i % 5)), '9', String(10 + (i % 3))) }));
    const two = one.flatMap((r, i) => (i % 60 === 0 ? [{ key: 'H', source: 0, row: row(r.row.time, '1', '2', '0.5', i % 120 === 0 ? '1.5' : '0.7') }, r] : [r]));
    for (const rows of [one, two]) {
      // What a replay sees: each step read as it is played, before the next add.
      const play = (interleaver: TickInterleaver) => {
        const seen: string[] = [];
        const objects = new Set<object>();
        const take = (steps: readonly { market: ReplayMarket; time: number; priceFp9: bigint; candleStart: boolean }[]) => {
          for (const s of steps) {
            seen.push(`${s.market.asset} ${s.time} ${s.priceFp9} ${s.candleStart}`);
            objects.add(s);
          }
        };
        for (const r of rows) take(interleaver.add(r.key, r.source, r.row));
        take(interleaver.flush());
        return { seen, objects: objects.size };
      };
      const fresh = play(new TickInterleaver(markets));
      const reused = play(new TickInterleaver(markets, { reuseSteps: true }));
      expect(reused.seen).toEqual(fresh.seen);
      expect(fresh.objects).toBe(fresh.seen.length);
      // Several markets release part of their steps at most adds (an hour candle's ticks wait), and only
      // a release of all of them recycles: the reuse is for one market's replay.
      if (rows === one) expect(reused.objects).toBeLessThanOrEqual(12);
    }
  });
});
