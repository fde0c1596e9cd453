/**
 * Walk-forward on a Redis queue: the train searches and the stitched out-of-sample run are all jobs
 * that `propbot worker` processes take, and walkforward.json and the out-of-sample report come out as
 * the local run's, but for timings. Real redis-server and worker processes, stopped after.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../backtest/helpers.js';
import { BTC, propbot, startWorker, stopWorker } from './cli.js';
import { redisForTests, redisServerFor } from './redis.js';

const REDIS = redisServerFor('the walk-forward queue test');

const WALKFORWARD = [
  'walkforward', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"1h","amount":"20000","leverage":"3"}',
  '--from', '2018-03-01', '--to', '2018-03-25', '--train', '8d', '--test', '4d', '--grid', 'fast=3,6', '--grid', 'slow=12', '--no-progress',
];

/** The document without what measures the machine rather than the strategy (wall times, speed). */
function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'perf' && k !== 'wallMs').map(([k, v]) => [k, withoutTimings(v)]));
  }
  return value;
}

const read = (dir: string, file: string): unknown => JSON.parse(readFileSync(path.join(dir, file), 'utf8'));

describe.skipIf(!REDIS)('walk-forward on a Redis queue', () => {
  const server = redisForTests(REDIS);

  it('the searches and the out-of-sample run go to the workers, and the figures are the local run\'s', async () => {
    const redis = server();
    const localOut = tempDir('pb-qwf-local-');
    const local = await propbot([...WALKFORWARD, '--workers', '1', '--out', localOut]);
    expect(local.stderr).toBe('');
    expect(local.code).toBe(0);

    const a = startWorker(redis.url);
    const b = startWorker(redis.url);
    try {
      await Promise.all([a.until(/worker ready/), b.until(/worker ready/)]);
      const distOut = tempDir('pb-qwf-dist-');
      const dist = await propbot([...WALKFORWARD, '--queue', redis.url, '--out', distOut]);
      expect(dist.stderr).toBe('');
      expect(dist.code).toBe(0);
      // 3 windows × 2 combinations searched, then the one stitched run, all on the workers
      const logs = a.log + b.log;
      expect(logs.match(/run \d+ \{[^}]*\} started/g)).toHaveLength(6);
      expect(logs.match(/backtest "sma-cross walk-forward \(out of sample\)" started/g)).toHaveLength(1);
      expect(logs).toMatch(/backtest "sma-cross walk-forward \(out of sample\)" done/);
      const client = new Redis(redis.port, '127.0.0.1');
      try {
        const stored = await Promise.all((await client.keys('propbot:results:*')).map((k) => client.hvals(k)));
        expect(stored.flat().filter((v) => v.includes('"$dec"'))).toHaveLength(1);
      } finally {
        client.disconnect();
      }

      const wf = read(distOut, 'walkforward.json') as { windows: unknown[]; outOfSample: { summary: { returnPct: string } } };
      expect(wf.windows).toHaveLength(3);
      expect(withoutTimings(wf)).toEqual(withoutTimings(read(localOut, 'walkforward.json')));
      expect(withoutTimings(read(distOut, 'out-of-sample/report.json'))).toEqual(withoutTimings(read(localOut, 'out-of-sample/report.json')));
      expect(dist.stdout.replace(/\n.*walkforward\.(html|json)/g, '')).toBe(local.stdout.replace(/\n.*walkforward\.(html|json)/g, ''));
    } finally {
      await stopWorker(a);
      await stopWorker(b);
    }
  }, 600_000);
});
