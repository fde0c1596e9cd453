import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { PropbotError } from '../core/errors.js';
import { COMMANDS } from './commands/index.js';

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
 * config) print one clear line and exit 2; anything else exits 1.
 */
export async function runCli(argv: string[]): Promise<number> {
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
    if (err instanceof PropbotError) {
      process.stderr.write(`propbot: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`propbot: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
