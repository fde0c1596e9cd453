import { Option, type Command } from 'commander';
import { collect, parseDateArg, parseDecimalArg, parseJsonObjectArg, parsePositiveInt } from '../args.js';
import type { BacktestCliOptions } from './backtest.js';

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
  program
    .command('sweep')
    .description('backtest a grid (or a random sample) of strategy parameters in parallel, ranked by a metric')
    .argument('[scenario]', 'a scenario YAML file as the base of every run')
    .option('--strategy <path|name>', 'strategy plugin (file, package, or shipped example name)')
    .option('--data <files>', 'candle file(s), comma-separated; ASSET=FILE names the market (repeatable)', collect)
    .option('--market <asset>', 'market of a single data file given without ASSET=')
    .option('--from <date>', 'first candle', parseDateArg)
    .option('--to <date>', 'stop before this time', parseDateArg)
    .option('--params <json>', 'fixed strategy parameters as a JSON object', parseJsonObjectArg)
    .option('--param <key=value>', 'one fixed strategy parameter (repeatable)', collect)
    .option('--grid <key=v1,v2,...>', 'values to try for one parameter (repeatable; every combination is a run)', collect)
    .option('--random <n>', 'run only n combinations drawn at random from the grid', parsePositiveInt)
    .option('--seed <n>', 'seed of the random draw (default 1)', parsePositiveInt)
    .option('--metric <name>', 'rank by: returnPct (default), sharpe, sortino, profitFactor, winRate, maxDrawdownPct, netPnl')
    .option('--workers <n>', 'worker threads (default: the number of cores)', parsePositiveInt)
    .option('--top <n>', 'rows shown in the table (default 20)', parsePositiveInt)
    .addOption(new Option('--preset <name>', 'engine costs').choices(['default', 'zero-cost']))
    .option('--balance <amount>', 'initial balance (default 100000)', parseDecimalArg)
    .option('--phase <phase>', 'challenge phase of the account')
    .option('--out <dir>', 'where sweep.json goes (default out/<name>-sweep)')
    .option('--json', 'print sweep.json to stdout instead of the table')
    .option('--no-progress', 'no progress bar even on a terminal')
    .action(async (scenarioFile: string | undefined, opts: SweepCliOptions) => {
      const { runSweepCommand } = await import('../sweep-run.js');
      process.exitCode = await runSweepCommand(scenarioFile, opts);
    });
}
