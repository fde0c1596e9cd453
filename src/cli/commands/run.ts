import path from 'node:path';
import type { Command } from 'commander';

interface RunCliOptions {
  config?: string;
}

/**
 * `propbot run`: the daemon. Without --config it runs the shipped paper configuration (local engine,
 * shipped candle data, no API key).
 */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run strategies until stopped: paper (local engine, default), sandbox or live')
    .option('--config <file>', 'run configuration (YAML); default: the shipped config/paper.yaml')
    .action(async (opts: RunCliOptions) => {
      const { loadRunConfig } = await import('../../runtime/run-config.js');
      const { PACKAGE_ROOT } = await import('../../runtime/scenario.js');
      const { Daemon } = await import('../../runtime/daemon.js');
      const file = opts.config ?? path.join(PACKAGE_ROOT, 'config', 'paper.yaml');
      const daemon = new Daemon(loadRunConfig(file), { handleSignals: true });
      process.exitCode = await daemon.run();
    });
}
