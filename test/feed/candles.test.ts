import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import type { Decimal } from 'decimal.js';
import { dec } from '../../src/core/decimal.js';
import { fp9Decimal } from '../../src/core/fp9.js';
import { CandleBuilder, CandleStreams, MultiCandleBuilder, periodStart, toCandles } from '../../src/feed/candles.js';
import { marketSnapshot, markStale } from '../../src/feed/snapshots.js';
import { CANDLE_PERIOD_MS, CANDLE_PERIODS, type Candle, type CandlePeriod, type MarketSnapshot } from '../../src/feed/types.js';
import { COINBASE_BTC_1H, shippedCandles } from '../data.js';
import { candleTicks, makeMarket } from './fixtures.js';

const T0 = Date.UTC(2021, 4, 19, 0, 0, 0);
const MIN = 60_000;

function plain(c: Candle) {
  return { ...c, open: c.open.toString(), high: c.high.toString(), low: c.low.toString(), close: c.close.toString() };
}

describe('CandleBuilder', () => {
  it('emits a candle once, at the first tick at or after its end, with OHLC and tick count', () => {
    const b = new CandleBuilder('BTC', '1m');
    expect(b.update(T0 + 1_000, dec('100'))).toBeUndefined();
    expect(b.update(T0 + 20_000, dec('105'))).toBeUndefined();
    expect(b.update(T0 + 40_000, dec('95'))).toBeUndefined();
    expect(b.update(T0 + 59_999, dec('101'))).toBeUndefined();
    const c = b.update(T0 + MIN, dec('102'));
    expect(c && plain(c)).toEqual({
      asset: 'BTC',
      period: '1m',
      openTime: T0,
      closeTime: T0 + MIN,
      open: '100',
      high: '105',
      low: '95',
      close: '101',
      ticks: 4,
    });
    // The tick that closed it opened the next one.
    const next = b.update(T0 + 2 * MIN, dec('103'));
    expect(next && plain(next)).toMatchObject({ openTime: T0 + MIN, open: '102', close: '102', ticks: 1 });
  });

  it('builds the same candles from fp9 prices given quietly as from their Decimals', () => {
    // Random 5-minute walks of engine-like (tagged) prices; a price inside a candle goes in by
    // quietPrice on one builder (or, one step in five, by update: a published step between quiet
    // ones) and by update on the other. A published price is now and then an untagged Decimal (one
    // decoded from the wire), which a quiet price after it cannot compare as fp9.
    const step = fc.tuple(fc.integer({ min: 1, max: 90_000 }), fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 0, max: 4 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
        const loud = new CandleBuilder('BTC', '5m');
        const quiet = new CandleBuilder('BTC', '5m');
        const a: unknown[] = [];
        const b: unknown[] = [];
        let t = T0;
        for (const [dt, cents, kind, wire] of steps) {
          t += dt;
          const raw = BigInt(cents) * 10_000_000n;
          const price = () => (wire ? dec((cents / 100).toFixed(2)) : fp9Decimal(raw));
          const c1 = loud.update(t, price());
          if (c1) a.push(plain(c1));
          if (quiet.inside(t) && kind !== 0) quiet.quietPrice(t, raw);
          else {
            const c2 = quiet.update(t, price());
            if (c2) b.push(plain(c2));
          }
        }
        expect(b).toEqual(a);
        expect(quiet.peek() && plain(quiet.peek()!)).toEqual(loud.peek() && plain(loud.peek()!));
      }),
    );
    // Ending a candle is update's alone: a quiet price outside the running one is refused.
    const b = new CandleBuilder('BTC', '5m');
    expect(() => b.quietPrice(T0, 1n)).toThrow(/outside the running candle/);
    b.update(T0, fp9Decimal(100n));
    expect(() => b.quietPrice(T0 + 5 * MIN, 1n)).toThrow(/outside the running candle/);
  });

  it('produces no candle for a period without snapshots (a gap stays a gap)', () => {
    const b = new CandleBuilder('BTC', '1m');
    const out: Candle[] = [];
    const push = (t: number, p: string) => {
      const c = b.update(t, dec(p));
      if (c) out.push(c);
    };
    push(T0 + 5_000, '10');
    push(T0 + 30_000, '11');
    // Nothing from T0+1m to T0+5m; the next tick arrives in minute 5.
    push(T0 + 5 * MIN + 1_000, '20');
    push(T0 + 6 * MIN, '21');
    expect(out.map((c) => c.openTime)).toEqual([T0, T0 + 5 * MIN]);
    expect(out[0]!.closeTime).toBe(T0 + MIN);
    expect(out[1]!.open.toString()).toBe('20');
  });

  it('aligns 4h and 1D candles on UTC boundaries', () => {
    const t = Date.UTC(2021, 4, 19, 13, 37, 12);
    expect(periodStart(t, '4h')).toBe(Date.UTC(2021, 4, 19, 12));
    expect(periodStart(t, '1D')).toBe(Date.UTC(2021, 4, 19));
    expect(periodStart(t, '15m')).toBe(Date.UTC(2021, 4, 19, 13, 30));
    const b = new CandleBuilder('BTC', '1D');
    b.update(Date.UTC(2021, 4, 19, 23, 59, 59), dec('1'));
    const c = b.update(Date.UTC(2021, 4, 20, 0, 0, 0), dec('2'));
    expect(c?.openTime).toBe(Date.UTC(2021, 4, 19));
    expect(c?.closeTime).toBe(Date.UTC(2021, 4, 20));
  });

  it('ignores a tick older than the candle being built', () => {
    const b = new CandleBuilder('BTC', '1m');
    b.update(T0 + MIN + 1, dec('5'));
    expect(b.update(T0 + 10, dec('1'))).toBeUndefined();
    expect(b.peek()?.low.toString()).toBe('5');
  });

  it('refuses an unknown period', () => {
    expect(() => new CandleBuilder('BTC', '2m' as CandlePeriod)).toThrow(/expected one of 1m, 5m/);
  });

  it('matches the 4h candles aggregated straight from real BTC 1h data', async () => {
    const rows = await shippedCandles(COINBASE_BTC_1H, 3_000);
    const b = new CandleBuilder('BTC', '4h');
    const built: Candle[] = [];
    for (const row of rows) {
      for (const tick of candleTicks(row, 15 * MIN)) {
        const c = b.update(tick.time, dec(tick.price));
        if (c) built.push(c);
      }
    }
    // Expected: group the 1h rows by 4-hour UTC block; the last (unfinished) block is not emitted.
    const groups = new Map<number, typeof rows>();
    for (const r of rows) {
      const h = periodStart(r.time, '4h');
      groups.set(h, [...(groups.get(h) ?? []), r]);
    }
    const hours = [...groups.keys()].slice(0, -1);
    expect(built.map((c) => c.openTime)).toEqual(hours);
    for (const c of built) {
      const g = groups.get(c.openTime)!;
      const max = g.map((r) => dec(r.high)).reduce((a, x) => (x.gt(a) ? x : a));
      const min = g.map((r) => dec(r.low)).reduce((a, x) => (x.lt(a) ? x : a));
      expect(c.open.eq(dec(g[0]!.open))).toBe(true);
      expect(c.close.eq(dec(g[g.length - 1]!.close))).toBe(true);
      expect(c.high.eq(max)).toBe(true);
      expect(c.low.eq(min)).toBe(true);
      expect(c.ticks).toBe(g.length * 4);
    }
  });
});

describe('MultiCandleBuilder', () => {
  it('builds every period in one pass, exactly as separate builders do (real hourly data)', async () => {
    const rows = await shippedCandles(COINBASE_BTC_1H, 9_000);
    const multi = new MultiCandleBuilder('BTC');
    const singles = CANDLE_PERIODS.map((p) => new CandleBuilder('BTC', p));
    const fromMulti: Candle[] = [];
    const fromSingles: Candle[] = [];
    for (const row of rows) {
      for (const tick of candleTicks(row, 15 * MIN)) {
        const price = dec(tick.price);
        multi.update(tick.time, price, (c) => fromMulti.push(c));
        for (const s of singles) {
          const c = s.update(tick.time, price);
          if (c) fromSingles.push(c);
        }
      }
    }
    const key = (c: Candle) => `${c.period}|${c.openTime}`;
    const sort = (xs: Candle[]) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : 1)).map(plain);
    expect(fromMulti.length).toBeGreaterThan(100);
    expect(sort(fromMulti)).toEqual(sort(fromSingles));
    const daily = fromMulti.filter((c) => c.period === '1D');
    expect(daily.length).toBeGreaterThan(3);
    // No synthetic 1m candles between prices, which come 15 minutes apart.
    const oneMinute = fromMulti.filter((c) => c.period === '1m');
    const smallestStep = Math.min(...oneMinute.slice(1).map((c, i) => c.openTime - oneMinute[i]!.openTime));
    expect(smallestStep).toBe(15 * MIN);
  });

  it('agrees with single builders on random tick sequences', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 * 3_600_000 }), fc.integer({ min: 1, max: 1000 })), { minLength: 1, maxLength: 200 }),
        (steps) => {
          let t = T0;
          const multi = new MultiCandleBuilder('X', ['1m', '15m', '1h']);
          const singles = (['1m', '15m', '1h'] as const).map((p) => new CandleBuilder('X', p));
          const a: string[] = [];
          const b: string[] = [];
          for (const [dt, p] of steps) {
            t += dt;
            const price: Decimal = dec(p);
            multi.update(t, price, (c) => a.push(JSON.stringify(plain(c))));
            for (const s of singles) {
              const c = s.update(t, price);
              if (c) b.push(JSON.stringify(plain(c)));
            }
          }
          expect([...a].sort()).toEqual([...b].sort());
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('toCandles / CandleStreams', () => {
  it('turns a snapshot stream into candles, ignoring stale re-emissions', () => {
    const source = new Subject<MarketSnapshot>();
    const out: Candle[] = [];
    source.pipe(toCandles('5m')).subscribe((c) => out.push(c));
    const snap = (t: number, p: string) => marketSnapshot(makeMarket('ETH', p), t);
    source.next(snap(T0 + 1, '10'));
    const s = snap(T0 + 2 * MIN, '12');
    source.next(s);
    // A stale re-emission of the last data carries no new price and no new time.
    source.next(markStale(snap(T0 + 6 * MIN, '99')));
    expect(out).toHaveLength(0);
    source.next(snap(T0 + 5 * MIN, '11'));
    expect(out.map(plain)).toEqual([
      { asset: 'ETH', period: '5m', openTime: T0, closeTime: T0 + 5 * MIN, open: '10', high: '12', low: '10', close: '12', ticks: 2 },
    ]);
  });

  it('shares one builder per asset and period across subscribers', () => {
    const source = new Subject<MarketSnapshot>();
    const streams = new CandleStreams(() => source);
    expect(streams.candles$('ETH', '1m')).toBe(streams.candles$('ETH', '1m'));
    const a: Candle[] = [];
    const b: Candle[] = [];
    streams.candles$('ETH', '1m').subscribe((c) => a.push(c));
    streams.candles$('ETH', '1m').subscribe((c) => b.push(c));
    source.next(marketSnapshot(makeMarket('ETH', '1'), T0));
    source.next(marketSnapshot(makeMarket('ETH', '2'), T0 + MIN));
    expect(a).toHaveLength(1);
    expect(b[0]).toBe(a[0]);
    expect(() => streams.candles$('ETH', '3m' as CandlePeriod)).toThrow(/candles\("ETH", period\)/);
  });

  it('covers every declared period with its length', () => {
    for (const p of CANDLE_PERIODS) {
      const b = new CandleBuilder('X', p);
      b.update(T0, dec(1));
      expect(b.update(T0 + CANDLE_PERIOD_MS[p], dec(2))?.closeTime).toBe(T0 + CANDLE_PERIOD_MS[p]);
    }
  });
});
