import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { Dec } from '../../src/core/decimal.js';
import {
  account,
  D,
  market,
  merge,
  only,
  openIntent,
  order,
  position,
  riskStatus,
  setup,
  ULP,
} from './builders.js';

describe('leverage rule', () => {
  it('caps leverage at 1 / minInitMarginRatio: 5 passes, 5 + 1e-9 is denied', () => {
    const { guard } = setup({ config: only('leverage'), market: market({ settings: { minInitMarginRatio: D('0.2'), maxLeverageByAccount: {} } }) });
    expect(guard.check(openIntent({ leverage: 5 })).verdict).toBe('approved');
    const d = guard.check(openIntent({ leverage: D(5).plus(ULP) }));
    expect(d).toMatchObject({ verdict: 'denied', code: 'leverage_above_max', rule: 'leverage' });
    if (d.verdict === 'denied') expect(d.reason).toContain('5.000000001');
  });

  it('caps leverage by maxLeverageByAccount of the account type', () => {
    const m = market({ settings: { maxLeverageByAccount: { demo: D(10), real: D(3), tournament: D(10) } } });
    const { guard } = setup({ config: only('leverage'), market: m, account: account({ type: 'real' }) });
    expect(guard.check(openIntent({ leverage: 3 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ leverage: D(3).plus(ULP) }))).toMatchObject({
      code: 'leverage_above_max',
    });
  });

  it('uses the smallest per-type cap while the account type is unknown', () => {
    const m = market({ settings: { maxLeverageByAccount: { demo: D(4), real: D(2), tournament: D(4) } } });
    const { guard } = setup({ config: only('leverage'), market: m });
    expect(guard.check(openIntent({ leverage: 2 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ leverage: D(2).plus(ULP) })).verdict).toBe('denied');
  });

  it('refuses leverage below the configured minimum, and honours an own cap', () => {
    const { guard } = setup({ config: merge(only('leverage'), { leverage: { minLeverage: '1', maxLeverage: '2.5' } }) });
    expect(guard.check(openIntent({ leverage: 1 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ leverage: D(1).minus(ULP) }))).toMatchObject({ code: 'leverage_below_min' });
    expect(guard.check(openIntent({ leverage: '2.5' })).verdict).toBe('approved');
    expect(guard.check(openIntent({ leverage: D('2.5').plus(ULP) }))).toMatchObject({ code: 'leverage_above_max' });
  });

  it('the smallest cap wins: a looser per-type cap or own cap never raises it, and the reason names the binding one', () => {
    // margin 1 / 0.2 = 5x; the account type allows 10x and the configuration 8x: 5x binds
    const m = market({ settings: { minInitMarginRatio: D('0.2'), maxLeverageByAccount: { demo: D(10), real: D(10), tournament: D(10) } } });
    const loose = setup({ config: merge(only('leverage'), { leverage: { maxLeverage: '8' } }), market: m, account: account({ type: 'real' }) }).guard;
    expect(loose.check(openIntent({ leverage: 5 })).verdict).toBe('approved');
    const over = loose.check(openIntent({ leverage: D(5).plus(ULP) }));
    expect(over).toMatchObject({ code: 'leverage_above_max' });
    if (over.verdict === 'denied') expect(over.reason).toContain('(market minInitMarginRatio)');
    // the type's 3x under the margin's 5x, the configuration's 4x above it: 3x binds
    const typed = market({ settings: { minInitMarginRatio: D('0.2'), maxLeverageByAccount: { demo: D(10), real: D(3), tournament: D(10) } } });
    const byType = setup({ config: merge(only('leverage'), { leverage: { maxLeverage: '4' } }), market: typed, account: account({ type: 'real' }) }).guard;
    const d = byType.check(openIntent({ leverage: D(3).plus(ULP) }));
    expect(d).toMatchObject({ code: 'leverage_above_max' });
    if (d.verdict === 'denied') expect(d.reason).toContain('(market maxLeverageByAccount.real)');
  });
});

describe('notional cap rule', () => {
  it('without fee: notional = amount × leverage against maxOpenNotionalLong', () => {
    const { guard } = setup({ config: only('notionalCap'), market: market({ settings: { maxOpenNotionalLong: D(5000) } }) });
    expect(guard.check(openIntent({ amount: 1000, leverage: 5 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ amount: D(1000).plus(ULP), leverage: 5 }))).toMatchObject({
      verdict: 'denied',
      code: 'max_open_notional',
    });
  });

  it('with fee: notional = A / (1/L + f), the measured 100 at 5x → 499.80', () => {
    const fee = D('0.00008');
    const exact = D(100).div(new Dec(1).div(5).plus(fee));
    expect(exact.toFixed(2)).toBe('499.80');
    const n = exact.toDecimalPlaces(9, Decimal.ROUND_UP);
    const at = (cap: Decimal) =>
      setup({ config: only('notionalCap'), market: market({ settings: { fee, maxOpenNotionalLong: cap } }) }).guard.check(
        openIntent({ amount: 100, leverage: 5 }),
      );
    expect(at(n).verdict).toBe('approved');
    expect(at(n.minus(ULP))).toMatchObject({ code: 'max_open_notional' });
  });

  it('checks the short cap for shorts, and 0 means no cap', () => {
    const m = market({ settings: { maxOpenNotionalLong: D(0), maxOpenNotionalShort: D(2000) } });
    const { guard } = setup({ config: only('notionalCap'), market: m });
    expect(guard.check(openIntent({ direction: 'long', amount: 100000, leverage: 5 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ direction: 'short', amount: 400, leverage: 5 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ direction: 'short', amount: D(400).plus(ULP), leverage: 5 }))).toMatchObject({
      code: 'max_open_notional',
    });
  });

  it('counts the open notional of the position on that market and side', () => {
    const m = market({ settings: { maxOpenNotionalLong: D(8000) } });
    const p = position({ direction: 'long', size: D('0.06'), notional: D(3000) });
    const short = position({ direction: 'short', size: D('1'), notional: D(50000) });
    const { guard } = setup({ config: only('notionalCap'), market: m, positions: [p, short] });
    expect(guard.check(openIntent({ amount: 1000, leverage: 5 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ amount: D(1000).plus(ULP), leverage: 5 }))).toMatchObject({ code: 'max_open_notional' });
  });

  it('prices a base-sized open at its limit price', () => {
    const m = market({ settings: { maxOpenNotionalLong: D(4800) } });
    const { guard } = setup({ config: only('notionalCap'), market: m });
    const base = (size: Decimal) =>
      openIntent({ entry: { type: 'limit', price: D(48000) }, sizing: { kind: 'base', size, maxAmount: D(1000) } });
    expect(guard.check(base(D('0.1'))).verdict).toBe('approved');
    expect(guard.check(base(D('0.1').plus(ULP)))).toMatchObject({ code: 'max_open_notional' });
  });
});

describe('free balance rule', () => {
  // balance 100000 − margin 20000 − reserve 30000 (active limit) = 50000 free
  const positions = () => [position({ margin: D(20000), size: D(2), notional: D(100000) })];
  const orders = () => [order({ type: 'limit', limitPrice: D(45000), triggerPrice: D(45000), amount: D(30000) })];

  it('the amount must fit balance − margins − reserves of active increase orders', () => {
    const { guard } = setup({ config: only('freeBalance'), positions: positions(), orders: orders() });
    expect(guard.check(openIntent({ amount: 50000, leverage: 1 })).verdict).toBe('approved');
    const { guard: g2 } = setup({ config: only('freeBalance'), positions: positions(), orders: orders() });
    const d = g2.check(openIntent({ amount: D(50000).plus(ULP), leverage: 1 }));
    expect(d).toMatchObject({ code: 'insufficient_free_balance' });
    if (d.verdict === 'denied') expect(d.reason).toContain('free balance 50000');
  });

  it('close orders (stops) reserve nothing; a base-sized order reserves its reservedAmount', () => {
    const p = position({ margin: D(20000), size: D(2), notional: D(100000) });
    const list = [
      order({ type: 'stop', positionId: p.idx, triggerPrice: D(40000), amount: D(2), leverage: null }),
      order({ type: 'limit', sizeMode: 'base', baseSize: D('0.5'), amount: D(25000), reservedAmount: D(30000), limitPrice: D(45000) }),
    ];
    const { guard } = setup({ config: only('freeBalance'), positions: [p], orders: list });
    expect(guard.check(openIntent({ amount: 50000, leverage: 1 })).verdict).toBe('approved');
    const { guard: g2 } = setup({ config: only('freeBalance'), positions: [p], orders: list });
    expect(g2.check(openIntent({ amount: D(50000).plus(ULP), leverage: 1 })).verdict).toBe('denied');
  });

  it('an approved open holds its reserve until snapshots show it', () => {
    const { guard } = setup({ config: only('freeBalance'), risk: riskStatus({ currentBalance: D(1500) }) });
    expect(guard.check(openIntent({ amount: 1000 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ amount: 1000 }))).toMatchObject({ code: 'insufficient_free_balance' });
    expect(guard.check(openIntent({ amount: 500 })).verdict).toBe('approved');
  });

  it('denies opens before any risk status arrived', () => {
    const { guard } = setup({ config: only('freeBalance'), risk: null });
    expect(guard.check(openIntent())).toMatchObject({ code: 'no_risk_status' });
  });
});

describe('malformed intents', () => {
  it('a NaN amount is denied as guard_error, never approved and never thrown', () => {
    const { guard } = setup();
    const d = guard.check(openIntent({ amount: new Dec('NaN') }));
    expect(d).toMatchObject({ verdict: 'denied', code: 'guard_error', rule: 'guard' });
  });

  it('a zero entry price is denied as invalid_intent', () => {
    const { guard } = setup({ config: only('drawdown') });
    expect(guard.check(openIntent({ entry: { type: 'limit', price: D(0) } }))).toMatchObject({ code: 'invalid_intent' });
  });
});
