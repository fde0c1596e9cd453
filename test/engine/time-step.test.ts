/**
 * Conformance: the order of events inside one time step (ENGINE-MODEL): time (funding, day rollover)
 * first, then the price (liquidations, then triggered orders in creation order, then rule failures);
 * plus the engine's refusals of bad caller input.
 */
import { describe, expect, it } from 'vitest';
import { Dec, dec } from '../../src/core/decimal.js';
import { ConfigError } from '../../src/core/errors.js';
import { Engine } from '../../src/engine/index.js';
import { D, DAY, FLAT, MIN, T0, world } from './helpers.js';

describe('order of events inside one time step', () => {
  it('funding settles at the boundary with the price before the new one applies', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.engine.setIndexPrice(w.market.id, dec(60000), Date.UTC(2024, 0, 1, 8, 0, 30));
    const [ev] = (await w.ex.listActivePositions(w.accountId, 'BTC'));
    const paid = p!.size.times(50000).times('0.0003').toDecimalPlaces(9, Dec.ROUND_DOWN);
    expect(ev!.funding!.toString()).toBe(paid.neg().toString());
  });
  it('the day rolls before the price: the new day starts at the equity of the old price', async () => {
    const w = world({ market: { overrides: { ...FLAT, fundingRate: '0' } } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5) });
    w.price('50500', MIN);
    const before = await w.ex.getRiskStatus(w.accountId);
    w.engine.setIndexPrice(w.market.id, dec(51000), T0 + DAY + 5000);
    const after = await w.ex.getRiskStatus(w.accountId);
    expect(after.dayStartEquity.toString()).toBe(before.currentEquity.toString());
    expect(after.currentEquity.gt(before.currentEquity)).toBe(true);
  });
  it('liquidation comes before the triggered stop of the same position', async () => {
    const w = world({ market: { overrides: FLAT }, account: { rules: { maxDailyDrawdown: null, maxTotalDrawdown: null } } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(5), stopTriggerPrice: D(43000) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.price('40000', MIN); // below both the stop (43000) and the liquidation price (≈ 42105)
    const [ev] = await w.ex.getPositionHistory(p!.idx);
    expect(ev!.eventName).toBe('liquidate');
    const stop = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data.find((o) => o.type === 'stop')!;
    expect(stop.status).toBe('canceled_by_position');
  });
  it('triggered orders run before the rule failure of the same step', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) });
    const lim = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(47000) });
    w.price('47000', MIN); // the limit fires (grows the long), then the daily drawdown fails the account
    const acc = w.engine.getAccount(w.accountId)!;
    expect(acc.status).toBe('failed');
    const o = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data.find((x) => x.id === lim.value.id)!;
    expect(o.status).toBe('executed');
    const events = (await w.ex.listChartEvents(w.accountId, 'BTC', { executedFrom: 0, executedTo: 2e9 })).data;
    expect(events.map((e) => `${e.direction}:${e.eventName}`)).toEqual(['long:close', 'long:increase', 'long:open']);
  });
});

describe('rules after requests', () => {
  it('a request whose fee takes equity below the daily floor fails the account at once', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    // the price at which equity is 9500.3, just above the 95% daily floor
    const price = D(50000).plus(D('9500.3').minus(D(10000).minus(p!.fee)).div(p!.size)).toDecimalPlaces(2, Dec.ROUND_CEIL);
    w.price(price.toString(), 2 * MIN);
    expect(w.engine.getAccount(w.accountId)!.status).toBe('active');
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.currentEquity.minus(9500).lt(1)).toBe(true);
    await w.order({ type: 'market', direction: 'long', amount: D(2000), leverage: D(5) }); // fee ≈ 0.8
    const acc = w.engine.getAccount(w.accountId)!;
    expect([acc.status, acc.failureReason]).toEqual(['failed', 'max_daily_drawdown']);
  });
});

describe('bad caller input is refused with what and where', () => {
  it('time never moves back; prices must be positive; unknown markets and accounts are named', () => {
    const e = new Engine({ startMs: T0 });
    const m = e.addMarket({ baseAsset: 'BTC', price: dec(1) });
    e.setIndexPrice(m.id, dec(2), T0 + 1000);
    expect(() => e.setIndexPrice(m.id, dec(3), T0)).toThrow(/cannot move back/);
    expect(() => e.setIndexPrice(m.id, dec(0), T0 + 2000)).toThrow(/above 0/);
    expect(() => e.setIndexPrice('nope', dec(1), T0 + 2000)).toThrow(/no market "nope"/);
    expect(() => e.setAccountStatus('nope', 'active')).toThrow(/no account "nope"/);
  });
  it('account specs: unknown phase or type, non-positive balance → ConfigError with the key', () => {
    const e = new Engine({ startMs: T0 });
    expect(() => e.openAccount({ userId: 'u', type: 'real', phase: 'nope', initialBalance: dec(1) })).toThrow(ConfigError);
    expect(() => e.openAccount({ userId: 'u', type: 'real', initialBalance: dec(0) })).toThrow(/account\.initialBalance/);
    expect(() => e.openAccount({ userId: 'u', type: 'x' as never, initialBalance: dec(1) })).toThrow(/account\.type/);
    expect(() => e.openAccount({ userId: 'u', type: 'real', initialBalance: dec(1), rules: { maxLeverage: 'ten' } })).toThrow(/account\.rules\.maxLeverage/);
    expect(() => e.openAccount({ userId: 'u', type: 'real', initialBalance: dec(1), rules: { consistencyLimit: '-1' } })).toThrow(/account\.rules\.consistencyLimit/);
    expect(e.openAccount({ userId: 'u', type: 'real', initialBalance: dec(1), rules: { maxLeverage: '3' } }).status).toBe('active');
  });
  it('presets are checked at construction, naming the key', () => {
    expect(() => new Engine({ presets: { phases: { active_evaluation: { next: 'nowhere' } } } })).toThrow(/phases\.active_evaluation\.next/);
    expect(() => new Engine({ presets: { markets: { crypto: { fee: '-0.1' } } } })).toThrow(/markets\.crypto\.fee/);
    expect(() => new Engine({ presets: { markets: { crypto: { fundingIntervalMs: 0 } } } })).toThrow(/markets\.crypto\.fundingIntervalMs/);
    expect(() => new Engine({ presets: { limits: { dayMs: -1 } } })).toThrow(/limits\.dayMs/);
  });
  it('preset overrides merge per field and reach the market record', () => {
    const e = new Engine({ startMs: T0, presets: { markets: { crypto: { fee: '0.0002' } } } });
    const m = e.addMarket({ baseAsset: 'BTC', price: dec(1) });
    expect(m.settings.fee.toString()).toBe('0.0002');
    expect(m.settings.maintenanceMarginRatio.toString()).toBe('0.05');
  });
});
