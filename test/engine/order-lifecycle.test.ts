/**
 * Conformance: order types, triggers, spawned children, trailing stops, push-out, execution failures,
 * edits, cancels, both close-alls and their idempotency; every field of the Order record.
 */
import { describe, expect, it } from 'vitest';
import { IdempotencyInFlightError } from '../../src/api/errors.js';
import type { EngineEvent } from '../../src/engine/index.js';
import { D, FLAT, MIN, rejects, world } from './helpers.js';

const long100 = { type: 'market' as const, direction: 'long' as const, amount: D(100), leverage: D(5) };

describe('Order record fields', () => {
  it('a market order: every field as the spec defines it, compatibility constants included', async () => {
    const w = world();
    const { value: o } = await w.order(long100);
    expect(o.txId).toBe(o.id);
    expect(o.index).toBe(o.id);
    expect(o.trader).toBe(w.accountId);
    expect(o.market).toBe(w.market.id);
    expect(o.status).toBe('executed');
    expect(o.type).toBe('market');
    expect(o.triggerPrice.isZero()).toBe(true);
    expect(o.requestedTriggerPrice).toBeNull();
    expect(o.stopPrice.isZero()).toBe(true);
    expect(o.limitPrice.isZero()).toBe(true);
    expect(o.leverage!.toString()).toBe('5');
    expect(o.positionId).toBeNull();
    expect(o.parentOrderId).toBeNull();
    expect(o.expiration).toBeNull();
    expect(o.indexPrice!.toString()).toBe('50000');
    expect(o.settlementOraclePrice.toString()).toBe('1');
    expect(o.error).toBeNull();
    expect(o.executedAfterPause).toBe(false);
    expect(o.realizedPnl).toBeNull();
    expect(o.sizeMode).toBe('quote');
    expect(o.baseSize).toBeNull();
    expect(o.reservedAmount).toBeNull();
    expect(o.errorCode).toBeNull();
    expect(o.reason).toBeNull();
    expect(o.createdAt.getTime()).toBe(w.engine.now());
  });
  it('stop_market and stop_limit fill stopPrice and limitPrice as the spec says', async () => {
    const w = world();
    const sm = await w.order({ type: 'stop_market', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(51000) });
    expect([sm.value.stopPrice.toString(), sm.value.limitPrice.toString()]).toEqual(['51000', '51000']);
    const sl = await w.order({ type: 'stop_limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(51000), stopLimitPrice: D(50900) });
    expect([sl.value.stopPrice.toString(), sl.value.limitPrice.toString()]).toEqual(['51000', '50900']);
    const lim = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(49000) });
    expect([lim.value.stopPrice.toString(), lim.value.limitPrice.toString()]).toEqual(['0', '49000']);
  });
});

describe('triggers (ENGINE-MODEL table)', () => {
  it('limit long fires at or below its trigger; short at or above', async () => {
    const w = world({ market: { overrides: FLAT } });
    const l = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(49000) });
    const s = await w.order({ type: 'limit', direction: 'short', amount: D(100), leverage: D(2), triggerPrice: D(51000) });
    w.price('49001');
    expect((await w.ex.listActiveOrders(w.accountId)).length).toBe(2);
    w.price('49000');
    let active = await w.ex.listActiveOrders(w.accountId);
    expect(active.map((o) => o.id)).toEqual([s.value.id]);
    w.price('51000');
    active = await w.ex.listActiveOrders(w.accountId);
    expect(active).toEqual([]);
    const hist = await w.ex.listOrderHistory(w.accountId, 'BTC');
    expect(hist.data.map((o) => [o.id, o.status, o.indexPrice?.toString()])).toEqual([
      [s.value.id, 'executed', '51000'],
      [l.value.id, 'executed', '49000'],
    ]);
  });
  it('an order added to a market whose other orders have been watched since a step fires at its own trigger', async () => {
    // The market keeps the price band in which none of its orders fires, worked out at a step and
    // kept while its order list stands. An order is added to that list in place: the band must widen
    // to its trigger before the next step, not wait for the list to be replaced.
    const w = world({ market: { overrides: FLAT } });
    const s = await w.order({ type: 'limit', direction: 'short', amount: D(100), leverage: D(2), triggerPrice: D(51000) });
    w.price('50500');
    const l = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(49000) });
    w.price('49000');
    expect((await w.ex.listActiveOrders(w.accountId)).map((o) => o.id)).toEqual([s.value.id]);
    const hist = await w.ex.listOrderHistory(w.accountId, 'BTC');
    expect(hist.data.find((o) => o.id === l.value.id)).toMatchObject({ status: 'executed' });
  });

  it('stop_market long fires at or above; a triggered increase fills at the index price with spread', async () => {
    const w = world({ market: { overrides: { vpiSpread: '0.001', maxPriceImpact: '0' } } });
    await w.order({ type: 'stop_market', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(51000) });
    w.price('50999');
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    w.price('51500');
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    // buy fill at I × (1 + s): 51500 × 1.001
    expect(p!.notional.div(p!.size).toDecimalPlaces(0).toString()).toBe(D('51500').times('1.001').toDecimalPlaces(0).toString());
  });
  it('stop_limit becomes a limit child at stopLimitPrice with parentOrderId', async () => {
    const w = world({ market: { overrides: FLAT } });
    const sl = await w.order({ type: 'stop_limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(51000), stopLimitPrice: D(50800) });
    w.price('51200');
    const [child] = await w.ex.listActiveOrders(w.accountId);
    expect(child!.type).toBe('limit');
    expect(child!.parentOrderId).toBe(sl.value.id);
    expect(child!.triggerPrice.toString()).toBe('50800');
    expect(child!.amount.toString()).toBe('100');
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    w.price('50800');
    expect(await w.ex.listActiveOrders(w.accountId)).toEqual([]);
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    expect(p!.size.gt(0)).toBe(true);
  });
  it('attached stop/take spawn children for the whole position; a take closes it and the stop ends canceled_by_position', async () => {
    const w = world({ market: { overrides: FLAT } });
    const entry = await w.order({ ...long100, stopTriggerPrice: D(45000), takeTriggerPrice: D(55000) });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const children = await w.ex.listActiveOrders(w.accountId);
    expect(children.map((c) => [c.type, c.parentOrderId, c.positionId, c.amount.toString(), c.leverage]).sort()).toEqual([
      ['stop', entry.value.id, pos!.idx, pos!.size.toString(), null],
      ['take', entry.value.id, pos!.idx, pos!.size.toString(), null],
    ]);
    w.price('55000', 2 * MIN);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    const hist = await w.ex.listOrderHistory(w.accountId, 'BTC');
    const byType = Object.fromEntries(hist.data.map((o) => [o.type, o]));
    expect(byType['take']!.status).toBe('executed');
    expect(byType['take']!.realizedPnl!.gt(0)).toBe(true);
    expect(byType['stop']!.status).toBe('canceled_by_position');
  });
  it('stop of a short fires at or above, take of a short at or below', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'short', amount: D(100), leverage: D(2), stopTriggerPrice: D(52000) });
    w.price('51999', MIN);
    expect((await w.ex.listActivePositions(w.accountId, 'BTC')).length).toBe(1);
    w.price('52000', MIN);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
  });
  it('minimum stop distance pushes a close trigger out and keeps requestedTriggerPrice', async () => {
    const w = world({ market: { overrides: { ...FLAT, minStopTriggerDistanceRatio: '0.01' } } });
    await w.order(long100);
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const s = await w.order({ type: 'stop', direction: 'long', amount: pos!.size, triggerPrice: D(49900), positionId: pos!.idx });
    expect(s.value.requestedTriggerPrice!.toString()).toBe('49900');
    expect(s.value.triggerPrice.toString()).toBe('49500');
    const far = await w.order({ type: 'stop', direction: 'long', amount: pos!.size, triggerPrice: D(49000), positionId: pos!.idx });
    expect(far.value.requestedTriggerPrice).toBeNull();
    expect(far.value.triggerPrice.toString()).toBe('49000');
  });
  it('trailing stop with activation price and absolute offset', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order(long100);
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const t = await w.order({ type: 'trailing_stop', direction: 'long', amount: pos!.size, positionId: pos!.idx, trailingStopActivationPrice: D(51000), trailingStopOffset: D(500) });
    expect(t.value.triggerPrice.isZero()).toBe(true);
    expect(t.value.trailingStopOffset.toString()).toBe('500');
    expect(t.value.trailingStopOffsetPercent.isZero()).toBe(true);
    w.price('49000', MIN); // not active yet: no fire
    w.price('51000', MIN); // activates, peak 51000 → level 50500
    let [o] = await w.ex.listActiveOrders(w.accountId);
    expect(o!.triggerPrice.toString()).toBe('50500');
    w.price('52000', MIN); // peak 52000 → level 51500
    [o] = await w.ex.listActiveOrders(w.accountId);
    expect(o!.triggerPrice.toString()).toBe('51500');
    w.price('51600', MIN);
    expect((await w.ex.listActivePositions(w.accountId, 'BTC')).length).toBe(1);
    w.price('51500', MIN);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
  });
  it('trailing stop of a short with percent offset trails from creation', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ ...long100, direction: 'short' });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const t = await w.order({ type: 'trailing_stop', direction: 'short', amount: pos!.size, positionId: pos!.idx, trailingStopOffsetPercent: D('0.02') });
    expect(t.value.triggerPrice.toString()).toBe('51000');
    w.price('48000', MIN); // trough 48000 → 48960
    w.price('48950', MIN);
    expect((await w.ex.listActivePositions(w.accountId, 'BTC')).length).toBe(1);
    w.price('48960', MIN);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
  });
  it('triggered orders fire in creation order within one price step', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order(long100);
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const half = pos!.size.div(2);
    const first = await w.order({ type: 'take', direction: 'long', amount: half, triggerPrice: D(52000), positionId: pos!.idx });
    const second = await w.order({ type: 'take', direction: 'long', amount: pos!.size, triggerPrice: D(51000), positionId: pos!.idx });
    w.price('53000', MIN);
    const hist = await w.ex.listOrderHistory(w.accountId, 'BTC');
    const f = hist.data.find((o) => o.id === first.value.id)!;
    const s = hist.data.find((o) => o.id === second.value.id)!;
    expect(f.status).toBe('executed');
    expect(s.status).toBe('executed');
    const events = await w.ex.getPositionHistory(pos!.idx);
    expect(events[0]!.order!.id).toBe(second.value.id);
    expect(events[1]!.order!.id).toBe(first.value.id);
    expect(events[1]!.exchangedBase.toString()).toBe(half.toDecimalPlaces(9, 1).toString());
  });
});

describe('execution-time failures end canceled_by_error with errorCode and release the reserve', () => {
  it('slippage_tolerance when the size obtained is below expectedAmount', async () => {
    const w = world({ market: { overrides: { vpiSpread: '0.001', maxPriceImpact: '0' } } });
    const o = await w.order({ ...long100, expectedAmount: D('0.01') });
    expect(o.value.status).toBe('canceled_by_error');
    expect(o.value.errorCode).toBe('slippage_tolerance');
    const ok = await w.order({ ...long100, expectedAmount: D('0.0099') });
    expect(ok.value.status).toBe('executed');
  });
  it('insufficient_reserve_at_execution for a base order whose price moved', async () => {
    const w = world({ market: { overrides: FLAT } });
    const o = await w.order({ type: 'limit', direction: 'short', amount: D(101), leverage: D(5), triggerPrice: D(50000), sizeMode: 'base', baseSize: D('0.01') });
    expect(o.value.reservedAmount!.toString()).toBe('101');
    w.price('60000');
    const [h] = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data;
    expect(h!.status).toBe('canceled_by_error');
    expect(h!.errorCode).toBe('insufficient_reserve_at_execution');
    expect((await w.ex.getRiskStatus(w.accountId)).currentBalance.toString()).toBe('10000');
    await expect(w.order({ ...long100, amount: D(10000), leverage: D(1) })).resolves.toBeTruthy();
  });
  it('a base order that executes: amount becomes what was spent, reservedAmount keeps the reserve', async () => {
    const w = world({ market: { overrides: FLAT } });
    const o = await w.order({ type: 'market', direction: 'long', amount: D(150), leverage: D(5), sizeMode: 'base', baseSize: D('0.01') });
    expect(o.value.status).toBe('executed');
    const notional = D('0.01').times(50000);
    const spent = notional.div(5).plus(notional.times('0.00008'));
    expect(o.value.amount.toString()).toBe(spent.toString());
    expect(o.value.reservedAmount!.toString()).toBe('150');
    expect(o.value.baseSize!.toString()).toBe('0.01');
  });
  it('order_below_min_notional, order_exceeds_market_depth, order_zero_size_at_execution, market_close_only_at_execution', async () => {
    const w = world({ market: { overrides: { vpiSpread: '0', vpiMarketDepthLong: '1000', minNotional: '10' } } });
    const small = await w.order({ ...long100, amount: D(1) });
    expect(small.value.errorCode).toBe('order_below_min_notional');
    const deep = await w.order({ ...long100, amount: D(300) });
    expect(deep.value.errorCode).toBe('order_exceeds_market_depth');
    const z = world({ market: { overrides: { ...FLAT, minNotional: '0' } } });
    const tiny = await z.order({ type: 'limit', direction: 'long', amount: D('0.00000001'), leverage: D(1), triggerPrice: D(50000) });
    z.price('50000');
    const [t] = (await z.ex.listOrderHistory(z.accountId, 'BTC')).data;
    expect(t!.id).toBe(tiny.value.id);
    expect(t!.errorCode).toBe('order_zero_size_at_execution');
    const lim = await z.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(1), triggerPrice: D(49000) });
    z.engine.setMarketFlags(z.market.id, { isCloseOnly: true });
    z.price('48000');
    const [c] = (await z.ex.listOrderHistory(z.accountId, 'BTC')).data;
    expect(c!.id).toBe(lim.value.id);
    expect(c!.status).toBe('canceled_by_error');
    expect(c!.errorCode).toBe('market_close_only_at_execution');
  });
  it('order_exceeds_max_open_notional at execution when the cap filled meanwhile', async () => {
    const w = world({ market: { overrides: { ...FLAT, maxOpenNotionalLong: '800' } } });
    const lim = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(5), triggerPrice: D(49000) });
    await w.order({ ...long100 });
    w.price('49000');
    const h = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data.find((o) => o.id === lim.value.id)!;
    expect(h.errorCode).toBe('order_exceeds_max_open_notional');
  });
  it('deferred orders do not fire while the market is paused', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(49000) });
    w.engine.setMarketFlags(w.market.id, { isPaused: true });
    w.price('48000');
    expect((await w.ex.listActiveOrders(w.accountId)).length).toBe(1);
    w.engine.setMarketFlags(w.market.id, { isPaused: false });
    w.price('48000');
    expect((await w.ex.listActiveOrders(w.accountId)).length).toBe(0);
  });
});

describe('close-alls', () => {
  async function setup() {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ ...long100, stopTriggerPrice: D(45000) });
    await w.order({ ...long100, direction: 'short', takeTriggerPrice: D(45000) });
    const entry = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(40000) });
    return { w, entry: entry.value };
  }
  it('positions close-all: stop/take of the closed positions → canceled_by_position, entries left alone', async () => {
    const { w, entry } = await setup();
    const r = await w.ex.closeAllPositions(w.accountId);
    expect(r.idempotency.replayed).toBe(false);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    const active = await w.ex.listActiveOrders(w.accountId);
    expect(active.map((o) => o.id)).toEqual([entry.id]);
    const hist = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data;
    expect(hist.filter((o) => o.status === 'canceled_by_position').map((o) => o.type).sort()).toEqual(['stop', 'take']);
  });
  it('account close-all: every order cancelled, then every position closed', async () => {
    const { w } = await setup();
    await w.ex.closeAllAccount(w.accountId);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    expect(await w.ex.listActiveOrders(w.accountId)).toEqual([]);
    const hist = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data;
    expect(hist.filter((o) => o.status === 'canceled').length).toBe(3);
    expect(hist.filter((o) => o.status === 'canceled_by_position').length).toBe(0);
    const rs = await w.ex.getRiskStatus(w.accountId);
    expect(rs.currentBalance.toString()).toBe(rs.currentEquity.toString());
  });
  it('close-all idempotency: 1-minute replay window, in-flight duplicate refused', async () => {
    const { w } = await setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let n = 0;
    const ex = w.engine.exchangeFor(w.user, { beforeAct: async () => { if (++n === 1) await gate; } });
    const first = ex.closeAllPositions(w.accountId, { idempotencyKey: 'c' });
    await rejects(ex.closeAllPositions(w.accountId, { idempotencyKey: 'c' }), IdempotencyInFlightError, 'idempotency_key_in_flight');
    release();
    await first;
    await w.order(long100);
    const replay = await ex.closeAllPositions(w.accountId, { idempotencyKey: 'c' });
    expect(replay.idempotency.replayed).toBe(true);
    expect((await w.ex.listActivePositions(w.accountId, 'BTC')).length).toBe(1);
    w.engine.advanceTo(w.engine.now() + MIN);
    const again = await ex.closeAllPositions(w.accountId, { idempotencyKey: 'c' });
    expect(again.idempotency.replayed).toBe(false);
    expect(await w.ex.listActivePositions(w.accountId, 'BTC')).toEqual([]);
    const acct = await ex.closeAllAccount(w.accountId, { idempotencyKey: 'c' });
    expect(acct.idempotency.replayed).toBe(false); // another route
  });
});

describe('engine events', () => {
  it('publishes order status changes, position events and account events in order', async () => {
    const w = world({ market: { overrides: FLAT } });
    const seen: string[] = [];
    const off = w.engine.onEvent((e: EngineEvent) => {
      if (e.kind === 'order') seen.push(`order:${e.order.type}:${e.order.status}`);
      else if (e.kind === 'position') seen.push(`position:${e.event.eventName}:v${e.event.version}`);
      else seen.push(`account:${e.event.eventType}`);
    });
    await w.order({ ...long100, takeTriggerPrice: D(51000) });
    w.price('51000', 2 * MIN);
    off();
    w.price('50000', MIN);
    expect(seen).toEqual([
      'order:market:active',
      'position:increasePosition:v1',
      'order:market:executed',
      'order:take:active',
      'position:closePosition:v2',
      'order:take:executed',
    ]);
  });
});
