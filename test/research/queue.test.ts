import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../backtest/helpers.js';
import { findRedisServer, startRedis, type RedisServer } from './redis.js';

const BTC = path.join(REPO, 'backtest/data/coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv');
const BIN = path.join(REPO, 'bin/propbot.js');
const REDIS = findRedisServer();
if (!REDIS) console.warn('skipping the Redis queue tests: redis-server not found (Debian: apt-get install redis-server; .ci/run installs it)');

function propbot(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: REPO, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

interface Worker {
  readonly child: ChildProcess;
  log: string;
  /** Resolves when a line matching `re` has been printed. */
  until(re: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function startWorker(url: string, extra: string[] = []): Worker {
  const child = spawn(process.execPath, [BIN, 'worker', '--queue', url, '--stall-ms', '1500', ...extra], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  const waiters: Array<{ re: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  const w: Worker = {
    child,
    log: '',
    until: (re) =>
      new Promise((resolve) => {
        const m = w.log.match(re);
        if (m) resolve(m);
        else waiters.push({ re, resolve });
      }),
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  const onData = (b: Buffer): void => {
    w.log += b.toString();
    for (const waiter of [...waiters]) {
      const m = w.log.match(waiter.re);
      if (m) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(m);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return w;
}

async function stopWorker(w: Worker): Promise<void> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  await w.exited;
}

const SWEEP = ['sweep', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"1h","amount":"15000","leverage":"3"}', '--from', '2018-03-01', '--to', '2018-03-11'];

/** Rows keyed by their parameters, without the wall time (the only figure that may differ). */
function byParams(sweep: { ranked: Array<Record<string, unknown>> }): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const { wallMs: _w, index: _i, ...row } of sweep.ranked) {
    const key = JSON.stringify(row['params']);
    expect(out.has(key), `${key} reported twice`).toBe(false);
    out.set(key, row);
  }
  return out;
}

describe.skipIf(!REDIS)('sweeps on a Redis queue (BullMQ)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis(REDIS!);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('two worker processes, one killed with SIGKILL mid-run: every combination once, with the figures of the local run', async () => {
    const grid = ['--grid', 'fast=3,5', '--grid', 'slow=12,20'];
    const local = await propbot([...SWEEP, ...grid, '--workers', '1', '--json', '--out', tempDir('pb-q-local-')]);
    expect(local.code).toBe(0);

    const a = startWorker(redis.url);
    const b = startWorker(redis.url);
    try {
      await Promise.all([a.until(/worker ready/), b.until(/worker ready/)]);
      const coordinator = propbot([...SWEEP, ...grid, '--queue', redis.url, '--json', '--out', tempDir('pb-q-dist-')]);
      const started = await a.until(/run (\d+) \S+ started/);
      a.child.kill('SIGKILL');
      expect(await a.exited).toBeNull();
      const killedRun = started[1]!;
      const dist = await coordinator;
      expect(dist.stderr).toBe('');
      expect(dist.code).toBe(0);
      const want = byParams(JSON.parse(local.stdout));
      const got = byParams(JSON.parse(dist.stdout));
      expect(got.size).toBe(4);
      expect(got).toEqual(want);
      // the run the killed worker held was taken over and finished by the other one
      expect(b.log).toMatch(new RegExp(`run ${killedRun} done`));
      // one stored row per combination, under the scenario's hash
      const client = new Redis(redis.port, '127.0.0.1');
      try {
        const keys = await client.keys('propbot:results:*');
        expect(keys).toHaveLength(1);
        expect(await client.hlen(keys[0]!)).toBe(4);
      } finally {
        client.disconnect();
      }
    } finally {
      await stopWorker(a);
      await stopWorker(b);
    }
  }, 600_000);

  it('a worker whose data file differs refuses the run, and the coordinator stops naming both hashes', async () => {
    const dir = tempDir('pb-q-data-');
    const copy = path.join(dir, path.basename(BTC));
    copyFileSync(BTC, copy);
    appendFileSync(copy, '\n');
    const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
    const w = startWorker(redis.url, ['--data-dir', dir]);
    try {
      await w.until(/worker ready/);
      const r = await propbot([...SWEEP, '--grid', 'fast=4', '--grid', 'slow=16', '--queue', redis.url, '--json', '--out', tempDir('pb-q-mm-')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`data file ${copy} differs: coordinator sha256 ${sha(BTC)}, worker sha256 ${sha(copy)}`);
    } finally {
      await stopWorker(w);
    }
  }, 300_000);
});
