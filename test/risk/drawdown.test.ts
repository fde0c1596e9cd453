import { describe, expect, it } from 'vitest';
import type { Decimal } from 'decimal.js';
import {
  account,
  D,
  market,
  merge,
  only,
  openIntent,
  order,
  marketSnap,
  ordersSnap,
  position,
  positionsSnap,
  riskSnap,
  riskStatus,
  setup,
  T0,
  stopOrder,
  ULP,
} from './builders.js';

/**
 * Defaults: price 50000, no fee or spread, daily 5% of day-start equity, total 10% of initial,
 * buffer 0.5% of each base, stop slippage 0.2%, adverse move 5%.
 * The intent: 1000 at 5x → notional 5000, size 0.1.
 */
const cfg = (extra: Record<string, unknown> = {}) => merge(only('drawdown'), extra);

function atEquity(equity: Decimal, extra: { dayStart?: Decimal; maxEquity?: Decimal; config?: Record<string, unknown>; positions?: ReturnType<typeof position>[]; orders?: ReturnType<typeof order>[] } = {}) {
  return setup({
    config: cfg(extra.config),
    risk: riskStatus({
      currentEquity: equity,
      currentBalance: equity,
      dayStartEquity: extra.dayStart ?? D(100000),
      maxEquity: extra.maxEquity ?? D(100000),
    }),
    ...(extra.positions ? { positions: extra.positions } : {}),
    ...(extra.orders ? { orders: extra.orders } : {}),
  }).guard;
}

describe('drawdown headroom rule', () => {
  it('daily floor with a stop: equity − loss to the stop (with slippage) must stay ≥ floor + buffer', () => {
    // stop 49000 filled 0.2% beyond: 48902; loss = 5000 × (50000 − 48902) / 50000 = 109.8
    const worst = D(5000).times(50000 - 48902).div(50000);
    expect(worst.toString()).toBe('109.8');
    const floorPlusBuffer = D(100000).times('0.95').plus(D(100000).times('0.005')); // 95500
    const edge = floorPlusBuffer.plus(worst);
    expect(atEquity(edge).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    const d = atEquity(edge.minus(ULP)).check(openIntent({ stopLoss: 49000 }));
    expect(d).toMatchObject({ verdict: 'denied', code: 'daily_drawdown_headroom', rule: 'drawdown' });
    if (d.verdict === 'denied') expect(d.reason).toContain('95500');
  });

  it('an intent without a stop is sized against the maximum adverse move', () => {
    const worst = D(5000).times('0.05'); // 250
    const edge = D(95500).plus(worst);
    expect(atEquity(edge).check(openIntent()).verdict).toBe('approved');
    expect(atEquity(edge.minus(ULP)).check(openIntent())).toMatchObject({ code: 'daily_drawdown_headroom' });
    const wider = { drawdown: { maxAdverseMove: '0.1' } };
    expect(atEquity(edge, { config: wider }).check(openIntent()).verdict).toBe('denied');
    expect(atEquity(D(95500).plus(500), { config: wider }).check(openIntent()).verdict).toBe('approved');
  });

  it('never counts more than liquidation can take (the margin)', () => {
    // adverse 50% of 5000 = 2500 > margin 1000: the worst case is the margin
    const config = { drawdown: { maxAdverseMove: '0.5' } };
    expect(atEquity(D(96500), { config }).check(openIntent()).verdict).toBe('approved');
    expect(atEquity(D(96500).minus(ULP), { config }).check(openIntent()).verdict).toBe('denied');
  });

  it('fees, spread and impact of both fills count', () => {
    // fee 0.1%, spread 0.05% × multiplier 2 = 0.1% → 0.2% per fill; notional = 1000 / (0.2 + 0.001) = 4975.124378…
    const m = market({ settings: { fee: D('0.001') }, state: { vpiSpread: D('0.0005') } });
    const mk = (equity: Decimal) =>
      setup({ config: cfg(), market: m, risk: riskStatus({ currentEquity: equity, currentBalance: equity }) }).guard;
    const n = D(1000).times(5).times(1e9).div(D(1e9).plus(D('0.001').times(5).times(1e9))).toDecimalPlaces(9, 0);
    const entryCost = n.times('0.002').toDecimalPlaces(9, 0);
    const priceLoss = n.times('0.05').toDecimalPlaces(9, 0);
    const exitNotional = n.times('0.95').toDecimalPlaces(9, 0);
    const exitCost = exitNotional.times('0.002').toDecimalPlaces(9, 0);
    const worst = entryCost.plus(priceLoss).plus(exitCost);
    expect(mk(D(95500).plus(worst)).check(openIntent()).verdict).toBe('approved');
    expect(mk(D(95500).plus(worst).minus(ULP)).check(openIntent()).verdict).toBe('denied');
  });

  it('the open book counts: each position to its stop, else the adverse move, from the price now', () => {
    const withStop = position({ size: D('0.1'), notional: D(5000), margin: D(1000) });
    // position stop 49500 → 49401 after slippage; from 50000: 0.1 × 599 = 59.9
    const open = D('59.9');
    const edge = D(95500).plus('109.8').plus(open);
    const make = (eq: Decimal) => atEquity(eq, { positions: [withStop], orders: [stopOrder(withStop, 49500)] });
    expect(make(edge).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(make(edge.minus(ULP)).check(openIntent({ stopLoss: 49000 })).verdict).toBe('denied');

    const noStop = position({ size: D('0.1'), notional: D(5000), margin: D(1000) });
    const edge2 = D(95500).plus('109.8').plus(D(5000).times('0.05'));
    expect(atEquity(edge2, { positions: [noStop] }).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(atEquity(edge2.minus(ULP), { positions: [noStop] }).check(openIntent({ stopLoss: 49000 })).verdict).toBe('denied');
  });

  it('a pending entry order counts as if filled (with its attached stop)', () => {
    // limit long 1000 at 5x at 48000 with stop 47000: N 5000, exit 47000 × 0.998 = 46906 → 5000 × 1094 / 48000
    const pending = order({ type: 'limit', limitPrice: D(48000), triggerPrice: D(48000), amount: D(1000), leverage: D(5), stopTriggerPrice: D(47000) });
    const pendingWorst = D(5000).times(48000 - 46906).div(48000).toDecimalPlaces(9, 2);
    const edge = D(95500).plus('109.8').plus(pendingWorst);
    expect(atEquity(edge, { orders: [pending] }).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(atEquity(edge.minus(ULP), { orders: [pending] }).check(openIntent({ stopLoss: 49000 })).verdict).toBe('denied');
  });

  it('total floor: initial × (1 − maxTotal) + buffer', () => {
    // day-start low enough that the daily floor does not bind: 91000 × 0.95 + 455 = 86905
    const edge = D(90000).plus(500).plus('109.8');
    const g = (eq: Decimal) => atEquity(eq, { dayStart: D(91000) });
    expect(g(edge).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(g(edge.minus(ULP)).check(openIntent({ stopLoss: 49000 }))).toMatchObject({ code: 'total_drawdown_headroom' });
  });

  it('trailing floor: max equity × (1 − maxTrailing) + buffer, when the phase has a trailing rule', () => {
    const config = { drawdown: { phases: { active_evaluation: { daily: '0.05', total: '0.1', trailing: '0.08' } } } };
    // 110000 × 0.92 + 550 = 101750; day start 102000 → daily floor 96900 + 510, not binding
    const edge = D(101750).plus('109.8');
    const g = (eq: Decimal) => atEquity(eq, { dayStart: D(102000), maxEquity: D(110000), config });
    expect(g(edge).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(g(edge.minus(ULP)).check(openIntent({ stopLoss: 49000 }))).toMatchObject({ code: 'trailing_drawdown_headroom' });
    // without the trailing rule the same equity passes
    expect(atEquity(edge.minus(ULP), { dayStart: D(102000), maxEquity: D(110000) }).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
  });

  it('takes the percentages of the Account record over the phase preset', () => {
    // the account allows 4% daily: 96000 + 500 + 109.8
    const edge = D(96500).plus('109.8');
    const g = (eq: Decimal) =>
      setup({
        config: cfg(),
        account: account({ maxDailyDrawdown: D(4) }),
        risk: riskStatus({ currentEquity: eq, currentBalance: eq }),
      }).guard;
    expect(g(edge).check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(g(edge.minus(ULP)).check(openIntent({ stopLoss: 49000 }))).toMatchObject({ code: 'daily_drawdown_headroom' });
  });

  it('an approved open counts against the next one until snapshots show it', () => {
    const g = atEquity(D(95500).plus('109.8').plus('109.8'));
    expect(g.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(g.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(g.check(openIntent({ stopLoss: 49000 }))).toMatchObject({ code: 'daily_drawdown_headroom' });
  });

  it('denies an open whose notional or leverage is zero as invalid, before any figure is worked out from it', () => {
    const { guard } = setup({ config: cfg() });
    for (const spec of [{ amount: 0 }, { leverage: 0 }]) {
      expect(guard.check(openIntent({ stopLoss: 49000, ...spec }))).toMatchObject({ verdict: 'denied', code: 'invalid_intent', rule: 'drawdown' });
    }
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
  });

  it('denies opens without risk status, on stale risk status, and without a market price', () => {
    expect(setup({ config: cfg(), risk: null }).guard.check(openIntent())).toMatchObject({ code: 'no_risk_status' });
    expect(setup({ config: cfg(), market: null }).guard.check(openIntent())).toMatchObject({ code: 'no_market_price' });
    const { guard } = setup({ config: cfg() });
    expect(guard.check(openIntent()).verdict).toBe('approved');
    guard.observeRisk(riskSnap(riskStatus(), T0, true));
    expect(guard.check(openIntent())).toMatchObject({ code: 'risk_data_stale' });
  });
});

describe('the open book', () => {
  it('a partial stop leaves the position unprotected; a trailing stop from creation protects it', () => {
    const mkOrder = order;
    const p = position({ size: D('0.1'), notional: D(5000), margin: D(1000) });
    const g = (orders: ReturnType<typeof order>[]) =>
      setup({ config: cfg(), positions: [p], orders }).guard.context(openIntent()).account.openWorst;
    // no stop: 5% of 0.1 × 50000
    expect(g([])).toBe(250_000_000_000n);
    // a stop for half the size does not count
    expect(g([mkOrder({ type: 'stop', positionId: p.idx, triggerPrice: D(49500), amount: D('0.05'), leverage: null })])).toBe(250_000_000_000n);
    // trailing 1% from creation: trigger 49500 → 49401 after slippage → 0.1 × 599
    expect(g([mkOrder({ type: 'trailing_stop', positionId: p.idx, trailingStopOffsetPercent: D('0.01'), amount: D('0.1'), leverage: null })])).toBe(59_900_000_000n);
    // a trailing stop waiting for its activation price does not count yet
    expect(
      g([mkOrder({ type: 'trailing_stop', positionId: p.idx, trailingStopOffset: D(500), trailingStopActivationPrice: D(52000), amount: D('0.1'), leverage: null })]),
    ).toBe(250_000_000_000n);
  });

  it('an approved open stops counting once orders and positions snapshots taken after pendingSettleMs arrived', () => {
    const equity = D(95500).plus('109.8');
    const { guard, clock } = setup({ config: cfg(), risk: riskStatus({ currentEquity: equity, currentBalance: equity }) });
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('denied');
    // snapshots inside the settle time change nothing
    clock.set(T0 + 1999);
    guard.observeOrders(ordersSnap([], T0 + 1999));
    guard.observePositions(positionsSnap([], 'BTC', T0 + 1999));
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('denied');
    // after it, the venue's view replaces the guard's own count (here: the order never happened)
    clock.set(T0 + 2000);
    guard.observeOrders(ordersSnap([], T0 + 2000));
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('denied');
    guard.observePositions(positionsSnap([], 'BTC', T0 + 2000));
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
  });

  it("a positions snapshot settles only its own market's approved opens; the others keep counting", () => {
    // Room for exactly two opens of worst case 109.8 each, one on BTC and one on ETH (same price, same stop).
    const equity = D(95500).plus('219.6');
    const { guard, clock } = setup({ config: cfg(), risk: riskStatus({ currentEquity: equity, currentBalance: equity }) });
    guard.observeMarket(marketSnap(market({ id: '33333333-3333-4333-8333-333333333333', config: { baseAsset: 'ETH', ticker: 'ETH/USD' } }), T0));
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ asset: 'ETH', stopLoss: 49000 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ stopLoss: 49000 }))).toMatchObject({ code: 'daily_drawdown_headroom' });
    // BTC's open never happened, as the venue's orders and BTC's positions now say; ETH's is not settled.
    clock.set(T0 + 2000);
    guard.observeOrders(ordersSnap([], T0 + 2000));
    guard.observePositions(positionsSnap([], 'BTC', T0 + 2000));
    expect(guard.context(openIntent()).trackers.pendingWorst).toBe(109_800_000_000n);
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
    expect(guard.check(openIntent({ stopLoss: 49000 }))).toMatchObject({ code: 'daily_drawdown_headroom' });
    // ETH's positions snapshot (taken after the settle time) settles ETH's open; BTC's second stays until its own.
    guard.observePositions(positionsSnap([], 'ETH', T0 + 2000));
    expect(guard.context(openIntent()).trackers.pendingWorst).toBe(109_800_000_000n);
    expect(guard.check(openIntent({ stopLoss: 49000 })).verdict).toBe('approved');
  });
});
