/**
 * Conformance: the common access rules of every account-scoped operation (spec "Common access rules"):
 * 403 account_access_denied for another user's account, 403 api_trading_not_enabled by API key when
 * disabled, 404 for an unknown account, 401 for an unknown caller; 404 for unknown tickers.
 */
import { describe, expect, it } from 'vitest';
import {
  AccountAccessDeniedError,
  ApiTradingNotEnabledError,
  NotFoundError,
  UnauthorizedError,
} from '../../src/api/errors.js';
import type { Exchange } from '../../src/api/exchange.js';
import { D, FLAT, rejects, world } from './helpers.js';

const ops: Array<[string, (ex: Exchange, accountId: string) => Promise<unknown>]> = [
  ['getRiskStatus', (ex, id) => ex.getRiskStatus(id)],
  ['getEquityHistory', (ex, id) => ex.getEquityHistory(id)],
  ['closeAllAccount', (ex, id) => ex.closeAllAccount(id)],
  ['getScalpingCoefficient', (ex, id) => ex.getScalpingCoefficient(id, 'BTC')],
  ['listChartEvents', (ex, id) => ex.listChartEvents(id, 'BTC', { executedFrom: 0, executedTo: 1 })],
  ['getChartEventBuckets', (ex, id) => ex.getChartEventBuckets(id, 'BTC', { resolution: '1', from: 0, to: 60 })],
  ['listActivePositions', (ex, id) => ex.listActivePositions(id, 'BTC')],
  ['closeAllPositions', (ex, id) => ex.closeAllPositions(id)],
  ['listActiveOrders', (ex, id) => ex.listActiveOrders(id)],
  ['listOrderHistory', (ex, id) => ex.listOrderHistory(id, 'BTC')],
];

describe('common access rules', () => {
  for (const [name, op] of ops) {
    it(`${name}: 404 unknown account, 403 another user's, 403 api_trading_not_enabled by key, 401 unknown caller`, async () => {
      const w = world({ account: { apiTrading: false } });
      await rejects(op(w.ex, 'no-such-account'), NotFoundError, 'not_found');
      w.engine.addUser('intruder');
      await rejects(op(w.engine.exchangeFor('intruder'), w.accountId), AccountAccessDeniedError, 'account_access_denied');
      await rejects(op(w.engine.exchangeFor(w.user, { viaApiKey: true }), w.accountId), ApiTradingNotEnabledError, 'api_trading_not_enabled');
      await rejects(op(w.engine.exchangeFor('ghost'), w.accountId), UnauthorizedError, 'unauthorized');
      await expect(op(w.ex, w.accountId)).resolves.toBeDefined();
    });
  }
  it('per-market reads 404 on an unknown ticker', async () => {
    const w = world();
    await rejects(w.ex.listActivePositions(w.accountId, 'NOPE'), NotFoundError, 'not_found');
    await rejects(w.ex.getScalpingCoefficient(w.accountId, 'NOPE'), NotFoundError, 'not_found');
    await rejects(w.ex.getChartEventBuckets(w.accountId, 'NOPE', { resolution: '1', from: 0, to: 60 }), NotFoundError, 'not_found');
  });
  it('position history: the position\'s account must be the caller\'s', async () => {
    const w = world({ market: { overrides: FLAT } });
    await w.order({ type: 'market', direction: 'long', amount: D(100), leverage: D(2) });
    const [p] = await w.ex.listActivePositions(w.accountId, 'BTC');
    w.engine.addUser('intruder');
    await rejects(w.engine.exchangeFor('intruder').getPositionHistory(p!.idx), AccountAccessDeniedError, 'account_access_denied');
    expect((await w.ex.getPositionHistory(p!.idx)).length).toBe(1);
  });
});
