import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Dec, dec } from '../../src/core/decimal.js';
import { HttpExchange } from '../../src/api/client.js';
import { ResponseShapeError } from '../../src/api/wire.js';
import { ValidationError } from '../../src/api/errors.js';
import { CannedServer, pagedFrom } from './canned-server.js';
import {
  IDS,
  fp9,
  wireAccountEvent,
  wireChartEvent,
  wireChartEventBucket,
  wireEquityPoint,
  wireMarket,
  wireOrder,
  wirePosition,
  wirePositionEvent,
  wireRiskStatus,
  wireScalpingCoefficient,
} from './fixtures.js';

const API_KEY = 'pk_test_SECRET-0123456789abcdef';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: CannedServer;
let client: HttpExchange;

beforeAll(async () => {
  server = await CannedServer.start();
  client = new HttpExchange({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 5000, userAgent: 'propbot-test/1' });
});
afterAll(async () => {
  await server.stop();
});
afterEach(() => {
  server.reset();
});

function expectCommonHeaders(): void {
  const h = server.last.headers;
  expect(h['authorization']).toBe(`Bearer ${API_KEY}`);
  expect(h['accept']).toBe('application/json');
  expect(h['user-agent']).toBe('propbot-test/1');
}

describe('HttpExchange: accounts', () => {
  it('GET /accounts/risk-status decodes every status', async () => {
    server.on({ body: [wireRiskStatus(), wireRiskStatus({ accountId: IDS.otherAccount, consistencyRuleMet: null, consistencyRuleRatio: null })] });
    const list = await client.listRiskStatuses();
    expect(server.last.method).toBe('GET');
    expect(server.last.rawUrl).toBe('/accounts/risk-status');
    expect(server.last.body).toBe('');
    expectCommonHeaders();
    expect(list).toHaveLength(2);
    expect(list[0]!.currentEquity.equals(dec('100310.123456789'))).toBe(true);
    expect(list[0]!.consistencyRuleLimit.equals(dec('0.3'))).toBe(true);
    expect(list[0]!.maxPeriodDailyEquityDeltaAt).toEqual(new Date('2026-03-01T00:00:00.000Z'));
    expect(list[1]!.accountId).toBe(IDS.otherAccount);
    expect(list[1]!.consistencyRuleMet).toBeNull();
  });

  it('GET /accounts/{id}/risk-status', async () => {
    server.on({ body: wireRiskStatus({ tradingDays: 7 }) });
    const status = await client.getRiskStatus(IDS.account);
    expect(server.last.rawUrl).toBe(`/accounts/${IDS.account}/risk-status`);
    expectCommonHeaders();
    expect(status.tradingDays).toBe(7);
    expect(status.currentBalance.equals(dec('100250.75'))).toBe(true);
  });

  it('GET /accounts/{id}/equity-history with and without timestamp/duration', async () => {
    server.on({ body: [wireEquityPoint(), wireEquityPoint({ timestamp: 1772445660000, volume: fp9('100311'), phaseIndex: 1 })] });
    const points = await client.getEquityHistory(IDS.account, { timestamp: 1772445600000, duration: -3600000 });
    expect(server.last.path).toBe(`/accounts/${IDS.account}/equity-history`);
    expect(server.last.query).toEqual({ timestamp: '1772445600000', duration: '-3600000' });
    expect(points.map((p) => p.volume.toString())).toEqual(['100310.5', '100311']);
    expect(points[1]!.phaseIndex).toBe(1);
    expect(points[0]!.timestamp).toBe(1772445600000);

    await client.getEquityHistory(IDS.account);
    expect(server.last.rawUrl).toBe(`/accounts/${IDS.account}/equity-history`);
  });

  it('refuses a zero equity-history duration before sending', async () => {
    const err = await client.getEquityHistory(IDS.account, { duration: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details['field']).toBe('duration');
    expect((err as ValidationError).message).toContain('duration');
    expect(server.requests).toHaveLength(0);
  });

  it('POST /accounts/{id}/close-all sends an idempotency key and no body', async () => {
    server.on({ status: 204 });
    const result = await client.closeAllAccount(IDS.account);
    expect(server.last.method).toBe('POST');
    expect(server.last.rawUrl).toBe(`/accounts/${IDS.account}/close-all`);
    expect(server.last.body).toBe('');
    expectCommonHeaders();
    const key = server.last.headers['x-idempotency-key'];
    expect(key).toMatch(UUID);
    expect(result).toEqual({ value: undefined, idempotency: { key, replayed: false, storedAt: null } });
  });

  it('GET /accounts/events pages and iterates', async () => {
    const all = Array.from({ length: 5 }, (_, i) => wireAccountEvent({ id: `00000000-0000-4000-8000-00000000000${i}` }));
    server.on(pagedFrom(all));
    const page = await client.listAccountEvents({ limit: 2, offset: 1 });
    expect(server.last.path).toBe('/accounts/events');
    expect(server.last.query).toEqual({ limit: '2', offset: '1' });
    expect(page.totalCount).toBe(5);
    expect(page.data.map((e) => e.id)).toEqual([all[1]!.id, all[2]!.id]);
    expect(page.data[0]!.payload['amount']).toEqual(dec('549.99'));
    expect(page.data[0]!.account.initialAccountBalance.equals(dec(100000))).toBe(true);
    expect(page.data[0]!.account.profitTarget!.equals(dec(8))).toBe(true);

    server.reset();
    const ids: string[] = [];
    for await (const e of client.iterateAccountEvents(2)) ids.push(e.id);
    expect(ids).toEqual(all.map((e) => e.id));
    expect(server.requests.map((r) => r.query)).toEqual([
      { limit: '2', offset: '0' },
      { limit: '2', offset: '2' },
      { limit: '2', offset: '4' },
    ]);
  });

  it('refuses out-of-range page parameters before sending', async () => {
    await expect(client.listAccountEvents({ limit: 101 })).rejects.toThrow(/limit: expected an integer in 1\.\.100, got 101/);
    await expect(client.listAccountEvents({ offset: -1 })).rejects.toThrow(/offset/);
    await expect(client.listOrderHistory(IDS.account, 'BTC', { limit: 0 })).rejects.toThrow(/limit/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('HttpExchange: positions and chart markers', () => {
  it('GET /positions/{id}/{asset}/scalping-coefficient, window running and not', async () => {
    server.on({ body: wireScalpingCoefficient() });
    const running = await client.getScalpingCoefficient(IDS.account, 'BTC');
    expect(server.last.rawUrl).toBe(`/positions/${IDS.account}/BTC/scalping-coefficient`);
    expect(running.amount.equals(dec(2))).toBe(true);
    expect(running.activeSince).toEqual(new Date('2026-03-02T10:00:00.000Z'));
    expect(running.activeUntil).toEqual(new Date('2026-03-02T10:05:00.000Z'));

    server.on({ body: { amount: fp9('1'), amountRegular: fp9('1') } });
    const idle = await client.getScalpingCoefficient(IDS.account, 'BTC');
    expect(idle.activeSince).toBeNull();
    expect(idle.activeUntil).toBeNull();
  });

  it('URL-encodes path segments', async () => {
    server.on({ body: [] });
    await client.listActivePositions('acc/../x', 'BTC/USD ?#');
    expect(server.last.rawUrl).toBe('/positions/acc%2F..%2Fx/BTC%2FUSD%20%3F%23/active');
  });

  it('GET /positions/{id}/{asset}/chart-events with the range, pages and iterates', async () => {
    const all = Array.from({ length: 3 }, (_, i) => wireChartEvent({ executedAt: 1772445600 - i }));
    server.on(pagedFrom(all));
    const page = await client.listChartEvents(IDS.account, 'ETH', { executedFrom: 100, executedTo: 200, limit: 1000 });
    expect(server.last.path).toBe(`/positions/${IDS.account}/ETH/chart-events`);
    expect(server.last.query).toEqual({ executedFrom: '100', executedTo: '200', limit: '1000' });
    expect(page.data.map((e) => e.executedAt)).toEqual([1772445600, 1772445599, 1772445598]);
    expect(page.data[0]!.price.equals(dec('64000.25'))).toBe(true);

    server.reset();
    const seen: number[] = [];
    for await (const e of client.iterateChartEvents(IDS.account, 'ETH', { executedFrom: 1, executedTo: 2 }, 2)) seen.push(e.executedAt);
    expect(seen).toHaveLength(3);
    expect(server.requests.map((r) => r.query)).toEqual([
      { executedFrom: '1', executedTo: '2', limit: '2', offset: '0' },
      { executedFrom: '1', executedTo: '2', limit: '2', offset: '2' },
    ]);
    await expect(client.listChartEvents(IDS.account, 'ETH', { executedFrom: 1, executedTo: 2, limit: 1001 })).rejects.toThrow(/1\.\.1000/);
  });

  it('GET /positions/{id}/{asset}/chart-events/buckets decodes sides', async () => {
    server.on({ body: [wireChartEventBucket()] });
    const buckets = await client.getChartEventBuckets(IDS.account, 'BTC', { resolution: '1D', from: 0, to: 86400 * 350 });
    expect(server.last.path).toBe(`/positions/${IDS.account}/BTC/chart-events/buckets`);
    expect(server.last.query).toEqual({ resolution: '1D', from: '0', to: String(86400 * 350) });
    expect(buckets[0]!.buy.totalCount).toBe(7);
    expect(buckets[0]!.buy.events.map((e) => e.eventName)).toEqual(['open', 'increase']);
    expect(buckets[0]!.sell.events[0]!.size.equals(dec('0.015625'))).toBe(true);
  });

  it('refuses more than 350 candles without a request', async () => {
    const err = await client
      .getChartEventBuckets(IDS.account, 'BTC', { resolution: '5', from: 0, to: 300 * 351 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('chart_range_too_large');
    expect((err as ValidationError).message).toContain('351 candles');
    await expect(
      client.getChartEventBuckets(IDS.account, 'BTC', { resolution: '7' as '5', from: 0, to: 60 }),
    ).rejects.toThrow(/resolution: expected one of/);
    await expect(client.getChartEventBuckets(IDS.account, 'BTC', { resolution: '5', from: 600, to: 0 })).rejects.toThrow(/before from/);
    expect(server.requests).toHaveLength(0);
  });

  it('GET /positions/{id}/{asset}/active decodes positions', async () => {
    server.on({ body: [wirePosition()] });
    const [p] = await client.listActivePositions(IDS.account, 'BTC');
    expect(server.last.method).toBe('GET');
    expect(server.last.rawUrl).toBe(`/positions/${IDS.account}/BTC/active`);
    expect(p!.idx).toBe(IDS.position);
    expect(p!.size.equals(dec('0.15625'))).toBe(true);
    expect(p!.funding!.equals(dec('-0.000000001'))).toBe(true);
    expect(p!.openedAt).toEqual(new Date('2026-03-02T09:00:00.000Z'));
    expect(p!.closedAt).toBeNull();
  });

  it('POST /positions/{id}/close-all with a caller key, and opting out', async () => {
    server.on({ status: 204, headers: { 'x-idempotency-cached': 'true', 'x-idempotency-timestamp': '2026-03-02T10:00:00.000Z' } });
    const replay = await client.closeAllPositions(IDS.account, { idempotencyKey: 'flatten-1' });
    expect(server.last.method).toBe('POST');
    expect(server.last.rawUrl).toBe(`/positions/${IDS.account}/close-all`);
    expect(server.last.headers['x-idempotency-key']).toBe('flatten-1');
    expect(replay.idempotency).toEqual({ key: 'flatten-1', replayed: true, storedAt: new Date('2026-03-02T10:00:00.000Z') });

    server.on({ status: 204 });
    const plain = await client.closeAllPositions(IDS.account, { idempotencyKey: null });
    expect(server.last.headers['x-idempotency-key']).toBeUndefined();
    expect(plain.idempotency).toEqual({ key: null, replayed: false, storedAt: null });
  });

  it('GET /positions/{positionId}/history decodes events with and without order', async () => {
    server.on({ body: [wirePositionEvent(), wirePositionEvent({ eventName: 'forceClose', order: null, closeReason: ['weekly_session_risk_close'] })] });
    const events = await client.getPositionHistory(IDS.position);
    expect(server.last.rawUrl).toBe(`/positions/${IDS.position}/history`);
    expect(events[0]!.order!.status).toBe('executed');
    expect(events[0]!.order!.indexPrice!.equals(dec(64000))).toBe(true);
    expect(events[1]!.order).toBeNull();
    expect(events[1]!.closeReason).toBe('weekly_session_risk_close');
  });
});

describe('HttpExchange: orders', () => {
  it('GET /orders/{id}/active accepts the array-declared fields in every form', async () => {
    server.on({
      body: [
        wireOrder({ positionId: [IDS.position], parentOrderId: [], error: null, errorCode: [] }),
        wireOrder({ id: IDS.order2, positionId: IDS.position, parentOrderId: [IDS.order], error: [], errorCode: 'slippage_tolerance' }),
      ],
    });
    const [a, b] = await client.listActiveOrders(IDS.account);
    expect(server.last.rawUrl).toBe(`/orders/${IDS.account}/active`);
    expect(a!.positionId).toBe(IDS.position);
    expect(a!.parentOrderId).toBeNull();
    expect(a!.errorCode).toBeNull();
    expect(b!.txId).toBe(IDS.order2);
    expect(b!.parentOrderId).toBe(IDS.order);
    expect(b!.error).toBeNull();
    expect(b!.errorCode).toBe('slippage_tolerance');
    expect(a!.triggerPrice.equals(dec('64000.5'))).toBe(true);
    expect(a!.leverage!.equals(dec(10))).toBe(true);
  });

  it('GET /orders/{id}/{asset}/history pages and iterates', async () => {
    const all = [wireOrder({ status: 'executed' }), wireOrder({ id: IDS.order2, status: 'canceled_by_error', errorCode: 'order_below_min_notional' })];
    server.on(pagedFrom(all));
    const page = await client.listOrderHistory(IDS.account, 'BTC', { limit: 1 });
    expect(server.last.path).toBe(`/orders/${IDS.account}/BTC/history`);
    expect(server.last.query).toEqual({ limit: '1' });
    expect(page.data).toHaveLength(1);
    server.reset();
    const statuses: string[] = [];
    for await (const o of client.iterateOrderHistory(IDS.account, 'BTC', 1)) statuses.push(o.status);
    expect(statuses).toEqual(['executed', 'canceled_by_error']);
    expect(server.requests).toHaveLength(2);
  });

  it('POST /orders sends the fp9 body and a generated idempotency key', async () => {
    server.on({ status: 201, body: wireOrder({ type: 'limit' }) });
    const result = await client.createOrder({
      accountId: IDS.account,
      marketId: IDS.market,
      type: 'limit',
      direction: 'long',
      amount: dec('1000'),
      leverage: dec('10'),
      triggerPrice: dec('64000.5'),
      stopTriggerPrice: dec('62000'),
      takeTriggerPrice: null,
    });
    const req = server.last;
    expect(req.method).toBe('POST');
    expect(req.rawUrl).toBe('/orders');
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    expectCommonHeaders();
    expect(JSON.parse(req.body)).toEqual({
      accountId: IDS.account,
      marketId: IDS.market,
      type: 'limit',
      direction: 'long',
      amount: '1000000000000',
      leverage: '10000000000',
      triggerPrice: '64000500000000',
      stopTriggerPrice: '62000000000000',
      takeTriggerPrice: null,
    });
    expect(req.headers['x-idempotency-key']).toMatch(UUID);
    expect(result.idempotency).toEqual({ key: req.headers['x-idempotency-key'], replayed: false, storedAt: null });
    expect(result.value.id).toBe(IDS.order);
    expect(result.value.stopTriggerPrice.equals(dec(62000))).toBe(true);
  });

  it('POST /orders tells a replay from a fresh answer', async () => {
    server.on({ body: wireOrder(), headers: { 'X-Idempotency-Cached': 'true', 'X-Idempotency-Timestamp': '1772445600000' } });
    const result = await client.createOrder(
      { accountId: IDS.account, marketId: IDS.market, type: 'market', direction: 'short', amount: dec('50'), leverage: dec('5') },
      { idempotencyKey: 'intent-42' },
    );
    expect(server.last.headers['x-idempotency-key']).toBe('intent-42');
    expect(result.idempotency).toEqual({ key: 'intent-42', replayed: true, storedAt: new Date(1772445600000) });
  });

  it('refuses an amount with more than 9 places before sending', async () => {
    await expect(
      client.createOrder({ accountId: IDS.account, marketId: IDS.market, type: 'market', direction: 'long', amount: new Dec('1.0000000001') }),
    ).rejects.toThrow(/body\.amount/);
    expect(server.requests).toHaveLength(0);
  });

  it('PATCH /orders/{orderId} sends only the given fields', async () => {
    server.on({ body: wireOrder({ id: IDS.order2, triggerPrice: fp9('63000') }) });
    const order = await client.editOrder(IDS.order, { triggerPrice: dec('63000'), baseSize: dec('0.001') });
    expect(server.last.method).toBe('PATCH');
    expect(server.last.rawUrl).toBe(`/orders/${IDS.order}`);
    expect(JSON.parse(server.last.body)).toEqual({ triggerPrice: '63000000000000', baseSize: '1000000' });
    expect(server.last.headers['x-idempotency-key']).toBeUndefined();
    expect(order.id).toBe(IDS.order2);
    expect(order.triggerPrice.equals(dec(63000))).toBe(true);
  });

  it('refuses an empty path parameter before sending, naming it', async () => {
    await expect(client.cancelOrder('')).rejects.toMatchObject({ code: 'invalid_argument', details: { field: 'orderId', clientSide: true } });
    await expect(client.listActivePositions(IDS.account, '')).rejects.toThrow(/asset: expected a non-empty string/);
    expect(server.requests).toHaveLength(0);
  });

  it('a void operation ignores a body sent with its success status', async () => {
    server.on({ status: 200, body: 'OK' });
    await expect(client.cancelOrder(IDS.order)).resolves.toBeUndefined();
  });

  it('DELETE /orders/{orderId} answers 204', async () => {
    server.on({ status: 204 });
    await expect(client.cancelOrder(IDS.order)).resolves.toBeUndefined();
    expect(server.last.method).toBe('DELETE');
    expect(server.last.rawUrl).toBe(`/orders/${IDS.order}`);
    expectCommonHeaders();
  });
});

describe('HttpExchange: markets', () => {
  it('GET /v2/markets/{id} with and without accountId', async () => {
    server.on({ body: wireMarket({ schedule: { nextPauseAt: 0, nextUnpauseAt: 0, closestPauseAt: 0, closestUnpauseAt: 0, pausedAt: 0, inPause: false } }) });
    const m = await client.getMarket(IDS.market, { accountId: IDS.account });
    expect(server.last.path).toBe(`/v2/markets/${IDS.market}`);
    expect(server.last.query).toEqual({ accountId: IDS.account });
    expect(m.config.baseAsset).toBe('BTC');
    expect(m.state.indexPrice.equals(dec('64000.5'))).toBe(true);
    expect(m.settings.maxLeverageByAccount['real']!.equals(dec(50))).toBe(true);
    expect(m.change.initialPrice.equals(dec('63000.25'))).toBe(true);
    expect(m.schedule!.inPause).toBe(false);
    await client.getMarket(IDS.market);
    expect(server.last.rawUrl).toBe(`/v2/markets/${IDS.market}`);
  });

  it('GET /v2/markets accepts an array or { data: [...] }', async () => {
    server.on({ body: [wireMarket(), wireMarket({ id: IDS.order })] });
    expect((await client.listMarkets()).map((m) => m.id)).toEqual([IDS.market, IDS.order]);
    expect(server.last.rawUrl).toBe('/v2/markets');
    server.on({ body: { data: [wireMarket()], totalCount: 1 } });
    expect((await client.listMarkets()).map((m) => m.id)).toEqual([IDS.market]);
    server.on({ body: { data: [{ ...wireMarket(), config: { ...wireMarket().config, category: 'fx' } }] } });
    await expect(client.listMarkets()).rejects.toMatchObject({ field: 'markets.data[0].config.category' });
  });
});

describe('HttpExchange: response shape', () => {
  it('names the path of a mistyped field, with the request line', async () => {
    server.on({ body: [wireOrder(), wireOrder(), wireOrder(), { ...wireOrder(), triggerPrice: 64000.5 }] });
    const err = await client.listActiveOrders(IDS.account).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect((err as ResponseShapeError).field).toBe('orders[3].triggerPrice');
    expect((err as ResponseShapeError).message).toContain(`GET /orders/${IDS.account}/active`);
    expect((err as ResponseShapeError).message).toContain('number 64000.5');
  });

  it('names a missing field', async () => {
    const { leverage: _dropped, ...noLeverage } = wireOrder();
    server.on({ body: noLeverage });
    await expect(client.editOrder(IDS.order, {})).rejects.toMatchObject({ field: 'order.leverage', code: 'response_shape' });
  });

  it('rejects an unknown enum value and an invalid fp9 string', async () => {
    server.on({ body: [wirePosition({ status: 'frozen' as 'opened' })] });
    await expect(client.listActivePositions(IDS.account, 'BTC')).rejects.toMatchObject({ field: 'positions[0].status' });
    server.on({ body: wireRiskStatus({ currentEquity: '01' }) });
    await expect(client.getRiskStatus(IDS.account)).rejects.toMatchObject({ field: 'riskStatus.currentEquity' });
  });

  it('rejects a 200 with a non-JSON or empty body', async () => {
    server.on({ body: '<html>hello</html>' });
    await expect(client.listRiskStatuses()).rejects.toMatchObject({ code: 'response_shape', field: '(body)' });
    server.on({ status: 200 });
    await expect(client.listRiskStatuses()).rejects.toBeInstanceOf(ResponseShapeError);
  });
});
