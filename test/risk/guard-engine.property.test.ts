/**
 * Property: over real data, with random positions both ways (fees and funding on, stops that fill
 * inside a step), the guard's view of the account equals the engine's after every step of the replay
 * (risk, positions, orders and market snapshots published): equity, balance, free balance, day-start
 * equity, the daily and total floors and the open notional per market and side, to the fp9 unit.
 */
import path from 'node:path';
import fc from 'fast-check';
import { EMPTY, mergeMap, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Direction } from '../../src/api/types.js';
import { Dec } from '../../src/core/decimal.js';
import type { Decimal } from 'decimal.js';
import { LocalSession } from '../../src/runtime/local-session.js';
import { fromRaw } from '../../src/risk/fixed.js';
import { defineStrategy } from '../../src/strategy/define.js';
import type { CandlePeriod } from '../../src/feed/types.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { REPO } from '../backtest/helpers.js';
import { sharedFile } from '../data.js';

const BTC_1M = sharedFile('binance-btcusdt-1m-2021-04-20_2021-05-20.csv', 'the guard against the engine through the May 2021 crash');

interface Action {
  readonly candle: number;
  readonly kind: 'open' | 'close';
  readonly direction: Direction;
  /** Quote amount in thousands. */
  readonly amountK: number;
  readonly leverage: number;
  /** Stop distance in basis points; undefined: no stop. */
  readonly stopBp: number | undefined;
}

interface Market {
  readonly asset: string;
  readonly file: string;
  readonly category: 'crypto' | 'rwa';
  readonly period: CandlePeriod;
  readonly candles: number;
  readonly maxLeverage: number;
  readonly from?: number;
  readonly to?: number;
}

const ONE_UNIT = new Dec('0.000000001');

function plans(m: Market): fc.Arbitrary<Action[]> {
  const action = fc.record({
    candle: fc.integer({ min: 0, max: m.candles - 1 }),
    kind: fc.constantFrom<'open' | 'close'>('open', 'open', 'open', 'close'),
    direction: fc.constantFrom<Direction>('long', 'short'),
    amountK: fc.integer({ min: 1, max: 20 }),
    leverage: fc.integer({ min: 1, max: m.maxLeverage }),
    stopBp: fc.option(fc.integer({ min: 20, max: 800 }), { nil: undefined }),
  });
  return fc.array(action, { minLength: 10, maxLength: 60 });
}

function randomStrategy(m: Market, plan: readonly Action[]) {
  const byCandle = new Map<number, Action[]>();
  for (const a of plan) byCandle.set(a.candle, [...(byCandle.get(a.candle) ?? []), a]);
  return defineStrategy({
    name: 'random',
    version: '1.0.0',
    assets: [m.asset],
    setup(ctx) {
      let n = 0;
      return ctx.candles(m.asset, m.period).pipe(
        mergeMap((): Iterable<OrderIntent> => {
          const actions = byCandle.get(n++);
          if (actions === undefined) return EMPTY as never;
          const price = ctx.latest.market(m.asset)?.price;
          const held = ctx.latest.positions(m.asset)?.data ?? [];
          const out: OrderIntent[] = [];
          for (const a of actions) {
            if (a.kind === 'close') {
              if (held.some((p) => p.direction === a.direction)) out.push(ctx.intents.close({ direction: a.direction }));
              continue;
            }
            if (price === undefined) continue;
            const away = new Dec(a.stopBp ?? 0).div(10_000);
            const stop =
              a.stopBp === undefined
                ? undefined
                : a.direction === 'long'
                  ? price.times(new Dec(1).minus(away)).toDecimalPlaces(9, Dec.ROUND_FLOOR)
                  : price.times(new Dec(1).plus(away)).toDecimalPlaces(9, Dec.ROUND_CEIL);
            out.push(
              ctx.intents.open(a.direction, {
                size: { quote: a.amountK * 1000 },
                leverage: a.leverage,
                ...(stop !== undefined ? { stopLoss: stop } : {}),
              }),
            );
          }
          return of(...out) as never;
        }),
      );
    },
  });
}

interface Tally {
  steps: number;
  withPositions: number;
  funding: number;
}

async function compareRun(m: Market, plan: readonly Action[], tally: Tally): Promise<void> {
  const strategy = randomStrategy(m, plan);
  const session = await LocalSession.create({
    markets: [{ asset: m.asset, file: m.file, category: m.category }],
    strategies: [{ strategy, params: {}, assets: [m.asset], source: 'property-test' }],
    balance: new Dec(100_000),
    risk: {
      strategies: { random: { allowScalping: true } },
      lossStreak: { enabled: false },
      tradesPerDay: { max: 1000 },
      marketStatus: { pauseLeadMs: 0 },
    },
    ...(m.from !== undefined ? { from: m.from } : {}),
    ...(m.to !== undefined ? { to: m.to } : {}),
    seed: 'guard-engine',
  });
  const divergences: string[] = [];
  session.guard.divergence$.subscribe((d) => divergences.push(`${new Date(d.at).toISOString()} ${d.difference}`));
  session.engine.onEvent((e) => {
    if (e.kind === 'position' && e.event.eventName === 'payFunding') tally.funding += 1;
  });
  const gaps: string[] = [];
  const near = (what: string, at: string, guard: Decimal | undefined, engine: bigint | null): void => {
    const want = engine === null ? undefined : fromRaw(engine);
    if (guard === undefined && want === undefined) return;
    if (guard === undefined || want === undefined || guard.minus(want).abs().gt(ONE_UNIT)) {
      gaps.push(`${at} ${what}: guard ${guard?.toString() ?? 'none'}, engine ${want?.toString() ?? 'none'}`);
    }
  };
  await session.run({
    afterStep: (step) => {
      const e = session.engine.accountFigures(session.accountId)!;
      const g = session.guard.accountView(session.accountId)!;
      const at = new Date(step.time).toISOString();
      tally.steps += 1;
      if (e.exposure.size > 0) tally.withPositions += 1;
      near('equity', at, g.equity, e.equity);
      near('balance', at, g.balance, e.balance);
      near('free balance', at, g.freeBalance, e.freeBalance);
      near('day-start equity', at, g.dayStartEquity, e.dayStartEquity);
      near('daily floor', at, g.floors.find((f) => f.rule === 'daily')?.floor, e.dailyFloor);
      near('total floor', at, g.floors.find((f) => f.rule === 'total')?.floor, e.totalFloor);
      for (const key of new Set([...e.exposure.keys(), ...g.exposure.keys()])) {
        near(`open notional ${key}`, at, g.exposure.get(key), e.exposure.get(key) ?? null);
      }
    },
  });
  await session.finish();
  expect(gaps.slice(0, 5), `${gaps.length} differences`).toEqual([]);
  // The guard's own check of each risk snapshot found nothing either.
  expect(divergences.slice(0, 5)).toEqual([]);
}

/**
 * A long and a short held from the first candles to the last: with it, every run of the property
 * meets funding settlements with positions open. Four random plans alone held none across a
 * settlement of the BTC day about one time in sixteen, and the tally below failed.
 */
const HOLD_BOTH: readonly Action[] = [
  { candle: 0, kind: 'open', direction: 'long', amountK: 1, leverage: 1, stopBp: undefined },
  { candle: 1, kind: 'open', direction: 'short', amountK: 1, leverage: 1, stopBp: undefined },
];

function property(m: Market, runs: number): void {
  it(`${m.asset}: guard and engine agree after every step (${runs} random plans and one held throughout)`, async () => {
    const tally: Tally = { steps: 0, withPositions: 0, funding: 0 };
    await fc.assert(
      fc.asyncProperty(plans(m), (plan) => compareRun(m, plan, tally)),
      // fast-check counts examples in numRuns.
      { numRuns: runs + 1, examples: [[[...HOLD_BOTH]]] },
    );
    // The runs held positions through price moves and funding settlements, both ways.
    expect(tally.withPositions).toBeGreaterThan(tally.steps / 20);
    expect(tally.funding).toBeGreaterThan(0);
  }, 300_000);
}

describe('the guard sees the account as the engine does (property, real data)', () => {
  property(
    {
      asset: 'ORCL',
      file: path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv'),
      category: 'rwa',
      period: '1D',
      candles: 240,
      maxLeverage: 2,
    },
    4,
  );

  if (BTC_1M === undefined) {
    it.skip('BTC May 2021 crash: needs ../shared/data (GPL-3.0, not shipped)', () => undefined);
  } else {
    property(
      {
        asset: 'BTC',
        file: BTC_1M,
        category: 'crypto',
        period: '1m',
        candles: 1440,
        maxLeverage: 5,
        from: Date.UTC(2021, 4, 19),
        to: Date.UTC(2021, 4, 20),
      },
      4,
    );
  }
});
