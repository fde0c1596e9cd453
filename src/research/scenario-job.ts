/** One run of a scenario's first strategy with some parameters, as a job any worker can run. */
import { scenarioMarkets, type Scenario } from '../runtime/scenario.js';
import type { PruneSpec, SweepJob } from '../runtime/sweep.js';

export interface JobWindow {
  readonly from?: number;
  readonly to?: number;
  /** Trading starts here; `from` up to it is warm-up. */
  readonly tradeFrom?: number;
}

export function scenarioJob(
  scenario: Scenario,
  params: Record<string, unknown>,
  index: number,
  extra: { prune?: PruneSpec; stopOnFailure?: boolean; window?: JobWindow } = {},
): SweepJob {
  const strategy = scenario.strategies[0]!;
  const from = extra.window?.from ?? scenario.from;
  const to = extra.window?.to ?? scenario.to;
  return {
    index,
    params,
    strategy: strategy.use,
    baseParams: strategy.params,
    markets: scenarioMarkets(scenario),
    balance: scenario.balance.toString(),
    accountType: scenario.accountType,
    seed: scenario.seed,
    cwd: scenario.baseDir,
    ...(scenario.phase !== undefined ? { phase: scenario.phase } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(extra.window?.tradeFrom !== undefined ? { tradeFrom: extra.window.tradeFrom } : {}),
    ...(scenario.risk !== undefined ? { risk: scenario.risk as Record<string, unknown> } : {}),
    ...(extra.prune ? { prune: extra.prune } : {}),
    ...(extra.stopOnFailure ? { stopOnFailure: true } : {}),
  };
}
