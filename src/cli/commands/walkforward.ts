import type { Command } from 'commander';
import { addSearchOptions, type WalkForwardCliOptions } from '../search-options.js';
import { addScenarioOptions } from './backtest.js';

/**
 * `propbot walkforward`: search on each train slice, trade the winner on the following unseen test
 * slice; the stitched out-of-sample run and its challenge verdict are the honest estimate of passing.
 */
export function registerWalkForward(program: Command): void {
  const command = program
    .command('walkforward')
    .description('walk-forward analysis: search each train slice, trade its best on the unseen test slice after it; write walkforward.json and .html')
    .argument('[scenario]', 'a scenario YAML file as the base of every run');
  addSearchOptions(addScenarioOptions(command))
    .requiredOption('--train <duration>', 'length of each train slice (e.g. 60d, 12w, 36h)')
    .requiredOption('--test <duration>', 'length of each test slice (e.g. 15d)')
    .option('--step <duration>', 'distance between windows (default: the test length, slices back to back)')
    .option('--anchored', 'every train slice starts at the first data (default: rolling)')
    .option('--warmup <duration>', "history the strategy needs before a slice (default: the strategy's own warmup)")
    .option('--out <dir>', 'where walkforward.json, walkforward.html and the out-of-sample report go (default out/<name>-walkforward)')
    .option('--json', 'print walkforward.json to stdout instead of the table')
    .option('--no-progress', 'no progress lines on stderr')
    .action(async (scenarioFile: string | undefined, opts: WalkForwardCliOptions) => {
      const { runWalkForwardCommand } = await import('../walkforward-run.js');
      process.exitCode = await runWalkForwardCommand(scenarioFile, opts);
    });
}
