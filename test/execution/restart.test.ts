/**
 * A restart reuses the stored idempotency keys: a new Executor on the same database file settles what
 * the previous one left in doubt, and no order is ever placed twice.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CreateOrderRequest } from '../../src/api/types.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { VirtualClock } from '../../src/core/clock.js';
import { Dec } from '../../src/core/decimal.js';
import { Executor } from '../../src/execution/executor.js';
import { idempotencyKey } from '../../src/execution/idempotency.js';
import { seededRandom } from '../../src/execution/retry.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../store/helpers.js';
import { FakeExchange, gate, virtualSleep } from './fake-exchange.js';
import { closeAllIntent, closeIntent, openIntent, protectIntent, START } from './helpers.js';

const tmp = tempDir('propbot-restart-');
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  tmp.cleanup();
});

let fileNo = 0;
/**
 * An exchange and executors on one database file. A test "crashes" an executor by abandoning it, so
 * it flushes that executor's store first: left open, the store would commit its last batch (an
 * attempt count) later, over the rows the next start writes, which a killed process cannot do.
 */
async function world() {
  const file = path.join(tmp.dir, `run-${++fileNo}.db`);
  const clock = new VirtualClock(START);
  const exchange = new FakeExchange(clock);
  const executorOn = async () => {
    const store = await Store.open({ file, flushIntervalMs: 10 });
    stores.push(store);
    const executor = new Executor({ exchange, clock, journal: store, sleep: virtualSleep(clock), random: seededRandom(1) });
    return { store, executor };
  };
  return { clock, exchange, executorOn };
}

/** The next `n` reads of the active orders refused (403): a settle that must read fails. */
const refuseReads = (exchange: FakeExchange, n: number) =>
  exchange.fail('listActiveOrders', ...Array.from({ length: n }, () => ({ kind: 'refuse' as const, status: 403, code: 'forbidden' })));

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setImmediate(r));
};

type World = Awaited<ReturnType<typeof world>>;

/**
 * A first executor sends `intent`'s order, which the venue places without ever answering; then it
 * "crashes", after its last batch is on disk (see world).
 */
async function lostAnswer({ exchange, executorOn }: World, intent: OrderIntent): Promise<void> {
  const first = await executorOn();
  exchange.fail('createOrder', { kind: 'hold', until: gate().until, after: true }); // acts, never answers
  void first.executor.submit(intent);
  await until(() => exchange.orders.size === 1);
  await first.store.flush();
}

/** `intent`'s answer lost in a crash, and the next start 30 s later on the same database. */
async function restartedAfterLostAnswer(w: World, intent: OrderIntent) {
  await lostAnswer(w, intent);
  w.clock.advance(30_000);
  return w.executorOn();
}

describe('Executor: restart on the same database', () => {
  it('the venue acted but the answer was lost in the crash: the new executor replays the key and adopts the order', async () => {
    const w = await world();
    const { exchange } = w;
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    const second = await restartedAfterLostAnswer(w, intent);
    const [state] = await second.executor.resume();
    expect(state).toMatchObject({ status: 'done' });
    expect(state?.intent.id).toBe(intent.id);
    expect(exchange.orders.size).toBe(1);
    const calls = exchange.callsOf('createOrder');
    expect(calls.map((c) => c.key)).toEqual([idempotencyKey(intent.id, 'create'), idempotencyKey(intent.id, 'create')]);
    expect(state?.orders[0]?.id).toBe([...exchange.orders.keys()][0]);
    const [row] = await second.store.query<{ outcome: string; settled_by: string }>('SELECT outcome, settled_by FROM requests');
    expect(row).toEqual({ outcome: 'ok', settled_by: 'replay' });
    expect((await second.store.intent(intent.id))?.status).toBe('done');
  });

  // The request is stored at the world's start; the window is an hour and the default margin 5 minutes.
  for (const [after, by] of [[55 * 60_000 - 1, 'replay'], [55 * 60_000, 'read']] as const) {
    it(`a lost answer settled ${after} ms after its request is settled by ${by}: a replay must reach the venue inside its window`, async () => {
      const w = await world();
      const { exchange, executorOn, clock } = w;
      const intent = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
      await lostAnswer(w, intent);
      clock.advance(after);
      const second = await executorOn();
      const [state] = await second.executor.resume();
      expect(state?.status).toBe('done');
      expect(exchange.orders.size).toBe(1);
      expect(state?.orders.map((o) => o.id)).toEqual([...exchange.orders.keys()]);
      expect(exchange.callsOf('createOrder')).toHaveLength(by === 'replay' ? 2 : 1);
      expect(exchange.callsOf('listActiveOrders')).toHaveLength(by === 'replay' ? 0 : 1);
      const [row] = await second.store.query<{ settled_by: string }>('SELECT settled_by FROM requests');
      expect(row?.settled_by).toBe(by);
    });
  }

  it('two identical entries lost in the crash, restarted after the replay window: each adopts its own order, none sent again', async () => {
    const w = await world();
    const { exchange, executorOn, clock } = w;
    const first = await executorOn();
    const held = gate();
    exchange.fail('createOrder', { kind: 'hold', until: held.until, after: true }, { kind: 'hold', until: held.until, after: true });
    const a = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    const b = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    void first.executor.submit(a);
    void first.executor.submit(b);
    await until(() => exchange.orders.size === 2);
    await first.store.flush();
    // Two hours on, the keys are past their replay window: only reading can settle them, and a resend
    // would place a new order.
    clock.advance(2 * 60 * 60_000);
    exchange.idempotency = false;
    const second = await executorOn();
    const states = await second.executor.resume();
    expect(states.map((s) => s.status)).toEqual(['done', 'done']);
    expect(exchange.callsOf('createOrder')).toHaveLength(2);
    expect(exchange.orders.size).toBe(2);
    expect(new Set(states.map((s) => s.orders[0]?.id))).toEqual(new Set(exchange.orders.keys()));
  });

  it('the request never arrived: the new executor sends it again with the stored key, once', async () => {
    const { exchange, executorOn } = await world();
    const first = await executorOn();
    exchange.fail('createOrder', { kind: 'hold', until: gate().until }); // never reaches the venue
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(96) } });
    void first.executor.submit(intent);
    await until(() => exchange.callsOf('createOrder').length === 1);
    await first.store.flush(); // the crash comes after its last batch is on disk (see world)
    const second = await executorOn();
    const [state] = await second.executor.resume();
    expect(state?.status).toBe('done');
    const calls = exchange.callsOf('createOrder');
    expect(calls).toHaveLength(2);
    expect(calls[1]?.key).toBe(calls[0]?.key);
    expect(calls[1]?.key).toBe(idempotencyKey(intent.id, 'create'));
    expect(exchange.orders.size).toBe(1);
  });

  describe('an intent the crash caught before anything was sent', () => {
    /** The first executor resolves the market (held: never answered) and crashes; `downMs` later the second starts. */
    async function unsent(intent: OrderIntent, downMs: number) {
      const w = await world();
      const first = await w.executorOn();
      w.exchange.fail('listMarkets', { kind: 'hold', until: gate().until });
      void first.executor.submit(intent);
      await until(() => w.exchange.callsOf('listMarkets').length === 1);
      await first.store.flush();
      w.clock.advance(downMs);
      const second = await w.executorOn();
      const [state] = await second.executor.resume();
      return { w, state };
    }

    it('an open is dropped once it has waited longer than maxQueueWaitMs, the downtime included: nothing sent', async () => {
      const { w, state } = await unsent(openIntent({ entry: { type: 'limit', price: new Dec(96) } }), 10 * 60_000);
      expect(state).toMatchObject({ status: 'dropped', code: 'queue_timeout' });
      expect(state?.reason).toMatch(/not sent before the restart/);
      expect(w.exchange.callsOf('createOrder')).toHaveLength(0);
    });

    it('an open whose wait is still inside maxQueueWaitMs is sent, as it would have been without the crash', async () => {
      const { w, state } = await unsent(openIntent({ entry: { type: 'limit', price: new Dec(96) } }), 10_000);
      expect(state?.status).toBe('done');
      expect(w.exchange.callsOf('createOrder')).toHaveLength(1);
    });

    it('an open queued before a flatten of its account is dropped after the restart too, as it was before it', async () => {
      const w = await world();
      const first = await w.executorOn();
      w.exchange.fail('listMarkets', { kind: 'hold', until: gate().until });
      w.exchange.fail('closeAllAccount', { kind: 'hold', until: gate().until }); // never reaches the venue
      const open = openIntent({ entry: { type: 'limit', price: new Dec(96) } });
      void first.executor.submit(open);
      await until(() => w.exchange.callsOf('listMarkets').length === 1);
      void first.executor.submit(closeAllIntent('account'));
      await until(() => w.exchange.callsOf('closeAllAccount').length === 1);
      await first.store.flush();
      w.clock.advance(10_000);
      const second = await w.executorOn();
      const states = await second.executor.resume();
      expect(states.map((s) => [s.intent.kind, s.status, s.code])).toEqual([
        ['open', 'dropped', 'account_flattened'],
        ['close_all', 'done', null],
      ]);
      expect(w.exchange.callsOf('createOrder')).toHaveLength(0);
    });
  });

  it('a close that acted before the crash is not re-resolved (the position is gone): its key replays it', async () => {
    const w = await world();
    const { exchange, executorOn } = w;
    const pos = exchange.addPosition({ direction: 'long', size: new Dec(2) });
    await lostAnswer(w, closeIntent());
    expect(pos.status).toBe('closed');
    const second = await executorOn();
    const [state] = await second.executor.resume();
    expect(state?.status).toBe('done');
    // Sent again with its stored arguments and key (the position it names is closed now): replayed, not placed.
    const calls = exchange.callsOf('createOrder');
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args).toEqual(calls[0]?.args);
    expect(exchange.orders.size).toBe(1);
    expect(state?.requests[0]?.settledBy).toBe('replay');
    expect((state?.orders[0]?.order.positionId)).toBe(pos.idx);
  });

  it('a request a run ended with in doubt (its reads failed) is settled by the next start: the order it placed is tracked', async () => {
    const w = await world();
    const { exchange, executorOn } = w;
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(94) } });
    await lostAnswer(w, intent);
    // Past the key's window only reading can settle, and the next start cannot read the orders: the
    // plan's settle and the leftover settle both fail.
    w.clock.advance(2 * 60 * 60_000);
    refuseReads(exchange, 2);
    const second = await executorOn();
    const [ended] = await second.executor.resume();
    expect(ended?.status).toBe('rejected');
    expect(ended?.orders).toEqual([]);
    const doubt = "SELECT outcome FROM requests WHERE outcome IN ('pending', 'unknown')";
    expect(await second.store.query(doubt)).toHaveLength(1);
    // The start after that can read: it settles the request alone (the intent stays as it ended) and owns the order.
    const third = await executorOn();
    const [settled] = await third.executor.resume();
    expect(settled?.intent.id).toBe(intent.id);
    expect(settled?.status).toBe('rejected');
    expect(settled?.orders.map((o) => o.id)).toEqual([...exchange.orders.keys()]);
    expect(await third.store.query(doubt)).toEqual([]);
    const [row] = await third.store.query<{ outcome: string; settled_by: string }>('SELECT outcome, settled_by FROM requests');
    expect(row).toEqual({ outcome: 'ok', settled_by: 'read' });
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
    expect((await third.store.intent(intent.id))?.status).toBe('rejected');
    // Nothing is left for a fourth start.
    expect(await (await executorOn()).executor.resume()).toEqual([]);
  });

  it('a request left in doubt is settled by reading at the next start even inside its window: a leftover places nothing', async () => {
    const w = await world();
    const { exchange, executorOn } = w;
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(94) } });
    await lostAnswer(w, intent);
    // The next start's replays lose their answers too until its attempts are spent (six in all), and
    // its reads are refused: the intent ends with the request in doubt.
    const lost = Array.from({ length: 5 }, () => ({ kind: 'timeout-after' as const }));
    exchange.fail('createOrder', ...lost);
    refuseReads(exchange, 2);
    const second = await executorOn();
    const [ended] = await second.executor.resume();
    expect(ended?.status).toBe('rejected');
    expect(exchange.callsOf('createOrder')).toHaveLength(6);
    await second.store.flush();
    // Seconds later, well inside the window: the intent's plan is over, so its request is read, not replayed.
    const third = await executorOn();
    const [settled] = await third.executor.resume();
    expect(settled?.orders.map((o) => o.id)).toEqual([...exchange.orders.keys()]);
    expect(exchange.callsOf('createOrder')).toHaveLength(6);
    const [row] = await third.store.query<{ outcome: string; settled_by: string }>('SELECT outcome, settled_by FROM requests');
    expect(row).toEqual({ outcome: 'ok', settled_by: 'read' });
  });

  it('days later, a request in doubt does not adopt an identical order another intent owns', async () => {
    // Y's request never reached the venue; an hour later X, identical, placed its order. The daemon
    // is down for three days. Past its window Y can only read, and X's order matches it field for
    // field: only the journal's claim says it is X's, however old it is.
    const { exchange, executorOn, clock } = await world();
    const first = await executorOn();
    exchange.fail('createOrder', { kind: 'hold', until: gate().until }); // never reaches the venue
    const y = openIntent({ entry: { type: 'limit', price: new Dec(95) } });
    void first.executor.submit(y);
    await until(() => exchange.callsOf('createOrder').length === 1);
    clock.advance(60 * 60_000);
    const x = await first.executor.submit(openIntent({ entry: { type: 'limit', price: new Dec(95) } }));
    expect(x.status).toBe('done');
    await first.store.flush();
    clock.advance(3 * 24 * 60 * 60_000);
    const second = await executorOn();
    const [state] = await second.executor.resume();
    expect(state?.intent.id).toBe(y.id);
    expect(state?.status).toBe('done');
    expect(exchange.orders.size).toBe(2);
    expect(state?.orders.map((o) => o.id)).not.toContain(x.orders[0]?.id);
  });

  describe('a step the plan no longer takes after the restart is settled by reading', () => {
    /**
     * A protect whose `op` acted (or not) and lost its answer in a crash; the next start resumes it.
     * `rival`: another position's stop at the new trigger, created while the process was down.
     */
    async function protectLost(op: 'editOrder' | 'cancelOrder', stopLoss: Dec | null, acted: boolean, { rival = true } = {}) {
      const w = await world();
      const { exchange, executorOn } = w;
      const pos = exchange.addPosition({ direction: 'long', size: new Dec(1) });
      // Listed before anything the step makes, so a matcher that skipped a field would meet them first:
      // a take at the new trigger, and a stop of another position at another trigger.
      const other = exchange.addPosition({ direction: 'long', size: new Dec(1) });
      exchange.addOrder({ type: 'take', direction: 'long', amount: new Dec(1), positionId: pos.idx, triggerPrice: new Dec(85) });
      exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(1), positionId: other.idx, triggerPrice: new Dec(70) });
      // Of the original stop, only its request's stored copy can say this one is not its replacement.
      if (rival) exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(1), positionId: other.idx, triggerPrice: new Dec(85) });
      const stop = exchange.addOrder({ type: 'stop', direction: 'long', amount: new Dec(1), positionId: pos.idx, triggerPrice: new Dec(80) });
      const first = await executorOn();
      exchange.fail(op, { kind: 'hold', until: gate().until, after: acted });
      void first.executor.submit(protectIntent({ stopLoss, positionId: pos.idx }));
      await until(() => exchange.callsOf(op).length === 1);
      await first.store.flush();
      return { ...w, pos, stop, second: await executorOn() };
    }
    const rows = (store: Store) => store.query<{ step: string; outcome: string; settled_by: string | null; error_code: string | null }>(
      'SELECT step, outcome, settled_by, error_code FROM requests');

    it('a move that acted: the stop already sits at the new trigger, and its replacement is tracked', async () => {
      const { exchange, stop, second } = await protectLost('editOrder', new Dec(85), true);
      const [state] = await second.executor.resume();
      expect(state?.status).toBe('done');
      const replacement = [...exchange.orders.values()].find((o) => o.status === 'active' && o.type === 'stop' && o.positionId === stop.positionId);
      expect(replacement?.triggerPrice.toFixed()).toBe('85');
      expect(state?.orders.find((o) => o.id === replacement?.id)?.replaces).toBe(stop.id);
      expect(exchange.callsOf('editOrder')).toHaveLength(1);
      expect(await rows(second.store)).toEqual([{ step: `stop:move:${stop.id}`, outcome: 'ok', settled_by: 'read', error_code: null }]);
    });

    it('a move stored before the store kept its order (an older propbot): matched by the id and type its step names', async () => {
      const { exchange, stop, second } = await protectLost('editOrder', new Dec(85), true, { rival: false });
      await second.store.query('UPDATE requests SET edited_order = NULL');
      const [state] = await second.executor.resume();
      expect(state?.status).toBe('done');
      const replacement = [...exchange.orders.values()].find((o) => o.status === 'active' && o.type === 'stop' && o.triggerPrice.eq(85));
      expect(replacement?.positionId).toBe(stop.positionId);
      expect(state?.orders.find((o) => o.id === replacement?.id)?.replaces).toBe(stop.id);
      expect(await rows(second.store)).toEqual([{ step: `stop:move:${stop.id}`, outcome: 'ok', settled_by: 'read', error_code: null }]);
    });

    it('a move that acted, whose replacement fired while the process was down: found in the history and tracked', async () => {
      const { exchange, pos, stop, second } = await protectLost('editOrder', new Dec(85), true);
      const replacement = [...exchange.orders.values()].find((o) => o.status === 'active' && o.type === 'stop' && o.positionId === pos.idx)!;
      exchange.orders.set(replacement.id, { ...replacement, status: 'executed' });
      pos.status = 'closed';
      const [state] = await second.executor.resume();
      expect(state).toMatchObject({ status: 'rejected', code: 'position_not_found' });
      expect(state?.orders.find((o) => o.id === replacement.id)?.replaces).toBe(stop.id);
      expect(exchange.callsOf('editOrder')).toHaveLength(1);
      expect(await rows(second.store)).toEqual([{ step: `stop:move:${stop.id}`, outcome: 'ok', settled_by: 'read', error_code: null }]);
    });

    it('a move that never arrived, the position closed and its stop still listed: superseded, nothing sent', async () => {
      const { exchange, pos, stop, second } = await protectLost('editOrder', new Dec(85), false);
      pos.status = 'closed';
      const [state] = await second.executor.resume();
      expect(state).toMatchObject({ status: 'rejected', code: 'position_not_found' });
      expect(exchange.orders.get(stop.id)?.status).toBe('active');
      expect(exchange.callsOf('editOrder')).toHaveLength(1);
      expect(await rows(second.store)).toEqual([{ step: `stop:move:${stop.id}`, outcome: 'failed', settled_by: 'read', error_code: 'superseded' }]);
    });

    it('a removal that acted: the stop is gone, and the cancel is known done', async () => {
      const { exchange, stop, second } = await protectLost('cancelOrder', null, true);
      const [state] = await second.executor.resume();
      expect(state?.status).toBe('done');
      expect(exchange.orders.get(stop.id)?.status).toBe('canceled');
      expect(exchange.callsOf('cancelOrder')).toHaveLength(1);
      expect(await rows(second.store)).toEqual([{ step: `stop:remove:${stop.id}`, outcome: 'ok', settled_by: 'read', error_code: null }]);
    });

    it('a removal that never arrived, and the position closed while the process was down: superseded, the stop left', async () => {
      const { exchange, pos, stop, second } = await protectLost('cancelOrder', null, false);
      pos.status = 'closed';
      const [state] = await second.executor.resume();
      expect(state).toMatchObject({ status: 'rejected', code: 'position_not_found' });
      expect(exchange.orders.get(stop.id)?.status).toBe('active');
      expect(await rows(second.store)).toEqual([{ step: `stop:remove:${stop.id}`, outcome: 'failed', settled_by: 'read', error_code: 'superseded' }]);
    });

    it('a move that never arrived, and the stop fired while the process was down: superseded, nothing sent', async () => {
      const { exchange, pos, stop, second } = await protectLost('editOrder', new Dec(85), false);
      exchange.orders.set(stop.id, { ...stop, status: 'executed' });
      pos.status = 'closed';
      const [state] = await second.executor.resume();
      expect(state).toMatchObject({ status: 'rejected', code: 'position_not_found' });
      expect(exchange.callsOf('editOrder')).toHaveLength(1);
      expect(await rows(second.store)).toEqual([{ step: `stop:move:${stop.id}`, outcome: 'failed', settled_by: 'read', error_code: 'superseded' }]);
    });
  });

  it('a resubmitted intent after a restart reuses the stored request too', async () => {
    const { exchange, executorOn } = await world();
    const first = await executorOn();
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(97) } });
    expect((await first.executor.submit(intent)).status).toBe('done');
    await first.store.flush();
    const second = await executorOn();
    const again = await second.executor.submit(intent);
    expect(again.status).toBe('done');
    // The stored answer is the result: nothing is sent again.
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
    expect(again.orders.map((o) => o.id)).toEqual([...exchange.orders.keys()]);
    expect((exchange.callsOf('createOrder')[0]?.args[0] as CreateOrderRequest).triggerPrice?.toFixed()).toBe('97');
  });

  it('a resubmitted intent whose request the venue refused is rejected again with its code, nothing sent', async () => {
    const { exchange, executorOn } = await world();
    const first = await executorOn();
    exchange.fail('createOrder', { kind: 'refuse', status: 400, code: 'amount_not_positive' });
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(97) } });
    expect(await first.executor.submit(intent)).toMatchObject({ status: 'rejected', code: 'amount_not_positive' });
    await first.store.flush();
    const second = await executorOn();
    expect(await second.executor.submit(intent)).toMatchObject({ status: 'rejected', code: 'amount_not_positive' });
    expect(exchange.callsOf('createOrder')).toHaveLength(1);
  });

  it('an unfinished intent submitted again before resume() runs once: resume leaves it to the submission', async () => {
    const w = await world();
    const { exchange } = w;
    const intent = openIntent({ entry: { type: 'limit', price: new Dec(96) } });
    const second = await restartedAfterLostAnswer(w, intent);
    const submitted = second.executor.submit(intent);
    const resumed = await second.executor.resume();
    expect(resumed).toEqual([]);
    expect((await submitted).status).toBe('done');
    expect(exchange.orders.size).toBe(1);
    // Settled once, by the key's replay: one resend, no second settle.
    expect(exchange.callsOf('createOrder')).toHaveLength(2);
    expect((await second.store.query<{ settled_by: string }>('SELECT settled_by FROM requests'))).toEqual([{ settled_by: 'replay' }]);
  });
});
