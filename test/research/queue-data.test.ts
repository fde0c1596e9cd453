/**
 * Where a `propbot worker` finds the data: a URL it fetches itself (into its own cache, checked against
 * the coordinator's hash of what it fetched), or a path under the coordinator's working directory
 * resolved under its `--data-root`. Real redis-server and worker processes; the data is served by
 * node:http on 127.0.0.1 (./http.ts); everything started is stopped.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../backtest/helpers.js';
import { BTC, byParams, propbot, withWorker } from './cli.js';
import { serveFiles, type FileServer } from './http.js';
import { redisForTests, redisServerFor } from './redis.js';

const REDIS = redisServerFor('the Redis queue data tests');

const NAME = path.basename(BTC);
const bytes = readFileSync(BTC);
const changed = Buffer.concat([bytes, Buffer.from('\n')]);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

const sweep = (data: string): string[] => [
  'sweep', '--strategy', 'sma-cross', '--data', `BTC=${data}`, '--params', '{"period":"1h","amount":"15000","leverage":"3"}',
  '--from', '2018-03-01', '--to', '2018-03-09', '--json', '--out', tempDir('pb-qd-out-'),
];

describe.skipIf(!REDIS)('queue workers and their data', () => {
  const redis = redisForTests(REDIS);
  let server: FileServer;
  let asked = 0;
  let served = 0;
  beforeAll(async () => {
    server = await serveFiles({
      [NAME]: () => ({ body: bytes }),
      // what it serves changes after the first request (the coordinator's)
      'changing.csv': () => ({ body: asked++ === 0 ? bytes : changed }),
      // gone after the first request
      'vanishing.csv': () => (served++ === 0 ? { body: bytes } : null),
    });
  });
  beforeEach(async () => {
    // each test's runs are its own, not answers stored by the one before
    const client = new Redis(redis().port, '127.0.0.1');
    await client.flushall();
    client.disconnect();
  });
  afterAll(async () => {
    await server?.close();
  });

  /** One run of `data` on the queue, taken by a worker with a cache of its own: the coordinator's answer and the worker's log. */
  const oneRun = (data: string, o: { worker?: string[]; cwd?: string } = {}) =>
    withWorker(redis().url, o.worker ?? [], { env: { PROPBOT_CACHE_DIR: tempDir('pb-qd-cache-') } }, async (w) => {
      const args = [...sweep(data), '--grid', 'fast=4', '--grid', 'slow=16', '--queue', redis().url];
      const r = await propbot(args, { env: { PROPBOT_CACHE_DIR: tempDir('pb-qd-cache-') }, ...(o.cwd !== undefined ? { cwd: o.cwd } : {}) });
      return { ...r, log: w.log };
    });

  it('a worker reads the data from a URL into its own cache, once, and the figures are the local run\'s', async () => {
    const grid = ['--grid', 'fast=3,5', '--grid', 'slow=12,20'];
    const workerCache = tempDir('pb-qd-cache-');
    await withWorker(redis().url, [], { env: { PROPBOT_CACHE_DIR: workerCache } }, async (w) => {
      const local = await propbot([...sweep(BTC), ...grid, '--workers', '1']);
      expect(local.code).toBe(0);
      const dist = await propbot([...sweep(server.url(NAME)), ...grid, '--queue', redis().url], { env: { PROPBOT_CACHE_DIR: tempDir('pb-qd-cache-') } });
      expect(dist.stderr).toBe('');
      expect(dist.code).toBe(0);
      expect(byParams(JSON.parse(dist.stdout))).toEqual(byParams(JSON.parse(local.stdout)));
      expect(JSON.parse(dist.stdout).runs).toBe(4);
      // one download for the coordinator, one for the worker; its other three runs used its copy
      expect(server.requests.filter((r) => r.path === NAME && r.status === 200)).toHaveLength(2);
      expect(w.log.match(/fetched into/g)).toHaveLength(1);
      expect(readdirSync(path.join(workerCache, 'data'))).toContain(`${sha(bytes)}-${NAME}`);
    });
  }, 300_000);

  it('a URL that serves other bytes to the worker than to the coordinator is refused with both hashes', async () => {
    const r = await oneRun(server.url('changing.csv'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`data ${server.url('changing.csv')} differs: coordinator sha256 ${sha(bytes)}, worker sha256 ${sha(changed)}`);
  }, 300_000);

  it('a URL the worker gets a 404 from fails the run, naming the URL and the status', async () => {
    const r = await oneRun(server.url('vanishing.csv'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`propbot: run 0 ({"fast":4,"slow":16}) failed on a worker: cannot fetch ${server.url('vanishing.csv')}: HTTP 404 Not Found\n`);
    expect(r.log).toContain(`run 0: cannot fetch ${server.url('vanishing.csv')}: HTTP 404 Not Found`);
  }, 300_000);

  it('--data-root: a path under the coordinator\'s working directory is read from the same place under the worker\'s root', async () => {
    const here = tempDir('pb-qd-coord-');
    mkdirSync(path.join(here, 'data'));
    copyFileSync(BTC, path.join(here, 'data', 'btc.csv'));
    const root = tempDir('pb-qd-root-');
    mkdirSync(path.join(root, 'data'));
    const theirs = path.join(root, 'data', 'btc.csv');
    copyFileSync(BTC, theirs);
    // a copy that differs, so the refusal shows which file the worker read
    appendFileSync(theirs, '\n');
    const r = await oneRun('data/btc.csv', { worker: ['--data-root', root], cwd: here });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`data file ${theirs} differs: coordinator sha256 ${sha(bytes)}, worker sha256 ${sha(changed)}`);
  }, 300_000);
});

describe('propbot worker data options', () => {
  it('refuses --data-root with --data-dir, and a root that is not a folder', async () => {
    const both = await propbot(['worker', '--queue', 'redis://127.0.0.1:1', '--data-root', '.', '--data-dir', '.']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('propbot: --data-root: give --data-root or --data-dir, not both\n');
    const missing = path.join(tempDir('pb-qd-'), 'nope');
    const r = await propbot(['worker', '--queue', 'redis://127.0.0.1:1', '--data-root', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`propbot: --data-root: ${missing} is not a folder\n`);
  });
});
