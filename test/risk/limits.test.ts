import { describe, expect, it } from 'vitest';
import { ACCOUNT, cancelIntent, closeAllIntent, closeIntent, D, market, marketSnap, merge, only, openIntent, position, positionsSnap, protectIntent, setup, T0 } from './builders.js';

describe('trades per day', () => {
  it('allows max approved opens per UTC day; the next day starts again', () => {
    const { guard, clock } = setup({ config: merge(only('tradesPerDay'), { tradesPerDay: { max: 2 } }) });
    expect(guard.check(openIntent()).verdict).toBe('approved');
    expect(guard.check(openIntent()).verdict).toBe('approved');
    const d = guard.check(openIntent());
    expect(d).toMatchObject({ code: 'trades_per_day', retryAt: Date.UTC(2021, 4, 20) });
    clock.set(Date.UTC(2021, 4, 20) - 1);
    expect(guard.check(openIntent()).verdict).toBe('denied');
    clock.set(Date.UTC(2021, 4, 20));
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });

  it('denied opens do not count', () => {
    const { guard } = setup({ config: merge(only('tradesPerDay', 'leverage'), { tradesPerDay: { max: 1 } }) });
    expect(guard.check(openIntent({ leverage: 50 })).verdict).toBe('denied');
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });

  it('only opens count: closes, protects, cancels and flattening approved in between leave the count alone', () => {
    const { guard } = setup({ config: merge(only('tradesPerDay'), { tradesPerDay: { max: 2 } }), positions: [position({ direction: 'long' })] });
    expect(guard.check(openIntent()).verdict).toBe('approved');
    for (const intent of [closeIntent(), protectIntent(), cancelIntent(), closeAllIntent(), closeIntent()]) expect(guard.check(intent).verdict).toBe('approved');
    expect(guard.check(openIntent()).verdict).toBe('approved');
    expect(guard.check(openIntent())).toMatchObject({ code: 'trades_per_day' });
  });
});

describe('open positions', () => {
  it('an open that starts a new position needs room; growing an existing one does not', () => {
    const { guard } = setup({ config: merge(only('openPositions'), { openPositions: { max: 1 } }), positions: [position({ direction: 'long' })] });
    guard.observeMarket(marketSnap(market({ id: 'eth', config: { baseAsset: 'ETH' } }), T0));
    expect(guard.check(openIntent({ direction: 'long' })).verdict).toBe('approved');
    expect(guard.check(openIntent({ direction: 'short' }))).toMatchObject({ code: 'open_positions' });
    expect(guard.check(openIntent({ asset: 'ETH' }))).toMatchObject({ code: 'open_positions' });
  });

  it('max 2 with one position: one new position passes, the second is denied (approved opens count)', () => {
    const { guard } = setup({ config: merge(only('openPositions'), { openPositions: { max: 2 } }), positions: [position({ direction: 'long' })] });
    guard.observeMarket(marketSnap(market({ id: 'eth', config: { baseAsset: 'ETH' } }), T0));
    expect(guard.check(openIntent({ asset: 'ETH' })).verdict).toBe('approved');
    expect(guard.check(openIntent({ direction: 'short' }))).toMatchObject({ code: 'open_positions' });
  });
});

describe('losing streak cooldown', () => {
  const cfg = merge(only('lossStreak'), { lossStreak: { losses: 3, cooldownMs: 3_600_000 } });

  it('after 3 losses in a row no opens until cooldownMs after the last one', () => {
    const { guard, clock } = setup({ config: cfg });
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D(-10), at: T0 - 3000 });
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D(-10), at: T0 - 2000 });
    expect(guard.check(openIntent()).verdict).toBe('approved');
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D('-0.000000001'), at: T0 - 1000 });
    expect(guard.check(openIntent())).toMatchObject({ code: 'loss_streak_cooldown', retryAt: T0 - 1000 + 3_600_000 });
    clock.set(T0 - 1000 + 3_599_999);
    expect(guard.check(openIntent()).verdict).toBe('denied');
    clock.set(T0 - 1000 + 3_600_000);
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });

  it('a win (or a flat trade) ends the streak', () => {
    const { guard } = setup({ config: cfg });
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D(-10), at: T0 - 4000 });
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D(-10), at: T0 - 3000 });
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D(0), at: T0 - 2000 });
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D(-10), at: T0 - 1000 });
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });
});

describe('rules that limit opens never hold what reduces risk', () => {
  it('at the daily open limit, the position limit, in a loss cooldown and a scalping window: closes, protects, cancels and flattening pass', () => {
    const config = merge(only('tradesPerDay', 'openPositions', 'lossStreak', 'scalping'), {
      tradesPerDay: { max: 1 },
      openPositions: { max: 1 },
      lossStreak: { losses: 1, cooldownMs: 3_600_000 },
    });
    const held = (at: number) => position({ direction: 'long', lastUpdatedAt: new Date(at), eventName: 'increasePosition' });
    const { guard } = setup({ config, positions: [held(T0 - 7_200_000)] });
    guard.observeMarket(marketSnap(market({ id: 'eth', config: { baseAsset: 'ETH' } }), T0));
    // the day's one open grows the BTC position (which starts a scalping window); then a loss starts the cooldown
    expect(guard.check(openIntent()).verdict).toBe('approved');
    guard.observePositions(positionsSnap([held(T0)], 'BTC', T0));
    guard.recordTrade({ accountId: ACCOUNT, realizedPnl: D(-10), at: T0 });
    expect(guard.check(openIntent()).verdict).toBe('denied');
    expect(guard.check(openIntent({ asset: 'ETH', direction: 'short' })).verdict).toBe('denied');
    for (const intent of [closeIntent(), closeIntent({ direction: 'short' }), protectIntent(), cancelIntent(), closeAllIntent()]) {
      expect(guard.check(intent), intent.kind).toMatchObject({ verdict: 'approved' });
    }
  });
});
