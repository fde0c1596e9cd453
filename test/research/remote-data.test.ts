/**
 * Data files named by an http(s) URL: fetched into a cache under the content's sha256, asked for again
 * conditionally, refused with the URL and the HTTP status or network error, capped in size; and the
 * CLI reading a scenario's data from a URL as it would from the file. The server is node:http on
 * 127.0.0.1 (see ./http.ts), closed after.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownedCacheFolder } from '../../src/core/cache-folders.js';
import { DataFetchError, fetchDataFile } from '../../src/feed/files/remote.js';
import { loadRunConfig } from '../../src/runtime/run-config.js';
import { REPO, tempDir } from '../backtest/helpers.js';
import { freePort } from './redis.js';
import { BTC, propbot } from './cli.js';
import { serveFiles, type FileServer } from './http.js';

const NAME = path.basename(BTC);
const bytes = readFileSync(BTC);
const sha = createHash('sha256').update(bytes).digest('hex');

describe('data from a URL', () => {
  let server: FileServer;
  beforeAll(async () => {
    server = await serveFiles({
      [NAME]: () => ({ body: bytes }),
      'streamed.csv': () => ({ body: bytes, chunked: true }),
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('downloads into the cache under the content hash, then asks conditionally; a known hash needs no request', async () => {
    const cacheDir = tempDir('pb-cache-');
    const first = await fetchDataFile(server.url(NAME), { cacheDir });
    expect(first).toEqual({ file: path.join(cacheDir, 'data', `${sha}-${NAME}`), sha256: sha, how: 'download' });
    expect(readFileSync(first.file).equals(bytes)).toBe(true);

    const before = server.requests.length;
    const again = await fetchDataFile(server.url(NAME), { cacheDir });
    expect(again).toEqual({ ...first, how: 'not-modified' });
    expect(server.requests.slice(before)).toEqual([{ path: NAME, status: 304, conditional: true }]);

    const known = await fetchDataFile(server.url(NAME), { cacheDir, sha256: sha });
    expect(known).toEqual({ ...first, how: 'cache' });
    expect(server.requests.length).toBe(before + 1);
    // nothing half-written is left behind
    expect(readdirSync(path.join(cacheDir, 'data')).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('makes the cache folders it needs for its user alone, so the rows cache may use the same root', async () => {
    const cacheDir = path.join(tempDir('pb-cache-'), 'cache', 'propbot');
    await fetchDataFile(server.url(NAME), { cacheDir });
    for (const dir of [path.dirname(cacheDir), cacheDir, path.join(cacheDir, 'data')]) expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    expect(ownedCacheFolder('rows', { PROPBOT_CACHE_DIR: cacheDir })).toBe(path.join(cacheDir, 'rows'));
  });

  it('a 404 names the URL and the status; a closed port names the network error', async () => {
    const url = server.url('missing.csv');
    const err = await fetchDataFile(url, { cacheDir: tempDir('pb-cache-') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataFetchError);
    expect((err as DataFetchError).message).toBe(`cannot fetch ${url}: HTTP 404 Not Found`);
    expect((err as DataFetchError).permanent).toBe(true);

    const closed = `http://127.0.0.1:${await freePort()}/x.csv`;
    await expect(fetchDataFile(closed, { cacheDir: tempDir('pb-cache-') })).rejects.toThrow(new RegExp(`^cannot fetch ${closed.replace(/\./g, '\\.')}: .*ECONNREFUSED`));
  });

  it('refuses a download over the size cap, announced or streamed, and keeps nothing of it', async () => {
    for (const name of [NAME, 'streamed.csv']) {
      const cacheDir = tempDir('pb-cache-');
      await expect(fetchDataFile(server.url(name), { cacheDir, maxBytes: 100_000 })).rejects.toThrow(
        `cannot fetch ${server.url(name)}: ${name === NAME ? `${bytes.length} bytes` : 'more than 100000 bytes'} is more than the 100000 bytes a download may be (raise PROPBOT_DATA_MAX_BYTES to allow it)`,
      );
      expect(readdirSync(path.join(cacheDir, 'data'))).toEqual([]);
    }
  });

  it('propbot backtest reads --data ASSET=URL as it reads the file, and the report names the URL', async () => {
    const args = ['backtest', '--strategy', 'sma-cross', '--params', '{"period":"1h"}', '--from', '2018-03-01', '--to', '2018-03-08', '--json'];
    const env = { PROPBOT_CACHE_DIR: tempDir('pb-cache-') };
    const [byFile, byUrl] = await Promise.all([
      propbot([...args, '--data', `BTC=${BTC}`, '--out', tempDir('pb-url-')], { env }),
      propbot([...args, '--data', `BTC=${server.url(NAME)}`, '--out', tempDir('pb-url-')], { env }),
    ]);
    expect(byUrl.stderr).toBe('');
    expect(byUrl.code).toBe(0);
    const a = JSON.parse(byFile.stdout);
    const b = JSON.parse(byUrl.stdout);
    expect(b.summary).toEqual(a.summary);
    expect(b.fills).toEqual(a.fills);
    expect(b.data.map((d: { file: string }) => d.file)).toEqual([server.url(NAME)]);
    expect(readdirSync(path.join(env.PROPBOT_CACHE_DIR, 'data'))).toContain(`${sha}-${NAME}`);
  }, 120_000);

  it('a scenario whose data URL answers 404 or is no http(s) URL is refused at its key and line', async () => {
    const dir = tempDir('pb-url-');
    const scenario = (file: string): string => {
      const f = path.join(dir, `s-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(f, ['name: url', 'strategy:', '  use: sma-cross', '  params: { period: 1h }', 'data:', '  - asset: BTC', `    file: ${file}`, ''].join('\n'));
      return f;
    };
    const missing = scenario(server.url('missing.csv'));
    const r = await propbot(['backtest', missing], { env: { PROPBOT_CACHE_DIR: tempDir('pb-cache-') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`propbot: ${missing}:line 7: data.0.file: cannot fetch ${server.url('missing.csv')}: HTTP 404 Not Found\n`);

    const s3 = scenario('s3://bucket/btc.csv');
    const s = await propbot(['sweep', s3, '--grid', 'fast=3']);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain(`${s3}:line 7: data.0.file: only http:// and https:// URLs can be fetched, got s3://`);

    const flag = await propbot(['backtest', '--strategy', 'sma-cross', '--data', `BTC=${server.url('missing.csv')}`], { env: { PROPBOT_CACHE_DIR: tempDir('pb-cache-') } });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(`propbot: --data: cannot fetch ${server.url('missing.csv')}: HTTP 404 Not Found\n`);
  }, 120_000);

  it('a paper run refuses a URL for its market file, naming the key', () => {
    const dir = tempDir('pb-url-');
    const file = path.join(dir, 'paper.yaml');
    const text = readFileSync(path.join(REPO, 'config/paper.yaml'), 'utf8').replace(/(\n\s+file: ).*/, `$1${server.url(NAME)}`);
    writeFileSync(file, text);
    expect(() => loadRunConfig(file)).toThrow(/paper\.markets\.0\.file: expected a local file: download the data and name its path/);
  });
});
