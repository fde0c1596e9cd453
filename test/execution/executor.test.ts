import { describe, expect, it } from 'vitest';
import type { CreateOrderRequest } from '../../src/api/types.js';
import { Dec } from '../../src/core/decimal.js';
import { ServerError, UnauthorizedError } from '../../src/api/errors.js';
import { ConfigError } from '../../src/core/errors.js';
import type { ExecutorOptions } from '../../src/execution/executor.js';
import { idempotencyKey } from '../../src/execution/idempotency.js';
import { openRequest } from '../../src/execution/requests.js';
import type { IntentUpdate } from '../../src/execution/types.js';
import type { OpenIntent } from '../../src/strategy/intents.js';
import { gate } from './fake-exchange.js';
import { cancelIntent, closeAllIntent, closeIntent, openIntent, protectIntent, setup } from './helpers.js';

const body = (c: { args: unknown[] } | undefined) => c?.args[0] as CreateOrderRequest;

describe('Executor: turning intents into calls', () => {
  it('open: POST /orders with type, sizing, leverage, attached stop/take and expectedAmount from minSize', async () => {
    const { exchange, executor } = setup();
    const intent = openIntent({
      entry: { type: 'limit', price: new Dec('99.5') },
      sizing: { kind: 'quote', amount: new Dec('250') },
      leverage: new Dec(3),
      stopLoss: new Dec(95),
      takeProfit: new Dec(110),
      minSize: new Dec('7.4'),
    });
    const state = await executor.submit(intent);
    expect(state.status).toBe('done');
    const sent = body(exchange.callsOf('createOrder')[0]);
    expect(sent).toMatchObject({ accountId: 'acc-1', marketId: 'm-btc', type: 'limit', direction: 'long' });
    expect([sent.amount, sent.leverage, sent.triggerPrice, sent.stopTriggerPrice, sent.takeTriggerPrice, sent.expectedAmount].map(String)).toEqual([
      '250', '3', '99.5', '95', '110', '7.4',
    ]);
    expect(sent.sizeMode).toBeUndefined();
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0]?.id).toBe([...exchange.orders.keys()][0]);
    expect(exchange.callsOf('createOrder')[0]?.key).toBe(idempotencyKey(intent.id, 'create'));
  });

  it('open sized in base: sizeMode base, baseSize, amount = the reserve; stop_limit carries both prices', async () => {
    const { exchange, executor } = setup();
    await executor.submit(
      openIntent({
        direction: 'short',
        entry: { type: 'stop_limit', trigger: new Dec(90), limit: new Dec('90.5') },
        sizing: { kind: 'base', size: new Dec('0.25'), maxAmount: new Dec(30) },
      }),
    );
    const sent = body(exchange.callsOf('createOrder')[0]);
    expect(sent.sizeMode).toBe('base');
    expect([sent.baseSize, sent.amount, sent.triggerPrice, sent.stopLimitPrice].map(String)).toEqual(['0.25', '30', '90', '90.5']);
  });

  it('close: a take without trigger for the whole position, or for the size asked', async () => {
    const { exchange, executor } = setup();
    const pos = exchange.addPosition({ direction: 'long', size: new Dec('1.5') });
    expect((await executor.submit(closeIntent({ size: new Dec('0.5') }))).status).toBe('done');
    expect((await executor.submit(closeIntent())).status).toBe('done');
    const [partial, full] = exchange.callsOf('createOrder').map(body);
    expect(partial).toMatchObject({ type: 'take', direction: 'long', positionId: pos.idx });
    expect(partial?.triggerPrice?.isZero()).toBe(true);
    expect(partial?.amount.toFixed()).toBe('0.5');
    expect(full?.amount.toFixed()).toBe('1');
    const none = await executor.submit(closeIntent({ direction: 'short' }));
    expect(none).toMatchObject({ status: 'rejected', code: 'position_not_found' });
  });

  it('protect: attaches, moves (tracking the replacement id) and removes protective orders', async () => {
    const { exchange, executor } = setup();
    const pos = exchange.addPosition({ direction: 'long', size: new Dec(2) });
    const take = exchange.addOrder({ type: 'take', direction: 'long', amount: new Dec(2), positionId: pos.idx, triggerPrice: new Dec(120) });
    const trailing = exchange.addOrder({ type: 'trailing_stop', direction: 'long', amount: new Dec(2), positionId: pos.idx, trailingStopOffset: new Dec(5) });

    const first = await executor.submit(
      protectIntent({ stopLoss: new Dec(90), takeProfit: new Dec(125), trailingStop: null }),
    );
    expect(first.status).toBe('done');
    const stop = body(exchange.callsOf('createOrder')[0]);
    expect(stop).toMatchObject({ type: 'stop', positionId: pos.idx, direction: 'long' });
    expect([stop.triggerPrice, stop.amount].map(String)).toEqual(['90', '2']);
    expect(exchange.callsOf('editOrder')[0]?.args[0]).toBe(take.id);
    expect(exchange.callsOf('cancelOrder')[0]?.args[0]).toBe(trailing.id);
    const moved = first.orders.find((o) => o.replaces === take.id);
    expect(moved?.order.triggerPrice.toFixed()).toBe('125');
    expect(first.orders.find((o) => o.id === take.id)?.replacedBy).toBe(moved?.id);
    expect(exchange.orders.get(moved!.id)?.status).toBe('active');

    // Same request again: nothing to change, nothing sent.
    const writes = exchange.calls.filter((c) => ['createOrder', 'editOrder', 'cancelOrder'].includes(c.op)).length;
    await executor.submit(protectIntent({ stopLoss: new Dec(90), takeProfit: new Dec(125) }));
    expect(exchange.calls.filter((c) => ['createOrder', 'editOrder', 'cancelOrder'].includes(c.op)).length).toBe(writes);

    // A trailing stop: created with its offset.
    await executor.submit(protectIntent({ trailingStop: { offsetPercent: new Dec('0.02') } }));
    const t = body(exchange.callsOf('createOrder').at(-1));
    expect(t.type).toBe('trailing_stop');
    expect(t.trailingStopOffsetPercent?.toFixed()).toBe('0.02');
  });

  it("protect: touches only its own position's orders, keeps what already matches, replaces a take made without a trigger", async () => {
    const { exchange, executor } = setup();
    // A hedged book: the short's protective orders share the market, the account and the types.
    const long = exchange.addPosition({ direction: 'long', size: new Dec(2) });
    const short = exchange.addPosition({ direction: 'short', size: new Dec(1) });
    const onShort = [
      exchange.addOrder({ type: 'stop', direction: 'short', amount: new Dec(1), positionId: short.idx, triggerPrice: new Dec(110) }),
      exchange.addOrder({ type: 'take', direction: 'short', amount: new Dec(1), positionId: short.idx, triggerPrice: new Dec(80) }),
      exchange.addOrder({ type: 'trailing_stop', direction: 'short', amount: new Dec(1), positionId: short.idx, trailingStopOffset: new Dec(5) }),
    ];
    // The venue pushed this stop out to its minimum distance: asked for at 90, it stands at 89.
    const stop = exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(2), positionId: long.idx, triggerPrice: new Dec(89), requestedTriggerPrice: new Dec(90) });
    const extraStop = exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(2), positionId: long.idx, triggerPrice: new Dec(95) });
    const bareTake = exchange.addOrder({ type: 'take', direction: 'long', amount: new Dec(2), positionId: long.idx, triggerPrice: new Dec(0) });
    const trailing = exchange.addOrder({ type: 'trailing_stop', direction: 'long', amount: new Dec(2), positionId: long.idx, trailingStopOffset: new Dec(5) });

    const state = await executor.submit(
      protectIntent({ positionId: long.idx, stopLoss: new Dec(90), takeProfit: new Dec(130), trailingStop: { offset: new Dec(5) } }),
    );
    expect(state.status).toBe('done');
    const touched = exchange.calls.filter((c) => c.op === 'editOrder' || c.op === 'cancelOrder').map((c) => c.args[0]);
    // The stop was asked for at 90 and the trailing stop is the same: left as they are (moving the stop
    // again would only be pushed out again). A second stop goes. The take without a trigger can not be
    // edited: cancelled and made again at 130.
    expect(touched).toEqual([extraStop.id, bareTake.id]);
    const made = exchange.callsOf('createOrder').map(body);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ type: 'take', positionId: long.idx });
    expect(made[0]!.triggerPrice?.toFixed()).toBe('130');

    // Removing every leg of the long leaves the short's orders alone.
    await executor.submit(protectIntent({ positionId: long.idx, stopLoss: null, takeProfit: null, trailingStop: null }));
    const cancelled = exchange.callsOf('cancelOrder').map((c) => c.args[0]);
    expect(cancelled).toContain(stop.id);
    expect(cancelled).toContain(trailing.id);
    for (const o of onShort) {
      expect(exchange.orders.get(o.id)?.status).toBe('active');
      expect(exchange.calls.some((c) => (c.op === 'editOrder' || c.op === 'cancelOrder') && c.args[0] === o.id)).toBe(false);
    }
  });

  it('a close or protect naming a position acts on that one, not the first of the book', async () => {
    const { exchange, executor } = setup();
    exchange.addPosition({ direction: 'long', size: new Dec(2) });
    const second = exchange.addPosition({ direction: 'long', size: new Dec(1) });
    expect((await executor.submit(protectIntent({ positionId: second.idx, stopLoss: new Dec(80) }))).status).toBe('done');
    expect((await executor.submit(closeIntent({ positionId: second.idx }))).status).toBe('done');
    const [stop, close] = exchange.callsOf('createOrder').map(body);
    expect([close?.type, close?.positionId, close?.amount.toFixed()]).toEqual(['take', second.idx, '1']);
    expect([stop?.type, stop?.positionId, stop?.amount.toFixed()]).toEqual(['stop', second.idx, '1']);
    expect(await executor.submit(closeIntent({ positionId: 'pos-none' }))).toMatchObject({ status: 'rejected', code: 'position_not_found' });
  });

  it('cancel and close_all', async () => {
    const { exchange, executor } = setup();
    const o = exchange.addOrder({ type: 'limit', direction: 'long', amount: new Dec(10), triggerPrice: new Dec(95) });
    expect((await executor.submit(cancelIntent(o.id))).status).toBe('done');
    expect(exchange.orders.get(o.id)?.status).toBe('canceled');
    const again = await executor.submit(cancelIntent(o.id));
    expect(again).toMatchObject({ status: 'rejected', code: 'forbidden' });

    const ca = closeAllIntent('account');
    expect((await executor.submit(ca)).status).toBe('done');
    expect(exchange.callsOf('closeAllAccount')[0]?.key).toBe(idempotencyKey(ca.id, 'close_all'));
    await executor.submit(closeAllIntent('positions'));
    expect(exchange.callsOf('closeAllPositions')).toHaveLength(1);
  });

  it('publishes every change on updates$ and ends every intent in a final state', async () => {
    const { executor, exchange } = setup();
    const seen: IntentUpdate[] = [];
    executor.updates$.subscribe((u) => seen.push(u));
    exchange.fail('createOrder', { kind: 'refuse', status: 400, code: 'amount_not_positive' });
    const a = openIntent();
    const b = openIntent();
    await Promise.all([executor.submit(a), executor.submit(b)]);
    const kinds = (id: string) => seen.filter((u) => u.state.intent.id === id).map((u) => u.kind);
    expect(kinds(a.id)[0]).toBe('queued');
    expect(kinds(a.id).at(-1)).toBe('final');
    expect(kinds(b.id).at(-1)).toBe('final');
    const finals = seen.filter((u) => u.kind === 'final').map((u) => u.state.status).sort();
    expect(finals).toEqual(['done', 'rejected']);
    expect(executor.state(a.id)?.status).toMatch(/done|rejected/);
  });
});

describe('Executor: retries', () => {
  it('retries a 500 with the same idempotency key every time, and a 409 in flight', async () => {
    const { exchange, executor } = setup();
    exchange.fail('createOrder', { kind: 'server' }, { kind: 'in-flight' }, { kind: 'server' });
    const intent = openIntent();
    const state = await executor.submit(intent);
    expect(state.status).toBe('done');
    const calls = exchange.callsOf('createOrder');
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((c) => c.key))).toEqual(new Set([idempotencyKey(intent.id, 'create')]));
    expect(exchange.orders.size).toBe(1);
    expect(state.requests[0]).toMatchObject({ attempts: 4, outcome: 'ok' });
  });

  it('never retries a venue refusal: the intent ends rejected with the code', async () => {
    const { exchange, executor } = setup();
    exchange.fail('createOrder', { kind: 'refuse', status: 400, code: 'invalid_leverage' });
    const state = await executor.submit(openIntent());
    expect(state).toMatchObject({ status: 'rejected', code: 'invalid_leverage' });
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
    exchange.fail('createOrder', { kind: 'refuse', status: 403, code: 'market_paused' });
    expect(await executor.submit(openIntent())).toMatchObject({ status: 'rejected', code: 'market_paused' });
  });

  it('gives up after maxAttempts transient failures and says so', async () => {
    const { exchange, executor } = setup({ retry: { maxAttempts: 3 } });
    exchange.fail('createOrder', { kind: 'server' }, { kind: 'server' }, { kind: 'server' }, { kind: 'server' });
    const state = await executor.submit(openIntent());
    expect(state).toMatchObject({ status: 'failed', code: 'retries_exhausted' });
    expect(exchange.callsOf('createOrder')).toHaveLength(3);
  });

  it('honours a 429 retryAt: the retry, and every other write of the bucket, wait for it', async () => {
    const { exchange, executor, clock } = setup({ concurrency: { write: 1 } });
    const retryAt = clock.now() + 7_000;
    exchange.fail('createOrder', { kind: 'rate', retryAt });
    const a = openIntent();
    const b = openIntent();
    await Promise.all([executor.submit(a), executor.submit(b)]);
    const calls = exchange.callsOf('createOrder');
    expect(calls).toHaveLength(3);
    expect(calls[0]?.at).toBeLessThan(retryAt);
    expect(calls[1]!.at).toBeGreaterThanOrEqual(retryAt);
    expect(calls[2]!.at).toBeGreaterThanOrEqual(retryAt);
    expect(executor.state(a.id)?.status).toBe('done');
    expect(executor.state(b.id)?.status).toBe('done');
  });

  it("blocks the bucket a 429 names, not the one the call went through: a 'read' 429 on a write holds no other write", async () => {
    const { exchange, executor, clock } = setup({ concurrency: { write: 1 } });
    const retryAt = clock.now() + 7_000;
    exchange.fail('createOrder', { kind: 'rate', retryAt, bucket: 'read' });
    await Promise.all([executor.submit(openIntent()), executor.submit(openIntent())]);
    const [first, second, third] = exchange.callsOf('createOrder');
    // The second intent's write goes at once; the first's own retry still waits for retryAt (its delay's floor).
    expect(first!.at).toBeLessThan(retryAt);
    expect(second!.at).toBeLessThan(retryAt);
    expect(third!.at).toBeGreaterThanOrEqual(retryAt);
  });

  it('backoff is reproducible with a seeded random', async () => {
    const run = async () => {
      const { exchange, executor } = setup();
      exchange.fail('createOrder', { kind: 'server' }, { kind: 'server' }, { kind: 'server' });
      await executor.submit(openIntent());
      return exchange.callsOf('createOrder').map((c) => c.at);
    };
    const [x, y] = [await run(), await run()];
    expect(x).toEqual(y);
    // Exponential: each gap at least half of a doubling cap.
    const gaps = x.slice(1).map((t, i) => t - x[i]!);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
  });
});

describe('Executor: unknown outcomes', () => {
  it('a timeout after the venue acted, inside the window: the key replay answers with the order, no read', async () => {
    const { exchange, executor } = setup();
    exchange.fail('createOrder', { kind: 'timeout-after' });
    const state = await executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    expect(state.status).toBe('done');
    const calls = exchange.callsOf('createOrder');
    expect(calls).toHaveLength(2);
    expect(calls[1]?.key).toBe(calls[0]?.key);
    expect(exchange.orders.size).toBe(1);
    expect(state.orders.map((o) => o.id)).toEqual([...exchange.orders.keys()]);
    expect(state.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'replay' });
    expect(exchange.callsOf('listActiveOrders')).toHaveLength(0);
  });

  it('retries spent with every answer lost, inside the window: the last settle reads, and adopts the order', async () => {
    // No resend follows the last attempt, so leaving it to a replay would disown the order it placed.
    const { exchange, executor } = setup({ retry: { maxAttempts: 2 } });
    exchange.fail('createOrder', { kind: 'timeout-after' }, { kind: 'timeout-after' });
    const state = await executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    expect(state.status).toBe('done');
    expect(exchange.callsOf('createOrder')).toHaveLength(2);
    expect(exchange.orders.size).toBe(1);
    expect(state.orders.map((o) => o.id)).toEqual([...exchange.orders.keys()]);
    expect(state.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'read' });
  });

  it('an entry giving up does not take the order of an identical one still in doubt: that one replays its key for it', async () => {
    // A never reached the venue and has spent its attempts; B was placed, lost its answer, and its
    // replay is on its way. A's last read sees one unclaimed candidate, B's. Had A taken it, B's replay
    // would answer with the same order: two intents done on one order.
    const { exchange, executor } = setup({ retry: { maxAttempts: 2 } });
    const replay = gate();
    exchange.fail('createOrder', { kind: 'timeout-before' }, { kind: 'timeout-after' }, { kind: 'timeout-before' }, { kind: 'hold', until: replay.until });
    const a = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    const b = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    const doneA = executor.submit(a);
    const doneB = executor.submit(b);
    const stateA = await doneA;
    const keys = (...intents: OpenIntent[]) => intents.map((i) => idempotencyKey(i.id, 'create'));
    // The premise: A's two calls and B's first, and A ended before B's replay.
    expect(exchange.callsOf('createOrder').map((c) => c.key)).toEqual(keys(a, b, a));
    expect(stateA).toMatchObject({ status: 'failed', code: 'retries_exhausted', orders: [] });
    expect(stateA.reason).toContain('the venue lists one order matching it');
    expect(stateA.reason).toContain('an identical request of another intent is unresolved too');
    replay.release();
    const stateB = await doneB;
    expect(stateB.status).toBe('done');
    expect(exchange.orders.size).toBe(1);
    expect(stateB.orders.map((o) => o.id)).toEqual([...exchange.orders.keys()]);
    expect(stateB.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'replay' });
    expect(exchange.callsOf('createOrder').map((c) => c.key)).toEqual(keys(a, b, a, b));
  });

  it('an identical request resolved earlier no longer counts: a later one giving up takes its own order', async () => {
    const { exchange, executor } = setup({ retry: { maxAttempts: 1 } });
    const earlier = await executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    exchange.fail('createOrder', { kind: 'timeout-after' });
    const later = await executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    expect(later.status).toBe('done');
    expect(later.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'read' });
    expect(new Set([earlier.orders[0]?.id, later.orders[0]?.id])).toEqual(new Set(exchange.orders.keys()));
    expect(exchange.orders.size).toBe(2);
  });

  it('an error that is neither a refusal nor transient (a bug) is not retried: failed, its request settled by reading', async () => {
    const { exchange, executor } = setup();
    exchange.fail('createOrder', { kind: 'bug' });
    const state = await executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    expect(state).toMatchObject({ status: 'failed', code: 'executor_error', reason: 'injected adapter bug' });
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
    // Whether it went out is not known; the read finds nothing, so it never acted and is not wanted now.
    expect(state.requests[0]).toMatchObject({ outcome: 'failed', errorCode: 'superseded', settledBy: 'read' });
    expect(exchange.callsOf('listActiveOrders')).toHaveLength(1);
  });

  it('with no replay to trust (a margin of the whole window), a timeout after the venue acted is settled by reading', async () => {
    const { exchange, executor } = setup({ replayMarginMs: 60 * 60_000 });
    exchange.idempotency = false; // a resend would place a second order: only reading can tell
    exchange.fail('createOrder', { kind: 'timeout-after' });
    const state = await executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    expect(state.status).toBe('done');
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
    expect(exchange.orders.size).toBe(1);
    expect(state.orders[0]?.id).toBe([...exchange.orders.keys()][0]);
    expect(state.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'read' });
    expect(exchange.callsOf('listActiveOrders').length).toBeGreaterThan(0);
  });

  it('finds an order that executed at once in the history', async () => {
    const { exchange, executor } = setup({ replayMarginMs: 60 * 60_000 });
    exchange.idempotency = false;
    exchange.fail('createOrder', { kind: 'timeout-after' });
    const state = await executor.submit(openIntent({ entry: { type: 'market' } }));
    expect(state.status).toBe('done');
    expect(exchange.orders.size).toBe(1);
    expect(state.orders[0]?.order.status).toBe('executed');
    expect(exchange.callsOf('listOrderHistory').length).toBeGreaterThan(0);
  });

  describe('reading the order history page by page', () => {
    // `older` orders long before ours, ours (a market order, executed at once, its answer lost), and
    // 150 after it, placed while the settle waits on its first read. Newest first, ours is on page 2.
    const scene = async ({ older = 120, historyPages = 3, replay = false } = {}) => {
      const { exchange, executor, clock } = setup({ replayMarginMs: 60 * 60_000, historyPages });
      exchange.idempotency = replay;
      const other = () => openRequest(openIntent({ sizing: { kind: 'quote', amount: new Dec(7) } }), exchange.markets[0]!.id);
      for (let i = 0; i < older; i += 1) await exchange.createOrder(other());
      clock.advance(60_000);
      const held = gate();
      exchange.fail('createOrder', { kind: 'timeout-after' });
      exchange.fail('listActiveOrders', { kind: 'hold', until: held.until });
      const done = executor.submit(openIntent({ entry: { type: 'market' } }));
      while (exchange.callsOf('listActiveOrders').length === 0) await new Promise((r) => setImmediate(r));
      for (let i = 0; i < 150; i += 1) {
        clock.advance(1);
        await exchange.createOrder(other());
      }
      held.release();
      const state = await done;
      const offsets = exchange.callsOf('listOrderHistory').map((c) => (c.args[2] as { offset: number }).offset);
      return { state, offsets, placed: exchange.orders.size };
    };

    it('finds ours on the second page and reads no further: that page ends before ours less the skew', async () => {
      const { state, offsets, placed } = await scene();
      expect(state.status).toBe('done');
      expect(state.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'read' });
      expect(state.orders[0]?.order.status).toBe('executed');
      expect(offsets).toEqual([0, 100]);
      expect(placed).toBe(271);
    });

    it('stops at the last page the venue counts', async () => {
      const { state, offsets } = await scene({ older: 0 });
      expect(state.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'read' });
      expect(offsets).toEqual([0, 100]);
    });

    it('reads no more than historyPages pages; the key, resent, still replays', async () => {
      const { state, offsets, placed } = await scene({ historyPages: 1, replay: true });
      expect(offsets).toEqual([0]);
      expect(state.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'replay' });
      expect(placed).toBe(271);
    });
  });

  it('a timeout before acting: nothing found by reading, sent again with the same key, one order', async () => {
    const { exchange, executor } = setup();
    exchange.fail('createOrder', { kind: 'timeout-before' });
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    const state = await executor.submit(intent);
    expect(state.status).toBe('done');
    const calls = exchange.callsOf('createOrder');
    expect(calls).toHaveLength(2);
    expect(calls[0]?.key).toBe(calls[1]?.key);
    expect(exchange.orders.size).toBe(1);
  });

  it('two identical intents both in doubt: the key replay tells them apart, no order adopted twice', async () => {
    const { exchange, executor } = setup();
    exchange.fail('createOrder', { kind: 'timeout-after' }, { kind: 'timeout-after' });
    const [a, b] = await Promise.all([executor.submit(openIntent()), executor.submit(openIntent())]);
    expect([a.status, b.status]).toEqual(['done', 'done']);
    expect(exchange.orders.size).toBe(2);
    const ids = [a.orders[0]?.id, b.orders[0]?.id];
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => id && exchange.orders.has(id))).toBe(true);
  });

  it('a lost cancel is settled by reading; a lost edit finds its replacement', async () => {
    const { exchange, executor } = setup();
    exchange.addOrder({ type: 'limit', direction: 'long', amount: new Dec(10), triggerPrice: new Dec(94) }); // another, still active
    const o = exchange.addOrder({ type: 'limit', direction: 'long', amount: new Dec(10), triggerPrice: new Dec(95) });
    exchange.fail('cancelOrder', { kind: 'timeout-after' });
    const c = await executor.submit(cancelIntent(o.id));
    expect(c.status).toBe('done');
    expect(c.requests[0]).toMatchObject({ outcome: 'ok', settledBy: 'read' });
    expect(exchange.callsOf('cancelOrder')).toHaveLength(1);

    const pos = exchange.addPosition({ direction: 'long', size: new Dec(1) });
    const stop = exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(1), positionId: pos.idx, triggerPrice: new Dec(80) });
    exchange.fail('editOrder', { kind: 'timeout-after' });
    const p = await executor.submit(protectIntent({ stopLoss: new Dec(85) }));
    expect(p.status).toBe('done');
    expect(exchange.callsOf('editOrder')).toHaveLength(1);
    const replacement = p.orders.find((t) => t.replaces === stop.id);
    expect(replacement && exchange.orders.get(replacement.id)?.triggerPrice.toFixed()).toBe('85');
  });

  it('a lost cancel that never arrived: the order still active, so the cancel is sent again, once', async () => {
    const { exchange, executor } = setup();
    const o = exchange.addOrder({ type: 'limit', direction: 'long', amount: new Dec(10), triggerPrice: new Dec(95) });
    exchange.fail('cancelOrder', { kind: 'timeout-before' });
    const c = await executor.submit(cancelIntent(o.id));
    expect(c.status).toBe('done');
    expect(exchange.callsOf('cancelOrder').map((call) => call.args[0])).toEqual([o.id, o.id]);
    expect(exchange.orders.get(o.id)?.status).toBe('canceled');
  });

  it('a lost edit that never arrived: the original still active, so the edit is sent again, once', async () => {
    const { exchange, executor } = setup();
    const pos = exchange.addPosition({ direction: 'long', size: new Dec(1) });
    const stop = exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(1), positionId: pos.idx, triggerPrice: new Dec(80) });
    exchange.fail('editOrder', { kind: 'timeout-before' });
    const p = await executor.submit(protectIntent({ stopLoss: new Dec(85) }));
    expect(p.status).toBe('done');
    expect(exchange.callsOf('editOrder').map((c) => c.args[0])).toEqual([stop.id, stop.id]);
    const active = [...exchange.orders.values()].filter((o) => o.status === 'active' && o.type === 'stop');
    expect(active.map((o) => o.triggerPrice.toFixed())).toEqual(['85']);
  });
});

describe('Executor: queues', () => {
  it('runs cancels and protective orders first, then closes, then new entries', async () => {
    const { exchange, executor } = setup({ concurrency: { write: 1 } });
    exchange.addPosition({ direction: 'long', size: new Dec(1) });
    const pending = exchange.addOrder({ type: 'limit', direction: 'long', amount: new Dec(5), triggerPrice: new Dec(90) });
    const hold = gate();
    exchange.fail('closeAllPositions', { kind: 'hold', until: hold.until });
    const blocker = executor.submit(closeAllIntent('positions'));
    while (exchange.callsOf('closeAllPositions').length === 0) await new Promise((r) => setImmediate(r));

    // The entries wait in the queue first, so the close and the protective steps overtake them only
    // by their priority, not by the order they came in.
    const runs = [executor.submit(openIntent()), executor.submit(openIntent())];
    while (executor.stats().write.queued < 2) await new Promise((r) => setImmediate(r));
    runs.push(executor.submit(closeIntent()));
    while (executor.stats().write.queued < 3) await new Promise((r) => setImmediate(r));
    runs.push(executor.submit(protectIntent({ stopLoss: new Dec(80) })), executor.submit(cancelIntent(pending.id)));
    while (executor.stats().write.queued < 5) await new Promise((r) => setImmediate(r));
    hold.release();
    await Promise.all([blocker, ...runs]);
    const order = exchange.calls
      .filter((c) => c.op === 'createOrder' || c.op === 'cancelOrder')
      .map((c) => (c.op === 'cancelOrder' ? 'cancel' : body(c).type));
    expect(order.slice(0, 2).sort()).toEqual(['cancel', 'stop']);
    expect(order.slice(2)).toEqual(['take', 'market', 'market']);
  });

  it('drops entries that waited longer than maxQueueWaitMs, never protective ones', async () => {
    const { exchange, executor } = setup({
      limits: { write: [{ limit: 1, windowMs: 1_000 }] },
      maxQueueWaitMs: 2_500,
      concurrency: { write: 1 },
    });
    exchange.addPosition({ direction: 'long', size: new Dec(1) });
    const opens = Array.from({ length: 6 }, () => openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    const protects = [protectIntent({ stopLoss: new Dec(80) }), protectIntent({ takeProfit: new Dec(130) })];
    const states = await Promise.all([...opens, ...protects].map((i) => executor.submit(i)));
    const byId = new Map(states.map((s) => [s.intent.id, s]));
    expect(protects.map((p) => byId.get(p.id)?.status)).toEqual(['done', 'done']);
    const dropped = opens.filter((o) => byId.get(o.id)?.status === 'dropped');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((o) => byId.get(o.id)?.code === 'queue_timeout')).toBe(true);
    expect(opens.some((o) => byId.get(o.id)?.status === 'done')).toBe(true);
    // A dropped entry never reached the venue.
    const sent = exchange.callsOf('createOrder').filter((c) => body(c).type === 'limit').length;
    expect(sent).toBe(opens.length - dropped.length);
  });

  it('drops an entry only past the wait limit, and as soon as the rate gate says its turn would come after it', async () => {
    // Two entries at once through a gate of one write a second: the second's turn comes 1,000 ms later.
    const run = async (maxQueueWaitMs: number) => {
      const { exchange, executor } = setup({ limits: { write: [{ limit: 1, windowMs: 1_000 }] }, maxQueueWaitMs, concurrency: { write: 1 } });
      const states = await Promise.all([executor.submit(openIntent()), executor.submit(openIntent())]);
      return { states, calls: exchange.callsOf('createOrder') };
    };
    const exact = await run(1_000);
    expect(exact.states.map((s) => s.status)).toEqual(['done', 'done']);
    expect(exact.calls[1]!.at - exact.calls[0]!.at).toBe(1_000);
    const short = await run(999);
    expect(short.calls).toHaveLength(1);
    expect(short.states[1]).toMatchObject({ status: 'dropped', code: 'queue_timeout' });
    // Its request is stored before it waits, and ends failed: no restart settles a request never sent.
    expect(short.states[1]!.requests[0]).toMatchObject({ outcome: 'failed', errorCode: 'queue_timeout' });
    // Dropped when the gate named the wait, not after sleeping through it.
    expect(short.states[1]!.reason).toBe('waited 0 ms in the write queue (max 999)');
  });

  it('drops an entry that waited past the limit behind a request in flight, before it is sent', async () => {
    const { exchange, executor, clock } = setup({ maxQueueWaitMs: 1_000, concurrency: { write: 1 } });
    const held = gate();
    exchange.fail('createOrder', { kind: 'hold', until: held.until });
    const first = executor.submit(openIntent());
    while (exchange.callsOf('createOrder').length === 0) await new Promise((r) => setImmediate(r));
    const second = executor.submit(openIntent());
    while (executor.stats().write.queued < 1) await new Promise((r) => setImmediate(r));
    clock.advance(1_001); // the first's answer takes longer than the second may wait
    held.release();
    expect((await first).status).toBe('done');
    expect(await second).toMatchObject({ status: 'dropped', code: 'queue_timeout', reason: 'waited 1001 ms in the write queue (max 1000)' });
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
  });

  it('bounds the number of waiting entries (queue_full)', async () => {
    const { exchange, executor } = setup({ limits: { write: [{ limit: 1, windowMs: 1_000 }] }, maxQueuedEntries: 2, concurrency: { write: 1 } });
    const states = await Promise.all(Array.from({ length: 5 }, () => executor.submit(openIntent())));
    const codes = states.map((s) => s.code);
    expect(codes.filter((c) => c === 'queue_full').length).toBeGreaterThan(0);
    expect(exchange.callsOf('createOrder')).toHaveLength(states.filter((s) => s.status === 'done').length);
  });

  it('counts an entry as waiting until it is sent: exactly maxQueuedEntries wait, and the bound frees as they go', async () => {
    const { exchange, executor } = setup({ maxQueuedEntries: 2, concurrency: { write: 1 } });
    const held = gate();
    exchange.fail('createOrder', { kind: 'hold', until: held.until });
    const sent = executor.submit(openIntent());
    while (exchange.callsOf('createOrder').length === 0) await new Promise((r) => setImmediate(r));
    // The first is in flight, no longer waiting: two more may wait behind it, a third may not.
    const waiting = [executor.submit(openIntent()), executor.submit(openIntent())];
    while (executor.stats().write.queued < 2) await new Promise((r) => setImmediate(r));
    expect(await executor.submit(openIntent())).toMatchObject({ status: 'dropped', code: 'queue_full' });
    held.release();
    expect((await Promise.all([sent, ...waiting])).map((s) => s.status)).toEqual(['done', 'done', 'done']);
    // Once sent, they no longer count: one after another, more than the bound all go out.
    for (let i = 0; i < 3; i += 1) expect((await executor.submit(openIntent())).status).toBe('done');
    expect(exchange.callsOf('createOrder')).toHaveLength(6);
  });

  it('never drops an entry once a request of it went out: its retry waits out its backoff and is sent', async () => {
    const { exchange, executor } = setup({ maxQueueWaitMs: 1_000, retry: { baseDelayMs: 4_000, maxDelayMs: 4_000 } });
    exchange.fail('createOrder', { kind: 'server' });
    const state = await executor.submit(openIntent());
    expect(state.status).toBe('done');
    const [first, retry] = exchange.callsOf('createOrder');
    expect(retry!.at - first!.at).toBeGreaterThanOrEqual(2_000);
  });

  it('dropQueued ends unsent entries at shutdown but still sends protective ones', async () => {
    const { exchange, executor } = setup({ limits: { write: [{ limit: 1, windowMs: 1_000 }] }, concurrency: { write: 1 } });
    exchange.addPosition({ direction: 'long', size: new Dec(1) });
    const opens = Array.from({ length: 4 }, () => openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    const protect = protectIntent({ stopLoss: new Dec(80) });
    const runs = [...opens, protect].map((i) => executor.submit(i));
    while (executor.stats().write.queued + executor.stats().write.running < 2) await new Promise((r) => setImmediate(r));
    executor.dropQueued('shutdown');
    const states = await Promise.all(runs);
    const byId = new Map(states.map((s) => [s.intent.id, s]));
    expect(byId.get(protect.id)?.status).toBe('done');
    const dropped = opens.filter((o) => byId.get(o.id)?.status === 'dropped');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((o) => byId.get(o.id)?.code === 'shutdown')).toBe(true);
    const sent = exchange.callsOf('createOrder').filter((c) => body(c).type === 'limit').length;
    expect(sent).toBe(opens.length - dropped.length);
  });

  it('a close_all of the account drops the entries still waiting for it, and only them (no open after a flatten)', async () => {
    const { exchange, executor } = setup({ limits: { write: [{ limit: 1, windowMs: 1_000 }] }, concurrency: { write: 1 } });
    const before = Array.from({ length: 3 }, () => openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    const runs = before.map((i) => executor.submit(i));
    while (executor.stats().write.queued + executor.stats().write.running < 2) await new Promise((r) => setImmediate(r));
    const flatten = closeAllIntent('account');
    const flattened = executor.submit(flatten);
    const after = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    const later = executor.submit(after);
    const states = await Promise.all([...runs, flattened, later]);
    const byId = new Map(states.map((s) => [s.intent.id, s]));
    expect(byId.get(flatten.id)?.status).toBe('done');
    const dropped = before.filter((o) => byId.get(o.id)?.status === 'dropped');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((o) => byId.get(o.id)?.code === 'account_flattened')).toBe(true);
    // Every one of them, up to the last submitted before the flatten, went out before it or not at all.
    const at = (op: string, key?: string) => exchange.calls.findIndex((c) => c.op === op && (key === undefined || c.key === key));
    const closeAll = at('closeAllAccount');
    for (const o of before) {
      const sentAt = at('createOrder', idempotencyKey(o.id, 'create'));
      if (byId.get(o.id)?.status === 'dropped') expect(sentAt).toBe(-1);
      else expect(sentAt).toBeLessThan(closeAll);
    }
    // what came after the flatten was judged after it: the executor carries it out
    expect(byId.get(after.id)?.status).toBe('done');
    const sent = exchange.callsOf('createOrder').filter((c) => body(c).type === 'limit').length;
    expect(sent).toBe(before.length - dropped.length + 1);
  });

  it('refuses to make a protective kind droppable', () => {
    expect(() => setup({ droppableKinds: ['open', 'protect'] })).toThrow(/droppableKinds\[1\]/);
  });
});

describe('Executor: external orders and positions', () => {
  it('never closes, protects or cancels what it was told is external', async () => {
    const orders = new Set<string>();
    const positions = new Set<string>();
    const { exchange, executor } = setup({ untouchable: { orders, positions } });
    const theirs = exchange.addPosition({ direction: 'long', size: new Dec(2) });
    const theirOrder = exchange.addOrder({ type: 'limit', direction: 'long', amount: new Dec(100), triggerPrice: new Dec(90) });
    positions.add(theirs.idx);
    orders.add(theirOrder.id);

    expect(await executor.submit(closeIntent({ positionId: theirs.idx }))).toMatchObject({ status: 'rejected', code: 'external_position' });
    // Without an id, the external position is no candidate at all.
    expect(await executor.submit(closeIntent())).toMatchObject({ status: 'rejected', code: 'position_not_found' });
    expect(await executor.submit(protectIntent({ stopLoss: new Dec(80) }))).toMatchObject({ status: 'rejected' });
    expect(await executor.submit(cancelIntent(theirOrder.id))).toMatchObject({ status: 'rejected', code: 'external_order' });
    expect(exchange.callsOf('createOrder')).toHaveLength(0);
    expect(exchange.callsOf('cancelOrder')).toHaveLength(0);

    // A position of its own next to it is handled as usual.
    exchange.addPosition({ direction: 'long', size: new Dec(1) });
    expect((await executor.submit(closeIntent())).status).toBe('done');
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
  });
});

describe('Executor: tracking', () => {
  it('applyOrders records fills of tracked orders and links spawned children', async () => {
    const { exchange, executor } = setup();
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(95) }, stopLoss: new Dec(90) });
    const state = await executor.submit(intent);
    const id = state.orders[0]!.id;
    const filled = { ...exchange.orders.get(id)!, status: 'executed' as const, indexPrice: new Dec(95) };
    const child = exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(1), parentOrderId: id, triggerPrice: new Dec(90) });
    const unrelated = exchange.addOrder({ type: 'limit', direction: 'long', amount: new Dec(1), triggerPrice: new Dec(80) });
    executor.applyOrders([filled, child, unrelated]);
    const after = executor.state(intent.id)!;
    expect(after.orders.find((o) => o.id === id)?.order.indexPrice?.toFixed()).toBe('95');
    expect(after.orders.find((o) => o.id === child.id)?.step).toBe('child');
    expect(after.orders.some((o) => o.id === unrelated.id)).toBe(false);
  });

  it('an asset without a market ends the intent rejected (market_not_found), after looking twice', async () => {
    const { exchange, executor } = setup();
    expect((await executor.submit(openIntent())).status).toBe('done');
    const state = await executor.submit({ ...openIntent(), asset: 'DOGE' });
    expect(state).toMatchObject({ status: 'rejected', code: 'market_not_found' });
    expect(exchange.callsOf('listMarkets')).toHaveLength(2);
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
  });
});

describe('Executor: what it tells its callers', () => {
  it('a move marks the replaced stop on every intent that tracks it, and tells each of them', async () => {
    const { exchange, executor } = setup();
    const pos = exchange.addPosition({ direction: 'long', size: new Dec(1) });
    const a = await executor.submit(protectIntent({ positionId: pos.idx, stopLoss: new Dec(80) }));
    const stop = a.orders[0]!;
    const seen: IntentUpdate[] = [];
    executor.updates$.subscribe((u) => seen.push(u));
    const b = await executor.submit(protectIntent({ positionId: pos.idx, stopLoss: new Dec(85) }));
    const replacement = b.orders.find((o) => o.replaces === stop.id);
    expect(replacement?.order.triggerPrice.toFixed()).toBe('85');
    const before = executor.state(a.intent.id)!.orders[0]!;
    expect(before).toMatchObject({ id: stop.id, replacedBy: replacement?.id });
    expect(before.order.status).toBe('canceled_by_update');
    const told = seen.filter((u) => u.state.intent.id === a.intent.id);
    expect(told.map((u) => u.kind)).toEqual(['order']);
    expect(told[0]?.state.orders[0]?.order.status).toBe('canceled_by_update');
    // The mover itself: each change once (the edit's answer, then the original and its replacement seen).
    const own = seen.filter((u) => u.state.intent.id === b.intent.id).map((u) => u.kind);
    expect(own).toEqual(['queued', 'working', 'request', 'order', 'order', 'final']);
  });

  it('a cancel marks the order canceled on the intent that placed it, and tells it', async () => {
    const { exchange, executor } = setup();
    const open = await executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    const seen: IntentUpdate[] = [];
    executor.updates$.subscribe((u) => seen.push(u));
    expect((await executor.submit(cancelIntent(open.orders[0]!.id))).status).toBe('done');
    expect(exchange.orders.get(open.orders[0]!.id)?.status).toBe('canceled');
    expect(executor.state(open.intent.id)?.orders[0]?.order.status).toBe('canceled');
    const told = seen.filter((u) => u.state.intent.id === open.intent.id);
    expect(told.map((u) => u.kind)).toEqual(['order']);
  });

  it("reconcile() rejects with the venue's own error, not the executor's", async () => {
    const { exchange, executor } = setup();
    exchange.fail('listActiveOrders', { kind: 'refuse', status: 401, code: 'unauthorized' });
    await expect(executor.reconcile('acc-1')).rejects.toBeInstanceOf(UnauthorizedError);
    // Transient failures until the read gives up: the last of them.
    exchange.fail('listActiveOrders', ...Array.from({ length: 6 }, () => ({ kind: 'server' as const })));
    await expect(executor.reconcile('acc-1')).rejects.toBeInstanceOf(ServerError);
    expect(exchange.callsOf('listActiveOrders')).toHaveLength(7);
  });
});

describe('Executor: settings and submissions', () => {
  it('refuses each setting that would silently disable a guarantee, naming it', () => {
    const bad: [Partial<ExecutorOptions>, string][] = [
      [{ maxQueueWaitMs: -1 }, 'executor.maxQueueWaitMs: expected a number of ms >= 0, got -1'],
      [{ clockSkewMs: Number.NaN }, 'executor.clockSkewMs: expected a number of ms >= 0, got NaN'],
      [{ maxQueuedEntries: 0 }, 'executor.maxQueuedEntries: expected a number >= 1, got 0'],
      [{ maxQueuedEntries: Number.NaN }, 'executor.maxQueuedEntries: expected a number >= 1, got NaN'],
      [{ droppableKinds: ['open', 'protect'] }, 'executor.droppableKinds[1]: "protect" is protective and can never be dropped'],
      [{ droppableKinds: ['cancel'] }, 'executor.droppableKinds[0]: "cancel" is protective and can never be dropped'],
      [{ droppableKinds: ['close_all'] }, 'executor.droppableKinds[0]: "close_all" is protective and can never be dropped'],
      [{ concurrency: { write: 0 } }, 'executor.concurrency.write: expected an integer >= 1, got 0'],
      [{ concurrency: { read: 1.5 } }, 'executor.concurrency.read: expected an integer >= 1, got 1.5'],
      // No history read: an order that executed at once could not be found after a lost answer.
      [{ historyPages: 0 }, 'executor.historyPages: expected an integer >= 1, got 0'],
      // A negative margin would replay a key the venue may already have forgotten: a second order.
      [{ replayMarginMs: -1 }, 'executor.replayMarginMs: expected a number of ms >= 0, got -1'],
      [{ replayMarginMs: Number.NaN }, 'executor.replayMarginMs: expected a number of ms >= 0, got NaN'],
    ];
    for (const [options, message] of bad) {
      expect(() => setup(options), message).toThrow(ConfigError);
      expect(() => setup(options), message).toThrow(message);
    }
    // The bounds themselves are fine: no wait, no skew, one queued entry, one page, closes droppable.
    expect(() => setup({ maxQueueWaitMs: 0, clockSkewMs: 0, maxQueuedEntries: 1, historyPages: 1, replayMarginMs: 0, droppableKinds: ['open', 'close'] })).not.toThrow();
  });

  it('runs an intent submitted twice once: one order, the same final state for both', async () => {
    const { exchange, executor } = setup();
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    const [a, b] = await Promise.all([executor.submit(intent), executor.submit(intent)]);
    const c = await executor.submit(intent);
    expect(a.status).toBe('done');
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
    expect(exchange.orders.size).toBe(1);
  });

  it('refuses a submission once closed', async () => {
    const { executor } = setup();
    await executor.close();
    expect(() => executor.submit(openIntent())).toThrow('Executor.submit: the executor is closed');
  });
});
