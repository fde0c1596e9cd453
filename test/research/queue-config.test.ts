/**
 * The queue named in a scenario file (`research: { queue: redis://… }`): checked with the key and its
 * line, used by sweep and walkforward, overridden by `--queue` and ignored under `--no-queue`. Real
 * redis-server and a worker process for the runs, stopped after.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../backtest/helpers.js';
import { BTC, byParams, propbot, withWorker } from './cli.js';
import { freePort, redisForTests, redisServerFor } from './redis.js';

const REDIS = redisServerFor('the queue-in-config runs');

/** A scenario file whose `research.queue` is `queue` (line 10). */
function scenario(queue: string): string {
  const file = path.join(tempDir('pb-qc-'), 'sweep.yaml');
  writeFileSync(
    file,
    [
      'name: queued',
      'strategy:',
      '  use: sma-cross',
      '  params: { period: 1h, amount: "15000", leverage: "3" }',
      'data:',
      '  - asset: BTC',
      `    file: ${BTC}`,
      'from: 2018-03-01',
      'research:',
      `  queue: ${queue}`,
      'to: 2018-03-08',
      '',
    ].join('\n'),
  );
  return file;
}

const grid = (slow = 12): string[] => ['--grid', 'fast=3,5', '--grid', `slow=${slow}`, '--json'];
const out = (): string[] => ['--out', tempDir('pb-qc-out-')];

describe('research.queue in a scenario file', () => {
  it('is refused at its key and line when it is no redis:// URL', async () => {
    const file = scenario('http://127.0.0.1:6379');
    const r = await propbot(['sweep', file, ...grid()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`propbot: ${file}:line 10: research.queue: expected redis://HOST:PORT[/DB], got "http://127.0.0.1:6379"\n`);
    const db = scenario('redis://127.0.0.1:6379/zero');
    expect((await propbot(['walkforward', db, '--train', '2d', '--test', '1d', '--grid', 'fast=3'])).stderr).toContain(
      `${db}:line 10: research.queue: the database in "redis://127.0.0.1:6379/zero" must be a whole number`,
    );
  });

  it('a queue nobody answers at is an error naming the key and its line, not a hang', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const file = scenario(url);
    const r = await propbot(['sweep', file, ...grid(), ...out()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^propbot: ${file.replace(/[.]/g, '\\.')}:line 10: research\\.queue: cannot reach the queue at ${url}: .*ECONNREFUSED`));
  }, 60_000);
});

describe.skipIf(!REDIS)('research.queue with a worker', () => {
  const server = redisForTests(REDIS);

  it('runs on the queue it names (from the environment here), --queue overrides it and --no-queue keeps the runs here', async () => {
    const redis = server();
    const local = await propbot(['sweep', scenario('redis://127.0.0.1:1'), ...grid(), '--no-queue', ...out()]);
    expect(local.stderr).toBe('');
    expect(local.code).toBe(0);
    const want = byParams(JSON.parse(local.stdout));

    await withWorker(redis.url, [], {}, async (w) => {
      // ${PB_TEST_QUEUE}: the config's environment substitution
      const fromConfig = await propbot(['sweep', scenario('${PB_TEST_QUEUE}'), ...grid(), ...out()], { env: { PB_TEST_QUEUE: redis.url } });
      expect(fromConfig.stderr).toBe('');
      expect(fromConfig.code).toBe(0);
      expect(byParams(JSON.parse(fromConfig.stdout))).toEqual(want);
      expect(w.log.match(/run \d+ \S+ started/g)).toHaveLength(2);

      // the flag wins over a queue nobody answers at (otherwise: refused, as above)
      const flag = await propbot(['sweep', scenario(`redis://127.0.0.1:${await freePort()}`), ...grid(20), '--queue', redis.url, ...out()]);
      expect(flag.stderr).toBe('');
      expect(flag.code).toBe(0);
      expect(w.log.match(/run \d+ \S+ started/g)).toHaveLength(4);

      const here = await propbot(['sweep', scenario(redis.url), ...grid(30), '--no-queue', ...out()]);
      expect(here.code).toBe(0);
      expect(JSON.parse(here.stdout).runs).toBe(2);
      expect(w.log.match(/run \d+ \S+ started/g)).toHaveLength(4);
    });
  }, 300_000);
});
