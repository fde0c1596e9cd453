import { describe, expect, it } from 'vitest';
import {
  closeAllIntent,
  closeIntent,
  D,
  market,
  marketSnap,
  merge,
  only,
  openIntent,
  position,
  positionsSnap,
  protectIntent,
  setup,
  T0,
} from './builders.js';
import type { Decimal } from 'decimal.js';

describe('60-second profit window', () => {
  // long 0.1 at entry 50000 (notional 5000), last increase at T0
  const pos = (idx = 'p1') => position({ idx, size: D('0.1'), notional: D(5000), lastUpdatedAt: new Date(T0), eventName: 'increasePosition' });
  const at = (now: number, price: Decimal) =>
    setup({ config: only('profitWindow'), now, market: market({ state: { indexPrice: price } }), positions: [pos()] }).guard;

  it('holds a profitable close inside the window with retryAt at its end; releases it 1 ms later', () => {
    const d = at(T0 + 59_999, D(50100)).check(closeIntent());
    expect(d).toMatchObject({ verdict: 'denied', code: 'held_profit_window', rule: 'profit_window', retryAt: T0 + 60_000 });
    expect(at(T0 + 60_000, D(50100)).check(closeIntent()).verdict).toBe('approved');
  });

  it('one fp9 unit of profit is held, none is not (a stop-loss close is never held)', () => {
    // 0.1 × (50000.00000001 − 50000) = 0.000000001
    expect(at(T0 + 1000, D('50000.00000001')).check(closeIntent())).toMatchObject({ code: 'held_profit_window' });
    expect(at(T0 + 1000, D(50000)).check(closeIntent()).verdict).toBe('approved');
    expect(at(T0 + 1000, D(49000)).check(closeIntent()).verdict).toBe('approved');
  });

  it('finds the position by id, and never holds protective orders or flattening', () => {
    const g = at(T0 + 1000, D(51000));
    expect(g.check(closeIntent({ positionId: 'p1' })).verdict).toBe('denied');
    expect(g.check(closeIntent({ positionId: 'other' })).verdict).toBe('approved');
    expect(g.check(closeIntent({ direction: 'short' })).verdict).toBe('approved');
    expect(g.check(protectIntent()).verdict).toBe('approved');
    expect(g.check(closeAllIntent()).verdict).toBe('approved');
  });

  it('a later increase restarts the window; a margin event does not', () => {
    const { guard, clock } = setup({ config: only('profitWindow'), market: market({ state: { indexPrice: D(51000) } }), positions: [pos()] });
    clock.set(T0 + 70_000);
    expect(guard.check(closeIntent()).verdict).toBe('approved');
    guard.observePositions(positionsSnap([position({ idx: 'p1', lastUpdatedAt: new Date(T0 + 65_000), eventName: 'increasePosition' })], 'BTC', T0 + 70_000));
    expect(guard.check(closeIntent())).toMatchObject({ code: 'held_profit_window', retryAt: T0 + 125_000 });
    guard.observePositions(positionsSnap([position({ idx: 'p1', lastUpdatedAt: new Date(T0 + 69_000), eventName: 'addMargin' })], 'BTC', T0 + 70_000));
    expect(guard.check(closeIntent())).toMatchObject({ retryAt: T0 + 125_000 });
  });
});

describe('scalping window', () => {
  const recent = () => position({ lastUpdatedAt: new Date(T0), eventName: 'increasePosition' });
  const at = (now: number, config: Record<string, unknown> = only('scalping')) =>
    setup({ config, now, positions: [recent()] }).guard;

  it('denies an open within windowMs of the last increase on the market; 1 ms after passes', () => {
    expect(at(T0 + 3_599_999).check(openIntent())).toMatchObject({ code: 'scalping_window', retryAt: T0 + 3_600_000 });
    expect(at(T0 + 3_600_000).check(openIntent()).verdict).toBe('approved');
  });

  it('lets a strategy that allows scalping through; other markets are not affected', () => {
    const config = merge(only('scalping'), { strategies: { scalper: { allowScalping: true } } });
    const g = at(T0 + 1000, config);
    expect(g.check(openIntent({ strategy: 'scalper' })).verdict).toBe('approved');
    expect(g.check(openIntent({ strategy: 'swing' })).verdict).toBe('denied');
    g.observeMarket(marketSnap(market({ id: 'eth', config: { baseAsset: 'ETH' } }), T0));
    expect(g.check(openIntent({ asset: 'ETH' })).verdict).toBe('approved');
  });

  it('remembers the increase after the position closed, and reads the venue scalping coefficient', () => {
    const { guard } = setup({ config: only('scalping'), now: T0 + 1000, positions: [recent()] });
    guard.observePositions(positionsSnap([], 'BTC', T0 + 1000));
    expect(guard.check(openIntent()).verdict).toBe('denied');
    const { guard: g2 } = setup({ config: only('scalping'), now: T0 });
    expect(g2.check(openIntent()).verdict).toBe('approved');
    g2.observeScalping('11111111-1111-4111-8111-111111111111', 'BTC', {
      amount: D(2),
      amountRegular: D(1),
      activeSince: new Date(T0 - 1000),
      activeUntil: new Date(T0 + 7_200_000),
    });
    expect(g2.check(openIntent())).toMatchObject({ code: 'scalping_window', retryAt: T0 + 7_200_000 });
  });

  it("takes the later end of its own window and the venue's; the venue's window start counts as an increase", () => {
    const coefficient = (since: number | null, until: number | null) => ({
      amount: D(2),
      amountRegular: D(1),
      activeSince: since === null ? null : new Date(since),
      activeUntil: until === null ? null : new Date(until),
    });
    // our own window (last increase T0) ends at T0 + 1 h; the venue's ends sooner: ours stands
    const g = at(T0 + 2000);
    g.observeScalping('11111111-1111-4111-8111-111111111111', 'BTC', coefficient(T0 - 5000, T0 + 1000));
    expect(g.check(openIntent())).toMatchObject({ code: 'scalping_window', retryAt: T0 + 3_600_000 });
    // no increase seen here, but the venue's window started at T0 + 10 s: an hour from then
    const { guard: fresh, clock } = setup({ config: only('scalping'), now: T0 + 20_000 });
    fresh.observeScalping('11111111-1111-4111-8111-111111111111', 'BTC', coefficient(T0 + 10_000, null));
    expect(fresh.check(openIntent())).toMatchObject({ code: 'scalping_window', retryAt: T0 + 3_610_000 });
    // an older start than the increase already known changes nothing
    fresh.observeScalping('11111111-1111-4111-8111-111111111111', 'BTC', coefficient(T0, null));
    expect(fresh.check(openIntent())).toMatchObject({ retryAt: T0 + 3_610_000 });
    clock.set(T0 + 3_610_000);
    expect(fresh.check(openIntent()).verdict).toBe('approved');
  });

  it("the market's latest increase sets the window, whichever position it is and in whatever order they are listed", () => {
    const newer = position({ idx: 'p-new', lastUpdatedAt: new Date(T0), eventName: 'increasePosition' });
    const older = position({ idx: 'p-old', lastUpdatedAt: new Date(T0 - 7_200_000), eventName: 'increasePosition' });
    for (const list of [[newer, older], [older, newer]]) {
      const { guard } = setup({ config: only('scalping'), now: T0 + 1000, positions: list });
      expect(guard.check(openIntent())).toMatchObject({ code: 'scalping_window', retryAt: T0 + 3_600_000 });
    }
  });

  it('uses the configured window length', () => {
    const config = merge(only('scalping'), { scalping: { windowMs: 60_000 } });
    expect(at(T0 + 59_999, config).check(openIntent()).verdict).toBe('denied');
    expect(at(T0 + 60_000, config).check(openIntent()).verdict).toBe('approved');
  });
});

