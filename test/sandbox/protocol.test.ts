import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpExchange } from '../../src/api/client.js';
import { ConnectionError, IdempotencyInFlightError, RateLimitError, ServerError } from '../../src/api/errors.js';
import type { CreateOrderRequest } from '../../src/api/types.js';
import { dec } from '../../src/core/decimal.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { ALICE_KEY, BOB_KEY, admin, raw, rejection, testConfig } from './helpers.js';

function accountOf(sb: SandboxHandle, name: string): string {
  return sb.describe.users.flatMap((u) => u.accounts).find((a) => a.name === name)!.accountId;
}
function marketOf(sb: SandboxHandle, asset: string): string {
  return sb.describe.markets.find((m) => m.baseAsset === asset)!.id;
}
function limitOrder(sb: SandboxHandle, price = 50000): CreateOrderRequest {
  return {
    accountId: accountOf(sb, 'alice-api'),
    marketId: marketOf(sb, 'BTC'),
    type: 'limit',
    direction: 'long',
    amount: dec(10),
    leverage: dec(2),
    triggerPrice: dec(price),
  };
}
async function ledger(sb: SandboxHandle): Promise<any[]> {
  const r = await admin(sb.baseUrl, 'GET', 'orders');
  expect(r.status).toBe(200);
  return r.json.data;
}

describe('rate limits', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await startSandbox({
      config: testConfig('', { rateLimits: 'rateLimits:\n  read: [{ limit: 3, window: 60s }]\n  write: [{ limit: 2, window: 60s }, { limit: 50, window: 1h }]' }),
      port: 0,
    });
  });
  afterAll(() => sb.close());

  it('refuses reads over the window with 429, Retry-After and the tripped window; other buckets and keys go on', async () => {
    const alice = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: ALICE_KEY });
    for (let i = 0; i < 3; i += 1) await alice.listMarkets();
    const before = Date.now();
    const err = await rejection(alice.listMarkets());
    expect(err).toBeInstanceOf(RateLimitError);
    const rl = err as RateLimitError;
    expect([rl.status, rl.code, rl.bucket, rl.window, rl.limit]).toEqual([429, 'api_key_rate_limit_exceeded', 'read', '60s', 3]);
    expect(rl.retryAt!.getTime()).toBeGreaterThan(before);
    expect(rl.retryAt!.getTime()).toBeLessThanOrEqual(before + 61_000);

    const r = await raw(sb.baseUrl, 'GET', '/v2/markets');
    expect(r.status).toBe(429);
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(r.json).toMatchObject({ error: 'api_key_rate_limit_exceeded', bucket: 'read', window: '60s', limit: 3 });
    expect(Date.parse(r.json.retryAt)).toBeGreaterThan(before);

    // The write bucket is separate, and so is another key.
    const bob = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: BOB_KEY });
    expect(await bob.listMarkets()).toHaveLength(3);
    await alice.createOrder(limitOrder(sb));
  });

  it('a refused write does not act', async () => {
    const alice = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: ALICE_KEY });
    await alice.createOrder(limitOrder(sb, 49000));
    const err = await rejection(alice.createOrder(limitOrder(sb, 48000)));
    expect((err as RateLimitError).bucket).toBe('write');
    const orders = (await ledger(sb)).filter((e) => e.via === 'api');
    expect(orders.map((e) => e.order.triggerPrice)).toEqual(['50000000000000', '49000000000000']);
  });

  it('the admin reset clears the windows', async () => {
    expect((await admin(sb.baseUrl, 'POST', 'rate-limits/reset')).status).toBe(204);
    expect((await raw(sb.baseUrl, 'GET', '/v2/markets')).status).toBe(200);
  });
});

describe('idempotency', () => {
  let sb: SandboxHandle;
  let alice: HttpExchange;
  beforeAll(async () => {
    sb = await startSandbox({ config: testConfig(), port: 0 });
    alice = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: ALICE_KEY, timeoutMs: 20_000 });
  });
  afterAll(() => sb.close());

  it('a repeated key replays the stored order with the replay headers and does not act again', async () => {
    const first = await alice.createOrder(limitOrder(sb), { idempotencyKey: 'key-1' });
    expect(first.idempotency).toEqual({ key: 'key-1', replayed: false, storedAt: null });
    const second = await alice.createOrder(limitOrder(sb), { idempotencyKey: 'key-1' });
    expect(second.idempotency.replayed).toBe(true);
    expect(second.idempotency.storedAt).toBeInstanceOf(Date);
    expect(second.value.id).toBe(first.value.id);

    const body = JSON.stringify({ ...JSON.parse(JSON.stringify({})), accountId: accountOf(sb, 'alice-api'), marketId: marketOf(sb, 'BTC'), type: 'limit', direction: 'long', amount: '10000000000', leverage: '2000000000', triggerPrice: '50000000000000' });
    const replay = await raw(sb.baseUrl, 'POST', '/orders', { body, headers: { 'x-idempotency-key': 'key-1' } });
    expect(replay.headers.get('x-idempotency-cached')).toBe('true');
    expect(Number.isNaN(Date.parse(replay.headers.get('x-idempotency-timestamp')!))).toBe(false);
    expect(replay.json.id).toBe(first.value.id);

    const fresh = await raw(sb.baseUrl, 'POST', '/orders', { body });
    expect(fresh.headers.get('x-idempotency-cached')).toBeNull();
    expect(fresh.json.id).not.toBe(first.value.id);

    const withKey = (await ledger(sb)).filter((e) => e.idempotencyKey === 'key-1');
    expect(withKey).toHaveLength(1);
  });

  it('a second call while the first still runs gets 409 idempotency_key_in_flight', async () => {
    expect((await admin(sb.baseUrl, 'PUT', 'latency', { beforeActMs: 1500 })).status).toBe(200);
    const [a, b] = await Promise.allSettled([
      alice.createOrder(limitOrder(sb, 47000), { idempotencyKey: 'key-2' }),
      new Promise((r) => setTimeout(r, 100)).then(() => alice.createOrder(limitOrder(sb, 47000), { idempotencyKey: 'key-2' })),
    ]);
    await admin(sb.baseUrl, 'PUT', 'latency', { beforeActMs: 0 });
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('rejected');
    const err = (b as PromiseRejectedResult).reason as IdempotencyInFlightError;
    expect(err).toBeInstanceOf(IdempotencyInFlightError);
    expect([err.status, err.code]).toEqual([409, 'idempotency_key_in_flight']);
    const third = await alice.createOrder(limitOrder(sb, 47000), { idempotencyKey: 'key-2' });
    expect(third.idempotency.replayed).toBe(true);
    expect((await ledger(sb)).filter((e) => e.idempotencyKey === 'key-2')).toHaveLength(1);
  });

  it('close-all replays too (204 with the replay header)', async () => {
    const path = `/accounts/${accountOf(sb, 'alice-api')}/close-all`;
    const first = await raw(sb.baseUrl, 'POST', path, { headers: { 'x-idempotency-key': 'close-1' } });
    expect(first.status).toBe(204);
    expect(first.headers.get('x-idempotency-cached')).toBeNull();
    const second = await raw(sb.baseUrl, 'POST', path, { headers: { 'x-idempotency-key': 'close-1' } });
    expect(second.status).toBe(204);
    expect(second.headers.get('x-idempotency-cached')).toBe('true');
  });
});

describe('malformed requests', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await startSandbox({ config: testConfig(), port: 0 });
  });
  afterAll(() => sb.close());

  it('get 400 with a code naming what was wrong, never change state, never stop the server', async () => {
    const account = accountOf(sb, 'alice-api');
    const good = { accountId: account, marketId: marketOf(sb, 'BTC'), type: 'limit', direction: 'long', amount: '10000000000', leverage: '2000000000', triggerPrice: '50000000000000' };
    const before = await raw(sb.baseUrl, 'GET', `/accounts/${account}/risk-status`);
    const cases: Array<{ body?: string; method?: string; path?: string; status: number; code: string; field?: string; headers?: Record<string, string> }> = [
      { body: '{"accountId": ', status: 400, code: 'invalid_json' },
      { body: '', status: 400, code: 'invalid_request_body' },
      { body: '[]', status: 400, code: 'invalid_request_body' },
      { body: JSON.stringify({ ...good, amount: 100 }), status: 400, code: 'invalid_request_body', field: 'amount' },
      { body: JSON.stringify({ ...good, amount: '1.5' }), status: 400, code: 'invalid_request_body', field: 'amount' },
      { body: JSON.stringify({ ...good, leverage: '02' }), status: 400, code: 'invalid_request_body', field: 'leverage' },
      { body: JSON.stringify({ ...good, type: 'liquidation' }), status: 400, code: 'invalid_request_body', field: 'type' },
      { body: JSON.stringify({ ...good, direction: 'up' }), status: 400, code: 'invalid_request_body', field: 'direction' },
      { body: JSON.stringify({ ...good, sizeMode: 'lots' }), status: 400, code: 'invalid_request_body', field: 'sizeMode' },
      { body: JSON.stringify({ ...good, accountId: 7 }), status: 400, code: 'invalid_request_body', field: 'accountId' },
      { body: JSON.stringify({ ...good, padding: 'x'.repeat(5000) }), status: 400, code: 'body_too_large' },
      { method: 'PATCH', path: `/orders/${account}`, body: JSON.stringify({ triggerPrice: 5 }), status: 400, code: 'invalid_request_body', field: 'triggerPrice' },
      { method: 'GET', path: `/orders/${account}/BTC/history?limit=0`, status: 400, code: 'invalid_query', field: 'limit' },
      { method: 'GET', path: `/orders/${account}/BTC/history?limit=abc`, status: 400, code: 'invalid_query', field: 'limit' },
      { method: 'GET', path: `/accounts/events?offset=-1`, status: 400, code: 'invalid_query', field: 'offset' },
      { method: 'GET', path: `/positions/${account}/BTC/chart-events?executedTo=10`, status: 400, code: 'invalid_query', field: 'executedFrom' },
      { method: 'GET', path: `/positions/${account}/BTC/chart-events?executedFrom=1&executedTo=2&limit=1001`, status: 400, code: 'invalid_query', field: 'limit' },
      { method: 'GET', path: `/positions/${account}/BTC/chart-events/buckets?resolution=2&from=0&to=60`, status: 400, code: 'invalid_query', field: 'resolution' },
      { method: 'GET', path: `/accounts/${account}/equity-history?duration=soon`, status: 400, code: 'invalid_query', field: 'duration' },
      { method: 'GET', path: '/orders/nothing/here/at/all', status: 404, code: 'route_not_found' },
      { method: 'GET', path: '/v3/markets', status: 404, code: 'route_not_found' },
      { method: 'PUT', path: '/orders', status: 405, code: 'method_not_allowed' },
    ];
    for (const c of cases) {
      const r = await raw(sb.baseUrl, c.method ?? 'POST', c.path ?? '/orders', { ...(c.body !== undefined ? { body: c.body } : {}) });
      expect({ status: r.status, code: r.json?.error }, `${c.method ?? 'POST'} ${c.path ?? '/orders'} ${c.body?.slice(0, 60)}`).toEqual({ status: c.status, code: c.code });
      expect(typeof r.json.message).toBe('string');
      if (c.field) expect(r.json.field ?? r.json.message).toContain(c.field);
    }
    const huge = await raw(sb.baseUrl, 'POST', '/orders', { body: 'x'.repeat(1024 * 1024) });
    expect(huge.json?.error ?? 'dropped').toMatch(/body_too_large|dropped/);

    expect((await ledger(sb)).length).toBe(0);
    const after = await raw(sb.baseUrl, 'GET', `/accounts/${account}/risk-status`);
    expect(after.json).toEqual(before.json);
    const ok = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify(good) });
    expect(ok.status).toBe(201);
  });
});

describe('fault injection', () => {
  const FAULTS = `faults:
  enabled: true
  seed: repeat-me
  serverErrors: { rate: 0.2, statuses: [500, 502, 503] }
  latency: { rate: 0.2, minMs: 1, maxMs: 5 }
  drop: { rate: 0.1, afterActShare: 0 }
  rateLimitStorm: { rate: 0.05, requests: 2, retryAfterMs: 1000 }`;

  async function outcomes(seedLine?: string): Promise<string[]> {
    const text = seedLine ? FAULTS.replace('seed: repeat-me', seedLine) : FAULTS;
    const sb = await startSandbox({ config: testConfig('', { faults: text }), port: 0 });
    try {
      const out: string[] = [];
      for (let i = 0; i < 60; i += 1) {
        try {
          const r = await raw(sb.baseUrl, 'GET', '/v2/markets', { headers: { connection: 'close' } });
          out.push(String(r.status));
        } catch {
          out.push('dropped');
        }
      }
      return out;
    } finally {
      await sb.close();
    }
  }

  it('repeats exactly with the same seed, and differs with another', async () => {
    const a = await outcomes();
    const b = await outcomes();
    expect(b).toEqual(a);
    for (const kind of ['200', 'dropped', '429']) expect(a).toContain(kind);
    expect(a.some((s) => s.startsWith('5'))).toBe(true);
    expect(await outcomes('seed: another-seed')).not.toEqual(a);
  });

  it('drops writes after acting (unknown outcome) and the idempotency key settles it; 5xx and storms do not act', async () => {
    const sb = await startSandbox({ config: testConfig(), port: 0 });
    try {
      const alice = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: ALICE_KEY });
      const faults = (f: object) => admin(sb.baseUrl, 'PUT', 'faults', { enabled: true, seed: 'x', ...f });

      await faults({ drop: { rate: 1, afterActShare: 1 } });
      expect(await rejection(alice.createOrder(limitOrder(sb), { idempotencyKey: 'unknown-1' }))).toBeInstanceOf(ConnectionError);
      const acted = (await ledger(sb)).filter((e) => e.idempotencyKey === 'unknown-1');
      expect(acted).toHaveLength(1);
      await faults({ enabled: false });
      const retry = await alice.createOrder(limitOrder(sb), { idempotencyKey: 'unknown-1' });
      expect(retry.idempotency.replayed).toBe(true);
      expect(retry.value.id).toBe(acted[0].order.id);

      await faults({ drop: { rate: 1, afterActShare: 0 } });
      expect(await rejection(alice.createOrder(limitOrder(sb), { idempotencyKey: 'unknown-2' }))).toBeInstanceOf(ConnectionError);
      await faults({ serverErrors: { rate: 1, statuses: [503] } });
      const e503 = await rejection(alice.createOrder(limitOrder(sb), { idempotencyKey: 'unknown-3' }));
      expect(e503).toBeInstanceOf(ServerError);
      expect((e503 as ServerError).status).toBe(503);
      await faults({ rateLimitStorm: { rate: 1, requests: 1, retryAfterMs: 3000 } });
      const storm = await raw(sb.baseUrl, 'GET', '/v2/markets');
      expect(storm.status).toBe(429);
      expect(storm.headers.get('retry-after')).toBe('3');
      expect(storm.json).toMatchObject({ error: 'api_key_rate_limit_exceeded', bucket: 'read' });
      await faults({ enabled: false });
      expect((await ledger(sb)).filter((e) => e.via === 'api')).toHaveLength(1);

      const log = await admin(sb.baseUrl, 'GET', 'faults');
      expect(log.json.options.enabled).toBe(false);
    } finally {
      await sb.close();
    }
  });
});
