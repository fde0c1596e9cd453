/**
 * Property: a backtest that leaves the steps nothing needs unpublished (quiet steps, through the
 * engine's synchronous reads) writes the same report as one that publishes every step, and as one
 * whose reads and writes go through the daemon's instrumented exchange (paper mode's path: a promise
 * per request, every step published). Over random 1-minute walks with gaps and crashes, random
 * scripts of entries, exits, protective and trailing stops (by one strategy, or two on candles of
 * different periods), and random drawdown rules, kill-switch settings and profit targets. The
 * hand-picked cases in quiet-steps.test.ts each pin one way a step must be published; this looks for
 * the ones nobody thought of among the kill switch, a liquidation, a stop, a breach or a passed
 * target inside a candle, a new highest equity and a new day, and for any way the synchronous path
 * (no promise per step) parts from the live one.
 */
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import type { Decimal } from 'decimal.js';
import { from, merge, mergeMap, take } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { buildReportJson } from '../../src/report/report-json.js';
import { runBacktest, type BacktestOptions } from '../../src/runtime/backtest.js';
import { instrumentExchange } from '../../src/runtime/instrumented-exchange.js';
import { PipelineMetrics } from '../../src/runtime/metrics.js';
import { defineStrategy, type StrategyContext } from '../../src/strategy/define.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { tempDir, writeCandles, type SynthCandle } from './helpers.js';

const dir = tempDir('pb-paths-prop-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 23:00 UTC: a walk of a few hundred minutes crosses midnight, where the daily rule's base moves. */
const START = Date.UTC(2021, 4, 18, 23);

/** One candle's moves in basis points: open from the last close, then the extremes and the close from the open. */
interface Move {
  readonly gap: number;
  readonly up: number;
  readonly down: number;
  readonly close: number;
}

type Action =
  | {
      readonly kind: 'open';
      readonly direction: 'long' | 'short';
      readonly quote: number;
      readonly leverage: number;
      readonly stopBp: number | null;
      readonly takeBp: number | null;
      /** A resting entry this many basis points from the close (a limit on the favourable side, a stop on the other); null: at market. */
      readonly entry: { readonly type: 'limit' | 'stop_market'; readonly bp: number } | null;
    }
  | { readonly kind: 'close'; readonly direction: 'long' | 'short' }
  | { readonly kind: 'trail'; readonly direction: 'long' | 'short'; readonly offsetBp: number }
  | { readonly kind: 'close_all' };

type Asset = 'BTC' | 'ETH';

interface Case {
  /** Each market's walk; a second market starts `offset` minutes after the first. */
  readonly markets: ReadonlyArray<{ readonly asset: Asset; readonly moves: readonly Move[]; readonly offset: number }>;
  /** The `at`-th candle of `asset` (counted from its first) and what to do there; `by` 1 is the second strategy's. */
  readonly script: ReadonlyArray<{ readonly asset: Asset; readonly at: number; readonly action: Action; readonly by: 0 | 1 }>;
  readonly period: '1m' | '5m';
  /** The run from this many minutes into the data, after this many warm-up candles; null: from the start. */
  readonly window: { readonly fromMinute: number; readonly warmup: number } | null;
  /** A second strategy beside the first, on candles of its own period; null: one strategy. */
  readonly second: { readonly period: '1m' | '5m' | '15m' } | null;
  /** The engine's market preset: `zero-cost` has no funding, whose settlement at midnight is an event of its own. */
  readonly preset: 'crypto' | 'zero-cost';
  /** Whether the strategy stops reading candles after its last scripted one: then no step need end a candle, a new day's first included. */
  readonly stopsReading: boolean;
  readonly killShare: string;
  readonly onExposureBreach: boolean;
  readonly limits: { readonly daily: string; readonly total: string; readonly trailing: string | null };
  /** A profit target (percent) the account may reach within the walk, with no minimum of trading days; null: the preset's. */
  readonly target: number | null;
}

const crash = fc.integer({ min: -2_500, max: 2_500 });
const move: fc.Arbitrary<Move> = fc.oneof(
  { weight: 9, arbitrary: fc.record({ gap: fc.integer({ min: -5, max: 5 }), up: fc.integer({ min: 0, max: 60 }), down: fc.integer({ min: 0, max: 60 }), close: fc.integer({ min: -50, max: 50 }) }) },
  { weight: 1, arbitrary: fc.record({ gap: fc.integer({ min: -300, max: 300 }), up: fc.integer({ min: 0, max: 2_500 }), down: fc.integer({ min: 0, max: 2_500 }), close: crash }) },
);

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('open' as const), direction: fc.constantFrom('long' as const, 'short' as const), quote: fc.integer({ min: 1_000, max: 40_000 }), leverage: fc.integer({ min: 1, max: 5 }), stopBp: fc.option(fc.integer({ min: 20, max: 800 })), takeBp: fc.option(fc.integer({ min: 20, max: 800 })), entry: fc.option(fc.record({ type: fc.constantFrom('limit' as const, 'stop_market' as const), bp: fc.integer({ min: 5, max: 300 }) }), { freq: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('close' as const), direction: fc.constantFrom('long' as const, 'short' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('trail' as const), direction: fc.constantFrom('long' as const, 'short' as const), offsetBp: fc.integer({ min: 10, max: 500 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'close_all' as const }) },
);

const fraction = (min: number, max: number) => fc.integer({ min, max }).map((n) => (n / 1000).toFixed(3));

const walk = fc.array(move, { minLength: 60, maxLength: 240 });

/** An entry within the first candles, then anything, on the given markets. */
const scriptOn = (assets: readonly Asset[]) =>
  fc
    .tuple(
      fc.record({ asset: fc.constantFrom(...assets), at: fc.integer({ min: 0, max: 5 }), action: action.filter((a) => a.kind === 'open'), by: fc.constant(0 as const) }),
      fc.array(fc.record({ asset: fc.constantFrom(...assets), at: fc.integer({ min: 0, max: 47 }), action, by: fc.constantFrom(0 as const, 1 as const) }), { maxLength: 12 }),
    )
    .map(([first, rest]) => [first, ...rest]);

/** Everything but the markets and the script. */
const settings = {
  period: fc.constantFrom('1m' as const, '5m' as const),
  window: fc.option(fc.record({ fromMinute: fc.integer({ min: 1, max: 40 }), warmup: fc.integer({ min: 0, max: 20 }) }), { freq: 3 }),
  second: fc.option(fc.record({ period: fc.constantFrom('1m' as const, '5m' as const, '15m' as const) }), { freq: 3 }),
  preset: fc.constantFrom('crypto' as const, 'zero-cost' as const),
  stopsReading: fc.boolean(),
  killShare: fraction(100, 950),
  onExposureBreach: fc.boolean(),
  limits: fc.record({ daily: fraction(15, 80), total: fraction(40, 150), trailing: fc.option(fraction(30, 120)) }),
  target: fc.option(fc.integer({ min: 1, max: 5 })),
};

const oneMarket: fc.Arbitrary<Case> = fc.record({
  markets: walk.map((moves) => [{ asset: 'BTC' as const, moves, offset: 0 }]),
  script: scriptOn(['BTC']),
  ...settings,
});

/** Two markets, the second starting up to half an hour later, traded by one strategy. */
const twoMarkets: fc.Arbitrary<Case> = fc.record({
  markets: fc.tuple(walk, walk, fc.integer({ min: 0, max: 30 })).map(([btc, eth, offset]) => [
    { asset: 'BTC' as const, moves: btc, offset: 0 },
    { asset: 'ETH' as const, moves: eth, offset },
  ]),
  script: scriptOn(['BTC', 'ETH']),
  ...settings,
});

/** Prices from 100 in fp9 steps of 10^-4: the moves' basis points of the previous figure, rounded. */
function candlesOf(moves: readonly Move[], offset: number): SynthCandle[] {
  const at = (p: number, bp: number) => Math.max(1, Math.round(p * (1 + bp / 10_000) * 1e4) / 1e4);
  let last = 100;
  return moves.map((m, j) => {
    const i = j + offset;
    const open = at(last, m.gap);
    const close = at(open, m.close);
    const high = Math.max(open, close, at(open, m.up));
    const low = Math.min(open, close, at(open, -m.down));
    last = close;
    return { time: START + i * 60_000, open: String(open), high: String(high), low: String(low), close: String(close) };
  });
}

/** What `a` asks on `asset` at a candle closing at `price`: an intent, or none when it would close or protect nothing. */
function intentsFor(ctx: StrategyContext, asset: Asset, price: Decimal, a: Action): OrderIntent[] {
  const bp = (b: number) => new Dec(b).div(10_000);
  const holds = (direction: 'long' | 'short') => (ctx.latest.positions(asset)?.data ?? []).some((p) => p.direction === direction);
  if (a.kind === 'close_all') return [ctx.intents.closeAll({})];
  if (a.kind === 'close') return holds(a.direction) ? [ctx.intents.close({ asset, direction: a.direction })] : [];
  if (a.kind === 'trail') return holds(a.direction) ? [ctx.intents.protect({ asset, direction: a.direction, trailingStop: { offsetPercent: bp(a.offsetBp) } })] : [];
  const sign = a.direction === 'long' ? -1 : 1;
  const level = (from: Decimal, b: number | null, s: number) => (b === null ? undefined : from.times(bp(b).times(s).plus(1)).toDecimalPlaces(4));
  // A long's limit rests below the price and its stop entry above it; a short's the other way.
  const entryAt = a.entry === null ? price : level(price, a.entry.bp, a.entry.type === 'limit' ? sign : -sign)!;
  const entry = a.entry === null ? undefined : a.entry.type === 'limit' ? { type: 'limit' as const, price: entryAt } : { type: 'stop_market' as const, trigger: entryAt };
  const stopLoss = level(entryAt, a.stopBp, sign);
  const takeProfit = level(entryAt, a.takeBp, -sign);
  return [
    ctx.intents.open(a.direction, {
      asset,
      size: { quote: a.quote },
      leverage: a.leverage,
      ...(entry ? { entry } : {}),
      ...(stopLoss ? { stopLoss } : {}),
      ...(takeProfit ? { takeProfit } : {}),
    }),
  ];
}

const STRATEGY_NAMES = ['scripted', 'second'] as const;

/** Follows strategy `by`'s part of the case's script on each market's own candles: the `at`-th candle's actions, in the script's order. */
function scripted(c: Case, by: 0 | 1) {
  const assets = c.markets.map((m) => m.asset);
  const period = by === 0 ? c.period : c.second!.period;
  return defineStrategy({
    name: STRATEGY_NAMES[by],
    version: '1.0.0',
    assets,
    setup(ctx) {
      const streams = assets.map((asset) => {
        // With one strategy, the first takes the whole script.
        const mine = c.script.filter((s) => s.asset === asset && (c.second === null || s.by === by));
        let n = -1;
        const candles = ctx.candles(asset, period);
        const last = Math.max(-1, ...mine.map((s) => s.at));
        return (c.stopsReading ? candles.pipe(take(last + 1)) : candles).pipe(
          mergeMap((candle) => {
            n += 1;
            return from(mine.filter((s) => s.at === n).flatMap((s) => intentsFor(ctx, asset, candle.close, s.action)));
          }),
        );
      });
      return merge(...streams);
    },
  });
}

function optionsOf(c: Case, files: readonly string[]): BacktestOptions {
  const { daily, total, trailing } = c.limits;
  const assets = c.markets.map((m) => m.asset);
  return {
    markets: c.markets.map((m, i) => ({ asset: m.asset, file: files[i]!, preset: c.preset })),
    strategies: (c.second === null ? ([0] as const) : ([0, 1] as const)).map((by) => ({ strategy: scripted(c, by), params: {}, assets, source: 'test' })),
    balance: new Dec(100_000),
    keepPrices: false,
    ...(c.window !== null ? { from: START + c.window.fromMinute * 60_000, warmupCandles: c.window.warmup } : {}),
    presets: {
      phases: {
        active_evaluation: {
          // The engine's rule in percent, the guard's as a fraction: the same limit.
          ...(trailing !== null ? { maxTrailingTotalDrawdown: new Dec(trailing).times(100).toString() } : {}),
          ...(c.target !== null ? { profitTarget: String(c.target), minTradingDays: null } : {}),
        },
      },
    },
    risk: {
      strategies: Object.fromEntries(STRATEGY_NAMES.map((name) => [name, { allowScalping: true }])),
      killSwitch: { share: c.killShare, onExposureBreach: c.onExposureBreach },
      drawdown: { phases: { active_evaluation: { daily, total, trailing } } },
    },
  };
}

let written = 0;

/** Runs `c` quiet, with every step published, and on paper mode's exchange path; the three reports must be one. */
async function threeWays(c: Case) {
  const name = `walk-${written++}`;
  const files = c.markets.map((m) => writeCandles(dir, `${name}-${m.asset}.csv`, candlesOf(m.moves, m.offset)));
  const options = optionsOf(c, files);
  /** The run's report.json but its `perf`, and that `perf`'s count of unpublished steps. */
  const report = async (o: BacktestOptions) => {
    const { perf, ...json } = buildReportJson((await runBacktest(o)).result);
    return { json, quietSteps: perf.quietSteps };
  };
  const metrics = new PipelineMetrics();
  const quiet = await report(options);
  const loud = await report({ ...options, quietSteps: false });
  const paper = await report({ ...options, wrapExchange: (e) => instrumentExchange(e, metrics) });
  expect(quiet.json).toEqual(loud.json);
  expect(paper.json).toEqual(loud.json);
  expect(loud.quietSteps).toBe(0);
  expect(paper.quietSteps).toBe(0);
  // The paper run's reads went through the wrapper.
  expect((await metrics.requests.get()).values.reduce((n, v) => n + v.value, 0)).toBeGreaterThan(c.markets[0]!.moves.length);
  return quiet;
}

/** Counts what the cases reached, so that a generator that stopped reaching it fails the test. */
class Reached {
  cases = 0;
  quietSteps = 0;
  traded = 0;
  guarded = 0;
  moved = 0;
  add({ json, quietSteps }: Awaited<ReturnType<typeof threeWays>>): void {
    this.cases += 1;
    this.quietSteps += quietSteps;
    if (json.trades.length > 0) this.traded += 1;
    if (json.guardActions.length > 0) this.guarded += 1;
    if ((json.challenge?.transitions.length ?? 0) > 0) this.moved += 1;
  }
}

const checks = (numRuns: number, seed: number): fc.Parameters<[Case]> => ({
  numRuns,
  seed,
  // Each shrink runs three backtests: stop shrinking after a while and report the smallest case so far.
  interruptAfterTimeLimit: 45_000,
  markInterruptAsFailure: true,
});

describe("a replay's three paths, property", () => {
  it('quiet steps, every step published and the paper path give one report, over random walks, scripts and rules', async () => {
    const reached = new Reached();
    await fc.assert(
      fc.asyncProperty(oneMarket, async (c) => reached.add(await threeWays(c))),
      checks(60, 20261129),
    );
    // The walks are worth comparing: most steps went unpublished in the quiet runs, most cases traded,
    // some tripped the guard and some moved the account to another phase (a target passed, a rule failed).
    expect(reached.quietSteps).toBeGreaterThan(reached.cases * 60);
    expect(reached.traded).toBeGreaterThan(reached.cases / 2);
    expect(reached.guarded).toBeGreaterThan(0);
    expect(reached.moved).toBeGreaterThan(0);
  }, 120_000);

  it('every step published and the paper path give one report for two markets traded together', async () => {
    // Quiet steps are off with two markets (a step publishes both snapshots): the synchronous and the
    // paper path still have to agree, step by step, on the merged replay.
    const reached = new Reached();
    await fc.assert(
      fc.asyncProperty(twoMarkets, async (c) => reached.add(await threeWays(c))),
      checks(30, 20261130),
    );
    expect(reached.quietSteps).toBe(0);
    expect(reached.traded).toBeGreaterThan(reached.cases / 2);
    expect(reached.guarded).toBeGreaterThan(0);
  }, 120_000);
});
