import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../backtest/helpers.js';
import { BTC, byParams, propbot, startWorker, stopWorker } from './cli.js';
import { freePort, redisForTests, redisServerFor, startRedis, type RedisServer } from './redis.js';

const REDIS = redisServerFor('the Redis queue tests');

const SWEEP = ['sweep', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"1h","amount":"15000","leverage":"3"}', '--from', '2018-03-01', '--to', '2018-03-11'];

describe.skipIf(!REDIS)('sweeps on a Redis queue (BullMQ)', () => {
  const server = redisForTests(REDIS);

  it('two worker processes, one killed with SIGKILL mid-run: every combination once, with the figures of the local run', async () => {
    const redis = server();
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
    const redis = server();
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

describe.skipIf(!REDIS)('a worker and a queue that is not there (yet)', () => {
  it('waits for it with one line, says once each that it is lost and back, and still stops on SIGTERM', async () => {
    const port = await freePort();
    const w = startWorker(`redis://127.0.0.1:${port}`);
    let redis: RedisServer | undefined;
    try {
      await w.until(/waiting for the queue at redis:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.* \(the worker keeps trying; Ctrl-C to stop\)/);
      redis = await startRedis(REDIS!, port);
      await w.until(/worker ready on redis:\/\/127\.0\.0\.1:\d+/);
      await redis.stop();
      await w.until(/queue lost at redis:\/\/127\.0\.0\.1:\d+: /);
      redis = await startRedis(REDIS!, port);
      await w.until(/queue reachable again/);
      // Each connection failed each reconnect; the log says each state once, with no library stack.
      expect(w.log.match(/waiting for the queue/g)).toHaveLength(1);
      expect(w.log.match(/queue lost/g)).toHaveLength(1);
      expect(w.log).not.toContain('[ioredis] Unhandled error event');
      // BullMQ's close can hang on a connection that was lost and back (taskforcesh/bullmq#4656):
      // the worker exits anyway.
      w.child.kill('SIGTERM');
      const exited = await Promise.race([w.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000))]);
      expect(exited).toBe(0);
    } finally {
      await stopWorker(w);
      await redis?.stop();
    }
  }, 60_000);
});
