import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpExchange } from '../../src/api/client.js';
import {
  AccountAccessDeniedError,
  ApiTradingNotEnabledError,
  ChallengeClosedError,
  FundedLimitTradingLockedError,
  MarketPausedError,
  NotFoundError,
  OrderNotActiveError,
  UnauthorizedError,
  ValidationError,
} from '../../src/api/errors.js';
import { dec } from '../../src/core/decimal.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { ALICE_KEY, BOB_KEY, admin, raw, rejection, testConfig } from './helpers.js';

let sb: SandboxHandle;
let alice: HttpExchange;
let bob: HttpExchange;
let ids: {
  aliceApi: string;
  aliceManual: string;
  bobApi: string;
  btc: string;
  eth: string;
  xau: string;
};

beforeAll(async () => {
  sb = await startSandbox({ config: testConfig(), port: 0 });
  alice = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: ALICE_KEY, timeoutMs: 10_000 });
  bob = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: BOB_KEY, timeoutMs: 10_000 });
  const d = sb.describe;
  const account = (name: string) => d.users.flatMap((u) => u.accounts).find((a) => a.name === name)!.accountId;
  const market = (asset: string) => d.markets.find((m) => m.baseAsset === asset)!.id;
  ids = {
    aliceApi: account('alice-api'),
    aliceManual: account('alice-manual'),
    bobApi: account('bob-api'),
    btc: market('BTC'),
    eth: market('ETH'),
    xau: market('XAU'),
  };
});

afterAll(async () => {
  await sb.close();
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('sandbox server: description', () => {
  it('listens on 127.0.0.1 and describes users, keys, accounts and markets', () => {
    expect(sb.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const alice = sb.describe.users.find((u) => u.apiKey === ALICE_KEY)!;
    expect(alice.accounts.map((a) => [a.apiTrading, a.type, a.phase])).toEqual([
      [true, 'real', 'active_evaluation'],
      [false, 'real', 'active_evaluation'],
    ]);
    expect(sb.describe.markets.map((m) => m.baseAsset)).toEqual(['BTC', 'ETH', 'XAU']);
  });
});

describe('sandbox server: config operations', () => {
  it('lists markets and reads one by id, 404 for an unknown id', async () => {
    const markets = await alice.listMarkets();
    expect(markets.map((m) => m.config.baseAsset)).toEqual(['BTC', 'ETH', 'XAU']);
    const btc = await alice.getMarket(ids.btc);
    expect(btc.id).toBe(ids.btc);
    expect(btc.state.indexPrice.toString()).toBe('60000');
    const xau = await alice.getMarket(ids.xau, { accountId: ids.aliceApi });
    expect(xau.config.category).toBe('rwa');
    expect(xau.schedule?.inPause).toBe(false);
    expect(xau.schedule?.nextPauseAt).toBe(Date.parse('2024-01-05T21:00:00Z'));
    expect(await rejection(alice.getMarket(UNKNOWN))).toBeInstanceOf(NotFoundError);
  });
});

describe('sandbox server: authentication and access', () => {
  it('401 without a key or with a wrong one, with a null code', async () => {
    const none = await raw(sb.baseUrl, 'GET', '/accounts/risk-status', { key: null });
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ error: null });
    expect(none.json.message).toMatch(/API key/);
    const wrong = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: 'psk_wrong_key_123' });
    expect(await rejection(wrong.listRiskStatuses())).toBeInstanceOf(UnauthorizedError);
    // The admin token is not an API key.
    expect((await raw(sb.baseUrl, 'GET', '/accounts/risk-status', { key: 'admin-token-test' })).status).toBe(401);
  });

  it('the all-accounts reads include only api_trading accounts of the caller', async () => {
    const statuses = await alice.listRiskStatuses();
    expect(statuses.map((s) => s.accountId)).toEqual([ids.aliceApi]);
    const events = await alice.listAccountEvents();
    expect(events.data.length).toBeGreaterThan(0);
    expect(new Set(events.data.map((e) => e.accountId))).toEqual(new Set([ids.aliceApi]));
    expect(events.data.some((e) => e.eventType === 'buy_challenge')).toBe(true);
    expect((await bob.listRiskStatuses()).map((s) => s.accountId)).toEqual([ids.bobApi]);
  });

  it('403 account_access_denied, 403 api_trading_not_enabled, 404 for unknown accounts and tickers', async () => {
    const denied = await raw(sb.baseUrl, 'GET', `/accounts/${ids.bobApi}/risk-status`);
    expect(denied.status).toBe(403);
    expect(denied.json.error).toBe('account_access_denied');
    expect(await rejection(alice.getRiskStatus(ids.bobApi))).toBeInstanceOf(AccountAccessDeniedError);
    const disabled = await raw(sb.baseUrl, 'GET', `/orders/${ids.aliceManual}/active`);
    expect(disabled.status).toBe(403);
    expect(disabled.json.error).toBe('api_trading_not_enabled');
    expect(await rejection(alice.getRiskStatus(ids.aliceManual))).toBeInstanceOf(ApiTradingNotEnabledError);
    const missing = await raw(sb.baseUrl, 'GET', `/accounts/${UNKNOWN}/risk-status`);
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBeNull();
    // The body's message is the engine's reason alone; the client adds the request line once.
    expect(missing.json.message).not.toContain('/risk-status');
    const notFound = await rejection(alice.getRiskStatus(UNKNOWN));
    expect(notFound.message.split(`GET /accounts/${UNKNOWN}/risk-status`)).toHaveLength(2);
    expect(await rejection(alice.listActivePositions(ids.aliceApi, 'DOGE'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(alice.listOrderHistory(ids.aliceApi, 'DOGE'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(alice.getScalpingCoefficient(ids.aliceApi, 'DOGE'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(alice.getPositionHistory(UNKNOWN))).toBeInstanceOf(NotFoundError);
    expect(await rejection(alice.cancelOrder(UNKNOWN))).toBeInstanceOf(NotFoundError);
  });
});

describe('sandbox server: trading through the HTTP client', () => {
  let positionId: string;

  it('a market order opens a position that every read shows', async () => {
    const created = await alice.createOrder(
      { accountId: ids.aliceApi, marketId: ids.btc, type: 'market', direction: 'long', amount: dec(100), leverage: dec(5) },
      { idempotencyKey: null },
    );
    expect(created.idempotency).toEqual({ key: null, replayed: false, storedAt: null });
    expect(created.value.status).toBe('executed');
    expect(created.value.trader).toBe(ids.aliceApi);

    const positions = await alice.listActivePositions(ids.aliceApi, 'BTC');
    expect(positions).toHaveLength(1);
    expect(positions[0]!.direction).toBe('long');
    positionId = positions[0]!.idx;

    const history = await alice.getPositionHistory(positionId);
    expect(history[0]!.eventName).toBe('increasePosition');
    expect(history[0]!.order?.id).toBe(created.value.id);

    const scalping = await alice.getScalpingCoefficient(ids.aliceApi, 'BTC');
    expect(scalping.activeSince).toBeInstanceOf(Date);

    const nowS = Math.floor(sb.now() / 1000);
    const chart = await alice.listChartEvents(ids.aliceApi, 'BTC', { executedFrom: nowS - 3600, executedTo: nowS + 60 });
    expect(chart.totalCount).toBe(1);
    expect(chart.data[0]!.eventName).toBe('open');
    const buckets = await alice.getChartEventBuckets(ids.aliceApi, 'BTC', { resolution: '60', from: nowS - 7200, to: nowS });
    expect(buckets.reduce((n, b) => n + b.buy.totalCount, 0)).toBe(1);

    const risk = await alice.getRiskStatus(ids.aliceApi);
    expect(risk.accountId).toBe(ids.aliceApi);
    expect(risk.currentBalance.lt(10000)).toBe(true); // the open fee
    const equity = await alice.getEquityHistory(ids.aliceApi);
    expect(equity.length).toBeGreaterThan(0);
  });

  it('another user can not read the position or act on the account', async () => {
    expect(await rejection(bob.getPositionHistory(positionId))).toBeInstanceOf(AccountAccessDeniedError);
    expect(await rejection(bob.closeAllPositions(ids.aliceApi))).toBeInstanceOf(AccountAccessDeniedError);
    expect(await rejection(bob.listActivePositions(ids.aliceApi, 'BTC'))).toBeInstanceOf(AccountAccessDeniedError);
    expect(await alice.listActivePositions(ids.aliceApi, 'BTC')).toHaveLength(1);
  });

  it('a pending order is listed, edited (new id), cancelled (204), then 403 without a code', async () => {
    const limit = await alice.createOrder({
      accountId: ids.aliceApi,
      marketId: ids.eth,
      type: 'limit',
      direction: 'long',
      amount: dec(50),
      leverage: dec(2),
      triggerPrice: dec(2500),
    });
    expect(limit.value.status).toBe('active');
    expect((await alice.listActiveOrders(ids.aliceApi)).map((o) => o.id)).toContain(limit.value.id);

    expect(await rejection(bob.cancelOrder(limit.value.id))).toBeInstanceOf(AccountAccessDeniedError);

    const edited = await alice.editOrder(limit.value.id, { triggerPrice: dec(2400) });
    expect(edited.id).not.toBe(limit.value.id);
    expect(edited.triggerPrice.toString()).toBe('2400');

    const cancel = await raw(sb.baseUrl, 'DELETE', `/orders/${edited.id}`);
    expect(cancel.status).toBe(204);
    expect(cancel.text).toBe('');

    const again = await raw(sb.baseUrl, 'DELETE', `/orders/${edited.id}`);
    expect(again.status).toBe(403);
    expect(again.json.error).toBeNull();
    expect(await rejection(alice.cancelOrder(limit.value.id))).toBeInstanceOf(OrderNotActiveError);
    expect(await rejection(alice.editOrder(edited.id, { triggerPrice: dec(2300) }))).toBeInstanceOf(OrderNotActiveError);

    const history = await alice.listOrderHistory(ids.aliceApi, 'ETH');
    expect(history.data.map((o) => o.id)).toContain(edited.id);
    expect(history.data.map((o) => o.status)).not.toContain('canceled_by_update');
  });

  it('validation failures of the engine come back as 400 with the spec code', async () => {
    const noLeverage = await raw(sb.baseUrl, 'POST', '/orders', {
      body: JSON.stringify({ accountId: ids.aliceApi, marketId: ids.btc, type: 'market', direction: 'long', amount: '100000000000' }),
    });
    expect(noLeverage.status).toBe(400);
    expect(noLeverage.json.error).toBe('leverage_required');
    const err = await rejection(
      alice.createOrder({ accountId: ids.aliceApi, marketId: ids.btc, type: 'market', direction: 'long', amount: dec(100), leverage: dec(50) }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('invalid_leverage');
    expect((err as ValidationError).details['maxLeverage']).toBeDefined();
  });

  it('close-all of positions and of the account answer 204 and leave nothing open', async () => {
    const closed = await alice.closeAllPositions(ids.aliceApi);
    expect(closed.idempotency.replayed).toBe(false);
    expect(await alice.listActivePositions(ids.aliceApi, 'BTC')).toHaveLength(0);
    const closedPosition = await alice.getPositionHistory(positionId);
    expect(closedPosition[0]!.eventName).toBe('closePosition');

    await alice.createOrder({ accountId: ids.aliceApi, marketId: ids.eth, type: 'limit', direction: 'short', amount: dec(20), leverage: dec(2), triggerPrice: dec(3500) });
    const all = await raw(sb.baseUrl, 'POST', `/accounts/${ids.aliceApi}/close-all`);
    expect(all.status).toBe(204);
    expect(await alice.listActiveOrders(ids.aliceApi)).toHaveLength(0);
  });

  it('a paused market (weekly schedule) refuses cancelling with 403 market_paused', async () => {
    const order = await alice.createOrder({
      accountId: ids.aliceApi,
      marketId: ids.xau,
      type: 'limit',
      direction: 'long',
      amount: dec(30),
      leverage: dec(2),
      triggerPrice: dec(2000),
    });
    // Wednesday 12:00 → Saturday 12:00: inside the Fri 21:00 – Sun 22:00 break.
    const advanced = await admin(sb.baseUrl, 'POST', 'advance', { ms: 3 * 86_400_000 });
    expect(advanced.status).toBe(200);
    expect(advanced.json.iso).toBe('2024-01-06T12:00:00.000Z');
    expect((await alice.getMarket(ids.xau)).schedule?.inPause).toBe(true);
    expect(await rejection(alice.cancelOrder(order.value.id))).toBeInstanceOf(MarketPausedError);
  });
});

describe('sandbox server: admin surface', () => {
  it('needs the admin token', async () => {
    const r = await raw(sb.baseUrl, 'GET', '/_sandbox/orders');
    expect(r.status).toBe(401);
    expect((await raw(sb.baseUrl, 'GET', '/_sandbox/orders', { key: null })).status).toBe(401);
  });

  it('sets a price that the API then shows, and lists every order ever created', async () => {
    const set = await admin(sb.baseUrl, 'POST', 'price', { asset: 'BTC', price: '61234.5' });
    expect(set.status).toBe(200);
    expect((await alice.getMarket(ids.btc)).state.indexPrice.toString()).toBe('61234.5');
    const bad = await admin(sb.baseUrl, 'POST', 'price', { asset: 'BTC', price: 'lots' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('price');
    expect((await admin(sb.baseUrl, 'POST', 'price', { asset: 'NOPE', price: '1' })).status).toBe(404);

    const orders = await admin(sb.baseUrl, 'GET', 'orders');
    expect(orders.status).toBe(200);
    const viaApi = orders.json.data.filter((e: any) => e.via === 'api');
    // market BTC, limit ETH + its edit, limit ETH short, limit XAU
    expect(viaApi.length).toBe(5);
    expect(viaApi.every((e: any) => e.user === 'alice')).toBe(true);
    expect(orders.json.totalCount).toBeGreaterThanOrEqual(viaApi.length);
  });

  it('market flags and account status are settable for tests', async () => {
    const flags = await admin(sb.baseUrl, 'POST', 'market-flags', { asset: 'ETH', isCloseOnly: true });
    expect(flags.status).toBe(200);
    expect((await alice.getMarket(ids.eth)).settings.isCloseOnly).toBe(true);
    await admin(sb.baseUrl, 'POST', 'market-flags', { asset: 'ETH', isCloseOnly: false });
    expect((await alice.getMarket(ids.eth)).settings.isCloseOnly).toBe(false);
    const status = await admin(sb.baseUrl, 'POST', 'account-status', { accountId: ids.bobApi, status: 'nonsense' });
    expect(status.status).toBe(400);
  });
});

describe('sandbox server: account status from config and admin', () => {
  it('a failed account answers 403 challenge_closed, a locked one 403 funded_limit_trading_locked', async () => {
    const carolKey = 'psk_test_carol_0003';
    const s = await startSandbox({
      config: testConfig(`  - name: carol
    apiKey: ${carolKey}
    accounts:
      - { name: carol-failed, status: failed }
      - { name: carol-live }
`),
      port: 0,
    });
    try {
      const carol = new HttpExchange({ baseUrl: s.baseUrl, apiKey: carolKey });
      const acc = (name: string) => s.describe.users.flatMap((u) => u.accounts).find((a) => a.name === name)!.accountId;
      const btc = s.describe.markets.find((m) => m.baseAsset === 'BTC')!.id;
      const order = (accountId: string) =>
        carol.createOrder({ accountId, marketId: btc, type: 'market', direction: 'long', amount: dec(100), leverage: dec(2) });
      expect(await rejection(order(acc('carol-failed')))).toBeInstanceOf(ChallengeClosedError);
      const locked = await admin(s.baseUrl, 'POST', 'account-status', { accountId: acc('carol-live'), status: 'trading_locked_by_funded_limit' });
      expect(locked.status).toBe(200);
      const r = await raw(s.baseUrl, 'POST', '/orders', {
        key: carolKey,
        body: JSON.stringify({ accountId: acc('carol-live'), marketId: btc, type: 'market', direction: 'long', amount: '100000000000', leverage: '2000000000' }),
      });
      expect([r.status, r.json.error]).toEqual([403, 'funded_limit_trading_locked']);
      expect(await rejection(order(acc('carol-live')))).toBeInstanceOf(FundedLimitTradingLockedError);
      expect((await admin(s.baseUrl, 'POST', 'account-status', { accountId: UNKNOWN, status: 'active' })).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
