/**
 * Order request bodies against the real sandbox server: any fp9 string, however long, is a proper answer
 * (never a 500), and a field the sandbox does not know, or one that does not apply to the order type, is a
 * 400 naming it instead of being dropped. The client refuses such a request before sending it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpExchange } from '../../src/api/client.js';
import { ValidationError } from '../../src/api/errors.js';
import type { CreateOrderRequest } from '../../src/api/types.js';
import { REQUEST_FP9_MAX_DIGITS } from '../../src/api/wire.js';
import { dec } from '../../src/core/decimal.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { ALICE_KEY, admin, raw, rejection, testConfig } from './helpers.js';

let sb: SandboxHandle;
let account: string;
let market: string;
beforeAll(async () => {
  sb = await startSandbox({ config: testConfig(), port: 0 });
  account = sb.describe.users[0]!.accounts.find((a) => a.name === 'alice-api')!.accountId;
  market = sb.describe.markets.find((m) => m.baseAsset === 'BTC')!.id;
});
afterAll(() => sb.close());

const FP = (units: string) => dec(units).times(1e9).toFixed(0);
/** A resting long limit at 50000 (the price is 60000): 10 quote at 2x. */
const limitBody = (): Record<string, unknown> => ({ accountId: account, marketId: market, type: 'limit', direction: 'long', amount: FP('10'), leverage: FP('2'), triggerPrice: FP('50000') });
const NO_POSITION = '00000000-0000-4000-8000-000000000000';
/** For each fp9 field of POST /orders, a body of an order type the field applies to. */
const CREATE_BODIES: Record<string, () => Record<string, unknown>> = {
  amount: limitBody,
  leverage: limitBody,
  triggerPrice: limitBody,
  stopTriggerPrice: limitBody,
  takeTriggerPrice: limitBody,
  expectedAmount: limitBody,
  baseSize: () => ({ ...limitBody(), sizeMode: 'base', baseSize: FP('0.0001') }),
  stopLimitPrice: () => ({ ...limitBody(), type: 'stop_limit', triggerPrice: FP('61000'), stopLimitPrice: FP('61000') }),
  trailingStopActivationPrice: () => trailingBody({ trailingStopOffset: FP('100') }),
  trailingStopOffset: () => trailingBody({}),
  trailingStopOffsetPercent: () => trailingBody({}),
};
function trailingBody(extra: Record<string, unknown>): Record<string, unknown> {
  return { accountId: account, marketId: market, type: 'trailing_stop', direction: 'long', positionId: NO_POSITION, amount: FP('0.001'), ...extra };
}

/** A well-formed fp9 string of `length` digits (no leading zero), maybe negative. */
const fp9OfLength = fc
  .record({ length: fc.integer({ min: 1, max: 400 }), negative: fc.boolean(), seed: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 400, maxLength: 400 }) })
  .map(({ length, negative, seed }) => {
    const digits = length === 1 && seed[0] === 0 ? '0' : String(1 + (seed[0]! % 9)) + seed.slice(1, length).join('');
    return (negative && digits !== '0' ? '-' : '') + digits;
  });
const digitsOf = (s: string) => s.replace('-', '').length;

async function cancelIfActive(orderId: string | undefined): Promise<void> {
  if (orderId === undefined) return;
  const r = await raw(sb.baseUrl, 'DELETE', `/orders/${orderId}`);
  expect([204, 403]).toContain(r.status);
}

describe('fp9 strings of any length', () => {
  // Boundaries first: the digit limit, and 86/87 digits where the engine's power-of-ten table used to run out.
  const lengths = [1, REQUEST_FP9_MAX_DIGITS, REQUEST_FP9_MAX_DIGITS + 1, 86, 87, 120, 400];

  it('POST /orders: every fp9 field answers 201 or a 400, and an over-long value is a 400 naming the field', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(CREATE_BODIES)), fp9OfLength, async (field, value) => {
        const body = { ...CREATE_BODIES[field]!(), [field]: value };
        const r = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify(body) });
        expect([201, 400], `${field}=${value}: ${r.text}`).toContain(r.status);
        if (digitsOf(value) > REQUEST_FP9_MAX_DIGITS) {
          expect([r.status, r.json.error, r.json.field]).toEqual([400, 'invalid_request_body', field]);
          expect(r.json.message).toContain(`${field}: expected an fp9 string of at most ${REQUEST_FP9_MAX_DIGITS} digits`);
        }
        if (r.status === 201) await cancelIfActive(r.json.id);
      }),
      {
        numRuns: 300,
        examples: Object.keys(CREATE_BODIES).flatMap((f) => lengths.map((n) => [f, '9'.repeat(n)] as [string, string])),
      },
    );
  });

  it('PATCH /orders/{id}: triggerPrice, amount, expectedAmount and baseSize likewise', async () => {
    const EDIT_FIELDS = ['triggerPrice', 'amount', 'expectedAmount', 'baseSize'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...EDIT_FIELDS), fp9OfLength, async (field, value) => {
        const base = field === 'baseSize' ? CREATE_BODIES['baseSize']!() : limitBody();
        const created = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify(base) });
        expect(created.status, created.text).toBe(201);
        const patch = field === 'baseSize' ? { amount: FP('10'), baseSize: value } : { [field]: value };
        const r = await raw(sb.baseUrl, 'PATCH', `/orders/${created.json.id}`, { body: JSON.stringify(patch) });
        expect([200, 400], `${field}=${value}: ${r.text}`).toContain(r.status);
        if (digitsOf(value) > REQUEST_FP9_MAX_DIGITS) {
          expect([r.status, r.json.error, r.json.field]).toEqual([400, 'invalid_request_body', field]);
        }
        await cancelIfActive(r.status === 200 ? r.json.id : created.json.id);
      }),
      { numRuns: 150, examples: EDIT_FIELDS.flatMap((f) => lengths.map((n) => [f, '9'.repeat(n)] as [string, string])) },
    );
  });
});

describe('unknown and misplaced fields', () => {
  it('PATCH with a misspelt field is a 400 naming it, and the order is left as it was', async () => {
    const created = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify(limitBody()) });
    expect(created.status).toBe(201);
    const r = await raw(sb.baseUrl, 'PATCH', `/orders/${created.json.id}`, { body: JSON.stringify({ trigerPrice: FP('51000') }) });
    expect([r.status, r.json.error, r.json.field, r.json.fields]).toEqual([400, 'invalid_request_body', 'trigerPrice', ['trigerPrice']]);
    expect(r.json.message).toMatch(/unknown field trigerPrice/);
    const active = await raw(sb.baseUrl, 'GET', `/orders/${account}/active`);
    const order = active.json.find((o: { id: string }) => o.id === created.json.id);
    expect([order.status, order.triggerPrice]).toEqual(['active', FP('50000')]);
    await cancelIfActive(created.json.id);
  });

  it('POST /orders with a misspelt protection field creates nothing', async () => {
    const before = (await admin(sb.baseUrl, 'GET', 'orders')).json.totalCount;
    const r = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify({ ...limitBody(), stopTrigerPrice: FP('45000') }) });
    expect([r.status, r.json.error, r.json.field]).toEqual([400, 'invalid_request_body', 'stopTrigerPrice']);
    expect((await admin(sb.baseUrl, 'GET', 'orders')).json.totalCount).toBe(before);
  });

  it('a field that does not apply to the order type is a 400 naming every such field', async () => {
    const pos = NO_POSITION;
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ ...limitBody(), positionId: pos }, ['positionId']],
      [{ ...limitBody(), trailingStopOffset: FP('100'), stopLimitPrice: FP('49000') }, ['trailingStopOffset', 'stopLimitPrice']],
      [{ ...trailingBody({ trailingStopOffset: FP('100') }), triggerPrice: FP('59000') }, ['triggerPrice']],
      [{ ...trailingBody({ trailingStopOffset: FP('100') }), leverage: FP('2'), expectedAmount: FP('1') }, ['leverage', 'expectedAmount']],
      [{ accountId: account, marketId: market, type: 'stop', direction: 'long', positionId: pos, amount: FP('0.001'), triggerPrice: FP('55000'), stopTriggerPrice: FP('50000') }, ['stopTriggerPrice']],
      [{ accountId: account, marketId: market, type: 'take', direction: 'long', positionId: pos, amount: FP('0.001'), triggerPrice: FP('65000'), takeTriggerPrice: FP('70000') }, ['takeTriggerPrice']],
    ];
    for (const [body, fields] of cases) {
      const r = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify(body) });
      expect([r.status, r.json.error, r.json.field, r.json.fields], r.text).toEqual([400, 'invalid_request_body', fields[0], fields]);
      expect(r.json.message).toContain(`not apply to a ${String(body['type'])} order`);
    }
    // null means "not set", and the spec's own codes still answer where the spec has one.
    const nulls = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify({ ...limitBody(), positionId: null, trailingStopOffset: null }) });
    expect(nulls.status, nulls.text).toBe(201);
    await cancelIfActive(nulls.json.id);
    const market$ = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify({ ...limitBody(), type: 'market', triggerPrice: FP('1') }) });
    expect(market$.json.error).toBe('trigger_price_not_allowed');
  });

  it('PATCH refuses a trigger on a trailing stop and a slippage tolerance on a close order', async () => {
    const open = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify({ accountId: account, marketId: market, type: 'market', direction: 'long', amount: FP('100'), leverage: FP('2') }) });
    expect(open.status, open.text).toBe(201);
    const position = (await raw(sb.baseUrl, 'GET', `/positions/${account}/BTC/active`)).json[0].idx;
    const trailing = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify({ ...trailingBody({ trailingStopOffset: FP('500') }), positionId: position }) });
    expect(trailing.status, trailing.text).toBe(201);
    const t = await raw(sb.baseUrl, 'PATCH', `/orders/${trailing.json.id}`, { body: JSON.stringify({ triggerPrice: FP('59000') }) });
    expect([t.status, t.json.error, t.json.field]).toEqual([400, 'invalid_request_body', 'triggerPrice']);
    expect(t.json.message).toContain('does not apply to a trailing_stop order');
    const stop = await raw(sb.baseUrl, 'POST', '/orders', { body: JSON.stringify({ accountId: account, marketId: market, type: 'stop', direction: 'long', positionId: position, amount: FP('1'), triggerPrice: FP('50000') }) });
    expect(stop.status, stop.text).toBe(201);
    const s = await raw(sb.baseUrl, 'PATCH', `/orders/${stop.json.id}`, { body: JSON.stringify({ expectedAmount: FP('1') }) });
    expect([s.status, s.json.error, s.json.field]).toEqual([400, 'invalid_request_body', 'expectedAmount']);
    // Both orders still stand unchanged.
    const active = (await raw(sb.baseUrl, 'GET', `/orders/${account}/active`)).json.map((o: { id: string }) => o.id);
    expect(active).toEqual(expect.arrayContaining([trailing.json.id, stop.json.id]));
    expect((await raw(sb.baseUrl, 'POST', `/accounts/${account}/close-all`)).status).toBe(204);
  });

  it('the client refuses an unknown or misplaced field before anything is sent', async () => {
    const client = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: ALICE_KEY });
    const seen = async () => (await admin(sb.baseUrl, 'GET', 'faults')).json.requests as number;
    const before = await seen();
    const stop: CreateOrderRequest = { accountId: account, marketId: market, type: 'stop', direction: 'long', positionId: NO_POSITION, amount: dec('0.001'), triggerPrice: dec(55000), stopTriggerPrice: dec(50000) };
    const misplaced = await rejection(client.createOrder(stop));
    expect(misplaced).toBeInstanceOf(ValidationError);
    expect((misplaced as ValidationError).details).toEqual({ field: 'stopTriggerPrice', fields: ['stopTriggerPrice'], clientSide: true });
    // A JavaScript caller's typo: the encoder would have dropped the key and sent an unprotected order.
    const typo = { ...stop, type: 'limit', stopTriggerPrice: undefined, positionId: undefined, leverage: dec(2), stopTrigerPrice: dec(45000) } as unknown as CreateOrderRequest;
    const unknown = await rejection(client.createOrder(typo));
    expect((unknown as ValidationError).details).toMatchObject({ field: 'stopTrigerPrice', clientSide: true });
    const edit = await rejection(client.editOrder(NO_POSITION, { trigerPrice: dec(1) } as never));
    expect((edit as ValidationError).details).toMatchObject({ field: 'trigerPrice', clientSide: true });
    expect(await seen()).toBe(before);
  });
});
