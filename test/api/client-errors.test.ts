import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.js';
import { ConfigError } from '../../src/core/errors.js';
import { HttpExchange, parseRetryAfter } from '../../src/api/client.js';
import {
  ApiError,
  ConnectionError,
  ERROR_TABLE,
  ForbiddenError,
  InvalidLeverageError,
  NotFoundError,
  OrderNotActiveError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  TransientFailure,
  UnauthorizedError,
  UnexpectedClientError,
  VenueRefusal,
} from '../../src/api/errors.js';
import { encodeApiError } from '../../src/api/wire.js';
import { apiError } from '../../src/api/errors.js';
import { CannedServer } from './canned-server.js';
import { IDS } from './fixtures.js';

const API_KEY = 'pk_live_DO-NOT-LEAK-7f3a9c2e1b';

let server: CannedServer;
let client: HttpExchange;

beforeAll(async () => {
  server = await CannedServer.start();
  client = new HttpExchange({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 5000 });
});
afterAll(async () => {
  await server.stop();
});
afterEach(() => {
  server.reset();
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

describe('error mapping', () => {
  for (const row of ERROR_TABLE) {
    const code = row.code === '*' ? 'some_other_code' : row.code;
    it(`${row.status} ${row.code} → ${row.errorClass.name}`, async () => {
      server.on({ status: row.status, body: { error: code, message: `venue says ${code}` } });
      const err = await failure(client.getRiskStatus(IDS.account));
      expect(err.constructor).toBe(row.errorClass);
      expect(err.status).toBe(row.status);
      expect(err.code).toBe(code);
      expect(err.message).toContain(`GET /accounts/${IDS.account}/risk-status`);
      expect(err.message).toContain(`venue says ${code}`);
    });
  }

  it('invalid_leverage keeps the bound in details', async () => {
    server.on({ status: 400, body: { error: 'invalid_leverage', message: 'too high', leverage: '200000000000', maxLeverage: '100000000000' } });
    const err = await failure(
      client.createOrder({ accountId: IDS.account, marketId: IDS.market, type: 'market', direction: 'long', amount: dec(10), leverage: dec(200) }),
    );
    expect(err).toBeInstanceOf(InvalidLeverageError);
    expect((err as InvalidLeverageError).leverage).toBe('200000000000');
    expect((err as InvalidLeverageError).maxLeverage).toBe('100000000000');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('POST /orders');
  });

  it('a 403 without a code on cancel or edit is OrderNotActiveError; elsewhere plain ForbiddenError', async () => {
    server.on({ status: 403, body: { message: 'Order is not active' } });
    const cancel = await failure(client.cancelOrder(IDS.order));
    expect(cancel).toBeInstanceOf(OrderNotActiveError);
    expect(cancel.code).toBe('order_not_active');
    expect(cancel.message).toContain(`DELETE /orders/${IDS.order}`);
    expect(await failure(client.editOrder(IDS.order, { amount: dec(1) }))).toBeInstanceOf(OrderNotActiveError);
    server.on({ status: 403, body: '' });
    const other = await failure(client.listActiveOrders(IDS.account));
    expect(other.constructor).toBe(ForbiddenError);
    expect(other.code).toBe('forbidden');
  });

  it('copes with empty, HTML and non-object bodies', async () => {
    server.on({ status: 401 });
    const unauthorized = await failure(client.listRiskStatuses());
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect(unauthorized.code).toBe('unauthorized');
    expect(unauthorized.message).toContain('empty body');

    server.on({ status: 404, body: '<html><body><h1>Not Found</h1></body></html>', headers: { 'content-type': 'text/html' } });
    const missing = await failure(client.getMarket(IDS.market));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.code).toBe('not_found');
    expect(missing.message).toContain('<h1>Not Found</h1>');

    server.on({ status: 502, body: '<html>' + 'x'.repeat(5000) + '</html>' });
    const bad = await failure(client.listMarkets());
    expect(bad).toBeInstanceOf(ServerError);
    expect(bad).toBeInstanceOf(TransientFailure);
    expect(bad.retryable).toBe(true);
    expect(bad.code).toBe('server_error');
    expect(bad.message.length).toBeLessThan(400);

    server.on({ status: 500, body: '[1,2]' });
    expect(await failure(client.listMarkets())).toBeInstanceOf(ServerError);

    server.on({ status: 503, body: { error: 'maintenance', message: 'back soon' } });
    const maint = await failure(client.listMarkets());
    expect(maint).toBeInstanceOf(ServerError);
    expect(maint.code).toBe('maintenance');

    server.on({ status: 418, body: 'teapot' });
    const odd = await failure(client.listMarkets());
    expect(odd).toBeInstanceOf(UnexpectedClientError);
    expect(odd).toBeInstanceOf(VenueRefusal);
    expect(odd.code).toBe('http_418');
  });
});

describe('encodeApiError (server side) reads back as the same error', () => {
  const cases = [
    apiError({ status: 400, code: 'invalid_leverage', message: 'leverage above the phase maximum', details: { leverage: '200000000000', maxLeverage: '100000000000' } }),
    apiError({ status: 400, code: 'trigger_price_gt_current', message: 'trigger above current price' }),
    apiError({ status: 403, code: 'market_close_only', message: 'close only' }),
    apiError({ status: 403, code: 'order_not_active', message: 'order is no longer active' }),
    apiError({ status: 404, code: 'not_found', message: 'no such order' }),
    apiError({ status: 409, code: 'idempotency_key_in_flight', message: 'first call still running' }),
    apiError({ status: 429, code: 'api_key_rate_limit_exceeded', message: 'write budget spent', details: { bucket: 'write', window: '1s', limit: 5, retryAt: new Date('2037-05-01T00:00:00.000Z') } }),
  ];
  for (const original of cases) {
    it(`${original.status} ${original.code}`, async () => {
      const wire = encodeApiError(original, Date.parse('2037-04-30T23:59:30.000Z'));
      server.on({ status: wire.status, headers: wire.headers, body: wire.body });
      const err = await failure(client.cancelOrder(IDS.order));
      expect(err.constructor).toBe(original.constructor);
      expect(err.code).toBe(original.code);
      expect(err.details).toEqual(original.details);
      expect(err.message.startsWith(`DELETE /orders/${IDS.order}: `)).toBe(true);
      expect(err.message.endsWith(original.message)).toBe(true);
      if (original.status === 429) expect(wire.headers['Retry-After']).toBe('30');
    });
  }
});

describe('429 rate limit', () => {
  it('reads Retry-After in seconds and the body fields', async () => {
    server.on({
      status: 429,
      headers: { 'Retry-After': '30' },
      body: { error: 'api_key_rate_limit_exceeded', message: 'slow down', bucket: 'write', window: '1s', limit: 5 },
    });
    const before = Date.now();
    const err = (await failure(client.cancelOrder(IDS.order))) as RateLimitError;
    const after = Date.now();
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryable).toBe(true);
    expect(err.bucket).toBe('write');
    expect(err.window).toBe('1s');
    expect(err.limit).toBe(5);
    expect(err.retryAt).toBeInstanceOf(Date);
    expect(err.retryAt!.getTime()).toBeGreaterThanOrEqual(before + 30_000);
    expect(err.retryAt!.getTime()).toBeLessThanOrEqual(after + 30_000);
  });

  it('reads Retry-After as an HTTP date', async () => {
    const at = 'Wed, 21 Oct 2037 07:28:00 GMT';
    server.on({ status: 429, headers: { 'Retry-After': at }, body: { error: 'api_key_rate_limit_exceeded' } });
    const err = (await failure(client.listRiskStatuses())) as RateLimitError;
    expect(err.retryAt).toEqual(new Date(at));
    expect(err.code).toBe('api_key_rate_limit_exceeded');
  });

  it("prefers the body's retryAt and turns it into a Date", async () => {
    server.on({
      status: 429,
      headers: { 'Retry-After': '1' },
      body: { error: 'api_key_rate_limit_exceeded', bucket: 'read', window: '60s', limit: '600', retryAt: '2037-01-01T00:00:05.000Z' },
    });
    const err = (await failure(client.listRiskStatuses())) as RateLimitError;
    expect(err.retryAt).toEqual(new Date('2037-01-01T00:00:05.000Z'));
    expect(err.bucket).toBe('read');
    expect(err.limit).toBe(600);
  });

  it('parseRetryAfter handles both forms and garbage', () => {
    expect(parseRetryAfter('120', 1_000)).toEqual(new Date(121_000));
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:10 GMT', 0)).toEqual(new Date(10_000));
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});

describe('transport failures', () => {
  it('a request without an answer in time is a RequestTimeoutError', async () => {
    const impatient = new HttpExchange({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 150 });
    server.on({ hang: true });
    const err = await failure(impatient.getRiskStatus(IDS.account));
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err.retryable).toBe(true);
    expect(err.code).toBe('request_timeout');
    expect(err.message).toContain(`GET /accounts/${IDS.account}/risk-status`);
  });

  it('a dropped connection is a ConnectionError', async () => {
    server.on({ drop: true });
    const err = await failure(client.createOrder({ accountId: IDS.account, marketId: IDS.market, type: 'market', direction: 'long', amount: dec(1) }));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.retryable).toBe(true);
    expect(err.code).toBe('connection_failed');
    expect(err.message).toMatch(/ECONNRESET|socket hang up/);
    expect(err.message).toContain('POST /orders');
  });

  it('a refused connection is a ConnectionError', async () => {
    const orphan = new HttpExchange({ baseUrl: await CannedServer.closedUrl(), apiKey: API_KEY });
    const err = await failure(orphan.listMarkets());
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.details['errno']).toBe('ECONNREFUSED');
  });
});

describe('configuration', () => {
  const refused = (baseUrl: string) => {
    try {
      new HttpExchange({ baseUrl, apiKey: API_KEY });
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it('refuses plain http:// to a non-loopback host, naming baseUrl', () => {
    for (const url of ['http://api.example.com', 'http://10.0.0.1:8080', 'http://128.0.0.1', 'http://localhost.evil.com', 'http://[::2]']) {
      const err = refused(url);
      expect(err, url).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).path).toBe('baseUrl');
      expect((err as ConfigError).message).toContain('baseUrl');
    }
  });

  it('accepts https anywhere and http on loopback', () => {
    for (const url of ['https://api.example.com', 'https://api.example.com/prefix/', 'http://127.0.0.1:9', 'http://127.200.3.4', 'http://localhost:8080', 'http://[::1]:8080']) {
      expect(refused(url), url).toBeUndefined();
    }
    expect(new HttpExchange({ baseUrl: 'https://api.example.com/prefix/', apiKey: API_KEY }).baseUrl).toBe('https://api.example.com/prefix');
  });

  it('refuses other protocols, garbage, credentials in the URL and an empty key', () => {
    expect((refused('ftp://example.com') as ConfigError).path).toBe('baseUrl');
    expect((refused('not a url') as ConfigError).path).toBe('baseUrl');
    expect((refused('https://user:pw@example.com') as ConfigError).path).toBe('baseUrl');
    expect(() => new HttpExchange({ baseUrl: 'https://example.com', apiKey: '' })).toThrow(ConfigError);
    expect(() => new HttpExchange({ baseUrl: 'https://example.com', apiKey: API_KEY, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('sends requests under a base path prefix', async () => {
    const prefixed = new HttpExchange({ baseUrl: `${server.url}/api/`, apiKey: API_KEY });
    server.on({ body: [] });
    await prefixed.listRiskStatuses();
    expect(server.last.rawUrl).toBe('/api/accounts/risk-status');
  });
});
