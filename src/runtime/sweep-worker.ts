/**
 * One sweep worker: runs the backtests it is sent, one at a time, and answers with the figures.
 */
import { parentPort } from 'node:worker_threads';
import { Dec } from '../core/decimal.js';
import type { AccountType, MarketCategory } from '../api/types.js';
import type { FileLayout } from '../feed/files/types.js';
import { buildReportJson } from '../report/report-json.js';
import type { RiskGuardConfigInput } from '../risk/config.js';
import { runBacktest } from './backtest.js';
import type { SweepJob, SweepRow } from './sweep.js';

parentPort!.on('message', (job: SweepJob) => {
  void run(job).then((row) => parentPort!.postMessage(row));
});

async function run(job: SweepJob): Promise<SweepRow> {
  const started = performance.now();
  try {
    const outcome = await runBacktest({
      name: `sweep-${job.index}`,
      markets: job.markets.map((m) => ({
        asset: m.asset,
        file: m.file,
        ...(m.category ? { category: m.category as MarketCategory } : {}),
        ...(m.layout ? { layout: m.layout as FileLayout } : {}),
        ...(m.preset ? { preset: m.preset } : {}),
      })),
      strategies: [{ use: job.strategy, params: { ...job.baseParams, ...job.params } }],
      balance: new Dec(job.balance),
      accountType: job.accountType as AccountType,
      seed: job.seed,
      cwd: job.cwd,
      keepPrices: false,
      ...(job.phase !== undefined ? { phase: job.phase } : {}),
      ...(job.from !== undefined ? { from: job.from } : {}),
      ...(job.to !== undefined ? { to: job.to } : {}),
      ...(job.risk !== undefined ? { risk: job.risk as RiskGuardConfigInput } : {}),
    });
    const json = buildReportJson(outcome.result);
    return {
      index: job.index,
      params: job.params,
      ok: true,
      summary: json.summary as unknown as Record<string, unknown>,
      challenge: json.challenge ? { passed: json.challenge.passed, failedRule: json.challenge.failedRule, daysToTarget: json.challenge.daysToTarget } : null,
      wallMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return { index: job.index, params: job.params, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
