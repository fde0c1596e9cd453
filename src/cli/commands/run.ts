import path from 'node:path';
import { Option, type Command } from 'commander';

interface RunCliOptions {
  config?: string;
  logFormat?: 'json' | 'pretty' | 'auto';
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
    .addOption(new Option('--log-format <format>', "pretty: one line per event in market time; json: JSON lines; auto (the config's default): pretty on a terminal").choices(['pretty', 'json', 'auto']))
    .action(async (opts: RunCliOptions) => {
      const { loadRunConfig } = await import('../../runtime/run-config.js');
      const { PACKAGE_ROOT } = await import('../../core/package.js');
      const { Daemon } = await import('../../runtime/daemon.js');
      const file = opts.config ?? path.join(PACKAGE_ROOT, 'config', 'paper.yaml');
      const daemon = new Daemon(loadRunConfig(file), { handleSignals: true, ...(opts.logFormat ? { logFormat: opts.logFormat } : {}) });
      process.exitCode = await daemon.run();
    });
}
