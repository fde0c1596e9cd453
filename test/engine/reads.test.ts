/**
 * Conformance: history and chart reads: order history (final states, no canceled_by_update, paging,
 * newest first), active orders, position history, chart events and buckets with their five rules.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/api/errors.js';
import { D, FLAT, HOUR, MIN, T0, rejects, world } from './helpers.js';

describe('order history', () => {
  it('final states only, canceled_by_update left out, newest first, paged with totalCount', async () => {
    const w = world({ market: { overrides: FLAT } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const o = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(40000 + i) });
      ids.push(o.value.id);
      w.engine.advanceTo(w.engine.now() + 1000);
    }
    const edited = await w.ex.editOrder(ids[4]!, { triggerPrice: D(39000) });
    for (const id of ids.slice(0, 4)) await w.ex.cancelOrder(id);
    const mkt = await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    const p1 = await w.ex.listOrderHistory(w.accountId, 'BTC', { limit: 2 });
    expect(p1.totalCount).toBe(5);
    expect(p1.data.map((o) => o.id)).toEqual([mkt.value.id, ids[3]]);
    const p2 = await w.ex.listOrderHistory(w.accountId, 'BTC', { limit: 2, offset: 2 });
    expect(p2.data.map((o) => o.id)).toEqual([ids[2], ids[1]]);
    const p3 = await w.ex.listOrderHistory(w.accountId, 'BTC', { limit: 2, offset: 4 });
    expect(p3.data.map((o) => o.id)).toEqual([ids[0]]);
    expect([...p1.data, ...p2.data, ...p3.data].some((o) => o.id === ids[4] || o.id === edited.id)).toBe(false);
    await rejects(w.ex.listOrderHistory(w.accountId, 'NOPE'), NotFoundError, 'not_found');
    await rejects(w.ex.listOrderHistory(w.accountId, 'BTC', { limit: 0 }), ValidationError, 'limit_out_of_range');
  });
  it('active orders newest first: entries plus stop/take/trailing of open positions', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(2), stopTriggerPrice: D(40000) });
    w.engine.advanceTo(w.engine.now() + 1000);
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    const tr = await w.order({ type: 'trailing_stop', direction: 'long', amount: pos!.size, positionId: pos!.idx, trailingStopOffset: D(1000) });
    w.engine.advanceTo(w.engine.now() + 1000);
    const lim = await w.order({ type: 'limit', direction: 'short', amount: D(100), leverage: D(2), triggerPrice: D(60000) });
    const active = await w.ex.listActiveOrders(w.accountId);
    expect(active.map((o) => o.type)).toEqual(['limit', 'trailing_stop', 'stop']);
    expect(active[0]!.id).toBe(lim.value.id);
    expect(active[1]!.id).toBe(tr.value.id);
  });
});

describe('position history', () => {
  it('newest first, every event with the order that produced it; payFunding left out; 404 for none', async () => {
    const w = world({ market: { overrides: FLAT } });
    const open = await w.order({ type: 'market', direction: 'short', amount: D(1000), leverage: D(2) });
    w.engine.advanceTo(T0 + 8 * HOUR);
    const inc = await w.order({ type: 'market', direction: 'short', amount: D(500), leverage: D(2) });
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.price('49000', 2 * MIN);
    const part = await w.order({ type: 'take', direction: 'short', amount: pos!.size.div(4), triggerPrice: D(0), positionId: pos!.idx });
    const hist = await w.ex.getPositionHistory(pos!.idx);
    expect(hist.map((e) => e.eventName)).toEqual(['closePosition', 'increasePosition', 'increasePosition']);
    expect(hist.map((e) => e.order!.id)).toEqual([part.value.id, inc.value.id, open.value.id]);
    // versions count every event, funding included (1 open, 2 funding, 3 increase, 4 close)
    expect(hist.map((e) => e.version)).toEqual([4, 3, 1]);
    expect(hist[0]!.holdingTimeMs).toBe(String(2 * MIN));
    await rejects(w.ex.getPositionHistory('nope'), NotFoundError, 'not_found');
  });
});

describe('chart events', () => {
  async function trades() {
    const w = world({ market: { overrides: FLAT }, account: { rules: { maxDailyDrawdown: null, maxTotalDrawdown: null } } });
    await w.order({ type: 'market', direction: 'long', amount: D(1000), leverage: D(2) }); // open at T0
    w.price('50100', MIN);
    await w.order({ type: 'market', direction: 'long', amount: D(500), leverage: D(2) }); // increase at T0+1m
    const [pos] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.price('50200', 2 * MIN);
    await w.order({ type: 'take', direction: 'long', amount: pos!.size.div(2), triggerPrice: D(0), positionId: pos!.idx }); // decrease at T0+3m
    w.price('50300', MIN);
    await w.order({ type: 'take', direction: 'long', amount: pos!.size, triggerPrice: D(0), positionId: pos!.idx }); // close at T0+4m
    await w.order({ type: 'market', direction: 'short', amount: D(1000), leverage: D(5) }); // open short at T0+4m
    w.price('62000', 6 * MIN); // short liquidated at T0+10m
    return w;
  }
  it('increases, decreases, closes and liquidations, newest first, inclusive range, paged', async () => {
    const w = await trades();
    const s = T0 / 1000;
    const all = await w.ex.listChartEvents(w.accountId, 'BTC', { executedFrom: s, executedTo: s + 3600 });
    expect(all.totalCount).toBe(6);
    expect(all.data.map((e) => `${e.direction}:${e.eventName}`)).toEqual(['short:liquidation', 'short:open', 'long:close', 'long:decrease', 'long:increase', 'long:open']);
    expect(all.data.map((e) => e.executedAt)).toEqual([s + 600, s + 240, s + 240, s + 180, s + 60, s]);
    expect(all.data[4]!.price.toDecimalPlaces(0).toString()).toBe('50100');
    expect(all.data.every((e) => e.asset === 'BTC' && e.size.gt(0))).toBe(true);
    const range = await w.ex.listChartEvents(w.accountId, 'BTC', { executedFrom: s + 60, executedTo: s + 180, limit: 1, offset: 1 });
    expect(range.totalCount).toBe(2);
    expect(range.data.map((e) => e.eventName)).toEqual(['increase']);
    await rejects(w.ex.listChartEvents(w.accountId, 'BTC', { executedFrom: s, executedTo: s + 1, limit: 1001 }), ValidationError, 'limit_out_of_range');
  });
  it('buckets: candle starts at multiples of the resolution, [from, to], empty candles omitted, ≤ 5 per side newest first, 350-candle limit', async () => {
    const w = await trades();
    const s = T0 / 1000;
    const b = await w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '5', from: s, to: s + 3600 });
    expect(b.map((x) => x.time)).toEqual([s, s + 600]);
    // first 5-minute candle: long open/increase (buy), long decrease/close (sell), short open (sell)
    expect(b[0]!.buy.totalCount).toBe(2);
    expect(b[0]!.buy.events.map((e) => e.eventName)).toEqual(['increase', 'open']);
    expect(b[0]!.sell.totalCount).toBe(3);
    expect(b[0]!.sell.events.map((e) => `${e.direction}:${e.eventName}`)).toEqual(['short:open', 'long:close', 'long:decrease']);
    // a short's liquidation buys back
    expect(b[1]!.buy.events.map((e) => e.eventName)).toEqual(['liquidation']);
    expect(b[1]!.sell.totalCount).toBe(0);
    // `to` is the start of the last candle: the candle at s+600 is left out with to = s+599
    const cut = await w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '5', from: s, to: s + 599 });
    expect(cut.map((x) => x.time)).toEqual([s]);
    const ok = await w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '1', from: s, to: s + 350 * 60 });
    expect(ok.length).toBeGreaterThan(0);
    await rejects(w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '1', from: s, to: s + 351 * 60 }), ValidationError, 'chart_range_too_large');
    await rejects(w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '7' as never, from: s, to: s }), ValidationError, 'resolution_invalid');
    await rejects(w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '1', from: s + 60, to: s }), ValidationError, 'chart_range_invalid');
    await rejects(w.ex.listChartEvents(w.accountId, 'BTC', { executedFrom: 0.5, executedTo: s }), ValidationError, 'chart_range_invalid');
    const daily = await w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '1D', from: s, to: s });
    expect(daily.map((x) => x.time)).toEqual([s]);
    expect(daily[0]!.buy.totalCount + daily[0]!.sell.totalCount).toBe(6);
  });
  it('at most 5 events per side, with the count of all', async () => {
    const w = world({ market: { overrides: FLAT } });
    for (let i = 0; i < 7; i++) {
      await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
      w.engine.advanceTo(w.engine.now() + 1000);
    }
    const s = T0 / 1000;
    const [b] = await w.ex.getChartEventBuckets(w.accountId, 'BTC', { resolution: '60', from: s, to: s });
    expect(b!.buy.totalCount).toBe(7);
    expect(b!.buy.events.map((e) => e.executedAt)).toEqual([s + 6, s + 5, s + 4, s + 3, s + 2]);
  });
});
