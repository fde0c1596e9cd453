import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Dec, dec } from '../../src/core/decimal.js';
import { VirtualClock } from '../../src/core/clock.js';
import { SeededIds } from '../../src/core/ids.js';
import { marketSnapshot, riskSnapshot } from '../../src/feed/snapshots.js';
import type { MarketSnapshot, RiskSnapshot } from '../../src/feed/types.js';
import { ALL_ASSETS, IntentBuilders } from '../../src/strategy/intent-builders.js';
import { IntentError, sizeByRisk } from '../../src/strategy/sizing.js';
import { makeMarket, makeRisk } from '../feed/fixtures.js';

const T0 = Date.UTC(2024, 0, 1);

function builders(opts: { assets?: string[]; risk?: RiskSnapshot; market?: MarketSnapshot } = {}) {
  const ids = new SeededIds('t');
  const clock = new VirtualClock(T0);
  const market = opts.market ?? marketSnapshot(makeMarket('BTC', '50000', 'm', '0.00008'), T0);
  const risk = opts.risk ?? riskSnapshot(makeRisk('acc', '10000'), T0);
  return {
    clock,
    b: new IntentBuilders({
      strategy: 'demo',
      accountId: 'acc',
      assets: opts.assets ?? ['BTC'],
      clock,
      newId: () => ids.next(),
      latestMarket: (a) => (a === 'BTC' ? market : undefined),
      latestRisk: () => risk,
    }),
  };
}

describe('IntentBuilders', () => {
  it('gives each intent a unique strategy-prefixed id and fills account, asset and time', () => {
    const { b, clock } = builders();
    const a = b.openLong({ size: { quote: '100' } });
    clock.advance(5);
    const c = b.close({ direction: 'long' });
    expect(a.id).toMatch(/^demo:[0-9a-f-]{36}$/);
    expect(c.id).not.toBe(a.id);
    expect(a).toMatchObject({ kind: 'open', strategy: 'demo', accountId: 'acc', asset: 'BTC', createdAt: T0, direction: 'long' });
    expect(c).toMatchObject({ kind: 'close', createdAt: T0 + 5, direction: 'long' });
    expect(a.entry).toEqual({ type: 'market' });
    expect(a.leverage.toString()).toBe('1');
    expect(a.sizing).toEqual({ kind: 'quote', amount: dec('100') });
    expect(a.sizedBy).toEqual({ kind: 'quote', amount: '100' });
  });

  it('sizes by base size with a default reserve from price, leverage, fee and buffer', () => {
    const { b } = builders();
    const i = b.openShort({ size: { base: '0.1' }, leverage: 5 });
    // 0.1 × 50000 × (1/5 + 0.00008) × 1.01
    expect(i.sizing).toEqual({ kind: 'base', size: dec('0.1'), maxAmount: dec('1010.404') });
    const j = b.openShort({ size: { base: '0.1', maxAmount: '2000' } });
    expect(j.sizing.kind === 'base' && j.sizing.maxAmount.toString()).toBe('2000');
  });

  it('sizes by risk: the loss at the stop, fees included, is the asked share of equity', () => {
    const { b } = builders({ risk: riskSnapshot(makeRisk('acc', '10000'), T0) });
    const i = b.openLong({ size: { risk: '0.01' }, stopLoss: '49000', leverage: '5' });
    expect(i.sizing.kind).toBe('quote');
    const amount = i.sizing.kind === 'quote' ? i.sizing.amount : dec(0);
    expect(amount.decimalPlaces()).toBeLessThanOrEqual(9);
    const f = dec('0.00008');
    const notional = amount.div(dec(1).div(5).plus(f));
    const loss = notional.times(dec(1000).div(50000)).plus(notional.times(f)).plus(notional.times(f).times(dec(49000).div(50000)));
    expect(loss.lte(100)).toBe(true);
    expect(loss.gt(dec('99.99999'))).toBe(true);
    expect(i.stopLoss?.toString()).toBe('49000');
    expect(i.sizedBy).toMatchObject({ kind: 'risk', share: '0.01', equity: '10000', entry: '50000', stop: '49000', leverage: '5', fee: '0.00008' });
  });

  it('sizes a short by risk from a limit entry price, and caps the reserve when asked', () => {
    const { b } = builders();
    const i = b.openShort({ size: { risk: '0.02' }, entry: { type: 'limit', price: dec('52000') }, stopLoss: '53000' });
    expect(i.sizedBy).toMatchObject({ entry: '52000' });
    const capped = b.openShort({ size: { risk: '0.02', maxAmount: '50' }, entry: { type: 'limit', price: dec('52000') }, stopLoss: '53000' });
    expect(capped.sizing).toEqual({ kind: 'quote', amount: dec('50') });
    expect(capped.sizedBy).toMatchObject({ cappedBy: 'maxAmount' });
  });

  it('explains what is missing or wrong', () => {
    const { b } = builders();
    expect(() => b.openLong({ size: { risk: '0.01' } })).toThrow(/stopLoss: sizing by risk needs a stopLoss/);
    expect(() => b.openLong({ size: { risk: '0.01' }, stopLoss: '51000' })).toThrow(/a long stop must be below the entry 50000/);
    expect(() => b.openLong({ size: { quote: 0.5 } })).toThrow(/size\.quote: a fractional JS number is refused/);
    expect(() => b.openLong({ size: { quote: '-1' } })).toThrow(/size\.quote: must be positive/);
    expect(() => b.openLong({ size: { quote: '1', base: '1' } as never })).toThrow(/exactly one of quote, base, risk; got quote and base/);
    expect(() => b.openLong({ asset: 'ETH', size: { quote: '1' } })).toThrow(/"ETH" is not one of the strategy's assets/);
    expect(() => b.protect({ direction: 'long' })).toThrow(/at least one of stopLoss/);
    expect(() => b.protect({ direction: 'long', trailingStop: { offsetPercent: dec(1) } })).toThrow(/below 1/);
    expect(() => b.close({ direction: 'up' as never })).toThrow(IntentError);

    const noRisk = new IntentBuilders({
      strategy: 's', accountId: 'x', assets: ['BTC', 'ETH'], clock: new VirtualClock(0), newId: () => 'id',
      latestMarket: () => undefined, latestRisk: () => undefined,
    });
    expect(() => noRisk.openLong({ asset: 'BTC', size: { risk: '0.01' }, stopLoss: '1' })).toThrow(/no risk snapshot of account x yet/);
    expect(() => noRisk.openLong({ asset: 'BTC', size: { base: '1' } })).toThrow(/no market snapshot of BTC yet/);
    expect(() => noRisk.openLong({ size: { quote: '1' } })).toThrow(/trades 2 assets \(BTC, ETH\); name one/);
  });

  it('builds protect, cancel and close-all intents', () => {
    const { b } = builders();
    const p = b.protect({ direction: 'short', stopLoss: '51000', takeProfit: null, positionId: 'pos-1' });
    expect(p).toMatchObject({ kind: 'protect', direction: 'short', positionId: 'pos-1', takeProfit: null });
    expect(p.stopLoss?.toString()).toBe('51000');
    expect('trailingStop' in p).toBe(false);
    expect(b.cancel({ orderId: 'o-1' })).toMatchObject({ kind: 'cancel', orderId: 'o-1', asset: 'BTC' });
    expect(b.closeAll({ scope: 'account' })).toMatchObject({ kind: 'close_all', scope: 'account', asset: ALL_ASSETS });
    expect(b.closeAll().scope).toBe('positions');
  });
});

describe('sizeByRisk', () => {
  it('never loses more than the budget and rounds the amount down to 9 decimals', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 100, max: 100_000 }),
        fc.integer({ min: 1, max: 999 }),
        fc.integer({ min: 1, max: 10 }),
        fc.boolean(),
        (equity, shareBp, entry, distPermille, lev, long) => {
          const e = new Dec(entry);
          const stop = long ? e.times(1000 - distPermille).div(1000) : e.times(1000 + distPermille).div(1000);
          const share = new Dec(shareBp).div(10_000);
          const f = new Dec('0.00008');
          const r = sizeByRisk({ direction: long ? 'long' : 'short', equity: new Dec(equity), share, entry: e, stop, leverage: new Dec(lev), feeRate: f });
          expect(r.amount.decimalPlaces()).toBeLessThanOrEqual(9);
          const budget = new Dec(equity).times(share);
          expect(r.lossAtStop.lte(budget)).toBe(true);
          // One more nano of amount would be at most a hair over budget.
          const perAmount = r.lossAtStop.div(r.amount);
          expect(budget.minus(r.lossAtStop).lte(perAmount.times('0.000000001').plus('1e-30'))).toBe(true);
        },
      ),
      // A loss exactly equal to the budget (the reserve is 0.4 of the loss per notional), once 2·10^-58 over it.
      { numRuns: 300, examples: [[562_202, 1, 100, 500, 5, false]] },
    );
  });
});
