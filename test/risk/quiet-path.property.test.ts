/**
 * Property: the guard that skips the full evaluation on prices that cannot trip anything (the quiet
 * path, risk/quiet.ts) does exactly what the guard that evaluates every update does: the same state
 * changes at the same times with the same reasons, the same kill-switch actions and intents, the same
 * view of the account, over random books (long and short, fixed and trailing stops, fees, spread and
 * impact), random rule settings and price walks that drift towards and through the floors, with risk
 * reads that move the highest equity and the day start. And it does skip: most updates of a walk that
 * stays clear of the floors cost no full evaluation.
 */
import fc from 'fast-check';
import type { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { Direction, Order, Position } from '../../src/api/types.js';
import { VirtualClock } from '../../src/core/clock.js';
import { SeededIds } from '../../src/core/ids.js';
import { RiskGuard } from '../../src/risk/index.js';
import { ACCOUNT, D, T0, market, marketSnap, openIntent, order, ordersSnap, position, positionsSnap, riskSnap, riskStatus } from './builders.js';

interface Book {
  readonly positions: ReadonlyArray<{ direction: Direction; sizeMilli: number; entry: number; leverage: number; stop: StopSpec }>;
  readonly fee: string;
  readonly vpiSpread: string;
  readonly coefficient: string;
  /** The market's spread limit and price-impact cap (default: the builder's 1% each). */
  readonly caps?: { readonly spreadLimit: string; readonly maxImpact: string };
}

type StopSpec = { kind: 'none' } | { kind: 'fixed'; bp: number } | { kind: 'trailing-pct'; bp: number } | { kind: 'trailing-abs'; usd: number };

interface Walk {
  /** Relative moves of the index in basis points, one per minute. */
  readonly moves: readonly number[];
  /** Every this many steps the risk read brings a new highest equity. */
  readonly maxEquityEvery: number;
  /** What each new UTC day takes off the day-start equity (default 300). */
  readonly dayStartStep?: number;
  /**
   * From the step at each index on, the market's spread limit and price-impact cap are these (a new
   * settings object, as the venue hands one out when it changes a market): what closing the book may
   * cost changes with no change of price.
   */
  readonly capsFrom?: ReadonlyArray<readonly [number, { readonly spreadLimit: string; readonly maxImpact: string }]>;
}

const stopSpec: fc.Arbitrary<StopSpec> = fc.oneof(
  fc.constant<StopSpec>({ kind: 'none' }),
  fc.integer({ min: 50, max: 1500 }).map((bp): StopSpec => ({ kind: 'fixed', bp })),
  fc.integer({ min: 50, max: 1500 }).map((bp): StopSpec => ({ kind: 'trailing-pct', bp })),
  fc.integer({ min: 100, max: 5000 }).map((usd): StopSpec => ({ kind: 'trailing-abs', usd })),
);

const book: fc.Arbitrary<Book> = fc.record({
  positions: fc.array(
    fc.record({
      direction: fc.constantFrom<Direction>('long', 'short'),
      sizeMilli: fc.integer({ min: 50, max: 1200 }),
      entry: fc.integer({ min: 45_000, max: 55_000 }),
      leverage: fc.integer({ min: 1, max: 5 }),
      stop: stopSpec,
    }),
    { minLength: 1, maxLength: 3 },
  ),
  fee: fc.constantFrom('0', '0.0005', '0.001'),
  vpiSpread: fc.constantFrom('0', '0.0002', '0.002'),
  coefficient: fc.constantFrom('0', '0.00001'),
});

const walk: fc.Arbitrary<Walk> = fc
  .record({
    drift: fc.integer({ min: -40, max: 40 }),
    noise: fc.array(fc.integer({ min: -60, max: 60 }), { minLength: 60, maxLength: 400 }),
    jumps: fc.array(fc.tuple(fc.nat(399), fc.integer({ min: -1500, max: 1500 })), { maxLength: 3 }),
    maxEquityEvery: fc.integer({ min: 5, max: 80 }),
    capsFrom: fc.array(
      fc.tuple(fc.nat(399), fc.record({ spreadLimit: fc.constantFrom('0.001', '0.01', '0.05'), maxImpact: fc.constantFrom('0.001', '0.01', '0.05') })),
      { maxLength: 2 },
    ),
  })
  .map(({ drift, noise, jumps, maxEquityEvery, capsFrom }) => {
    const moves = noise.map((n) => n + drift);
    for (const [at, bp] of jumps) if (at < moves.length) moves[at] = bp;
    return { moves, maxEquityEvery, capsFrom };
  });

const rules = fc.record({
  share: fc.constantFrom('0.1', '0.25', '0.5'),
  onExposureBreach: fc.boolean(),
  consistency: fc.boolean(),
  adverse: fc.constantFrom('0.01', '0.02', '0.05'),
});

function positionsOf(b: Book): { positions: Position[]; orders: Order[] } {
  const positions: Position[] = [];
  const orders: Order[] = [];
  b.positions.forEach((p, i) => {
    const size = D(p.sizeMilli).div(1000);
    const notional = size.times(p.entry);
    const pos = position({ idx: `pos-${i}`, direction: p.direction, type: p.direction, size, notional, margin: notional.div(p.leverage), feeRate: D(b.fee) });
    positions.push(pos);
    const long = p.direction === 'long';
    const s = p.stop;
    if (s.kind === 'fixed') {
      const trigger = D(p.entry).times(long ? 10_000 - s.bp : 10_000 + s.bp).div(10_000).toDecimalPlaces(2);
      orders.push(order({ id: `stop-${i}`, type: 'stop', direction: p.direction, positionId: pos.idx, triggerPrice: trigger, amount: size, leverage: null }));
    } else if (s.kind === 'trailing-pct' || s.kind === 'trailing-abs') {
      orders.push(
        order({
          id: `trail-${i}`,
          type: 'trailing_stop',
          direction: p.direction,
          positionId: pos.idx,
          amount: size,
          leverage: null,
          ...(s.kind === 'trailing-pct' ? { trailingStopOffsetPercent: D(s.bp).div(10_000) } : { trailingStopOffset: D(s.usd) }),
        }),
      );
    }
  });
  return { positions, orders };
}

interface Trace {
  readonly events: string[];
  readonly guard: RiskGuard;
}

/** Both guards through one scenario; what each emitted, in order. */
function replay(
  b: Book,
  w: Walk,
  r: { share: string; onExposureBreach: boolean; consistency: boolean; adverse: string },
  /** After the walk, one more step at the price this gives (from the quiet guard), if any. */
  last?: (quiet: RiskGuard) => Decimal | undefined,
): { quiet: Trace; full: Trace } {
  const config = {
    killSwitch: { enabled: true, share: r.share, onExposureBreach: r.onExposureBreach },
    consistency: { enabled: r.consistency },
    drawdown: { maxAdverseMove: r.adverse },
  };
  const clock = new VirtualClock(T0);
  const make = (quietPath: boolean): Trace => {
    const ids = new SeededIds('quiet');
    const guard = new RiskGuard({ config, clock, newId: () => ids.next(), quietPath });
    const events: string[] = [];
    guard.state$.subscribe((s) => events.push(`state ${s.at} ${s.from}→${s.to} ${s.reason}`));
    guard.actions$.subscribe((a) => events.push(`action ${a.at} ${a.code} ${a.floorRule} ${a.equity} ${a.floor} ${a.threshold} ${a.intentId}`));
    guard.intents$.subscribe((i) => events.push(`intent ${i.id} ${i.kind} ${'note' in i ? i.note : ''}`));
    return { events, guard };
  };
  const traces = { quiet: make(true), full: make(false) };
  const both = (f: (g: RiskGuard) => void): void => {
    f(traces.quiet.guard);
    f(traces.full.guard);
  };
  const { positions, orders } = positionsOf(b);
  let caps = b.caps;
  const m = (price: number | Decimal) =>
    market({
      state: { indexPrice: typeof price === 'number' ? D(price.toFixed(2)) : price, vpiSpread: D(b.vpiSpread), vpiCoefficientLong: D(b.coefficient), vpiCoefficientShort: D(b.coefficient) },
      settings: { fee: D(b.fee), ...(caps ? { spreadLimit: D(caps.spreadLimit), maxPriceImpact: D(caps.maxImpact) } : {}) },
    });
  let price = 50_000;
  let maxEquity = D(100_000);
  let dayStart = D(100_000);
  const balance = D(100_000);
  // One instance per value while it stands, as the engine and the wire decoder hand them out.
  const standing = riskStatus({
    currentBalance: balance,
    currentEquity: balance,
    ...(r.consistency ? { consistencyRuleApplies: true, periodStartEquity: D(98_000), consistencyRuleLimit: D('0.3') } : {}),
  });
  const risk = () => ({ ...standing, dayStartEquity: dayStart, maxEquity });
  both((g) => {
    g.observeMarket(marketSnap(m(price), clock.now()));
    g.observePositions(positionsSnap(positions, 'BTC', clock.now()));
    g.observeOrders(ordersSnap(orders, clock.now()));
    g.observeRisk(riskSnap(risk(), clock.now()));
  });
  w.moves.forEach((bp, i) => {
    // Six-hour steps now and then carry the walk over a UTC day: a new day start, a halt that ends.
    clock.set(clock.now() + (i % 97 === 96 ? 6 * 3_600_000 : 60_000));
    price = Math.max(1_000, price * (1 + bp / 10_000));
    for (const [at, next] of w.capsFrom ?? []) if (at === i) caps = next;
    if (i % w.maxEquityEvery === w.maxEquityEvery - 1) maxEquity = maxEquity.plus(250);
    if (i % 97 === 96) dayStart = dayStart.minus(w.dayStartStep ?? 300);
    both((g) => {
      g.observeRisk(riskSnap(risk(), clock.now()));
      g.observeMarket(marketSnap(m(price), clock.now()));
    });
  });
  const edge = last?.(traces.quiet.guard);
  if (edge !== undefined) {
    clock.set(clock.now() + 60_000);
    both((g) => {
      g.observeRisk(riskSnap(risk(), clock.now()));
      g.observeMarket(marketSnap(m(edge), clock.now()));
    });
  }
  return traces;
}

describe('the guard on quiet prices', () => {
  it('does what the guard that evaluates every update does', () => {
    const trips = { kill_switch_floor: 0, kill_switch_exposure: 0 };
    let quietEvaluations = 0;
    let fullEvaluations = 0;
    let bandPasses = 0;
    fc.assert(
      fc.property(book, walk, rules, (b, w, r) => {
        const { quiet, full } = replay(b, w, r);
        expect(quiet.events).toEqual(full.events);
        expect(quiet.guard.state(ACCOUNT)).toBe(full.guard.state(ACCOUNT));
        expect(quiet.guard.stateReason(ACCOUNT)).toBe(full.guard.stateReason(ACCOUNT));
        const qv = quiet.guard.accountView(ACCOUNT)!;
        const fv = full.guard.accountView(ACCOUNT)!;
        expect(qv.equity.toString()).toBe(fv.equity.toString());
        expect(qv.floors.map((f) => f.floor.toString())).toEqual(fv.floors.map((f) => f.floor.toString()));
        for (const code of Object.keys(trips) as (keyof typeof trips)[]) if (full.events.some((e) => e.startsWith(`action `) && e.includes(` ${code} `))) trips[code] += 1;
        quietEvaluations += quiet.guard.evaluations;
        fullEvaluations += full.guard.evaluations;
        bandPasses += quiet.guard.bandPasses;
        expect(full.guard.bandPasses).toBe(0);
      }),
      { numRuns: 200, seed: 20261124 },
    );
    // The walks must reach both kinds of trip often, and the quiet guard must have skipped, for the
    // equality to say something.
    expect(trips.kill_switch_floor).toBeGreaterThan(20);
    expect(trips.kill_switch_exposure).toBeGreaterThan(20);
    expect(quietEvaluations).toBeLessThan(fullEvaluations / 2);
    // Every book here holds one market: most quiet updates must have been passed on the price alone.
    expect(bandPasses).toBeGreaterThan(fullEvaluations / 4);
  });

  it('decides like the full evaluation at both ends of a quiet band, to the fp9 unit', () => {
    // The band's consistency and floor ends are the exact equities where those rules start to trip:
    // one unit too wide and the full guard trips there while the quiet one passes.
    const ends = { low: 0, high: 0 };
    const oneMarket = book.filter((b) => b.positions.every((p) => p.direction === b.positions[0]!.direction));
    const calm: fc.Arbitrary<Walk> = fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 3, maxLength: 30 }).map((moves) => ({ moves, maxEquityEvery: 1_000 }));
    fc.assert(
      fc.property(oneMarket, calm, rules, fc.constantFrom<'low' | 'high'>('low', 'high'), (b, w, r, end) => {
        let reached = false;
        const { quiet, full } = replay(b, w, r, (g) => {
          const band = g.quietBand(ACCOUNT);
          if (band === undefined || band[end].gt(1e9)) return undefined;
          reached = true;
          return band[end];
        });
        if (reached) ends[end] += 1;
        expect(quiet.events).toEqual(full.events);
        expect(quiet.guard.state(ACCOUNT)).toBe(full.guard.state(ACCOUNT));
      }),
      { numRuns: 300, seed: 20261124 },
    );
    expect(ends.low).toBeGreaterThan(30);
    expect(ends.high).toBeGreaterThan(30);
  });

  it('trips on exposure at the same price for a hedged book, whose equity does not move with the price', () => {
    // Long and short of one size: equity stands still while the worst case grows with the price, so only
    // the bound on the worst case's drift can tell when a price may trip. At zero cost the bound is
    // its slope alone, so the quiet guard skips most prices on the way and must still stop at the trip.
    const hedged = (stop: StopSpec): Book => ({
      positions: [
        { direction: 'long', sizeMilli: 400, entry: 50_000, leverage: 1, stop },
        { direction: 'short', sizeMilli: 400, entry: 50_000, leverage: 1, stop },
      ],
      fee: '0',
      vpiSpread: '0',
      coefficient: '0',
      caps: { spreadLimit: '0', maxImpact: '0' },
    });
    for (const stop of [{ kind: 'none' } as const]) {
      // Small steps up, so the band around each full evaluation spans many of them.
      const w: Walk = { moves: Array.from({ length: 1_500 }, () => 2), maxEquityEvery: 10_000, dayStartStep: 0 };
      const { quiet, full } = replay(hedged(stop), w, { share: '0.25', onExposureBreach: true, consistency: false, adverse: '0.1' });
      expect(full.events.some((e) => e.includes(' kill_switch_exposure '))).toBe(true);
      expect(quiet.events).toEqual(full.events);
      expect(quiet.guard.evaluations).toBeLessThan(full.guard.evaluations / 2);
    }
  });

  it("trips on exposure when the market's cost caps rise at an unchanged price", () => {
    // A hedged book's worst case is mostly what closing it would cost: the venue raising the spread
    // limit and the price-impact cap (a new settings object) moves it past the exposure line with the
    // price where it was. A band worked out under the old caps must not pass that update.
    const b: Book = {
      positions: [
        { direction: 'long', sizeMilli: 2_000, entry: 50_000, leverage: 5, stop: { kind: 'none' } },
        { direction: 'short', sizeMilli: 2_000, entry: 50_000, leverage: 5, stop: { kind: 'none' } },
      ],
      fee: '0',
      // The venue quotes a 3% spread; a spread limit of 0.1% caps what closing pays, until it is raised.
      vpiSpread: '0.03',
      coefficient: '0',
      caps: { spreadLimit: '0.001', maxImpact: '0.001' },
    };
    const w: Walk = {
      moves: Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 1 : -1)),
      maxEquityEvery: 10_000,
      dayStartStep: 0,
      capsFrom: [[30, { spreadLimit: '0.05', maxImpact: '0.05' }]],
    };
    const { quiet, full } = replay(b, w, { share: '0.25', onExposureBreach: true, consistency: false, adverse: '0.01' });
    expect(quiet.events).toEqual(full.events);
    // At the update that raised the caps (the 31st step, a minute each), and not before.
    expect(full.events.filter((e) => e.startsWith(`action ${T0 + 31 * 60_000} kill_switch_exposure `))).toHaveLength(1);
    expect(full.events.filter((e) => e.startsWith('action '))).toHaveLength(1);
    // The quiet guard passed the earlier updates on its band.
    expect(quiet.guard.bandPasses).toBeGreaterThan(20);
  });

  it('skips the full evaluation on most prices of a walk clear of the floors', () => {
    const b: Book = { positions: [{ direction: 'long', sizeMilli: 500, entry: 50_000, leverage: 2, stop: { kind: 'trailing-pct', bp: 200 } }], fee: '0.0005', vpiSpread: '0.0002', coefficient: '0' };
    const w: Walk = { moves: Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? 3 : -2)), maxEquityEvery: 50 };
    const { quiet, full } = replay(b, w, { share: '0.25', onExposureBreach: true, consistency: false, adverse: '0.05' });
    expect(quiet.events).toEqual(full.events);
    // Two updates a step (risk, market): the full guard evaluates both, the quiet one only when the highest equity moves.
    expect(full.guard.evaluations).toBeGreaterThanOrEqual(600);
    expect(quiet.guard.evaluations).toBeLessThan(60);
    expect(quiet.guard.bandPasses).toBeGreaterThan(400);
  });
});

describe('a replay step the guard is not shown (quietAt, quietPrice)', () => {
  it('is never quiet before the market has been seen, and is with nothing open after', () => {
    const guard = new RiskGuard({ clock: new VirtualClock(T0) });
    expect(guard.quietAt('BTC', 50_000n * 10n ** 9n)).toBe(false);
    guard.observeMarket(marketSnap(market()));
    expect(guard.quietAt('BTC', 51_000n * 10n ** 9n)).toBe(true);
    expect(guard.quietAt('ETH', 51_000n * 10n ** 9n)).toBe(false);
  });

  it('leaves the market figures a snapshot at that price and time would, one quiet step after another', () => {
    const clock = new VirtualClock(T0 + 20_000);
    const told = new RiskGuard({ clock });
    const shown = new RiskGuard({ clock });
    told.observeMarket(marketSnap(market()));
    expect(told.quietPrice('BTC', 51_234_500_000_000n)).toBe(true);
    shown.observeMarket(marketSnap(market()));
    shown.observeMarket(marketSnap(market({ state: { indexPrice: D('51234.5') } }), T0 + 20_000));
    const figures = (g: RiskGuard) => {
      const { market: m } = g.context(openIntent());
      return { ...m!, market: undefined };
    };
    expect(figures(told)).toEqual(figures(shown));
    expect(figures(told).price).toBe(51_234_500_000_000n);
    expect(figures(told).takenAt).toBe(T0 + 20_000);
    // The second quiet price reuses the entry of the snapshot the first left behind: all of it moves.
    clock.set(T0 + 40_000);
    expect(told.quietPrice('BTC', 51_300_000_000_000n)).toBe(true);
    shown.observeMarket(marketSnap(market({ state: { indexPrice: D('51300') } }), T0 + 40_000));
    expect(figures(told)).toEqual(figures(shown));
    expect(figures(told).takenAt).toBe(T0 + 40_000);
  });
});
