/**
 * Every `POST /orders` body the executor builds carries only fields that apply to its order type, so the
 * client's check (and the sandbox's) never refuses propbot's own requests. Exhaustive over entry types,
 * sizing, attached protections and trailing-stop shapes.
 */
import { describe, expect, it } from 'vitest';
import { CREATE_ORDER_FIELDS, misplacedCreateFields, unknownFields } from '../../src/api/order-fields.js';
import type { CreateOrderRequest } from '../../src/api/types.js';
import { Dec } from '../../src/core/decimal.js';
import { closeRequest, openRequest, protectiveRequest, trailingRequest } from '../../src/execution/requests.js';
import type { EntryOrder, OpenIntent, Sizing, TrailingStopSpec } from '../../src/strategy/intents.js';
import { makePosition } from './fixtures.js';

const d = (v: string | number) => new Dec(v);
const position = makePosition({ idx: 'pos-1', trader: 'acc-1', market: 'mkt-1', direction: 'long', size: d('0.5') });
const base = { id: 'i-1', strategy: 's', accountId: 'acc-1', asset: 'BTC', createdAt: 0 } as const;

function expectClean(req: CreateOrderRequest): void {
  expect(unknownFields(req, CREATE_ORDER_FIELDS), JSON.stringify(req)).toEqual([]);
  expect(misplacedCreateFields(req), JSON.stringify(req)).toEqual([]);
}

describe('executor requests carry only fields of their order type', () => {
  it('open intents: every entry type, sizing and protection', () => {
    const entries: EntryOrder[] = [
      { type: 'market' },
      { type: 'limit', price: d(50000) },
      { type: 'stop_market', trigger: d(61000) },
      { type: 'stop_limit', trigger: d(61000), limit: d(61010) },
    ];
    const sizings: Sizing[] = [
      { kind: 'quote', amount: d(100) },
      { kind: 'base', size: d('0.01'), maxAmount: d(700) },
    ];
    let n = 0;
    for (const entry of entries) {
      for (const sizing of sizings) {
        for (const extras of [{}, { stopLoss: d(40000) }, { takeProfit: d(80000) }, { stopLoss: d(40000), takeProfit: d(80000), minSize: d('0.001') }]) {
          const intent: OpenIntent = { ...base, kind: 'open', direction: 'long', entry, sizing, leverage: d(3), ...extras };
          expectClean(openRequest(intent, 'mkt-1'));
          n += 1;
        }
      }
    }
    expect(n).toBe(32);
  });

  it('closes, protective stops and takes, trailing stops', () => {
    expectClean(closeRequest({ ...base, kind: 'close', direction: 'long' }, position));
    expectClean(closeRequest({ ...base, kind: 'close', direction: 'long', size: d('0.1') }, position));
    expectClean(protectiveRequest('acc-1', position, 'stop', d(40000)));
    expectClean(protectiveRequest('acc-1', position, 'take', d(80000)));
    const specs: TrailingStopSpec[] = [{ offset: d(100) }, { offsetPercent: d('0.01') }, { offset: d(100), activationPrice: d(65000) }];
    for (const spec of specs) expectClean(trailingRequest('acc-1', position, spec));
  });
});
