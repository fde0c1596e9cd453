/**
 * A backtest's progress (what the CLI's progress bar shows): one call per candle replayed, counted
 * from the first candle of the run, at that candle's open time, not one per price step.
 */
import { describe, expect, it } from 'vitest';
import { backtestOptions, buildScenario } from '../../src/cli/backtest-run.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { COINBASE_BTC_1H } from '../data.js';

describe('backtest progress', () => {
  it('counts each candle of the run once, at its open time', async () => {
    const from = Date.UTC(2019, 2, 1);
    const scenario = buildScenario(undefined, { strategy: 'sma-cross', data: [`BTC=${COINBASE_BTC_1H}`], from, to: Date.UTC(2019, 3, 1), params: { period: '1h' } });
    const calls: Array<{ candles: number; time: number }> = [];
    const { result } = await runBacktest({ ...backtestOptions(scenario), keepPrices: false, onProgress: (p) => calls.push({ ...p }) });
    // Hourly rows over March 2019: 31 days of 24 candles, each four steps, one progress call each.
    expect(result.perf.candles).toBe(31 * 24);
    expect(calls).toHaveLength(result.perf.candles);
    expect(calls.map((c) => c.candles)).toEqual(Array.from({ length: calls.length }, (_, i) => i + 1));
    expect(calls.map((c) => c.time)).toEqual(Array.from({ length: calls.length }, (_, i) => from + i * 3_600_000));
  });
});
