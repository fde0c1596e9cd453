/**
 * Quiet steps: a backtest does not publish the steps inside a candle that nothing needs as snapshots,
 * and its report is the same to the byte as when every step is published. Each case runs twice,
 * with `quietSteps` as backtests have it (on) and off, and compares the whole report but `perf`.
 */
import { rmSync } from 'node:fs';
import { EMPTY, map, merge, mergeMap, of, take } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { backtestOptions, buildScenario } from '../../src/cli/backtest-run.js';
import { buildReportJson } from '../../src/report/report-json.js';
import { runBacktest, type BacktestOptions } from '../../src/runtime/backtest.js';
import { defineStrategy } from '../../src/strategy/define.js';
import { COINBASE_BTC_1H, sharedFile } from '../data.js';
import { tempDir, writeCandles, type SynthCandle } from './helpers.js';

const dir = tempDir('pb-quiet-');
const CRASH = sharedFile('binance-btcusdt-1m-2021-04-20_2021-05-20.csv', 'quiet steps through the May 2021 crash week');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The report of `options` run with quiet steps (as backtests run) and without: both, and their perf. */
async function both(options: BacktestOptions) {
  const quiet = await runBacktest({ ...options, keepPrices: false });
  const loud = await runBacktest({ ...options, keepPrices: false, quietSteps: false });
  const { perf: quietPerf, ...quietJson } = buildReportJson(quiet.result);
  const { perf: loudPerf, ...loudJson } = buildReportJson(loud.result);
  return { quietJson, loudJson, quietPerf, loudPerf };
}

const START = Date.UTC(2021, 0, 4, 9);
const flat = (i: number, p = '100'): SynthCandle => ({ time: START + i * 60_000, open: p, high: p, low: p, close: p });

/** Opens one long of `quote` at leverage 5 on the first candle, then waits. */
const holder = (quote: number) =>
  defineStrategy({
    name: 'holder',
    version: '1.0.0',
    assets: ['BTC'],
    setup(ctx) {
      let n = -1;
      return ctx.candles('BTC', '1m').pipe(
        mergeMap(() => {
          n += 1;
          return n === 0 ? of(ctx.intents.open('long', { size: { quote }, leverage: 5 })) : EMPTY;
        }),
      );
    },
  });

describe('quiet steps', () => {
  it('publishes the step inside a candle where the kill switch trips, and trips there', async () => {
    // Minute 6 falls: open 100, high 100.5 at +20 s, low 96 at +40 s, close 99.9 at +59.999 s. The low
    // takes the long below the daily floor's kill line (95,000 + 0.9 × 5,000): the guard must see it.
    const candles = [...Array.from({ length: 6 }, (_, i) => flat(i)), { time: START + 6 * 60_000, open: '100', high: '100.5', low: '96', close: '99.9' }];
    for (let i = 7; i < 12; i += 1) candles.push(flat(i, '99.9'));
    const file = writeCandles(dir, 'dip.csv', candles);
    const { quietJson, loudJson, quietPerf, loudPerf } = await both({
      markets: [{ asset: 'BTC', file }],
      strategies: [{ strategy: holder(15_000), params: {}, assets: ['BTC'], source: 'test' }],
      balance: new Dec(100_000),
      risk: { strategies: { holder: { allowScalping: true } }, killSwitch: { share: '0.9' } },
    });
    expect(quietJson).toEqual(loudJson);
    expect(quietJson.guardActions).toHaveLength(1);
    expect(quietJson.guardActions[0]).toMatchObject({ rule: 'kill_switch', floorRule: 'daily', at: new Date(START + 6 * 60_000 + 40_000).toISOString() });
    // Every other step ends a 1-minute candle. Of the three inside minute 6, the high is outside the
    // guard's quiet band too (this close to the kill line the band is 99.90-100.12) and the low trips;
    // the close, once the kill switch has flattened the book, is quiet.
    expect(loudPerf.quietSteps).toBe(0);
    expect(quietPerf.quietSteps).toBe(1);
    expect(quietPerf.snapshots).toBe(loudPerf.snapshots);
  });

  it('publishes the step after a new highest equity, so the trailing floor moves with it', async () => {
    // Minute 6 opens at 101 and falls from a high of 104 (+20 s: a new highest equity, ~101,790) to a
    // low of 100.3 (+40 s). With a 3% trailing limit and a kill share of 0.5 the kill line is 98.5% of
    // the highest equity: the low (~100,130) is below the new line (~100,260) and far above the one
    // of the published open (~98,930).
    const candles = [...Array.from({ length: 6 }, (_, i) => flat(i)), { time: START + 6 * 60_000, open: '101', high: '104', low: '100.3', close: '100.5' }];
    for (let i = 7; i < 12; i += 1) candles.push(flat(i, '100.5'));
    const file = writeCandles(dir, 'peak.csv', candles);
    const trailing = '3';
    const { quietJson, loudJson } = await both({
      markets: [{ asset: 'BTC', file }],
      strategies: [{ strategy: holder(9_000), params: {}, assets: ['BTC'], source: 'test' }],
      balance: new Dec(100_000),
      presets: { phases: { active_evaluation: { maxTrailingTotalDrawdown: trailing } } },
      risk: {
        strategies: { holder: { allowScalping: true } },
        killSwitch: { share: '0.5', onExposureBreach: false },
        drawdown: { phases: { active_evaluation: { daily: '0.05', total: '0.10', trailing: '0.03' } } },
      },
    });
    expect(quietJson).toEqual(loudJson);
    expect(quietJson.guardActions).toHaveLength(1);
    expect(quietJson.guardActions[0]).toMatchObject({ rule: 'kill_switch', floorRule: 'trailing', at: new Date(START + 6 * 60_000 + 40_000).toISOString() });
  });

  it('publishes the first step of a new day, whose risk status moves the daily floor', async () => {
    // A long opened at 23:01 gains into midnight, so the new day's floor (95% of the day-start equity)
    // and kill line are higher than the day before's. Its strategy asks for one candle and then reads
    // nothing, so any step could go unpublished; at 00:00:40 the low (101.5) is above yesterday's kill
    // line and below today's: the guard must have read the new day's risk status by then. Midnight
    // ends no candle here, and the zero-cost preset settles no funding then (another event).
    const night = Date.UTC(2021, 0, 4, 23);
    const at = (i: number, open: string, high: string, low: string, close: string): SynthCandle => ({ time: night + i * 60_000, open, high, low, close });
    const candles: SynthCandle[] = [at(0, '100', '100', '100', '100')];
    for (let i = 1; i < 60; i += 1) {
      const p = (100 + (3 * i) / 59).toFixed(4);
      candles.push(at(i, p, p, p, p));
    }
    candles.push(at(60, '102.8', '102.9', '101.5', '102'));
    for (let i = 61; i < 70; i += 1) candles.push(at(i, '102', '102', '102', '102'));
    const file = writeCandles(dir, 'midnight.csv', candles);
    const once = defineStrategy({
      name: 'once',
      version: '1.0.0',
      assets: ['BTC'],
      setup: (ctx) => ctx.candles('BTC', '1m').pipe(take(1), map(() => ctx.intents.open('long', { size: { quote: 50_000 }, leverage: 5, stopLoss: '99.5' }))),
    });
    const { quietJson, loudJson, quietPerf } = await both({
      markets: [{ asset: 'BTC', file, preset: 'zero-cost' }],
      strategies: [{ strategy: once, params: {}, assets: ['BTC'], source: 'test' }],
      balance: new Dec(100_000),
      risk: {
        strategies: { once: { allowScalping: true } },
        killSwitch: { share: '0.5', onExposureBreach: false },
        drawdown: { phases: { active_evaluation: { daily: '0.05', total: '0.10', trailing: null } } },
      },
    });
    expect(quietJson).toEqual(loudJson);
    expect(quietJson.trades).toHaveLength(1);
    expect(quietJson.guardActions).toHaveLength(1);
    expect(quietJson.guardActions[0]).toMatchObject({ rule: 'kill_switch', floorRule: 'daily', at: new Date(night + 60 * 60_000 + 40_000).toISOString() });
    // The rise publishes each step (a new highest equity), the flat minutes after the kill do not.
    expect(quietPerf.quietSteps).toBeGreaterThan(5);
  });

  it('leaves every report of the four examples as it was, and skips most steps inside candles', async () => {
    for (const name of ['sma-cross', 'donchian-breakout', 'mean-reversion', 'challenge-aware']) {
      const scenario = buildScenario(undefined, { strategy: name, data: [`BTC=${COINBASE_BTC_1H}`], from: Date.UTC(2019, 2, 1), to: Date.UTC(2019, 5, 1), params: { period: '1h' } });
      const { quietJson, loudJson, quietPerf, loudPerf } = await both(backtestOptions(scenario));
      expect(quietJson, name).toEqual(loudJson);
      expect(quietJson.trades.length, name).toBeGreaterThan(0);
      const inside = quietPerf.snapshots - quietPerf.candles;
      expect(quietPerf.quietSteps, name).toBeGreaterThan(inside / 2);
      expect(loudPerf.quietSteps, name).toBe(0);
    }
  });

  it('leaves quiet the first step of a data candle that ends no candle of the strategy', async () => {
    // 4-hour candles from hourly rows: three of every four rows' first steps end nothing.
    const scenario = buildScenario(undefined, { strategy: 'sma-cross', data: [`BTC=${COINBASE_BTC_1H}`], from: Date.UTC(2018, 0, 1), to: Date.UTC(2018, 6, 1), params: { period: '4h', fast: 5, slow: 20 } });
    const { quietJson, loudJson, quietPerf } = await both(backtestOptions(scenario));
    expect(quietJson).toEqual(loudJson);
    expect(quietJson.trades.length).toBeGreaterThan(0);
    expect(quietPerf.quietSteps).toBeGreaterThan(quietPerf.snapshots - quietPerf.candles);
  });

  it('gives the guard each quiet price, so a risk read of the next published step meets the price it would have', async () => {
    // challenge-aware on hourly candles: the guard's market book left at the last published step
    // changed its reports here (a risk read, pushed before its step's market, meets the previous price).
    const scenario = buildScenario(undefined, { strategy: 'challenge-aware', data: [`BTC=${COINBASE_BTC_1H}`], from: Date.UTC(2018, 0, 1), to: Date.UTC(2019, 0, 1), params: { period: '1h' } });
    const { quietJson, loudJson, quietPerf } = await both(backtestOptions(scenario));
    expect(quietJson).toEqual(loudJson);
    expect(quietPerf.quietSteps).toBeGreaterThan(quietPerf.snapshots / 2);
  });

  it.skipIf(CRASH === undefined)('leaves the reports of the May 2021 crash week as they were, the guard meeting each risk read at the price it would have', async () => {
    // Donchian on hourly candles passes its target inside a candle on 19 May: the engine promotes the
    // account and closes the position, and the guard's kill switch, reading the new risk status before
    // that step's market, trips on the open book's worst case at the previous step's price. With the
    // guard's market book left at the last published step its threshold came out 135.46 higher.
    for (const strategy of ['sma-cross', 'donchian-breakout', 'mean-reversion', 'challenge-aware']) {
      for (const period of ['15m', '1h']) {
        const scenario = buildScenario(undefined, { strategy, data: [`BTC=${CRASH}`], from: Date.UTC(2021, 4, 12), to: Date.UTC(2021, 4, 20), params: { period } });
        const { quietJson, loudJson, quietPerf } = await both(backtestOptions(scenario));
        expect(quietJson, `${strategy} ${period}`).toEqual(loudJson);
        expect(quietPerf.quietSteps, `${strategy} ${period}`).toBeGreaterThan(quietPerf.snapshots / 2);
      }
    }
  });

  it('publishes every step of a market with a trading schedule, whose pauses move its snapshot without an event', async () => {
    const candles = Array.from({ length: 30 }, (_, i) => ({ time: START + i * 60_000, open: String(100 + i), high: String(102 + i), low: String(99 + i), close: String(101 + i) }));
    const file = writeCandles(dir, 'scheduled.csv', candles);
    const run = (category: 'rwa' | 'crypto') =>
      both({ markets: [{ asset: 'BTC', file, category }], strategies: [{ strategy: holder(5_000), params: {}, assets: ['BTC'], source: 'test' }], balance: new Dec(100_000), risk: { strategies: { holder: { allowScalping: true } } } });
    const rwa = await run('rwa');
    expect(rwa.quietJson).toEqual(rwa.loudJson);
    expect(rwa.quietJson.trades).toHaveLength(1);
    expect(rwa.quietPerf.quietSteps).toBe(0);
    // The same rows on a market without one: its steps inside the candles are quiet.
    expect((await run('crypto')).quietPerf.quietSteps).toBeGreaterThan(0);
  });

  it('publishes every step to a strategy that subscribes to the market stream itself', async () => {
    let seen = 0;
    const watcher = defineStrategy({
      name: 'watcher',
      version: '1.0.0',
      assets: ['BTC'],
      setup(ctx) {
        const count = ctx.feed.market$('BTC').pipe(
          mergeMap(() => {
            seen += 1;
            return EMPTY;
          }),
        );
        // Candles too, so the builders are there as well: the strategy's own subscription is what counts.
        return merge(count, ctx.candles('BTC', '1m').pipe(mergeMap(() => EMPTY)));
      },
    });
    const candles = Array.from({ length: 30 }, (_, i) => ({ time: START + i * 60_000, open: String(100 + i), high: String(102 + i), low: String(99 + i), close: String(101 + i) }));
    const file = writeCandles(dir, 'watched.csv', candles);
    const { result } = await runBacktest({ markets: [{ asset: 'BTC', file }], strategies: [{ strategy: watcher, params: {}, assets: ['BTC'], source: 'test' }], balance: new Dec(100_000), keepPrices: false });
    expect(result.perf.quietSteps).toBe(0);
    expect(result.perf.snapshots).toBe(120);
    expect(seen).toBe(120);
  });

  it('publishes every step of a replay of two markets, whose snapshots each step carries', async () => {
    // A step of BTC publishes ETH's snapshot too: ETH's candles count it among their ticks.
    const rows = (base: number) => Array.from({ length: 20 }, (_, i) => ({ time: START + i * 60_000, open: String(base + i), high: String(base + i + 2), low: String(base + i - 1), close: String(base + i + 1) }));
    const markets = [{ asset: 'BTC', file: writeCandles(dir, 'pair-btc.csv', rows(100)) }, { asset: 'ETH', file: writeCandles(dir, 'pair-eth.csv', rows(50)) }];
    const run = async (quietSteps?: boolean) => {
      const ticks: number[] = [];
      const pair = defineStrategy({
        name: 'pair',
        version: '1.0.0',
        assets: ['BTC', 'ETH'],
        setup: (ctx) =>
          merge(
            ctx.candles('ETH', '5m').pipe(mergeMap((c) => (ticks.push(c.ticks), EMPTY))),
            ctx.candles('BTC', '1m').pipe(mergeMap(() => EMPTY)),
          ),
      });
      const { result } = await runBacktest({ markets, strategies: [{ strategy: pair, params: {}, assets: ['BTC', 'ETH'], source: 'test' }], balance: new Dec(100_000), keepPrices: false, ...(quietSteps === undefined ? {} : { quietSteps }) });
      return { ticks, quiet: result.perf.quietSteps };
    };
    const quiet = await run();
    const loud = await run(false);
    expect(loud.ticks).toEqual([40, 40, 40]);
    expect(quiet).toEqual(loud);
  });
});
