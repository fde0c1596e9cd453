/**
 * Property: whatever a trader does (opens, partial closes, limits, close-alls, price moves across funding
 * and day boundaries), the books balance to the last fp9 unit and every reserve is released.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VenueRefusal } from '../../src/api/errors.js';
import { dec } from '../../src/core/decimal.js';
import { D, HOUR, world } from './helpers.js';

type Action =
  | { kind: 'open'; long: boolean; amount: number; leverage: number }
  | { kind: 'limit'; long: boolean; amount: number; offset: number }
  | { kind: 'close'; quarter: number }
  | { kind: 'price'; bps: number; minutes: number }
  | { kind: 'closeAll' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('open' as const), long: fc.boolean(), amount: fc.integer({ min: 10, max: 800 }), leverage: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('limit' as const), long: fc.boolean(), amount: fc.integer({ min: 10, max: 500 }), offset: fc.integer({ min: 1, max: 300 }) }),
  fc.record({ kind: fc.constant('close' as const), quarter: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('price' as const), bps: fc.integer({ min: -150, max: 150 }), minutes: fc.integer({ min: 0, max: 600 }) }),
  fc.record({ kind: fc.constant('closeAll' as const) }),
);

describe('books balance under any sequence of actions', () => {
  it('balance = initial + Σ pnl − Σ fees ± Σ funding; reserves and margins are exactly the active ones', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40 }), async (actions) => {
        const w = world({ market: { overrides: { vpiSpread: '0.0003' } }, account: { type: 'demo' } });
        let price = 50000;
        for (const a of actions) {
          try {
            if (a.kind === 'open') await w.order({ type: 'market', direction: a.long ? 'long' : 'short', amount: D(a.amount), leverage: D(a.leverage) });
            else if (a.kind === 'limit') {
              const trigger = a.long ? price - a.offset : price + a.offset;
              await w.order({ type: 'limit', direction: a.long ? 'long' : 'short', amount: D(a.amount), leverage: D(2), triggerPrice: D(trigger) });
            } else if (a.kind === 'close') {
              const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
              if (p) await w.order({ type: 'take', direction: p.direction, amount: p.size.times(a.quarter).div(4), triggerPrice: D(0), positionId: p.idx });
            } else if (a.kind === 'price') {
              price = Math.max(1000, Math.round(price * (1 + a.bps / 10_000)));
              w.engine.setIndexPrice(w.market.id, dec(price), w.engine.now() + a.minutes * 60_000 + 1000);
            } else await w.ex.closeAllAccount(w.accountId, { idempotencyKey: null });
          } catch (e) {
            if (!(e instanceof VenueRefusal)) throw e;
          }
        }
        w.engine.advanceTo(w.engine.now() + 9 * HOUR); // one more funding at least
        const positions = new Set<string>();
        for (const o of (await w.ex.listOrderHistory(w.accountId, 'BTC', { limit: 100 })).data) if (o.positionId) positions.add(o.positionId);
        const open = await w.ex.listActivePositions(w.accountId, 'BTC');
        for (const p of open) positions.add(p.idx);
        let books = D(10000);
        let margins = D(0);
        for (const id of positions) {
          const [last] = await w.ex.getPositionHistory(id);
          // the history leaves payFunding out, but every event carries the position's funding total
          const cur = open.find((p) => p.idx === id);
          const fundingTotal = cur ? cur.funding! : last!.funding!;
          books = books.plus(last!.pnl!).minus(last!.fee).plus(fundingTotal);
          if (cur) margins = margins.plus(cur.margin);
        }
        if (actions.some((a) => a.kind === 'open')) expect(positions.size).toBeGreaterThan(0);
        const rs = await w.ex.getRiskStatus(w.accountId);
        expect(rs.currentBalance.toString()).toBe(books.toString());
        // every active increase order holds its amount; with no orders and no positions equity = balance
        const active = await w.ex.listActiveOrders(w.accountId);
        await w.ex.closeAllAccount(w.accountId, { idempotencyKey: null });
        const after = await w.ex.getRiskStatus(w.accountId);
        expect(after.currentEquity.toString()).toBe(after.currentBalance.toString());
        expect(active.every((o) => o.amount.gt(0))).toBe(true);
        expect(margins.gt(0)).toBe(open.length > 0);
        // the whole balance is free again: an order for all of it is accepted
        await expect(w.order({ type: 'limit', direction: 'long', amount: after.currentBalance, leverage: D(1), triggerPrice: D(Math.max(1, price - 5000)) })).resolves.toBeTruthy();
      }),
      { numRuns: 40 },
    );
  });
});
