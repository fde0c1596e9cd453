import { copyFileSync, mkdtempSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildReportJson } from '../../src/report/report-json.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { jobBaseOptions } from '../../src/runtime/backtest-job.js';
import { keptCandles, recordCandles } from '../../src/runtime/recorded-candles.js';
import { runSweepJob } from '../../src/runtime/sweep-job.js';
import { BTC, smaJob } from '../research/cli.js';

const FROM = Date.UTC(2018, 2, 1);
const TO = Date.UTC(2018, 2, 6);

describe('candles read once per thread', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'propbot-recorded-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replay the rows and the summary the session reads itself', async () => {
    const job = smaJob(FROM, TO);
    const options = { ...jobBaseOptions(job), strategies: [{ use: job.strategy, params: { ...job.baseParams, ...job.params } }] };
    const read = await runBacktest(options);
    const recorded = (await recordCandles(BTC, undefined, FROM, TO))!;
    const replayed = await runBacktest({ ...options, markets: options.markets.map((m) => ({ ...m, source: recorded })) });
    expect(recorded.rows).toBe(5 * 24);
    expect({ ...buildReportJson(replayed.result), perf: null }).toEqual({ ...buildReportJson(read.result), perf: null });
  }, 60_000);

  it('are kept for the same file and range, and read again when either changes', async () => {
    const file = path.join(dir, 'btc.csv');
    copyFileSync(BTC, file);
    const first = await keptCandles(file, undefined, FROM, TO);
    expect(await keptCandles(file, undefined, FROM, TO)).toBe(first);
    expect(await keptCandles(file, undefined, FROM, TO + 3_600_000)).not.toBe(first);
    appendFileSync(file, '\n');
    expect(await keptCandles(file, undefined, FROM, TO)).not.toBe(first);
  });

  it('are not recorded past the row cap: the runs stream the file', async () => {
    const file = path.join(dir, 'capped.csv');
    copyFileSync(BTC, file);
    expect(await keptCandles(file, undefined, FROM, TO, 5 * 24)).toBeDefined();
    expect(await keptCandles(file, undefined, FROM, TO, 5 * 24 - 1)).toBeUndefined();
    expect(await recordCandles(file, undefined, FROM, TO, 5 * 24 - 1)).toBeUndefined();
  });

  it('leave a sweep row as it was', async () => {
    const job = smaJob(FROM, TO);
    const row = await runSweepJob(job);
    const again = await runSweepJob(job);
    const direct = (await runBacktest({ ...jobBaseOptions(job), strategies: [{ use: job.strategy, params: { ...job.baseParams, ...job.params } }], keepPrices: false })).result;
    expect(row.ok).toBe(true);
    expect(again.summary).toEqual(row.summary);
    expect(row.summary).toEqual({ ...buildReportJson(direct).summary });
  }, 60_000);

  it('give a sweep row the verdict the report of the same run gives', async () => {
    const job = smaJob(FROM, TO, { phase: 'active_evaluation' });
    const row = await runSweepJob(job);
    const direct = (await runBacktest({ ...jobBaseOptions(job), strategies: [{ use: job.strategy, params: { ...job.baseParams, ...job.params } }], keepPrices: false })).result;
    const report = buildReportJson(direct);
    expect(report.challenge).not.toBeNull();
    expect(row.challenge).toEqual({ passed: report.challenge!.passed, failedRule: report.challenge!.failedRule, daysToTarget: report.challenge!.daysToTarget });
    expect(row.summary).toEqual({ ...report.summary });
  }, 60_000);
});
