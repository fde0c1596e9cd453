/**
 * `sweep.distributed.combos-per-minute`: the same sweep (8 combinations of the SMA crossover on a month
 * of the shipped hourly BTC data) run locally on worker threads, then over a Redis queue with 1 and with
 * 2 `propbot worker` processes (one thread each), on a real redis-server at a free loopback port. The
 * stored results are cleared between runs, so every run computes every combination.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { findRedisServer, startRedis } from '../test/research/redis.js';
import { searchSpace, spaceSize } from '../src/research/space.js';
import { parseGrid } from '../src/runtime/sweep.js';
import { CLI_NODE_OPTIONS } from './cli-node.js';
import { report } from './report.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(REPO, 'bin/propbot.js');
const GRID_VALUES = ['fast=3,5,8,13', 'slow=21,34'];
const SWEEP = [
  BIN, 'sweep', '--strategy', 'sma-cross',
  '--data', `BTC=${path.join(REPO, 'backtest/data/coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv')}`,
  '--params', '{"period":"1h","amount":"15000","leverage":"3"}', '--from', '2018-03-01', '--to', '2018-04-01',
  ...GRID_VALUES.flatMap((g) => ['--grid', g]), '--json',
];
/** Runs in the grid (8), counted as `propbot sweep` counts them. */
const COMBOS = spaceSize(searchSpace(parseGrid(GRID_VALUES)));

function sweep(extra: string[]): number {
  const out = mkdtempSync(path.join(tmpdir(), 'pb-bench-'));
  try {
    const started = performance.now();
    execFileSync(process.execPath, [...CLI_NODE_OPTIONS, ...SWEEP, '--out', out, ...extra], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
    return (COMBOS * 60_000) / (performance.now() - started);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function withWorkers<T>(url: string, n: number, body: () => T): Promise<T> {
  const workers = Array.from({ length: n }, () => spawn(process.execPath, [...CLI_NODE_OPTIONS, BIN, 'worker', '--queue', url], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] }));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            let out = '';
            w.stdout!.on('data', (b: Buffer) => {
              out += b.toString();
              if (out.includes('worker ready')) resolve();
            });
          }),
      ),
    );
    return body();
  } finally {
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.once('exit', resolve), w.kill('SIGTERM')))));
  }
}

export async function run(): Promise<void> {
  const binary = findRedisServer();
  if (!binary) {
    process.stderr.write('sweep.distributed: skipped, redis-server not found (apt-get install redis-server)\n');
    return;
  }
  report('sweep.local.combos-per-minute', sweep([]), 'combos/min');
  const redis = await startRedis(binary);
  const client = new Redis(redis.port, '127.0.0.1');
  try {
    for (const n of [1, 2]) {
      await client.flushall();
      const perMinute = await withWorkers(redis.url, n, () => sweep(['--queue', redis.url]));
      report(`sweep.distributed.combos-per-minute.${n}-worker${n > 1 ? 's' : ''}`, perMinute, 'combos/min');
    }
  } finally {
    client.disconnect();
    await redis.stop();
  }
}
