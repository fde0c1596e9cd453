import type { Command } from 'commander';
import { collect, parsePositiveInt } from '../args.js';
import { addScenarioOptions, type BacktestCliOptions } from './backtest.js';

export interface SweepCliOptions extends BacktestCliOptions {
  grid?: string[];
  random?: number;
  seed?: number;
  metric?: string;
  workers?: number;
  top?: number;
}

/** `propbot sweep`: a grid or random search over strategy parameters, on worker threads. */
export function registerSweep(program: Command): void {
  const command = program
    .command('sweep')
    .description('backtest a grid (or a random sample) of strategy parameters in parallel, ranked by a metric')
    .argument('[scenario]', 'a scenario YAML file as the base of every run');
  addScenarioOptions(command)
    .option('--grid <key=v1,v2,...>', 'values to try for one parameter (repeatable; every combination is a run)', collect)
    .option('--random <n>', 'run only n combinations drawn at random from the grid', parsePositiveInt)
    .option('--seed <n>', 'seed of the random draw (default 1)', parsePositiveInt)
    .option('--metric <name>', 'rank by: returnPct (default), sharpe, sortino, profitFactor, winRate, maxDrawdownPct, netPnl')
    .option('--workers <n>', 'worker threads (default: the number of cores)', parsePositiveInt)
    .option('--top <n>', 'rows shown in the table (default 20)', parsePositiveInt)
    .option('--out <dir>', 'where sweep.json goes (default out/<name>-sweep)')
    .option('--json', 'print sweep.json to stdout instead of the table')
    .option('--no-progress', 'no progress bar even on a terminal')
    .action(async (scenarioFile: string | undefined, opts: SweepCliOptions) => {
      const { runSweepCommand } = await import('../sweep-run.js');
      process.exitCode = await runSweepCommand(scenarioFile, opts);
    });
}
