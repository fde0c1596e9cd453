/**
 * The period a scenario's data covers: from the first candle (at or after `from`) to the end of the
 * last one (before `to`), across its markets, and the candle period. Walk-forward lays its windows on it;
 * the optimizer puts its prune checkpoints in it.
 */
import { ConfigError } from '../core/errors.js';
import { readCandleFile } from '../feed/files/candle-file.js';
import { flagRangeKeys, noCandlesError } from '../runtime/no-candles.js';
import type { Scenario } from '../runtime/scenario.js';

export interface DataRange {
  readonly from: number;
  /** End of the last candle (exclusive). */
  readonly to: number;
  readonly periodMs: number;
}

export async function dataRange(scenario: Pick<Scenario, 'markets' | 'from' | 'to'>): Promise<DataRange> {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  let periodMs = 0;
  for (const m of scenario.markets) {
    const reader = readCandleFile(m.file, m.layout !== undefined ? { layout: m.layout } : {});
    let first: number | undefined;
    let last: number | undefined;
    for await (const row of reader) {
      if (scenario.from !== undefined && row.time < scenario.from) continue;
      if (scenario.to !== undefined && row.time >= scenario.to) break;
      first ??= row.time;
      last = row.time;
    }
    const p = reader.summary.periodMs ?? 0;
    if (first === undefined || last === undefined) {
      throw noCandlesError(m.file, reader.summary, scenario.from, scenario.to, flagRangeKeys(m.asset));
    }
    from = Math.min(from, first);
    to = Math.max(to, last + p);
    periodMs = Math.max(periodMs, p);
  }
  if (!Number.isFinite(from)) throw new ConfigError('data', 'the scenario has no data file');
  return { from, to, periodMs };
}
