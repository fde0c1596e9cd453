/**
 * What a sweep checks before it spends an hour of workers, and how it owns up to failures after.
 * A grid key the strategy does not have is refused up front (a typo would otherwise fail every run,
 * or silently test nothing). A combination the strategy's own schema refuses (`fast` ≥ `slow`) is not
 * run: it is listed as skipped with the strategy's reason, the way a grid over two lengths is expected
 * to contain a few impossible pairs. A run that fails once started is a failure of the sweep.
 */
import { locateConfigError } from '../core/config-file.js';
import { ConfigError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { parseParams } from '../strategy/params.js';
import { importStrategy } from '../strategy/loader.js';
import type { Scenario } from './scenario.js';
import type { SweepRow } from './sweep.js';

/** What the strategy says of one combination: undefined when it accepts it, else its reason. */
export type ParamsCheck = (params: Record<string, unknown>) => string | undefined;

/**
 * For a search over the scenario's (first) strategy: refuse unknown grid keys before any run, naming
 * the strategy's parameters, then give the check that sorts the combinations into those the strategy
 * accepts and those its parameter schema refuses.
 */
export async function strategyParamsCheck(scenario: Scenario, grid: Readonly<Record<string, unknown>>): Promise<ParamsCheck> {
  const { use, params: baseParams, key, paramFlags } = scenario.strategies[0]!;
  const gridKeys = Object.keys(grid);
  const { strategy } = await importStrategy(use, { cwd: scenario.baseDir });
  const known = Object.keys(strategy.params.shape);
  const unknown = gridKeys.filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw new ConfigError(
      `--grid ${unknown[0]}`,
      `strategy "${strategy.name}" has no parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}` +
        `; its parameters: ${known.join(', ') || '(none)'}${didYouMean(unknown[0]!, known)}`,
    );
  }
  // A refused parameter is named by what gave it: the grid, a flag, or the scenario file's key.
  const flags = { ...paramFlags, ...Object.fromEntries(gridKeys.map((k) => [k, '--grid'])) };
  const where = scenario.file !== undefined ? { path: `${key ?? 'strategies.0'}.params`, file: scenario.file, flags } : { path: '--param', flags };
  return (params) => {
    try {
      parseParams(strategy.name, strategy.params, { ...baseParams, ...params }, where);
      return undefined;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // The scenario's own parameter gets its line; one a flag or the grid gave is named by it alone.
      return (error.file !== undefined ? (locateConfigError(error, error.file) as ConfigError) : error).message;
    }
  };
}

/** Each distinct error of the failed rows once, whole, with how many runs it ended and the first one's parameters. */
export function describeFailures(rows: readonly SweepRow[]): string {
  const byError = new Map<string, SweepRow[]>();
  for (const r of rows) {
    if (r.ok) continue;
    const key = r.error ?? 'no error message';
    byError.set(key, [...(byError.get(key) ?? []), r]);
  }
  const failed = rows.filter((r) => !r.ok).length;
  const lines = [`${failed} of ${rows.length} runs failed (${byError.size} distinct error${byError.size === 1 ? '' : 's'}):`];
  for (const [error, list] of byError) {
    lines.push(`- ${list.length} run${list.length === 1 ? '' : 's'}, first with ${formatParams(list[0]!.params)}:`);
    lines.push(...error.split('\n').map((l) => `    ${l}`));
  }
  return lines.join('\n') + '\n';
}

export function formatParams(params: Record<string, unknown>): string {
  return Object.entries(params).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ');
}
