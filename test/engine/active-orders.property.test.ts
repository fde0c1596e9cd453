/**
 * Property: the active-orders read lists exactly the orders whose last order event said `active`,
 * newest first, whatever came before them. The read starts after the final orders at the front of
 * the account's history (reads.activeOrders), so the sequences mix orders that stay active a long
 * time (far limits, protective stops) with many that end before or after them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VenueRefusal } from '../../src/api/errors.js';
import type { Order } from '../../src/api/types.js';
import { dec } from '../../src/core/decimal.js';
import { D, FLAT, MIN, world } from './helpers.js';

type Action =
  | { kind: 'open'; long: boolean; amount: number; stop: number }
  | { kind: 'limit'; long: boolean; amount: number; offset: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'price'; bps: number }
  | { kind: 'closeAll' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('open' as const), long: fc.boolean(), amount: fc.integer({ min: 10, max: 300 }), stop: fc.integer({ min: 0, max: 400 }) }),
  fc.record({ kind: fc.constant('limit' as const), long: fc.boolean(), amount: fc.integer({ min: 10, max: 200 }), offset: fc.integer({ min: 1, max: 2000 }) }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('price' as const), bps: fc.integer({ min: -120, max: 120 }) }),
  fc.record({ kind: fc.constant('closeAll' as const) }),
);

describe('active orders after any sequence of order actions', () => {
  it('are the orders whose last event left them active, newest first', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 60 }), async (actions) => {
        const w = world({ market: { overrides: FLAT }, account: { type: 'demo', initialBalance: dec('100000') } });
        // The reference: every order event, the latest status of each order.
        const status = new Map<string, Order['status']>();
        w.engine.onEvent((e) => {
          if (e.kind === 'order') status.set(e.order.id, e.order.status);
        });
        let price = 50000;
        for (const a of actions) {
          try {
            if (a.kind === 'open') {
              const stop = a.stop === 0 ? undefined : D(a.long ? price - a.stop : price + a.stop);
              await w.order({ type: 'market', direction: a.long ? 'long' : 'short', amount: D(a.amount), leverage: D(2), ...(stop ? { stopTriggerPrice: stop } : {}) });
            } else if (a.kind === 'limit') {
              const trigger = a.long ? price - a.offset : price + a.offset;
              await w.order({ type: 'limit', direction: a.long ? 'long' : 'short', amount: D(a.amount), leverage: D(2), triggerPrice: D(trigger) });
            } else if (a.kind === 'cancel') {
              const active = await w.ex.listActiveOrders(w.accountId);
              if (active.length > 0) await w.ex.cancelOrder(active[a.pick % active.length]!.id);
            } else if (a.kind === 'price') {
              price = Math.max(1000, Math.round(price * (1 + a.bps / 10_000)));
              w.price(String(price), MIN);
            } else {
              await w.ex.closeAllAccount(w.accountId, { idempotencyKey: null });
              // close-all cancels from the same place the read starts: nothing may stay active.
              expect([...status.values()].filter((s) => s === 'active')).toEqual([]);
            }
          } catch (e) {
            if (!(e instanceof VenueRefusal)) throw e;
          }
          const listed = await w.ex.listActiveOrders(w.accountId);
          const expected = [...status].filter(([, s]) => s === 'active').map(([id]) => id);
          expect(listed.map((o) => o.id).sort()).toEqual(expected.sort());
          for (let i = 1; i < listed.length; i += 1) expect(listed[i - 1]!.createdAt.getTime()).toBeGreaterThanOrEqual(listed[i]!.createdAt.getTime());
        }
      }),
      { numRuns: 60 },
    );
  });

  it('lists an order placed first and still active after many orders behind it ended', async () => {
    const w = world({ market: { overrides: FLAT }, account: { type: 'demo', initialBalance: dec('100000') } });
    const far = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(40000) });
    for (let i = 0; i < 5; i += 1) {
      await w.order({ type: 'market', direction: 'long', amount: D(50), leverage: D(2) });
      await w.ex.closeAllPositions(w.accountId, { idempotencyKey: null });
    }
    const near = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(49000) });
    expect((await w.ex.listActiveOrders(w.accountId)).map((o) => o.id)).toEqual([near.value.id, far.value.id]);
    await w.ex.cancelOrder(far.value.id);
    expect((await w.ex.listActiveOrders(w.accountId)).map((o) => o.id)).toEqual([near.value.id]);
    const later = await w.order({ type: 'limit', direction: 'short', amount: D(100), leverage: D(2), triggerPrice: D(60000) });
    expect((await w.ex.listActiveOrders(w.accountId)).map((o) => o.id)).toEqual([later.value.id, near.value.id]);
    w.price('49000', MIN);
    expect((await w.ex.listActiveOrders(w.accountId)).map((o) => o.id)).toEqual([later.value.id]);
  });

  it('are all cancelled when the account fails, however many finished orders came before them', async () => {
    const w = world({ market: { overrides: FLAT } });
    for (let i = 0; i < 3; i += 1) {
      await w.order({ type: 'market', direction: 'long', amount: D(50), leverage: D(2) });
      await w.ex.closeAllPositions(w.accountId, { idempotencyKey: null });
    }
    expect(await w.ex.listActiveOrders(w.accountId)).toEqual([]);
    await w.order({ type: 'market', direction: 'long', amount: D(2500), leverage: D(5) });
    const pending = await w.order({ type: 'limit', direction: 'long', amount: D(100), leverage: D(2), triggerPrice: D(40000) });
    expect((await w.ex.listActiveOrders(w.accountId)).map((o) => o.id)).toEqual([pending.value.id]);
    w.price('47800', 5 * MIN); // below the daily floor: the account fails and stops trading
    expect(w.engine.getAccount(w.accountId)!.status).toBe('failed');
    expect(await w.ex.listActiveOrders(w.accountId)).toEqual([]);
    const cancelled = (await w.ex.listOrderHistory(w.accountId, 'BTC')).data.find((o) => o.id === pending.value.id)!;
    expect([cancelled.status, cancelled.reason]).toEqual(['canceled', 'stop_accounts_fail']);
  });
});
