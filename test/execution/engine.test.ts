/**
 * The executor against the local engine (the real platform semantics), with faults injected around
 * it only where a healthy venue can not produce them.
 */
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { Engine } from '../../src/engine/index.js';
import { Executor, type ExecutorOptions } from '../../src/execution/executor.js';
import { seededRandom } from '../../src/execution/retry.js';
import { openRequest } from '../../src/execution/requests.js';
import type { OpenIntent, OrderIntent } from '../../src/strategy/intents.js';
import { withFaults } from './faulty-exchange.js';
import { START } from './helpers.js';

function world(options: Partial<ExecutorOptions> = {}) {
  const engine = new Engine({ startMs: START, seed: 'executor-test' });
  const market = engine.addMarket({ baseAsset: 'BTC', price: new Dec(100), schedule: null });
  const user = engine.addUser();
  const account = engine.openAccount({ userId: user, type: 'demo', initialBalance: new Dec(10_000) });
  const clock = { now: () => engine.now() };
  const faulty = withFaults(engine.exchangeFor(user, { viaApiKey: true }), clock);
  const executor = new Executor({
    exchange: faulty.exchange,
    clock,
    sleep: async (ms) => {
      engine.advanceTo(engine.now() + Math.max(1, Math.ceil(ms)));
      await new Promise((r) => setImmediate(r));
    },
    random: seededRandom(3),
    ...options,
  });
  let n = 0;
  const base = () => ({ id: `e-${++n}`, strategy: 'test', accountId: account.accountId, asset: 'BTC', createdAt: engine.now() });
  /** A small long entry: the identical requests below are made of it. */
  const smallEntry = (entry: OpenIntent['entry']): OpenIntent => ({
    ...base(), kind: 'open', direction: 'long', entry, sizing: { kind: 'quote', amount: new Dec(50) }, leverage: new Dec(2),
  });
  return { engine, market, account, faulty, executor, base, smallEntry, ex: engine.exchangeFor(user) };
}

type World = ReturnType<typeof world>;

/**
 * The user's own order from the web, placed a second before ours and matching our limit entry field
 * for field; `ours` is that entry, made at the engine's time after it.
 */
async function theirsFirst({ smallEntry, ex, market, engine }: World) {
  const intent = smallEntry({ type: 'limit', price: new Dec(95) });
  const theirs = (await ex.createOrder(openRequest(intent, market.id))).value;
  engine.advanceTo(engine.now() + 1_000);
  return { theirs, ours: { ...intent, createdAt: engine.now() } };
}

describe('Executor on the local engine', () => {
  it('open with a stop, protect (attach take, move stop), then close at market', async () => {
    const { executor, base, ex, account } = world();
    const open: OrderIntent = {
      ...base(), kind: 'open', direction: 'long', entry: { type: 'market' },
      sizing: { kind: 'quote', amount: new Dec(100) }, leverage: new Dec(5), stopLoss: new Dec(90),
    };
    const opened = await executor.submit(open);
    expect(opened.status).toBe('done');
    expect(opened.orders[0]?.order.status).toBe('executed');

    // The engine spawned the attached stop; the executor links it to the intent as a child.
    executor.applyOrders(await ex.listActiveOrders(account.accountId));
    const child = executor.state(open.id)?.orders.find((o) => o.step === 'child');
    expect(child?.order.type).toBe('stop');

    const protect = await executor.submit({ ...base(), kind: 'protect', direction: 'long', stopLoss: new Dec(92), takeProfit: new Dec(120) });
    expect(protect.status).toBe('done');
    const active = await ex.listActiveOrders(account.accountId);
    expect(active.map((o) => [o.type, o.triggerPrice.toFixed()]).sort()).toEqual([['stop', '92'], ['take', '120']]);
    // The move answered with a new id; the open intent's child now points at it.
    expect(executor.state(open.id)?.orders.find((o) => o.id === child?.id)?.replacedBy).toBe(active.find((o) => o.type === 'stop')?.id);

    const closed = await executor.submit({ ...base(), kind: 'close', direction: 'long' });
    expect(closed.status).toBe('done');
    expect(await ex.listActivePositions(account.accountId, 'BTC')).toHaveLength(0);
  });

  it('a timeout after the engine acted: settled, one order, the position opened once', async () => {
    const { executor, base, ex, account, faulty } = world();
    faulty.fail('createOrder', { kind: 'timeout-after' });
    const state = await executor.submit({
      ...base(), kind: 'open', direction: 'long', entry: { type: 'market' },
      sizing: { kind: 'quote', amount: new Dec(100) }, leverage: new Dec(5),
    });
    expect(state.status).toBe('done');
    const history = await ex.listOrderHistory(account.accountId, 'BTC', { limit: 100 });
    expect(history.data.filter((o) => o.type === 'market')).toHaveLength(1);
    expect(state.orders[0]?.id).toBe(history.data[0]?.id);
  });

  it('two identical entries both lost after acting: each adopts its own order via the key replay', async () => {
    const { executor, smallEntry, ex, account, faulty } = world();
    faulty.fail('createOrder', { kind: 'timeout-after' }, { kind: 'timeout-after' });
    const make = () => smallEntry({ type: 'market' });
    const [a, b] = await Promise.all([executor.submit(make()), executor.submit(make())]);
    expect([a.status, b.status]).toEqual(['done', 'done']);
    const history = await ex.listOrderHistory(account.accountId, 'BTC', { limit: 100 });
    expect(history.data.filter((o) => o.type === 'market')).toHaveLength(2);
    expect(new Set([a.orders[0]?.id, b.orders[0]?.id]).size).toBe(2);
  });

  it('two identical entries in doubt, only the first acted on: the other does not take its order for its own', async () => {
    // One order in the book and two identical requests settling: reading cannot tell whose it is. Had
    // the second taken it, the first's key replay would answer with the same order: two intents done
    // on one order, one entry lost.
    const { executor, smallEntry, ex, account, faulty } = world();
    faulty.fail('createOrder', { kind: 'timeout-after' }, { kind: 'timeout-before' });
    const make = () => smallEntry({ type: 'limit', price: new Dec(95) });
    const [a, b] = await Promise.all([executor.submit(make()), executor.submit(make())]);
    expect([a.status, b.status]).toEqual(['done', 'done']);
    const active = await ex.listActiveOrders(account.accountId);
    expect(active.filter((o) => o.type === 'limit')).toHaveLength(2);
    expect(new Set([a.orders[0]?.id, b.orders[0]?.id])).toEqual(new Set(active.map((o) => o.id)));
    // Every call went out under one of the two intents' keys: a resend reuses its own.
    const keys = faulty.callsOf('createOrder').map((c) => c.key);
    expect(new Set(keys).size).toBe(2);
  });

  // The user's order placed a second before ours (theirsFirst). Ours in the book too: two
  // candidates, and only the key's replay says which is ours. Ours never arrived: one candidate, and
  // a read would take the user's order for ours, leave our entry unplaced and put the user's order
  // under the bot's management; inside the window the key's replay decides, and a request the venue
  // never saw is placed by it.
  for (const [fault, settledBy] of [['timeout-after', 'replay'], ['timeout-before', 'response']] as const) {
    it(`an identical order someone else placed just before is not taken for ours (${fault}): settled by ${settledBy}`, async () => {
      const w = world();
      const { executor, ex, account, faulty } = w;
      const { theirs, ours } = await theirsFirst(w);
      faulty.fail('createOrder', { kind: fault });
      const state = await executor.submit(ours);
      expect(state.status).toBe('done');
      const active = (await ex.listActiveOrders(account.accountId)).filter((o) => o.type === 'limit');
      expect(active).toHaveLength(2);
      expect(state.orders.map((o) => o.id)).toEqual([active.find((o) => o.id !== theirs.id)?.id]);
      expect(state.requests[0]).toMatchObject({ outcome: 'ok', settledBy });
      expect(faulty.callsOf('listActiveOrders')).toHaveLength(0);
    });
  }

  it('a last read that finds ours and an identical order someone else placed takes neither', async () => {
    // The attempts are spent, so no replay can say which is ours; the older is the user's, and taking
    // it would put it under the bot's management.
    const w = world({ retry: { maxAttempts: 1 } });
    const { executor, ex, account, faulty } = w;
    const { theirs, ours } = await theirsFirst(w);
    faulty.fail('createOrder', { kind: 'timeout-after' });
    const state = await executor.submit(ours);
    expect((await ex.listActiveOrders(account.accountId)).filter((o) => o.type === 'limit')).toHaveLength(2);
    expect(faulty.callsOf('listActiveOrders').length).toBeGreaterThan(0);
    expect(state).toMatchObject({ status: 'failed', code: 'retries_exhausted' });
    expect(state.orders.map((o) => o.id)).not.toContain(theirs.id);
    // The reason says an order may be in the book, unmanaged, and which ones could be it.
    const placed = (await ex.listActiveOrders(account.accountId)).find((o) => o.type === 'limit' && o.id !== theirs.id);
    expect(state.reason).toContain(`the venue lists 2 orders matching it (${theirs.id}, ${placed?.id})`);
    expect(state.reason).toMatch(/none is managed$/);
  });

  it('a refusal of the engine ends the intent rejected with its code, sent once', async () => {
    const { executor, base, faulty } = world();
    const state = await executor.submit({
      ...base(), kind: 'open', direction: 'long', entry: { type: 'market' },
      sizing: { kind: 'quote', amount: new Dec(100) }, leverage: new Dec(500),
    });
    expect(state).toMatchObject({ status: 'rejected', code: 'invalid_leverage' });
    expect(faulty.callsOf('createOrder')).toHaveLength(1);
  });

  it('reconcile() picks up the fill of a resting limit order', async () => {
    const { executor, base, engine, market, account } = world();
    const open: OrderIntent = {
      ...base(), kind: 'open', direction: 'long', entry: { type: 'limit', price: new Dec(95) },
      sizing: { kind: 'quote', amount: new Dec(100) }, leverage: new Dec(5),
    };
    const placed = await executor.submit(open);
    expect(placed.orders[0]?.order.status).toBe('active');
    engine.setIndexPrice(market.id, new Dec(94), engine.now() + 60_000);
    await executor.reconcile(account.accountId);
    const order = executor.state(open.id)?.orders[0]?.order;
    expect(order?.status).toBe('executed');
    expect(order?.indexPrice).not.toBeNull();
  });
});
