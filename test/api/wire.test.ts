import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec, dec } from '../../src/core/decimal.js';
import { Fp9PrecisionError } from '../../src/core/errors.js';
import { ValidationError } from '../../src/api/errors.js';
import {
  INVALID_REQUEST_BODY,
  ResponseShapeError,
  decodeAccount,
  decodeAccountEvent,
  decodeAccountEventPage,
  decodeChartEvent,
  decodeChartEventBuckets,
  decodeCreateOrderRequest,
  decodeEditOrderRequest,
  decodeEquityPoints,
  decodeMarket,
  decodeMarkets,
  decodeOrder,
  decodeOrderPage,
  decodePosition,
  decodePositionEvent,
  decodePositionEvents,
  decodeRiskStatus,
  decodeScalpingCoefficient,
  encodeAccount,
  encodeAccountEvent,
  encodeChartEvent,
  encodeChartEventBucket,
  encodeCreateOrderRequest,
  encodeEditOrderRequest,
  encodeEquityPoint,
  encodeList,
  encodeMarket,
  encodeOrder,
  encodePage,
  encodePosition,
  encodePositionEvent,
  encodeRiskStatus,
  encodeScalpingCoefficient,
  formatPath,
} from '../../src/api/wire.js';
import type { CreateOrderRequest } from '../../src/api/types.js';
import {
  IDS,
  fp9,
  wireAccount,
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

/** The error `fn` throws, which must be an `E`; anything else (or no throw) fails the test. */
function thrown<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`expected a ${type.name}`);
}
const shapeError = (fn: () => unknown): ResponseShapeError => thrown(fn, ResponseShapeError);
const bodyError = (fn: () => unknown): ValidationError => thrown(fn, ValidationError);

describe('wire: decode then encode gives the wire back', () => {
  it('for every resource fixture', () => {
    expect(encodeOrder(decodeOrder(wireOrder()))).toEqual(wireOrder());
    const executed = wireOrder({ status: 'executed', indexPrice: fp9('64000'), realizedPnl: fp9('-1.5'), rawRealizedPnl: fp9('-1.5'), reason: 'force_close', sizeMode: 'base', baseSize: fp9('0.01'), reservedAmount: fp9('700') });
    expect(encodeOrder(decodeOrder(executed))).toEqual(executed);
    expect(encodePosition(decodePosition(wirePosition()))).toEqual(wirePosition());
    expect(encodePositionEvent(decodePositionEvent(wirePositionEvent()))).toEqual(wirePositionEvent());
    expect(encodePositionEvent(decodePositionEvent(wirePositionEvent({ order: null })))).toEqual(wirePositionEvent({ order: null }));
    expect(encodeChartEvent(decodeChartEvent(wireChartEvent()))).toEqual(wireChartEvent());
    expect(encodeList(decodeChartEventBuckets([wireChartEventBucket()]), encodeChartEventBucket)).toEqual([wireChartEventBucket()]);
    expect(encodeRiskStatus(decodeRiskStatus(wireRiskStatus()))).toEqual(wireRiskStatus());
    expect(encodeList(decodeEquityPoints([wireEquityPoint()]), encodeEquityPoint)).toEqual([wireEquityPoint()]);
    expect(encodeScalpingCoefficient(decodeScalpingCoefficient(wireScalpingCoefficient()))).toEqual(wireScalpingCoefficient());
    expect(encodeMarket(decodeMarket(wireMarket()))).toEqual(wireMarket());
    const scheduled = wireMarket({ schedule: { nextPauseAt: 9007199254740991, nextUnpauseAt: 1772449200000, closestPauseAt: 1, closestUnpauseAt: 2, pausedAt: 3, inPause: true } });
    expect(encodeMarket(decodeMarket(scheduled))).toEqual(scheduled);
    expect(encodeAccount(decodeAccount(wireAccount()))).toEqual(wireAccount());
    expect(encodeAccountEvent(decodeAccountEvent(wireAccountEvent()))).toEqual(wireAccountEvent());
    const page = { data: [wireOrder(), wireOrder({ id: IDS.order2 })], totalCount: 9 };
    expect(encodePage(decodeOrderPage(page), encodeOrder)).toEqual(page);
  });

  it('for any fp9 values in money fields', () => {
    const raw = fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }).map(String);
    fc.assert(
      fc.property(raw, raw, fc.option(raw, { nil: null }), (trigger, amount, pnl) => {
        const wire = wireOrder({ triggerPrice: trigger, amount, realizedPnl: pnl });
        const order = decodeOrder(wire);
        expect(order.triggerPrice.equals(new Dec(trigger).div(1e9))).toBe(true);
        expect(encodeOrder(order)).toEqual(wire);
      }),
      { numRuns: 200 },
    );
  });

  it('decodes to domain values', () => {
    const o = decodeOrder(wireOrder());
    expect(o.triggerPrice.equals(dec('64000.5'))).toBe(true);
    expect(o.settlementOraclePrice.equals(dec(1))).toBe(true);
    expect(o.createdAt).toEqual(new Date('2026-03-02T10:15:30.123Z'));
    expect(o.requestedTriggerPrice).toBeNull();
    const p = decodePosition(wirePosition());
    expect(p.margin.equals(dec('987.654321'))).toBe(true);
    expect(p.feeRate.equals(dec('0.001'))).toBe(true);
    const a = decodeAccount(wireAccount());
    expect(a.maxDailyDrawdown!.equals(dec(5))).toBe(true);
    expect(a.maxTrailingTotalDrawdown).toBeNull();
    const m = decodeMarket(wireMarket());
    expect(m.change.initialPrice4h.isZero()).toBe(true);
    expect(m.settings.maxOpenNotionalShort.isZero()).toBe(true);
  });
});

describe('wire: quirks', () => {
  it('array-declared order fields arrive as value, one-element array, empty array or null', () => {
    for (const form of [IDS.position, [IDS.position]]) {
      expect(decodeOrder(wireOrder({ positionId: form })).positionId).toBe(IDS.position);
    }
    for (const form of [null, []]) {
      expect(decodeOrder(wireOrder({ positionId: form, parentOrderId: form, error: form, errorCode: form })).errorCode).toBeNull();
    }
    const o = decodeOrder(wireOrder({ parentOrderId: [IDS.order2], error: ['x'], errorCode: ['slippage_tolerance'] }));
    expect([o.parentOrderId, o.error, o.errorCode]).toEqual([IDS.order2, 'x', 'slippage_tolerance']);
    // Encoders emit the single value.
    const wire = encodeOrder(o);
    expect([wire.parentOrderId, wire.error, wire.errorCode]).toEqual([IDS.order2, 'x', 'slippage_tolerance']);
  });

  it('array-declared position fields', () => {
    const p = decodePosition(wirePosition({ idx: [IDS.position], txId: [IDS.position], holdingTimeMs: ['61000'], closeReason: ['weekly_session_risk_close'] }));
    expect(p.idx).toBe(IDS.position);
    expect(p.txId).toBe(IDS.position);
    expect(p.holdingTimeMs).toBe('61000');
    expect(p.closeReason).toBe('weekly_session_risk_close');
    expect(decodePosition(wirePosition({ holdingTimeMs: '5' })).holdingTimeMs).toBe('5');
    expect(decodePosition(wirePosition({ holdingTimeMs: [] })).holdingTimeMs).toBeNull();
    const wire = encodePosition(p);
    expect([wire.idx, wire.txId, wire.holdingTimeMs, wire.closeReason]).toEqual([IDS.position, IDS.position, '61000', 'weekly_session_risk_close']);
    // idx is never null.
    expect(shapeError(() => decodePosition(wirePosition({ idx: null as unknown as string }))).field).toBe('position.idx');
    expect(shapeError(() => decodePosition(wirePosition({ idx: [] }))).field).toBe('position.idx');
  });

  it('consistencyRuleMet as boolean, [boolean] or null', () => {
    expect(decodeRiskStatus(wireRiskStatus({ consistencyRuleMet: [false] })).consistencyRuleMet).toBe(false);
    expect(decodeRiskStatus(wireRiskStatus({ consistencyRuleMet: true })).consistencyRuleMet).toBe(true);
    expect(decodeRiskStatus(wireRiskStatus({ consistencyRuleMet: null })).consistencyRuleMet).toBeNull();
    expect(encodeRiskStatus(decodeRiskStatus(wireRiskStatus({ consistencyRuleMet: [false] }))).consistencyRuleMet).toBe(false);
    const err = shapeError(() => decodeRiskStatus(wireRiskStatus({ consistencyRuleMet: ['true'] as unknown as boolean[] })));
    expect(err.field).toBe('riskStatus.consistencyRuleMet');
  });

  it('refuses a quirk array with more than one value', () => {
    const err = shapeError(() => decodeOrder(wireOrder({ positionId: [IDS.position, IDS.order] })));
    expect(err.field).toBe('order.positionId');
    expect(err.message).toContain('one-element array');
  });

  it('scalping window fields: absent together or both present; encoder omits them when idle', () => {
    const idle = decodeScalpingCoefficient({ amount: fp9('1'), amountRegular: fp9('1') });
    expect(idle.activeSince).toBeNull();
    expect(encodeScalpingCoefficient(idle)).toEqual({ amount: '1000000000', amountRegular: '1000000000' });
  });

  it('market list as array or { data }', () => {
    expect(decodeMarkets([wireMarket()])).toHaveLength(1);
    expect(decodeMarkets({ data: [wireMarket(), wireMarket()] })).toHaveLength(2);
    expect(shapeError(() => decodeMarkets({ markets: [] })).field).toBe('markets');
  });
});

describe('wire: response shape errors name the path', () => {
  it('missing, mistyped, bad fp9, bad enum, bad date, nested', () => {
    const { amount: _a, ...noAmount } = wireOrder();
    expect(shapeError(() => decodeOrder(noAmount)).field).toBe('order.amount');
    expect(shapeError(() => decodeOrder(noAmount)).message).toContain('missing');
    expect(shapeError(() => decodeOrder(wireOrder({ triggerPrice: '1.5' }))).field).toBe('order.triggerPrice');
    expect(shapeError(() => decodeOrder(wireOrder({ triggerPrice: '1.5' }))).received).toBe('"1.5"');
    expect(shapeError(() => decodeOrder(wireOrder({ status: 'pending' as 'active' }))).field).toBe('order.status');
    expect(shapeError(() => decodeOrder(wireOrder({ status: 'pending' as 'active' }))).message).toContain('"canceled_by_error"');
    expect(shapeError(() => decodeOrder(wireOrder({ createdAt: 'yesterday' }))).field).toBe('order.createdAt');
    expect(shapeError(() => decodeOrder(wireOrder({ profitAdjustmentApplied: 'false' as unknown as boolean }))).field).toBe('order.profitAdjustmentApplied');
    const events = [wirePositionEvent(), wirePositionEvent({ order: { ...wireOrder(), leverage: 10 as unknown as string } })];
    expect(shapeError(() => decodePositionEvents(events)).field).toBe('events[1].order.leverage');
    expect(shapeError(() => decodeChartEventBuckets([wireChartEventBucket({ sell: { totalCount: 1, events: [{ ...wireChartEvent(), eventName: 'flip' as 'open' }] } })])).field).toBe(
      'buckets[0].sell.events[0].eventName',
    );
    expect(shapeError(() => decodeMarket({ ...wireMarket(), settings: { ...wireMarket().settings, maxLeverageByAccount: { real: '5x' } } })).field).toBe(
      'market.settings.maxLeverageByAccount.real',
    );
    expect(shapeError(() => decodeAccountEventPage({ data: [wireAccountEvent({ payload: { amount: 5 } })], totalCount: 1 })).field).toBe('page.data[0].payload.amount');
    expect(shapeError(() => decodeOrder(null)).field).toBe('order');
    expect(shapeError(() => decodeEquityPoints([wireEquityPoint({ phaseIndex: -1 })])).field).toBe('equityHistory[0].phaseIndex');
  });

  it('formats odd keys', () => {
    expect(formatPath('root', [0, 'a', 'b-c', 2])).toBe('root[0].a["b-c"][2]');
    expect(formatPath('', ['a', 'b'])).toBe('a.b');
    expect(formatPath('', [])).toBe('(root)');
  });
});

describe('wire: encoders refuse what the wire can not carry', () => {
  it('more than 9 places is an Fp9PrecisionError naming the field', () => {
    const order = decodeOrder(wireOrder());
    let err: unknown;
    try {
      encodeOrder({ ...order, amount: new Dec('1.0000000001') }, 'orders[2]');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Fp9PrecisionError);
    expect((err as Fp9PrecisionError).field).toBe('orders[2].amount');
    const event = decodePositionEvent(wirePositionEvent());
    expect(() => encodePositionEvent({ ...event, order: { ...event.order!, leverage: new Dec('0.1234567891') } })).toThrow(/event\.order\.leverage/);
  });

  it('Decimals in an account event payload go out as fp9', () => {
    const ev = decodeAccountEvent(wireAccountEvent());
    expect(encodeAccountEvent({ ...ev, payload: { amount: dec('12.5'), provider: 'card' } }).payload).toEqual({ amount: '12500000000', provider: 'card' });
  });
});

describe('wire: request bodies', () => {
  const create: CreateOrderRequest = {
    accountId: IDS.account,
    marketId: IDS.market,
    type: 'stop_limit',
    direction: 'short',
    amount: dec('250.5'),
    leverage: dec('20'),
    triggerPrice: dec('63000'),
    stopLimitPrice: dec('62990.123456789'),
    takeTriggerPrice: null,
    sizeMode: 'base',
    baseSize: dec('0.004'),
  };

  it('encodes CreateOrderRequest with fp9 strings, omitting undefined and keeping null', () => {
    expect(encodeCreateOrderRequest(create)).toEqual({
      accountId: IDS.account,
      marketId: IDS.market,
      type: 'stop_limit',
      direction: 'short',
      amount: '250500000000',
      leverage: '20000000000',
      triggerPrice: '63000000000000',
      stopLimitPrice: '62990123456789',
      takeTriggerPrice: null,
      sizeMode: 'base',
      baseSize: '4000000',
    });
  });

  it('decodes what it encodes', () => {
    const back = decodeCreateOrderRequest(JSON.parse(JSON.stringify(encodeCreateOrderRequest(create))));
    expect(Object.keys(back).sort()).toEqual(Object.keys(create).sort());
    expect(back.amount.equals(create.amount)).toBe(true);
    expect(back.stopLimitPrice!.equals(create.stopLimitPrice!)).toBe(true);
    expect(back.takeTriggerPrice).toBeNull();
    expect(back.sizeMode).toBe('base');
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 22n }), fc.constantFrom('market', 'limit', 'stop', 'take', 'trailing_stop', 'stop_market', 'stop_limit' as const), (raw, type) => {
        const req: CreateOrderRequest = { accountId: 'a', marketId: 'm', type, direction: 'long', amount: new Dec(raw.toString()).div(1e9), positionId: IDS.position };
        const decoded = decodeCreateOrderRequest(encodeCreateOrderRequest(req));
        expect(decoded.amount.equals(req.amount)).toBe(true);
        expect(decoded.type).toBe(type);
        expect(decoded.positionId).toBe(IDS.position);
      }),
      { numRuns: 100 },
    );
  });

  it('rejects bad bodies with a 400 naming the field', () => {
    const good = encodeCreateOrderRequest(create);
    const cases: [unknown, string, RegExp][] = [
      [{ ...good, amount: '1.5' }, 'amount', /fp9/],
      [{ ...good, amount: 250.5 }, 'amount', /number 250\.5/],
      [{ ...good, leverage: '020' }, 'leverage', /fp9/],
      [{ ...good, type: 'liquidation' }, 'type', /"liquidation"/],
      [{ ...good, type: 'add_margin' }, 'type', /expected one of/],
      [{ ...good, direction: 'up' }, 'direction', /"long", "short"/],
      [{ ...good, sizeMode: 'lots' }, 'sizeMode', /"quote", "base"/],
      [{ ...good, positionId: 42 }, 'positionId', /string/],
      [{ ...good, accountId: undefined }, 'accountId', /missing/],
      [{ ...good, trailingStopOffsetPercent: '-0' }, 'trailingStopOffsetPercent', /fp9/],
      [null, '(root)', /JSON object/],
      [[good], '(root)', /JSON object/],
    ];
    for (const [body, field, message] of cases) {
      const err = bodyError(() => decodeCreateOrderRequest(body));
      expect(err.status).toBe(400);
      expect(err.code).toBe(INVALID_REQUEST_BODY);
      expect(err.details['field'], JSON.stringify(body)).toBe(field);
      expect(err.message).toMatch(message);
      expect(err.message).toContain('POST /orders');
    }
  });

  it('EditOrderRequest both ways; null reads as unset; bad values named', () => {
    expect(encodeEditOrderRequest({ amount: dec('10'), expectedAmount: dec('0.5') })).toEqual({ amount: '10000000000', expectedAmount: '500000000' });
    expect(encodeEditOrderRequest({})).toEqual({});
    const back = decodeEditOrderRequest({ triggerPrice: '63000000000000', baseSize: null });
    expect(Object.keys(back)).toEqual(['triggerPrice']);
    const junk = bodyError(() => decodeEditOrderRequest({ triggerPrice: '63000000000000', trigerPrice: '1', junk: 1 }));
    expect([junk.code, junk.details['field'], junk.details['fields']]).toEqual([INVALID_REQUEST_BODY, 'trigerPrice', ['trigerPrice', 'junk']]);
    expect(junk.message).toMatch(/unknown fields trigerPrice, junk/);
    expect(back.triggerPrice!.equals(dec(63000))).toBe(true);
    const err = bodyError(() => decodeEditOrderRequest({ amount: '1e9' }));
    expect(err.details['field']).toBe('amount');
    expect(err.message).toContain('PATCH /orders/{orderId}');
    expect(bodyError(() => decodeEditOrderRequest('x')).details['field']).toBe('(root)');
  });
});
