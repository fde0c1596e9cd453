/**
 * A whole backtest as plain data, to be run on a worker thread or another machine and answered with
 * its full result (as `report/result-codec.ts` text): walk-forward's stitched out-of-sample run is
 * one. A sweep job (`sweep-job.ts`) answers with a row of figures; this one with everything a report
 * needs.
 */
import type { AccountType, MarketCategory } from '../api/types.js';
import { Dec } from '../core/decimal.js';
import type { FileLayout } from '../feed/files/types.js';
import { encodeResult } from '../report/result-codec.js';
import type { RiskGuardConfigInput } from '../risk/config.js';
import type { TradingWindow } from '../strategy/window.js';
import { runBacktest, type BacktestOptions } from './backtest.js';
import type { JobMarket } from './sweep.js';

export interface BacktestJob {
  readonly name: string;
  readonly markets: readonly JobMarket[];
  readonly strategies: ReadonlyArray<{ readonly use: string; readonly params: Record<string, unknown>; readonly name?: string; readonly window?: TradingWindow }>;
  readonly balance: string;
  readonly accountType: string;
  readonly seed: string;
  readonly cwd: string;
  readonly phase?: string;
  readonly from?: number;
  readonly to?: number;
  /** Report from here; the replay before it warms the strategies up. */
  readonly reportFrom?: number;
  readonly risk?: Record<string, unknown>;
}

/** What a sweep job and a whole backtest both say: the data, the account, the period, the guard. */
export type JobBase = Pick<BacktestJob, 'markets' | 'balance' | 'accountType' | 'seed' | 'cwd' | 'phase' | 'from' | 'to' | 'risk'>;

/** The backtester's options for what every job says (see `JobBase`). */
export function jobBaseOptions(job: JobBase): Omit<BacktestOptions, 'strategies'> {
  return {
    markets: job.markets.map((m) => ({
      asset: m.asset,
      file: m.file,
      ...(m.category ? { category: m.category as MarketCategory } : {}),
      ...(m.layout ? { layout: m.layout as FileLayout } : {}),
      ...(m.preset ? { preset: m.preset } : {}),
    })),
    balance: new Dec(job.balance),
    accountType: job.accountType as AccountType,
    seed: job.seed,
    cwd: job.cwd,
    ...(job.phase !== undefined ? { phase: job.phase } : {}),
    ...(job.from !== undefined ? { from: job.from } : {}),
    ...(job.to !== undefined ? { to: job.to } : {}),
    ...(job.risk !== undefined ? { risk: job.risk as RiskGuardConfigInput } : {}),
  };
}

export function backtestJobOptions(job: BacktestJob): BacktestOptions {
  return {
    ...jobBaseOptions(job),
    name: job.name,
    strategies: job.strategies,
    ...(job.reportFrom !== undefined ? { reportFrom: job.reportFrom } : {}),
  };
}

/** Run it; the result as text (a failure throws, as the backtest would here). */
export async function runBacktestJob(job: BacktestJob): Promise<string> {
  const outcome = await runBacktest(backtestJobOptions(job));
  return encodeResult(outcome.result);
}
