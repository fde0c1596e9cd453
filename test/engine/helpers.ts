import type { Decimal } from 'decimal.js';
import { expect } from 'vitest';
import type { Exchange } from '../../src/api/exchange.js';
import type { CreateOrderRequest, Market } from '../../src/api/types.js';
import { dec } from '../../src/core/decimal.js';
import { Engine } from '../../src/engine/index.js';
import type { AccountSpec, EngineConfig, MarketSpec } from '../../src/engine/index.js';

export const T0 = Date.UTC(2024, 0, 1, 0, 0, 0);
export const MIN = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** A market with fills at the index price exactly (no spread/impact) unless overridden. */
export const FLAT: MarketSpec['overrides'] = { vpiSpread: '0', maxPriceImpact: '0', vpiCoefficientLong: '0', vpiCoefficientShort: '0' };

export interface World {
  engine: Engine;
  market: Market;
  accountId: string;
  ex: Exchange;
  user: string;
  /** Move engine time by `ms` and set the BTC price. */
  price(p: string, afterMs?: number): void;
  order(req: Partial<CreateOrderRequest> & Pick<CreateOrderRequest, 'type' | 'direction' | 'amount'>): ReturnType<Exchange['createOrder']>;
}

export function world(opts: {
  config?: Partial<EngineConfig>;
  market?: Partial<MarketSpec>;
  account?: Partial<AccountSpec>;
  price?: string;
} = {}): World {
  const engine = new Engine({ startMs: T0, ...opts.config });
  const market = engine.addMarket({ baseAsset: 'BTC', price: dec(opts.price ?? '50000'), ...opts.market });
  const user = 'user-1';
  const acc = engine.openAccount({ userId: user, type: 'real', initialBalance: dec('10000'), ...opts.account });
  const ex = engine.exchangeFor(user);
  return {
    engine,
    market,
    accountId: acc.accountId,
    ex,
    user,
    price(p, afterMs = 1000) {
      engine.setIndexPrice(market.id, dec(p), engine.now() + afterMs);
    },
    order(req) {
      return ex.createOrder({ accountId: acc.accountId, marketId: market.id, ...req } as CreateOrderRequest);
    },
  };
}

export const D = (v: string | number): Decimal => dec(typeof v === 'number' ? String(v) : v);

/** Assert a promise rejects with an error of `cls` and `code`. */
export async function rejects(p: Promise<unknown>, cls: abstract new (...a: never[]) => Error, code: string): Promise<Error & { code: string; details?: Record<string, unknown> }> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err, `expected ${cls.name} ${code}`).toBeInstanceOf(cls);
  expect((err as { code: string }).code).toBe(code);
  return err as Error & { code: string; details?: Record<string, unknown> };
}

/** JSON of a value with Decimals and Dates as strings. */
export function snap(v: unknown): string {
  return JSON.stringify(v);
}
