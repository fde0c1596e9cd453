/**
 * Data files named by an http(s) URL, so that every machine of a distributed sweep reads the same data
 * from one place instead of each needing a copy at the same path. A file is downloaded into a cache
 * folder under the sha256 of its content (`<sha256>-<name>`), and that hash is the data's identity: the
 * coordinator puts it in every job, and a worker that already holds a file with that hash uses it
 * without asking the server again; one that fetches other bytes is refused like any data mismatch.
 *
 * The coordinator asks the server on every run, conditionally when the server gave an ETag or a
 * Last-Modified date (a 304 keeps the cached copy), so a file changed at its source is never missed.
 * A download is written to a temporary file and renamed into place only once whole, so a file under
 * its hash is always complete, and processes sharing the cache never see half of one. A download
 * larger than the cap (2 GiB, or PROPBOT_DATA_MAX_BYTES) is refused rather than allowed to fill a disk.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { byteSetting } from '../../core/byte-setting.js';
import { propbotCacheDir } from '../../core/cache-folders.js';
import { ensureDirectory } from '../../core/directories.js';
import { ConfigError, PropbotError } from '../../core/errors.js';

/** A data file given as a URL (`https://host/btc-1h.csv`): fetched, not opened. */
export function isDataUrl(file: string): boolean {
  return /^https?:\/\//i.test(file);
}

/** Something that looks like a URL (`s3://…`, `ftp://…`) but that propbot cannot fetch; null when fine. */
export function dataUrlProblem(file: string): string | null {
  if (isDataUrl(file)) {
    try {
      new URL(file);
      return null;
    } catch {
      return `not a valid URL: ${JSON.stringify(file)}`;
    }
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(file)?.[1];
  return scheme === undefined ? null : `only http:// and https:// URLs can be fetched, got ${scheme}:// (${JSON.stringify(file)}); download the file and name its path`;
}

export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

/** A URL that could not be fetched: the URL and the HTTP status, or the network error. */
export class DataFetchError extends PropbotError {
  readonly url: string;
  readonly status: number | undefined;
  /** Asking again will not help (404, 403, too large); a network error or a 5xx may pass on a retry. */
  readonly permanent: boolean;
  constructor(url: string, what: string, o: { status?: number; permanent: boolean }) {
    super('data_fetch', `cannot fetch ${url}: ${what}`);
    this.url = url;
    this.status = o.status;
    this.permanent = o.permanent;
  }
}

export interface FetchDataOptions {
  /** The cache folder (files go to its `data/`); default `dataCacheDir()`. */
  readonly cacheDir?: string;
  /** Largest download allowed, bytes; default `maxDownloadBytes()`. */
  readonly maxBytes?: number;
  /** The content wanted (a coordinator's hash): a cached file with it is used without a request. */
  readonly sha256?: string;
  /** Time to wait for the server's answer, ms (default 60 s). */
  readonly timeoutMs?: number;
}

export interface FetchedData {
  /** The local copy. */
  readonly file: string;
  readonly sha256: string;
  /** `cache`: held already, no request; `not-modified`: the server said 304; `download`: fetched now. */
  readonly how: 'cache' | 'not-modified' | 'download';
}

/** `$PROPBOT_CACHE_DIR`, else `$XDG_CACHE_HOME/propbot`, else `~/.cache/propbot` (core/cache-folders.ts). */
export function dataCacheDir(env: Record<string, string | undefined> = process.env): string {
  return propbotCacheDir(env);
}

/** `$PROPBOT_DATA_MAX_BYTES` (a whole number of bytes), else 2 GiB. */
export function maxDownloadBytes(env: Record<string, string | undefined> = process.env): number {
  return byteSetting('PROPBOT_DATA_MAX_BYTES', DEFAULT_MAX_DOWNLOAD_BYTES, env);
}

interface UrlRecord {
  readonly url: string;
  readonly sha256: string;
  readonly etag?: string;
  readonly lastModified?: string;
}

// One download per URL at a time in this process: jobs starting together share it.
const inFlight = new Map<string, Promise<FetchedData>>();

/** The local copy of the file at `url`, fetched into the cache unless held already. */
export function fetchDataFile(url: string, options: FetchDataOptions = {}): Promise<FetchedData> {
  const key = `${url}\0${options.sha256 ?? ''}\0${options.cacheDir ?? ''}`;
  const running = inFlight.get(key);
  if (running) return running;
  const p = fetchOnce(url, options).finally(() => inFlight.delete(key));
  inFlight.set(key, p);
  return p;
}

async function fetchOnce(url: string, options: FetchDataOptions): Promise<FetchedData> {
  const dir = path.join(options.cacheDir ?? dataCacheDir(), 'data');
  // This user's only, as the rest of the cache folder is made: the rows and code caches refuse a root
  // others may write (core/cache-folders.ts), and under a umask of 002 (many desktops) a download
  // that came first left the root group-writable, turning both off without a word.
  ensureDirectory(dir, 0o700);
  const name = fileName(url);
  if (options.sha256 !== undefined) {
    const held = path.join(dir, `${options.sha256}-${name}`);
    if (existsSync(held)) return { file: held, sha256: options.sha256, how: 'cache' };
  }
  const recordFile = path.join(dir, `url-${createHash('sha256').update(url).digest('hex').slice(0, 32)}.json`);
  const known = readRecord(recordFile, url);
  const knownFile = known ? path.join(dir, `${known.sha256}-${name}`) : undefined;
  const conditional = known && knownFile && existsSync(knownFile) ? known : undefined;
  const maxBytes = options.maxBytes ?? maxDownloadBytes();

  // Loaded here: only a data file given by URL needs an HTTP client, and loading axios is ~70 modules.
  const { default: axios } = await import('axios');
  let response;
  try {
    response = await axios.get<Readable>(url, {
      responseType: 'stream',
      timeout: options.timeoutMs ?? 60_000,
      validateStatus: () => true,
      maxRedirects: 5,
      headers: {
        ...(conditional?.etag ? { 'If-None-Match': conditional.etag } : {}),
        ...(conditional?.lastModified ? { 'If-Modified-Since': conditional.lastModified } : {}),
      },
    });
  } catch (err) {
    throw networkError(url, err);
  }
  const { status } = response;
  if (status === 304 && conditional) {
    response.data.destroy();
    return { file: knownFile!, sha256: conditional.sha256, how: 'not-modified' };
  }
  if (status < 200 || status > 299) {
    response.data.destroy();
    const text = response.statusText ? ` ${response.statusText}` : '';
    throw new DataFetchError(url, `HTTP ${status}${text}`, { status, permanent: status >= 400 && status < 500 && status !== 408 && status !== 429 });
  }
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes) {
    response.data.destroy();
    throw tooLarge(url, `${length} bytes`, maxBytes);
  }

  const temp = path.join(dir, `.part-${process.pid}-${randomBytes(6).toString('hex')}`);
  let sha256: string;
  try {
    sha256 = await download(url, response.data, temp, maxBytes);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  const file = path.join(dir, `${sha256}-${name}`);
  // Another process may have put the same bytes there meanwhile: its copy is as good as this one.
  if (existsSync(file)) rmSync(temp, { force: true });
  else renameSync(temp, file);
  const etag = header(response.headers['etag']);
  const lastModified = header(response.headers['last-modified']);
  writeRecord(recordFile, { url, sha256, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) });
  return { file, sha256, how: 'download' };
}

function download(url: string, body: Readable, temp: string, maxBytes: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const hash = createHash('sha256');
    const out = createWriteStream(temp);
    let bytes = 0;
    let failed = false;
    const fail = (err: Error): void => {
      if (failed) return;
      failed = true;
      body.destroy();
      out.destroy();
      reject(err);
    };
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) return fail(tooLarge(url, `more than ${maxBytes} bytes`, maxBytes));
      hash.update(chunk);
    });
    body.on('error', (err) => fail(new DataFetchError(url, `the download broke off after ${bytes} bytes: ${describe(err)}`, { permanent: false })));
    body.pipe(out);
    out.on('error', (err) => fail(new PropbotError('data_cache', `cannot write the download of ${url} to ${temp}: ${describe(err)}`)));
    out.on('finish', () => {
      if (!failed) resolve(hash.digest('hex'));
    });
  });
}

function networkError(url: string, err: unknown): DataFetchError {
  return new DataFetchError(url, describe(err), { permanent: false });
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  return e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

function tooLarge(url: string, size: string, maxBytes: number): DataFetchError {
  return new DataFetchError(url, `${size} is more than the ${maxBytes} bytes a download may be (raise PROPBOT_DATA_MAX_BYTES to allow it)`, { permanent: true });
}

/** The URL's last path segment, kept readable and safe as a file name (`btc-1h.csv`). */
function fileName(url: string): string {
  let last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    last = decodeURIComponent(last);
  } catch {
    // a stray % in the name: keep it encoded
  }
  const safe = last.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(-80);
  return safe || 'data';
}

function header(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function readRecord(file: string, url: string): UrlRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as UrlRecord;
    return r.url === url && /^[0-9a-f]{64}$/.test(r.sha256) ? r : undefined;
  } catch {
    return undefined;
  }
}

function writeRecord(file: string, record: UrlRecord): void {
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, `${JSON.stringify(record)}\n`);
  renameSync(temp, file);
}
