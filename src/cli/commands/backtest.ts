import { Option, type Command } from 'commander';
import { collect, parseDateArg, parseJsonObjectArg, parsePositiveDecimalArg } from '../args.js';
import { LOG_LEVELS, PHASE_NAMES } from '../../runtime/scenario.js';
import type { BacktestCliOptions } from '../scenario-args.js';

// `propbot sweep` takes the same flags.
export type { BacktestCliOptions };

/**
 * `propbot backtest`: replay candle files through the local engine with the very strategies, guard and
 * executor a live run uses; write report.json and report.html; print a summary (or the JSON).
 */
export function registerBacktest(program: Command): void {
  const command = program
    .command('backtest')
    .description('replay candle files through the local engine with a strategy; write report.json and report.html')
    .argument('[scenario]', 'a scenario YAML file (see backtest/*.yaml); flags given as well override it');
  addScenarioOptions(command)
    .option('--out <dir>', 'where report.json and report.html go (default out/<name>)')
    .option('--json', 'print report.json to stdout instead of the summary table')
    .option('--no-progress', 'no progress bar even on a terminal')
    .addOption(
      new Option('--log <level>', 'log to stderr, in market time (default error: strategy errors; warn adds the guard\'s state changes, kill-switch trips and denials, which the summary counts and report.json lists; info adds ctx.log lines, intents, decisions and guard orders)').choices(LOG_LEVELS),
    )
    .action(async (scenarioFile: string | undefined, opts: BacktestCliOptions) => {
      const { runBacktestCommand } = await import('../backtest-run.js');
      process.exitCode = await runBacktestCommand(scenarioFile, opts);
    });
}

/** What a run is made of: the strategy, the data, the window and the account. Shared by backtest and sweep. */
export function addScenarioOptions(command: Command): Command {
  return command
    .option('--strategy <path|name>', 'strategy plugin: a file, a package, or a shipped example (sma-cross, donchian-breakout, mean-reversion, challenge-aware)')
    .option('--data <files>', 'candle file(s), a daemon store file or an http(s) URL (fetched into the cache), comma-separated; ASSET=FILE names the market (repeatable); a shipped dataset is found by its name from any folder', collect)
    .option('--market <asset>', "market of a single data file given without ASSET= (default: from the file name, else the strategy's)")
    .option('--from <date>', 'first candle (UTC date, ISO date-time or unix ms)', parseDateArg)
    .option('--to <date>', 'stop before this time (UTC date, ISO date-time or unix ms)', parseDateArg)
    .option('--params <json>', 'strategy parameters as a JSON object', parseJsonObjectArg)
    .option('--param <key=value>', 'one strategy parameter (repeatable; value parsed as JSON when it can be)', collect)
    .addOption(new Option('--preset <name>', 'engine costs: the platform defaults, or none at all (the challenge rules and the guard stay on)').choices(['default', 'zero-cost']))
    .addOption(
      new Option('--rules <on|off>', 'off: no challenge rules (drawdown failure, target) and no risk guard, to compare with other backtesters; the report says so').choices([
        'on',
        'off',
      ]),
    )
    .option('--balance <amount>', 'initial balance of the account (default 100000)', parsePositiveDecimalArg)
    .addOption(new Option('--phase <phase>', 'challenge phase of the account (default active_evaluation)').choices(PHASE_NAMES));
}
