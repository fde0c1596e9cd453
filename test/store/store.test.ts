import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import type { OpenIntent } from '../../src/strategy/intents.js';
import { MIGRATIONS, SCHEMA_VERSION, type Migration } from '../../src/store/migrations.js';
import { SqliteConnection } from '../../src/store/sqlite.js';
import { Store } from '../../src/store/store.js';
import { makeMarket, makeOrder } from '../execution/fixtures.js';
import { tempDir } from './helpers.js';
import { position } from '../risk/builders.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dbFile(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return path.join(t.dir, 'nested', 'run.db');
}

async function open(file: string, options: Partial<Parameters<typeof Store.open>[0]> = {}): Promise<Store> {
  const store = await Store.open({ file, ...options });
  cleanups.push(() => store.close());
  return store;
}

/** A second, independent connection: sees only what is committed. */
async function peek<T>(file: string, sql: string, params: (string | number)[] = []): Promise<T[]> {
  const conn = await SqliteConnection.open(file);
  try {
    return await conn.exclusive((db) => db.all<T>(sql, params));
  } finally {
    await conn.close();
  }
}

const intent: OpenIntent = {
  id: 'intent-1',
  strategy: 'sma',
  accountId: 'acc-1',
  asset: 'BTC',
  createdAt: 1_700_000_000_000,
  kind: 'open',
  direction: 'long',
  entry: { type: 'limit', price: new Dec('64250.125') },
  sizing: { kind: 'quote', amount: new Dec('100.5') },
  leverage: new Dec(5),
  stopLoss: new Dec('63000'),
};

describe('Store: schema and migrations', () => {
  it('creates every table from an empty file, in WAL mode, at the newest version', async () => {
    const file = dbFile();
    const store = await open(file);
    expect(await store.schemaVersion()).toBe(SCHEMA_VERSION);
    const tables = (await store.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => r.name);
    for (const t of ['schema_version', 'intents', 'decisions', 'requests', 'orders', 'position_events', 'equity_samples', 'strategy_state', 'market_snapshots']) {
      expect(tables).toContain(t);
    }
    const [mode] = await store.query<{ journal_mode: string }>('PRAGMA journal_mode');
    expect(mode?.journal_mode).toBe('wal');
  });

  it('re-opening applies nothing twice and keeps the data', async () => {
    const file = dbFile();
    const a = await Store.open({ file });
    a.recordEquity({ accountId: 'acc', at: 1, equity: new Dec('10000.5'), balance: null });
    await a.close();
    const b = await open(file);
    const versions = await b.query<{ version: number }>('SELECT version FROM schema_version');
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect((await b.equity('acc'))[0]?.equity.toFixed()).toBe('10000.5');
  });

  it('applies a later migration to an existing database, and refuses a database newer than the code', async () => {
    const file = dbFile();
    await (await Store.open({ file })).close();
    const extra: Migration = { version: SCHEMA_VERSION + 1, name: 'notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)' };
    const upgraded = await Store.open({ file, migrations: [...MIGRATIONS, extra] });
    expect(await upgraded.schemaVersion()).toBe(SCHEMA_VERSION + 1);
    await upgraded.close();
    await expect(Store.open({ file })).rejects.toThrow(/newer than this propbot knows/);
  });

  it('says which option is wrong', async () => {
    await expect(Store.open({ file: '' })).rejects.toThrow(/store\.file/);
    await expect(Store.open({ file: dbFile(), maxBatchRows: 0 })).rejects.toThrow(/store\.maxBatchRows/);
  });
});

describe('Store: batched writes', () => {
  it('keeps writes in the queue until a flush commits them in one go', async () => {
    const file = dbFile();
    const store = await open(file, { flushIntervalMs: 60_000, maxBatchRows: 1000 });
    for (let i = 0; i < 10; i += 1) store.recordEquity({ accountId: 'acc', at: i, equity: new Dec(i), balance: new Dec(i) });
    expect(store.queued).toBe(10);
    expect(await peek(file, 'SELECT * FROM equity_samples')).toHaveLength(0);
    await store.flush();
    expect(store.queued).toBe(0);
    expect(await peek(file, 'SELECT * FROM equity_samples')).toHaveLength(10);
  });

  it('flushes by itself once maxBatchRows rows wait, and after flushIntervalMs', async () => {
    const file = dbFile();
    const store = await open(file, { flushIntervalMs: 60_000, maxBatchRows: 5 });
    for (let i = 0; i < 5; i += 1) store.recordEquity({ accountId: 'rows', at: i, equity: new Dec(i), balance: null });
    await store.query('SELECT 1'); // waits behind the background flush
    expect(await peek(file, 'SELECT * FROM equity_samples')).toHaveLength(5);

    const timed = await open(dbFile(), { flushIntervalMs: 5, maxBatchRows: 1000 });
    timed.recordEquity({ accountId: 'timer', at: 1, equity: new Dec(1), balance: null });
    for (let i = 0; i < 200 && (await peek(timed.file, 'SELECT * FROM equity_samples')).length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await peek(timed.file, 'SELECT * FROM equity_samples')).toHaveLength(1);
  });

  it('close() drains the queue', async () => {
    const file = dbFile();
    const store = await Store.open({ file, flushIntervalMs: 60_000 });
    store.recordEquity({ accountId: 'acc', at: 1, equity: new Dec('1.5'), balance: null });
    await store.close();
    expect(await peek(file, 'SELECT * FROM equity_samples')).toHaveLength(1);
    expect(() => store.recordEquity({ accountId: 'acc', at: 2, equity: new Dec(1), balance: null })).toThrow(/after close/);
  });

  it('beginRequest is durable when it resolves, together with what was queued before it', async () => {
    const file = dbFile();
    const store = await open(file, { flushIntervalMs: 60_000 });
    store.saveIntent({ intent, status: 'working', code: null, reason: null, updatedAt: 1 });
    await store.beginRequest({
      key: 'k-1',
      intentId: intent.id,
      step: 'create',
      operation: 'createOrder',
      args: [{ amount: new Dec('100.5') }],
      storedAt: 5,
      attempts: 0,
      outcome: 'pending',
    });
    expect(await peek(file, 'SELECT idempotency_key FROM requests')).toEqual([{ idempotency_key: 'k-1' }]);
    expect(await peek(file, 'SELECT id FROM intents')).toEqual([{ id: intent.id }]);
  });

  it('a batch that fails is rolled back whole and the failure is reported', async () => {
    const file = dbFile();
    const store = await open(file, { flushIntervalMs: 60_000 });
    store.recordEquity({ accountId: 'acc', at: 1, equity: new Dec(1), balance: null });
    // A decision with a verdict the CHECK constraint refuses, in the same batch.
    store.recordDecision({ verdict: 'bogus', intent, at: 1 } as never);
    await expect(store.flush()).rejects.toThrow(/rolled back/);
    expect(await peek(file, 'SELECT * FROM equity_samples')).toHaveLength(0);
  });
});

describe('Store: records', () => {
  it('stores money as TEXT decimal strings and gives Decimals back exactly', async () => {
    const store = await open(dbFile());
    store.recordEquity({ accountId: 'acc', at: 1, equity: new Dec('100000.123456789'), balance: new Dec('1.0000000015') });
    const types = await store.query<{ e: string; b: string }>('SELECT typeof(equity) AS e, typeof(balance) AS b FROM equity_samples');
    expect(types).toEqual([{ e: 'text', b: 'text' }]);
    const [sample] = await store.equity('acc');
    expect(sample?.equity.toFixed()).toBe('100000.123456789');
    // More than 9 places: rounded half-even to fp9 precision, as the codec states.
    expect(sample?.balance?.toFixed()).toBe('1.000000002');
  });

  it('journal: intents, requests and orders round-trip with their Decimals and Dates', async () => {
    const file = dbFile();
    const a = await Store.open({ file });
    a.saveIntent({ intent, status: 'working', code: null, reason: null, updatedAt: 2 });
    await a.beginRequest({ key: 'k', intentId: intent.id, step: 'create', operation: 'createOrder', args: [{ amount: new Dec('100.5') }], storedAt: 3, attempts: 0, outcome: 'pending' });
    const order = makeOrder({ id: 'o-1', trader: 'acc-1', market: 'm-1', type: 'limit', direction: 'long', amount: new Dec('100.5'), createdAt: new Date(10) });
    a.saveOrder({ orderId: 'o-1', intentId: intent.id, step: 'create', replaces: null, order, seenAt: 11 });
    a.updateRequest({ key: 'k', intentId: intent.id, step: 'create', operation: 'createOrder', args: [], storedAt: 3, attempts: 2, outcome: 'unknown', errorCode: 'request_timeout' });
    await a.close();

    const b = await open(file);
    const [u] = await b.loadUnfinished();
    expect(u?.record.intent.id).toBe(intent.id);
    const revived = u?.record.intent as OpenIntent;
    expect(revived.leverage.eq(5)).toBe(true);
    expect(revived.entry.type === 'limit' && revived.entry.price.toFixed()).toBe('64250.125');
    expect(u?.requests[0]).toMatchObject({ key: 'k', attempts: 2, outcome: 'unknown', errorCode: 'request_timeout' });
    // args are never rewritten by an update: a restart re-sends what was first stored.
    expect((u?.requests[0]?.args[0] as { amount: Dec }).amount.toFixed()).toBe('100.5');
    expect(u?.orders[0]?.order.createdAt.getTime()).toBe(10);
    expect(await b.claimedOrderIds(0)).toEqual(['o-1']);
    expect((await b.findRequest('k'))?.outcome).toBe('unknown');

    b.saveIntent({ intent, status: 'done', code: null, reason: null, updatedAt: 20 });
    expect((await b.intent(intent.id))?.status).toBe('done');
    // Final, but a request is still in doubt: loaded again, so that the next start settles it.
    const [final] = await b.loadUnfinished();
    expect(final?.record.status).toBe('done');
    expect(final?.requests.map((r) => r.outcome)).toEqual(['unknown']);
    b.updateRequest({ key: 'k', intentId: intent.id, step: 'create', operation: 'createOrder', args: [], storedAt: 3, attempts: 2, outcome: 'ok', settledBy: 'read' });
    expect(await b.loadUnfinished()).toHaveLength(0);
  });

  it("journal: an edit's request keeps the order it edits, through its updates and a reopen; other requests have none", async () => {
    const file = dbFile();
    const a = await Store.open({ file });
    a.saveIntent({ intent, status: 'working', code: null, reason: null, updatedAt: 2 });
    const edited = { id: 'o-1', type: 'stop' as const, trader: 'acc-1', market: 'm-1', positionId: 'p-1' };
    const move = { key: 'k-move', intentId: intent.id, step: 'stop:move:o-1', operation: 'editOrder' as const, args: ['o-1', { triggerPrice: new Dec(85) }], storedAt: 3 };
    await a.beginRequest({ ...move, editedOrder: edited, attempts: 0, outcome: 'pending' });
    await a.beginRequest({ key: 'k-create', intentId: intent.id, step: 'create', operation: 'createOrder', args: [], storedAt: 3, attempts: 0, outcome: 'pending' });
    a.updateRequest({ ...move, attempts: 1, outcome: 'unknown', errorCode: 'request_timeout' });
    await a.close();

    const b = await open(file);
    expect(await b.findRequest('k-move')).toMatchObject({ outcome: 'unknown', editedOrder: edited });
    expect((await b.findRequest('k-create'))?.editedOrder).toBeNull();
  });

  it('guard decisions keep their reasons', async () => {
    const store = await open(dbFile());
    store.recordDecision({ verdict: 'denied', intent, at: 5, code: 'daily_drawdown_headroom', reason: 'loss 4.9% of 5%', rule: 'daily-drawdown' });
    store.recordDecision({ verdict: 'approved', intent, at: 6 });
    expect(await store.decisions(intent.id)).toEqual([
      { intentId: intent.id, intent, verdict: 'denied', code: 'daily_drawdown_headroom', reason: 'loss 4.9% of 5%', rule: 'daily-drawdown', at: 5 },
      { intentId: intent.id, intent, verdict: 'approved', code: null, reason: null, rule: null, at: 6 },
    ]);
  });

  it('position events keep their origin; guard actions keep the figures that tripped them', async () => {
    const store = await open(dbFile());
    const closed = { ...position({ idx: 'p1', eventName: 'closePosition', status: 'closed', version: 2 }), order: null };
    store.recordPositionEvent(closed, { kind: 'kill_switch', intentId: 'guard-1', strategy: 'risk-guard' });
    store.recordPositionEvent({ ...closed, idx: 'p2', eventName: 'forceClose' }, { kind: 'force_close', reason: 'stop_accounts_fail' });
    store.recordPositionEvent({ ...closed, idx: 'p3' });
    store.recordGuardAction({
      accountId: 'acc-1',
      at: 9,
      rule: 'kill_switch',
      code: 'kill_switch_floor',
      reason: 'equity 957.4 is within 20% of the daily allowance',
      intentId: 'guard-1',
      floorRule: 'daily',
      equity: new Dec('957.4'),
      floor: new Dec('951.425'),
      threshold: new Dec('961.385'),
    });
    await store.flush();
    expect(await store.query('SELECT position_id, origin, origin_intent_id, origin_reason FROM position_events ORDER BY position_id')).toEqual([
      { position_id: 'p1', origin: 'kill_switch', origin_intent_id: 'guard-1', origin_reason: null },
      { position_id: 'p2', origin: 'force_close', origin_intent_id: null, origin_reason: 'stop_accounts_fail' },
      { position_id: 'p3', origin: null, origin_intent_id: null, origin_reason: null },
    ]);
    expect(await store.query('SELECT rule, code, intent_id, floor_rule, equity, floor, threshold FROM guard_actions')).toEqual([
      { rule: 'kill_switch', code: 'kill_switch_floor', intent_id: 'guard-1', floor_rule: 'daily', equity: '957.4', floor: '951.425', threshold: '961.385' },
    ]);
  });

  it('guard state changes are kept in order', async () => {
    const store = await open(dbFile());
    store.recordGuardState({ accountId: 'acc-1', from: 'ACTIVE', to: 'REDUCING', reason: 'daily headroom under 1%', at: 7 });
    store.recordGuardState({ accountId: 'acc-1', from: 'REDUCING', to: 'ACTIVE', reason: 'new day', at: 8 });
    expect(await store.query('SELECT account_id, from_state, to_state, reason, at FROM guard_states ORDER BY id')).toEqual([
      { account_id: 'acc-1', from_state: 'ACTIVE', to_state: 'REDUCING', reason: 'daily headroom under 1%', at: 7 },
      { account_id: 'acc-1', from_state: 'REDUCING', to_state: 'ACTIVE', reason: 'new day', at: 8 },
    ]);
  });

  it('strategy state: get/set per strategy, kept across a reopen', async () => {
    const file = dbFile();
    const a = await Store.open({ file });
    const s1 = await a.strategyState('sma');
    const s2 = await a.strategyState('breakout');
    s1.set('lastSignal', { side: 'long', at: 5, price: new Dec('1.25') });
    s2.set('lastSignal', 'none');
    expect(s1.get<{ side: string }>('lastSignal')?.side).toBe('long');
    expect(() => s1.set('x', undefined)).toThrow(/delete/);
    await a.close();
    const b = await open(file);
    const again = await b.strategyState('sma');
    const v = again.get<{ side: string; price: Dec }>('lastSignal');
    expect(v?.price.toFixed()).toBe('1.25');
    expect((await b.strategyState('breakout')).get('lastSignal')).toBe('none');
    again.delete('lastSignal');
    expect(again.keys()).toEqual([]);
  });

  it('market snapshots replay in time order with the whole market record', async () => {
    const store = await open(dbFile());
    for (const [t, p] of [[3, '101.5'], [1, '100'], [2, '100.75']] as const) {
      const market = makeMarket('m-btc', 'BTC', p);
      store.recordSnapshot({ asset: 'BTC', marketId: 'm-btc', takenAt: t, stale: false, price: market.state.indexPrice, data: market });
    }
    const snaps = await store.snapshots('BTC', { from: 1, to: 2 });
    expect(snaps.map((s) => [s.takenAt, s.indexPrice.toFixed()])).toEqual([[1, '100'], [2, '100.75']]);
    expect(snaps[1]?.market.settings.maintenanceMarginRatio.toFixed()).toBe('0.05');
    const typeRow = await store.query<{ t: string }>('SELECT typeof(index_price) AS t FROM market_snapshots LIMIT 1');
    expect(typeRow[0]?.t).toBe('text');
  });
});
