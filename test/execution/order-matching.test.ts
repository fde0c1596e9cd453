/**
 * When a write's answer is lost, the executor settles it by finding, among the orders the venue lists,
 * the one its request produced (`orderMatchesRequest`, `orderMatchesEdit`). A matcher too loose takes
 * another order for ours and the intent is never sent (an order lost); one too strict finds nothing and
 * the request is sent again (an order doubled). Each order here is the one the local engine made from
 * the executor's own request; the matcher must take it, and refuse it with any one field changed.
 */
import { describe, expect, it } from 'vitest';
import type { CreateOrderRequest, Order, Position } from '../../src/api/types.js';
import { Dec } from '../../src/core/decimal.js';
import { Engine } from '../../src/engine/index.js';
import { closeRequest, openRequest, orderMatchesEdit, orderMatchesRequest, protectiveRequest, trailingRequest } from '../../src/execution/requests.js';
import type { OpenIntent } from '../../src/strategy/intents.js';
import { START } from './helpers.js';

const d = (v: string | number) => new Dec(v);

function world() {
  const engine = new Engine({ startMs: START, seed: 'order-matching' });
  const btc = engine.addMarket({ baseAsset: 'BTC', price: d(100), schedule: null });
  const eth = engine.addMarket({ baseAsset: 'ETH', price: d(50), schedule: null });
  const user = engine.addUser();
  const account = engine.openAccount({ userId: user, type: 'demo', initialBalance: d(10_000) });
  const other = engine.openAccount({ userId: user, type: 'demo', initialBalance: d(10_000) });
  const ex = engine.exchangeFor(user);
  let n = 0;
  const open = (p: Partial<OpenIntent>): OpenIntent => ({
    id: `m-${++n}`, strategy: 's', accountId: account.accountId, asset: 'BTC', createdAt: engine.now(), kind: 'open',
    direction: 'long', entry: { type: 'market' }, sizing: { kind: 'quote', amount: d(100) }, leverage: d(2), ...p,
  });
  const create = async (req: CreateOrderRequest): Promise<Order> => (await ex.createOrder(req)).value;
  const position = async (): Promise<Position> => (await ex.listActivePositions(account.accountId, 'BTC'))[0]!;
  return { engine, btc, eth, account, other, ex, open, create, position };
}

/** `order` with one field changed. */
const changed = (order: Order, p: Partial<Order>): Order => ({ ...order, ...p });
const later = (order: Order, ms: number): Date => new Date(order.createdAt.getTime() + ms);

/** The changes every request must refuse: another account, market, type or direction, or an order placed before the request was stored. */
function commonRefusals(order: Order, w: ReturnType<typeof world>): [string, Order | { since: number }][] {
  return [
    ['another account', changed(order, { trader: w.other.accountId })],
    ['another market', changed(order, { market: w.eth.id })],
    ['another type', changed(order, { type: order.type === 'limit' ? 'market' : 'limit' })],
    ['the other direction', changed(order, { direction: order.direction === 'long' ? 'short' : 'long' })],
    ['placed 1 ms before the request was stored', { since: order.createdAt.getTime() + 1 }],
  ];
}

function expectRefused(req: CreateOrderRequest, order: Order, cases: [string, Order | { since: number }][]): void {
  const at = order.createdAt.getTime();
  for (const [what, c] of cases) {
    const refused = 'since' in c ? orderMatchesRequest(order, req, c.since) : orderMatchesRequest(c, req, at);
    expect(refused, `${req.type} ${req.sizeMode ?? 'quote'}: ${what}`).toBe(false);
  }
}

describe('recognising the order a request produced', () => {
  it('entries sized in quote: the order itself, created at the very millisecond the request was stored, and nothing that differs', async () => {
    const w = world();
    const requests = [
      openRequest(w.open({}), w.btc.id),
      openRequest(w.open({ entry: { type: 'limit', price: d(90) } }), w.btc.id),
      openRequest(w.open({ entry: { type: 'stop_market', trigger: d(110) } }), w.btc.id),
      openRequest(w.open({ entry: { type: 'stop_limit', trigger: d(110), limit: d(109) } }), w.btc.id),
    ];
    for (const req of requests) {
      const order = await w.create(req);
      // The key is stored before the request is sent, so the venue's time is never earlier; a tie is ours.
      expect(orderMatchesRequest(order, req, order.createdAt.getTime()), req.type).toBe(true);
      const cases = commonRefusals(order, w);
      cases.push(['another amount', changed(order, { amount: order.amount.plus(1) })]);
      if (req.triggerPrice) cases.push(['another trigger', changed(order, { triggerPrice: order.triggerPrice.plus(1) })]);
      expectRefused(req, order, cases);
    }
  });

  it('entries sized in base: the base size and the reserve both have to match', async () => {
    const w = world();
    for (const entry of [{ type: 'market' as const }, { type: 'limit' as const, price: d(90) }]) {
      const req = openRequest(w.open({ entry, sizing: { kind: 'base', size: d('0.5'), maxAmount: d(40) } }), w.btc.id);
      const order = await w.create(req);
      expect(order.sizeMode).toBe('base');
      expect(orderMatchesRequest(order, req, order.createdAt.getTime()), entry.type).toBe(true);
      const reserve = order.reservedAmount ?? order.amount;
      expectRefused(req, order, [
        ...commonRefusals(order, w),
        ['another base size', changed(order, { baseSize: order.baseSize!.plus('0.1') })],
        ['no base size', changed(order, { baseSize: null })],
        ['another reserve', changed(order, { reservedAmount: reserve.plus(1) })],
      ]);
      // Without a reserve on the order, its amount stands for it.
      expect(orderMatchesRequest(changed(order, { reservedAmount: null, amount: reserve }), req, order.createdAt.getTime())).toBe(true);
      expect(orderMatchesRequest(changed(order, { reservedAmount: null, amount: reserve.plus(1) }), req, order.createdAt.getTime())).toBe(false);
    }
  });

  it('stops, takes, trailing stops and market closes of a position: same position and size', async () => {
    const w = world();
    await w.create(openRequest(w.open({}), w.btc.id));
    const position = await w.position();
    const requests = [
      protectiveRequest(w.account.accountId, position, 'stop', d(80)),
      protectiveRequest(w.account.accountId, position, 'take', d(130)),
      trailingRequest(w.account.accountId, position, { offset: d(5) }),
    ];
    for (const req of requests) {
      const order = await w.create(req);
      expect(order.positionId).toBe(position.idx);
      expect(orderMatchesRequest(order, req, order.createdAt.getTime()), req.type).toBe(true);
      const cases = commonRefusals(order, w);
      cases.push(['another position', changed(order, { positionId: 'another' })], ['no position', changed(order, { positionId: null })]);
      cases.push(['another size', changed(order, { amount: order.amount.minus('0.0001') })]);
      if (req.triggerPrice) cases.push(['another trigger', changed(order, { triggerPrice: order.triggerPrice.plus(1) })]);
      expectRefused(req, order, cases);
    }
    // A close at market has no trigger to compare: any trigger the venue reports is the close's.
    const close = closeRequest({ id: 'c-1', strategy: 's', accountId: w.account.accountId, asset: 'BTC', createdAt: w.engine.now(), kind: 'close', direction: 'long' }, position);
    const closed = await w.create(close);
    expect(orderMatchesRequest(closed, close, closed.createdAt.getTime())).toBe(true);
    expect(orderMatchesRequest(changed(closed, { triggerPrice: d(123) }), close, closed.createdAt.getTime())).toBe(true);
    expectRefused(close, closed, [...commonRefusals(closed, w), ['another position', changed(closed, { positionId: 'another' })]]);
  });

  it('a stop the engine pushed out to its minimum distance is known by the trigger it was asked for', async () => {
    const w = world();
    await w.create(openRequest(w.open({}), w.btc.id));
    const req = protectiveRequest(w.account.accountId, await w.position(), 'stop', d('99.99'));
    const order = await w.create(req);
    // The engine moved it (ENGINE-MODEL's minimum stop distance); the spec keeps the asked trigger beside it.
    expect(order.triggerPrice.eq(req.triggerPrice!)).toBe(false);
    expect(order.requestedTriggerPrice?.eq(req.triggerPrice!)).toBe(true);
    expect(orderMatchesRequest(order, req, order.createdAt.getTime())).toBe(true);
    expect(orderMatchesRequest(changed(order, { requestedTriggerPrice: null }), req, order.createdAt.getTime())).toBe(false);
    expect(orderMatchesRequest(changed(order, { requestedTriggerPrice: d(98) }), req, order.createdAt.getTime())).toBe(false);
  });

  it('an edit: the order it produced, not the original, and nothing that differs', async () => {
    const w = world();
    await w.create(openRequest(w.open({}), w.btc.id));
    const original = await w.create(protectiveRequest(w.account.accountId, await w.position(), 'stop', d(80)));
    w.engine.advanceTo(w.engine.now() + 1_000);
    const since = w.engine.now();
    const edited = await w.ex.editOrder(original.id, { triggerPrice: d(85) });
    // The spec answers an edit with a new order id; the original is what the edit replaced.
    expect(edited.id).not.toBe(original.id);
    const trigger = d(85);
    expect(orderMatchesEdit(edited, original, trigger, since)).toBe(true);
    expect(orderMatchesEdit(edited, original, trigger, edited.createdAt.getTime())).toBe(true);
    const refusals: [string, Order, number][] = [
      ['the original itself', changed(edited, { id: original.id }), since],
      ['another account', changed(edited, { trader: w.other.accountId }), since],
      ['another market', changed(edited, { market: w.eth.id }), since],
      ['another type', changed(edited, { type: 'take' }), since],
      ['another position', changed(edited, { positionId: 'another' }), since],
      ['made before the edit was stored', edited, later(edited, 1).getTime()],
      ['another trigger', changed(edited, { triggerPrice: d(86) }), since],
    ];
    for (const [what, order, at] of refusals) expect(orderMatchesEdit(order, original, trigger, at), what).toBe(false);
    // A trigger the engine moved is known by the one asked for.
    expect(orderMatchesEdit(changed(edited, { triggerPrice: d(86), requestedTriggerPrice: d(85) }), original, trigger, since)).toBe(true);
  });
});
