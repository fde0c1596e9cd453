/**
 * One sweep job run to its row: the backtest of one combination, its figures, challenge verdict and
 * rolling-start odds. Worker threads and the queue worker both run jobs through here, so a row is
 * the same wherever it was computed.
 */
import { Dec } from '../core/decimal.js';
import { reportFigures } from '../report/figures.js';
import { computePropOdds } from '../report/prop-odds.js';
import { challengeJson, ratio, summaryJson } from '../report/report-json.js';
import { runBacktest } from './backtest.js';
import { jobBaseOptions } from './backtest-job.js';
import { keptCandles } from './recorded-candles.js';
import type { SweepJob, SweepRow } from './sweep.js';

export async function runSweepJob(job: SweepJob): Promise<SweepRow> {
  const started = performance.now();
  const abort = new AbortController();
  const checkpoints: number[] = [];
  let stopped: SweepRow['stopped'];
  const balance = new Dec(job.balance);
  const prune = job.prune;
  const watch = prune !== undefined || job.stopOnFailure === true;
  try {
    const base = jobBaseOptions(job);
    // Every run of a sweep reads the same data: once per thread (a failed read is the session's to report).
    const markets = await Promise.all(
      base.markets.map(async (m) => {
        const source = await keptCandles(m.file, m.layout, job.from, job.to).catch(() => undefined);
        return source ? { ...m, source } : m;
      }),
    );
    const outcome = await runBacktest({
      ...base,
      markets,
      name: `sweep-${job.index}`,
      strategies: [{ use: job.strategy, params: { ...job.baseParams, ...job.params }, ...(job.tradeFrom !== undefined ? { window: { from: job.tradeFrom } } : {}) }],
      keepPrices: false,
      signal: abort.signal,
      ...(job.tradeFrom !== undefined ? { reportFrom: job.tradeFrom } : {}),
      ...(watch
        ? {
            onSample: (sample, phase) => {
              if (stopped) return;
              if (job.stopOnFailure && phase === 'failed') {
                stopped = { at: sample.time, reason: 'failed_rule' };
                abort.abort();
                return;
              }
              if (!prune) return;
              const i = checkpoints.length;
              if (i >= prune.checkpoints.length || sample.time < prune.checkpoints[i]!) return;
              const returnPct = Number(ratio(sample.equity.minus(balance).div(balance).times(100)));
              checkpoints.push(returnPct);
              const floor = prune.minReturnPct[i];
              if (floor !== null && floor !== undefined && returnPct < floor) {
                stopped = { at: sample.time, reason: 'pruned' };
                abort.abort();
              }
            },
          }
        : {}),
    });
    // The row keeps the report's summary and challenge verdict only: its trades, fills and equity
    // series are not formatted for a row that never shows them.
    const figures = reportFigures(outcome.result);
    const challenge = challengeJson(outcome.result, figures.challenge);
    const odds = computePropOdds(outcome.result);
    return {
      index: job.index,
      params: job.params,
      ok: true,
      summary: summaryJson(figures.metrics) as unknown as Record<string, unknown>,
      challenge: challenge ? { passed: challenge.passed, failedRule: challenge.failedRule, daysToTarget: challenge.daysToTarget } : null,
      prop: {
        passProbability: odds.passProbability,
        medianDaysToPass: odds.medianDaysToPass,
        worstDailyHeadroomPct: odds.worstDailyHeadroomPct === null ? null : ratio(odds.worstDailyHeadroomPct),
      },
      ...(prune ? { checkpoints } : {}),
      ...(stopped ? { stopped } : {}),
      wallMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return { index: job.index, params: job.params, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
