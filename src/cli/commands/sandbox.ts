import { InvalidArgumentError, type Command } from 'commander';

interface SandboxCliOptions {
  config?: string;
  port?: number;
  describeOut?: string;
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError(`expected a port number 0..65535 (0 = any free port), got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/**
 * `propbot sandbox`: the platform's API served by the local engine on 127.0.0.1, until SIGINT/SIGTERM.
 * Prints one line with the base URL once listening; `--describe-out` writes users, keys, accounts and
 * markets as JSON for scripts and tests.
 */
export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('serve the platform API from the local engine on 127.0.0.1 (tests, paper trading, client development)')
    .option('--config <file>', 'sandbox YAML (users, keys, accounts, markets, prices, rate limits, faults); default: the built-in config/sandbox.yaml')
    .option('--port <n>', 'port to listen on (0 = any free port); default: the config\'s server.port', parsePort)
    .option('--describe-out <file>', 'write { baseUrl, users: [{ apiKey, accounts }], markets } as JSON once listening')
    .action(async (opts: SandboxCliOptions) => {
      // Loaded on use: other commands need not load the engine and the server.
      const { startSandbox } = await import('../../sandbox/server.js');
      const handle = await startSandbox({
        ...(opts.config !== undefined ? { configFile: opts.config } : {}),
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        ...(opts.describeOut !== undefined ? { describeOut: opts.describeOut } : {}),
        log: (line) => process.stderr.write(`propbot sandbox: ${line}\n`),
      });
      process.stdout.write(`propbot sandbox listening on ${handle.baseUrl} (admin: ${handle.baseUrl}/_sandbox/, Ctrl-C to stop)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await handle.close();
    });
}
