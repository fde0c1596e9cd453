import type { Command } from 'commander';
import { addSearchOptions, type SweepCliOptions } from '../search-options.js';
import { addScenarioOptions } from './backtest.js';

/** `propbot sweep`: a grid, random or TPE search over strategy parameters, on worker threads or a queue. */
export function registerSweep(program: Command): void {
  const command = program
    .command('sweep')
    .description('backtest a grid, a random sample or an optimizer\'s choice of strategy parameters in parallel, ranked by an objective')
    .argument('[scenario]', 'a scenario YAML file as the base of every run');
  addSearchOptions(addScenarioOptions(command))
    .option('--out <dir>', 'where sweep.json goes (default out/<name>-sweep)')
    .option('--json', 'print sweep.json to stdout instead of the table')
    .option('--no-progress', 'no progress bar even on a terminal')
    .action(async (scenarioFile: string | undefined, opts: SweepCliOptions) => {
      const { runSweepCommand } = await import('../sweep-run.js');
      process.exitCode = await runSweepCommand(scenarioFile, opts);
    });
}
