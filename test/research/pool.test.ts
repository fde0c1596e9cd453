/**
 * The thread pool sweeps and queue workers run on: runs asked for at the same time each get a thread
 * of their own and their own answer, and a whole backtest comes back from a thread as text that
 * decodes to the very result (`result-codec`) a run in this process gives.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { buildReportJson } from '../../src/report/report-json.js';
import { Fp9EquitySample, Fp9EquitySeries } from '../../src/report/equity-sample.js';
import { decodeResult, encodeResult } from '../../src/report/result-codec.js';
import { backtestJobOptions, type BacktestJob } from '../../src/runtime/backtest-job.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { SweepPool } from '../../src/runtime/sweep-pool.js';
import type { SweepJob } from '../../src/runtime/sweep.js';
import { REPO, tempDir } from '../backtest/helpers.js';
import { smaJob } from './cli.js';

const FROM = Date.UTC(2018, 2, 1);
const TO = Date.UTC(2018, 2, 6);
const job = (index: number, fast: number): SweepJob => smaJob(FROM, TO, { index, params: { fast, slow: 12 } });
const base = smaJob(FROM, TO);

describe('the sweep thread pool', () => {
  const pool = new SweepPool(2);
  afterAll(async () => {
    await pool.close();
  });

  it('two runs asked for at once each get their own thread and their own row', async () => {
    const alone = [(await pool.run([job(0, 3)]))[0]!, (await pool.run([job(1, 6)]))[0]!];
    const together = await Promise.all([pool.run([job(0, 3)]), pool.run([job(1, 6)])]);
    const figures = (r: { params: unknown; summary?: Record<string, unknown> }) => ({ params: r.params, returnPct: r.summary?.['returnPct'], trades: r.summary?.['totalTrades'] });
    expect(alone[0]!.summary?.['returnPct']).not.toBe(alone[1]!.summary?.['returnPct']);
    expect(together.map((rows) => figures(rows[0]!))).toEqual(alone.map(figures));
  }, 120_000);

  it("runs each job on a worker whose young generation is held as a backtest's own", async () => {
    const dir = tempDir('pb-pool-');
    try {
      const out = path.join(dir, 'thread.json');
      const [row] = await pool.run([smaJob(FROM, TO, { strategy: path.join(REPO, 'test/fixtures/thread-probe.mjs'), baseParams: {}, params: { out } })]);
      expect(row!.ok, row!.error).toBe(true);
      const seen = JSON.parse(readFileSync(out, 'utf8')) as { isMainThread: boolean; resourceLimits: { maxYoungGenerationSizeMb?: number } };
      expect(seen.isMainThread).toBe(false);
      // workerYoungGeneration()'s limit for 16 MB; without one V8 gives a worker 48 (its young generation grows to 32 MB).
      expect(seen.resourceLimits.maxYoungGenerationSizeMb).toBe(24);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('adaptive: one worker until the growth rule says another pays, then two; the rows are the fixed pool\'s', async () => {
    const jobs = [3, 4, 5, 6, 7, 8].map((fast, i) => job(i, fast));
    const figures = (rows: Array<{ index: number; ok: boolean; summary?: Record<string, unknown> }>) =>
      rows.map((r) => ({ index: r.index, ok: r.ok, returnPct: r.summary?.['returnPct'] }));
    const fixed = figures(await pool.run(jobs));
    const seen: Array<{ samples: number; remaining: number; workers: number; measured: boolean }> = [];
    const grown: number[] = [];
    const adaptive = new SweepPool(2, {
      adaptive: true,
      cores: 2,
      onGrow: (n) => grown.push(n),
      grows: (samples, remaining, workers) => {
        seen.push({ samples: samples.length, remaining, workers, measured: samples.every((s) => s.wallMs > 0 && s.cpuMs > 0) });
        return samples.length >= 2;
      },
    });
    const never = new SweepPool(2, { adaptive: true, grows: () => false });
    try {
      expect(adaptive.workers).toBe(1);
      expect(figures(await adaptive.run(jobs))).toEqual(fixed);
      expect(grown).toEqual([2]);
      expect(adaptive.workers).toBe(2);
      expect(adaptive.threads).toBe(2);
      // Asked after each of the first two runs (each measured while it ran alone), then never again.
      expect(seen).toEqual([
        { samples: 1, remaining: 5, workers: 1, measured: true },
        { samples: 2, remaining: 4, workers: 1, measured: true },
      ]);
      expect(figures(await never.run(jobs))).toEqual(fixed);
      expect(never.workers).toBe(1);
      expect(never.threads).toBe(1);
    } finally {
      await Promise.all([adaptive.close(), never.close()]);
    }
  }, 120_000);

  it("adaptive over an optimizer's batches: the rule weighs the runs left in the whole search, not in the batch", async () => {
    const remaining = (expectedRuns?: number) => {
      const seen: number[] = [];
      const pool = new SweepPool(2, {
        adaptive: true,
        ...(expectedRuns !== undefined ? { expectedRuns } : {}),
        grows: (_samples, left) => {
          seen.push(left);
          return false;
        },
      });
      return { pool, seen };
    };
    const whole = remaining(6);
    const batches = remaining();
    try {
      for (const p of [whole, batches]) for (const pair of [[0, 3], [1, 4], [2, 5]]) await p.pool.run(pair.map((fast, i) => job(i, fast + 3)));
      expect(whole.seen).toEqual([5, 4, 3, 2, 1, 0]);
      expect(batches.seen).toEqual([1, 0, 1, 0, 1, 0]);
    } finally {
      await Promise.all([whole.pool.close(), batches.pool.close()]);
    }
  }, 120_000);

  it('a whole backtest on a thread reports as the same run in this process', async () => {
    const backtest: BacktestJob = {
      ...base,
      name: 'two windows',
      strategies: [
        { use: base.strategy, params: { ...base.baseParams, fast: 3, slow: 12 }, name: 'a', window: { from: FROM + 86_400_000, to: TO - 2 * 86_400_000 } },
        { use: base.strategy, params: { ...base.baseParams, fast: 5, slow: 12 }, name: 'b', window: { from: TO - 2 * 86_400_000, to: TO } },
      ],
      reportFrom: FROM + 86_400_000,
    };
    const here = (await runBacktest(backtestJobOptions(backtest))).result;
    const there = decodeResult(await pool.backtest(backtest));
    const report = (r: typeof here) => ({ ...buildReportJson(r), perf: null });
    expect(here.fills.length).toBeGreaterThan(0);
    expect(report(there)).toEqual(report(here));
    expect(there.initialBalance).toBeInstanceOf(Dec);
  }, 120_000);

  it('the codec keeps every Decimal, −0 included', () => {
    const decoded = decodeResult(encodeResult({ initialBalance: new Dec('100000.000000001'), fills: [{ fee: new Dec('-0') }] } as never)) as unknown as {
      initialBalance: InstanceType<typeof Dec>;
      fills: Array<{ fee: InstanceType<typeof Dec> }>;
    };
    expect(decoded.initialBalance.toFixed()).toBe('100000.000000001');
    expect(decoded.fills[0]!.fee.isZero() && decoded.fills[0]!.fee.isNegative()).toBe(true);
    // A backtest's equity samples hold fp9 integers and build their Decimal when read.
    const samples = decodeResult(encodeResult({ equity: [new Fp9EquitySample(1_700_000_000_000, 100_000_123_456_789n)] } as never)).equity;
    expect(Array.from(samples, (e) => [e.time, e.equity.toFixed()])).toEqual([[1_700_000_000_000, '100000.123456789']]);
    // A backtest's series of them is columns, not an array: decoded as the array it stands for.
    const series = new Fp9EquitySeries();
    series.push(1_700_000_000_000, 100_000_123_456_789n);
    series.push(1_700_000_060_000, -(1n << 70n));
    const decodedSeries = decodeResult(encodeResult({ equity: series } as never)).equity;
    expect(Array.from(decodedSeries, (e) => [e.time, e.equity.toFixed()])).toEqual([
      [1_700_000_000_000, '100000.123456789'],
      [1_700_000_060_000, new Dec((-(1n << 70n)).toString()).div(1e9).toFixed()],
    ]);
  });
});
