/**
 * Conformance: the Market record from presets, flags, the weekly schedule of an RWA market, `change`,
 * market reads (get with account resolution, list, 404s) and the zero-cost preset.
 */
import fc from 'fast-check';
import type { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { MarketPausedError, NotFoundError } from '../../src/api/errors.js';
import { SCHEDULE_NONE_AHEAD } from '../../src/api/types.js';
import { dec } from '../../src/core/decimal.js';
import { ConfigError } from '../../src/core/errors.js';
import { ENGINE_PRESETS, Engine } from '../../src/engine/index.js';
import { D, HOUR, MIN, T0, rejects } from './helpers.js';

const DAY = 24 * HOUR;

/**
 * The reference for the change block: the first time and the last price of every minute with a
 * price, looked up by bisection (the reference must not be the code under test).
 */
class MinuteHistory {
  readonly #at: number[] = [T0];
  readonly #price: number[] = [100];
  readonly #bucket: number;
  #minute: number;

  /** `bucket`: the engine's sampling step (`limits.equitySampleMs`), a minute by default. */
  constructor(bucket = 60_000) {
    this.#bucket = bucket;
    this.#minute = Math.floor(T0 / bucket);
  }

  record(t: number, p: number): void {
    if (Math.floor(t / this.#bucket) !== this.#minute) {
      this.#minute = Math.floor(t / this.#bucket);
      this.#at.push(t);
      this.#price.push(p);
    } else this.#price[this.#price.length - 1] = p;
  }

  get minutes(): number {
    return this.#at.length;
  }

  /** The price of the last minute at or before `t`, as the block shows it ('0' before any). */
  at(t: number): string {
    let lo = 0;
    let hi = this.#at.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.#at[mid]! <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? '0' : String(this.#price[found]);
  }

  /** The change block at `t`: 24 h, 4 h and 1 h before. */
  change(t: number): string[] {
    return [this.at(t - DAY), this.at(t - 4 * HOUR), this.at(t - HOUR)];
  }
}

const changeText = (c: { initialPrice: Decimal; initialPrice4h: Decimal; initialPrice1h: Decimal }): string[] => [
  c.initialPrice.toString(),
  c.initialPrice4h.toString(),
  c.initialPrice1h.toString(),
];

/**
 * An engine market and the reference history fed the same prices: `price(t, p)` sets the price and
 * checks the change block read right after it against the reference. `sampleMs`: the engine's
 * sampling step (`limits.equitySampleMs`), which is also its history's.
 */
function changeReplay(sampleMs = 60_000): { price(t: number, p: number): void; history: MinuteHistory } {
  const e = new Engine({ startMs: T0, presets: { limits: { equitySampleMs: sampleMs } } });
  const m = e.addMarket({ baseAsset: 'BTC', price: dec(100) });
  e.addUser('u');
  const reads = e.exchangeFor('u').now;
  const history = new MinuteHistory(sampleMs);
  return {
    history,
    price(t, p) {
      e.setIndexPrice(m.id, dec(p), t);
      history.record(t, p);
      expect(changeText(reads.getMarket(m.id).change)).toEqual(history.change(t));
    },
  };
}

describe('Market record', () => {
  it('config, state, settings from the crypto preset; index price and block timestamp from the caller', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'BTC', price: dec('42000.5'), priority: 10 });
    e.addUser('u');
    e.setIndexPrice(m.id, dec('42100'), T0 + 5000);
    const got = await e.exchangeFor('u').getMarket(m.id);
    const p = ENGINE_PRESETS.markets['crypto']!;
    expect(got.config).toMatchObject({ baseAsset: 'BTC', quoteAsset: p.quoteAsset, category: 'crypto', priority: 10, ticker: 'BTCUSD' });
    expect(got.state.indexPrice.toString()).toBe('42100');
    expect(got.state.blockTimestamp).toBe(T0 + 5000);
    expect(got.state.fundingRate.toString()).toBe(dec(p.fundingRate).toString());
    expect(got.state.vpiSpread.toString()).toBe(dec(p.vpiSpread).toString());
    expect(got.state.vpiMarketDepthLong.toString()).toBe(dec(p.vpiMarketDepthLong).toString());
    expect(got.state.vpiCoefficientShort.toString()).toBe(dec(p.vpiCoefficientShort).toString());
    expect(got.settings.fee.toString()).toBe('0.00008');
    expect(got.settings.maintenanceMarginRatio.toString()).toBe(dec(p.maintenanceMarginRatio).toString());
    expect(got.settings.maxLeverageByAccount['real']!.toString()).toBe('5');
    expect(got.settings.minStopTriggerDistanceRatio.toString()).toBe(dec(p.minStopTriggerDistanceRatio).toString());
    expect([got.settings.isPaused, got.settings.isCloseOnly, got.settings.isClosed, got.settings.isZeroSpread]).toEqual([false, false, false, false]);
    expect(got.schedule).toBeNull();
    expect(e.marketByAsset('BTC')!.id).toBe(m.id);
    expect(e.marketByAsset('XYZ')).toBeUndefined();
  });
  it('flags set by the caller show in settings; zero spread fills at the index price', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'BTC', price: dec(50000), overrides: { maxPriceImpact: '0' } });
    const acc = e.openAccount({ userId: 'u', type: 'demo', initialBalance: dec(10000) });
    e.setMarketFlags(m.id, { isZeroSpread: true, isCloseOnly: true, isClosed: true, isPaused: true });
    const got = await e.exchangeFor('u').getMarket(m.id);
    expect([got.settings.isPaused, got.settings.isCloseOnly, got.settings.isClosed, got.settings.isZeroSpread]).toEqual([true, true, true, true]);
    e.setMarketFlags(m.id, { isCloseOnly: false, isClosed: false, isPaused: false });
    await e.exchangeFor('u').createOrder({ accountId: acc.accountId, marketId: m.id, type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    const [p] = await e.exchangeFor('u').listActivePositions(acc.accountId, 'BTC');
    expect(p!.exchangedQuote.div(p!.exchangedBase).toDecimalPlaces(2).toString()).toBe('50000');
  });
  it('change: the price 24 h, 4 h and 1 h ago; 0 without history', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'BTC', price: dec(100) });
    e.addUser('u');
    let got = await e.exchangeFor('u').getMarket(m.id);
    expect([got.change.initialPrice.toString(), got.change.initialPrice4h.toString(), got.change.initialPrice1h.toString()]).toEqual(['0', '0', '0']);
    for (let h = 1; h <= 30; h++) e.setIndexPrice(m.id, dec(100 + h), T0 + h * HOUR);
    got = await e.exchangeFor('u').getMarket(m.id);
    expect(got.change.initialPrice.toString()).toBe('106'); // at 30h − 24h = 6h
    expect(got.change.initialPrice4h.toString()).toBe('126');
    expect(got.change.initialPrice1h.toString()).toBe('129');
  });
  // Mostly several prices a minute (the lookups cross history times between two prices of one
  // minute), sometimes hours apart (the history spans a day and more).
  const gaps = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 30_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 * MIN }) });
  it('change, read after every price, equals the minute history looked up afresh (kept views, pruning, reads between prices)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(gaps, fc.integer({ min: 1, max: 999 }), fc.boolean()), { minLength: 50, maxLength: 700 }), (steps) => {
        const e = new Engine({ startMs: T0 });
        const m = e.addMarket({ baseAsset: 'BTC', price: dec(100) });
        e.addUser('u');
        const reads = e.exchangeFor('u').now;
        const history = new MinuteHistory();
        let t = T0;
        for (const [gap, p, readTwice] of steps) {
          t += gap;
          e.setIndexPrice(m.id, dec(p), t);
          history.record(t, p);
          for (let r = 0; r < (readTwice ? 2 : 1); r++) expect(changeText(reads.getMarket(m.id).change)).toEqual(history.change(t));
        }
      }),
      { numRuns: 60 },
    );
  });
  it('change with a sampling step longer than an hour: the 1 h lookup reads the entry every price rewrites', () => {
    const replay = changeReplay(2 * HOUR);
    for (let k = 1; k <= 40; k++) replay.price(T0 + k * 10 * MIN, 100 + k);
  });
  it('change after a prune that drops only a few entries (one-second samples), equals the minute history', () => {
    // 100 entries more than 25 h back, then one a second: the prune at 1,024 entries drops 99 of
    // them, so a lookup kept from before it would point 99 entries too far.
    const replay = changeReplay(1_000);
    let t = T0;
    for (let k = 1; k < 100; k++) replay.price((t += MIN), 100 + k);
    replay.price((t += 30 * HOUR), 500);
    for (let k = 1; k < 4_000; k++) replay.price((t += 1_000), 500 + (k % 400));
    expect(replay.history.minutes).toBeGreaterThan(4_000);
  });

  it('change is a frozen plain block: a copy or JSON gives its prices', () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'BTC', price: dec(100) });
    e.addUser('u');
    for (let h = 1; h <= 30; h++) e.setIndexPrice(m.id, dec(100 + h), T0 + h * HOUR);
    const change = e.exchangeFor('u').now.getMarket(m.id).change;
    const want = { initialPrice: '106', initialPrice1h: '129', initialPrice4h: '126' };
    expect(JSON.parse(JSON.stringify(change))).toEqual(want);
    const copy = { ...change };
    expect(Object.keys(copy)).toEqual(['initialPrice', 'initialPrice1h', 'initialPrice4h']);
    expect(copy.initialPrice.toString()).toBe('106');
    expect(change.initialPrice).toBe(change.initialPrice);
    expect(Object.isFrozen(change)).toBe(true);
  });
  it('change stays right across history prunes (every 1,024 entries, the front older than 25 h dropped)', () => {
    const replay = changeReplay();
    let checked = 0;
    for (let k = 1; k <= 4_600; k++) {
      // Two prices a minute, the second 40 s in: the 24 h lookup crosses history times between them.
      for (const [offset, p] of [[0, 100 + (k % 97)], [40_000, 300 + (k % 89)]] as const) {
        replay.price(T0 + k * MIN + offset, p);
        checked += 1;
      }
    }
    expect(checked).toBe(9_200);
  });
  it('bad market specs are refused with the config key', () => {
    const e = new Engine({ startMs: T0 });
    expect(() => e.addMarket({ baseAsset: 'X', preset: 'nope' })).toThrow(ConfigError);
    expect(() => e.addMarket({ baseAsset: 'X', overrides: { fee: 'abc' } })).toThrow(/markets\.crypto\.fee/);
    e.addMarket({ baseAsset: 'X' });
    expect(() => e.addMarket({ baseAsset: 'X' })).toThrow(/exists already/);
  });
});

describe('weekly schedule (RWA: paused Friday 21:00 UTC to Sunday 21:00 UTC)', () => {
  // 2024-01-05 is a Friday
  const FRI_21 = Date.UTC(2024, 0, 5, 21);
  const SUN_21 = Date.UTC(2024, 0, 7, 21);
  it('schedule fields computed from engine time; paused in the break; orders refused with market_paused', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'XAU', category: 'rwa', price: dec(2000) });
    const acc = e.openAccount({ userId: 'u', type: 'demo', initialBalance: dec(10000) });
    const ex = e.exchangeFor('u');
    let got = await ex.getMarket(m.id);
    expect(got.config.category).toBe('rwa');
    expect(got.settings.fee.toString()).toBe('0.000035');
    expect(got.schedule).toEqual({ nextPauseAt: FRI_21, nextUnpauseAt: SUN_21, closestPauseAt: FRI_21, closestUnpauseAt: SUN_21, pausedAt: 0, inPause: false });
    e.advanceTo(FRI_21 + MIN);
    got = await ex.getMarket(m.id);
    expect(got.settings.isPaused).toBe(true);
    expect(got.schedule).toEqual({
      nextPauseAt: FRI_21 + 7 * 86_400_000,
      nextUnpauseAt: SUN_21,
      closestPauseAt: FRI_21,
      closestUnpauseAt: SUN_21,
      pausedAt: FRI_21,
      inPause: true,
    });
    await rejects(ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'market', direction: 'long', amount: D(100), leverage: D(2) }), MarketPausedError, 'market_paused');
    e.setIndexPrice(m.id, dec(2001), SUN_21);
    got = await ex.getMarket(m.id);
    expect(got.settings.isPaused).toBe(false);
    expect(got.schedule!.inPause).toBe(false);
    const ok = await ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    expect(ok.value.status).toBe('executed');
    expect(SCHEDULE_NONE_AHEAD).toBeGreaterThan(got.schedule!.nextPauseAt);
  });
  it('closeOnWeeklyBreak: positions force-closed at the break with weekly_session_risk_close; their stops cancelled with it', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'XAU', category: 'rwa', price: dec(2000), overrides: { closeOnWeeklyBreak: true } });
    const acc = e.openAccount({ userId: 'u', type: 'demo', initialBalance: dec(10000) });
    const ex = e.exchangeFor('u');
    await ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'market', direction: 'long', amount: D(500), leverage: D(5), stopTriggerPrice: D(1900) });
    const entry = await ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(1800) });
    const [p] = await ex.listActivePositions(acc.accountId, 'XAU');
    e.advanceTo(FRI_21 - 1);
    expect((await ex.listActivePositions(acc.accountId, 'XAU')).length).toBe(1);
    e.advanceTo(FRI_21);
    expect(await ex.listActivePositions(acc.accountId, 'XAU')).toEqual([]);
    const [ev] = await ex.getPositionHistory(p!.idx);
    expect([ev!.eventName, ev!.closeReason, ev!.order]).toEqual(['forceClose', 'weekly_session_risk_close', null]);
    const stop = (await ex.listOrderHistory(acc.accountId, 'XAU')).data.find((o) => o.type === 'stop')!;
    expect([stop.status, stop.reason]).toEqual(['canceled', 'weekly_session_risk_close']);
    expect((await ex.listActiveOrders(acc.accountId)).map((o) => o.id)).toEqual([entry.value.id]);
  });
  it('an empty schedule: zeros (no breaks at all)', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'XAG', category: 'rwa', price: dec(20), schedule: [] });
    e.addUser('u');
    const got = await e.exchangeFor('u').getMarket(m.id);
    expect(got.schedule).toEqual({ nextPauseAt: 0, nextUnpauseAt: 0, closestPauseAt: 0, closestUnpauseAt: 0, pausedAt: 0, inPause: false });
  });
});

describe('market reads', () => {
  it('reads follow flag changes and the caller; a read cannot alter the next one', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'BTC', price: dec(50000) });
    const acc = e.openAccount({ userId: 'u', type: 'real', initialBalance: dec(10000), rules: { maxLeverage: '3' } });
    const ex = e.exchangeFor('u');
    const flags = (x: typeof m) => [x.settings.isPaused, x.settings.isCloseOnly, x.settings.isClosed, x.settings.isZeroSpread];
    const before = await ex.getMarket(m.id);
    expect(flags(before)).toEqual([false, false, false, false]);
    e.setMarketFlags(m.id, { isCloseOnly: true });
    expect(flags(await ex.getMarket(m.id))).toEqual([false, true, false, false]);
    e.setMarketFlags(m.id, { isCloseOnly: false, isPaused: true });
    expect(flags(await ex.getMarket(m.id))).toEqual([true, false, false, false]);
    e.setMarketFlags(m.id, { isPaused: false });
    expect(flags(await ex.getMarket(m.id))).toEqual([false, false, false, false]);
    const mine = await ex.getMarket(m.id, { accountId: acc.accountId });
    expect(Object.keys(mine.settings.maxLeverageByAccount)).toEqual(['real']);
    expect(Object.keys((await ex.getMarket(m.id)).settings.maxLeverageByAccount).sort()).toEqual(['demo', 'real', 'tournament']);
    expect(() => {
      (before.config.tags as string[]).push('x');
    }).toThrow(TypeError);
    expect(() => {
      (before.settings as { isClosed: boolean }).isClosed = true;
    }).toThrow(TypeError);
    const again = await ex.getMarket(m.id);
    expect(again.config.tags).toEqual(m.config.tags);
    expect(again.settings.isClosed).toBe(false);
  });
  it('get with accountId resolves leverage for the account; hidden outside its category; list sorted by priority', async () => {
    const e = new Engine({ startMs: T0 });
    const btc = e.addMarket({ baseAsset: 'BTC', price: dec(50000), priority: 1 });
    const eth = e.addMarket({ baseAsset: 'ETH', price: dec(3000), priority: 5 });
    const gold = e.addMarket({ baseAsset: 'XAU', category: 'rwa', price: dec(2000) });
    const acc = e.openAccount({ userId: 'u', type: 'real', initialBalance: dec(10000), category: 'crypto', rules: { maxLeverage: '3' } });
    const ex = e.exchangeFor('u');
    const m = await ex.getMarket(btc.id, { accountId: acc.accountId });
    expect(Object.keys(m.settings.maxLeverageByAccount)).toEqual(['real']);
    expect(m.settings.maxLeverageByAccount['real']!.toString()).toBe('3');
    await rejects(ex.getMarket(gold.id, { accountId: acc.accountId }), NotFoundError, 'not_found');
    await rejects(ex.getMarket('nope'), NotFoundError, 'not_found');
    expect((await ex.listMarkets()).map((x) => x.id)).toEqual([eth.id, btc.id, gold.id]);
  });
});

describe('zero-cost preset', () => {
  it('no fee, spread, impact or funding; leverage 1 allowed; fills exactly at the index price', async () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'BTC', preset: 'zero-cost', price: dec(40000) });
    const acc = e.openAccount({ userId: 'u', type: 'demo', initialBalance: dec(10000) });
    const ex = e.exchangeFor('u');
    await ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'market', direction: 'long', amount: D(4000), leverage: D(1) });
    const [p] = await ex.listActivePositions(acc.accountId, 'BTC');
    expect(p!.size.toString()).toBe('0.1');
    expect(p!.fee.isZero()).toBe(true);
    e.setIndexPrice(m.id, dec(41000), T0 + 10 * HOUR);
    await ex.closeAllPositions(acc.accountId);
    const rs = await ex.getRiskStatus(acc.accountId);
    expect(rs.currentBalance.toString()).toBe('10100');
  });
});
