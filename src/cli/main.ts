import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerSecret } from '../core/logger.js';
import { COMMANDS } from './commands/index.js';
import { redactProcessOutput, reportFailure } from './output.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Build the `propbot` program. Each subcommand lives in `./commands/<name>.ts`. */
export function buildProgram(): Command {
  const program = new Command('propbot')
    .description('Algorithmic trading for challenge-based prop accounts: run, backtest and serve strategies.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .showHelpAfterError('(run propbot --help for usage)')
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

/**
 * Run the CLI and resolve to the process exit code. Errors the user can fix (bad arguments, bad
 * config) print one clear line and exit 2; anything else one line and exit 1 (see ./output.ts). All
 * output meanwhile is redacted like the logger's: the API key never reaches the terminal.
 */
export async function runCli(argv: string[]): Promise<number> {
  // The key of the default variable is hidden even before a config names its own.
  registerSecret(process.env['PROPBOT_API_KEY']);
  const restore = redactProcessOutput();
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version are "errors" to commander but a success to the user.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return err.exitCode === 0 ? 0 : 2;
    }
    return reportFailure(err);
  } finally {
    restore();
  }
}
