import type { Command } from 'commander';
import { redactRedisUrl } from '../../core/redis-url.js';
import { parsePositiveInt } from '../args.js';

interface WorkerCliOptions {
  queue: string;
  threads?: number;
  stallMs?: number;
  dataDir?: string;
  dataRoot?: string;
}

/**
 * `propbot worker`: take sweep and walk-forward runs from a Redis queue until SIGINT/SIGTERM. Start one
 * per machine (or several); each checks that its data files and propbot build match the coordinator's.
 */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run backtests that propbot sweep|walkforward --queue puts on a Redis queue')
    .requiredOption('--queue <redis-url>', 'the queue: redis://HOST:PORT')
    .option('--threads <n>', 'backtests at once (default 1)', parsePositiveInt)
    .option('--stall-ms <ms>', 'a job whose worker stops renewing its lock this long is handed to another worker (default 30000)', parsePositiveInt)
    .option('--data-root <dir>', "read data files under the coordinator's working directory from the same place under this folder (a checkout or copy of the coordinator's tree)")
    .option('--data-dir <dir>', "read every data file from this folder, by file name, instead of the coordinator's paths")
    .action(async (opts: WorkerCliOptions) => {
      const { redisConnection, startQueueWorker } = await import('../../research/queue.js');
      redisConnection(opts.queue);
      const log = (line: string): void => void process.stdout.write(`${new Date().toISOString()} ${line}\n`);
      const worker = await startQueueWorker({
        url: opts.queue,
        log,
        ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
        ...(opts.stallMs !== undefined ? { stallMs: opts.stallMs } : {}),
        ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
        ...(opts.dataRoot !== undefined ? { dataRoot: opts.dataRoot } : {}),
      });
      log(`worker ready on ${redactRedisUrl(opts.queue)} (pid ${process.pid})`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          log('stopping: finishing the runs in hand');
          void worker.close().then(resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      // Closed, its runs done and stored: a connection the queue library still holds (see close) must
      // not keep the process alive.
      setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
    });
}
