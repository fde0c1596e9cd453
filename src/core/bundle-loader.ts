/**
 * Loads the build's one CommonJS bundle of propbot (dist/propbot.cjs, written by scripts/bundle.ts)
 * with a V8 code cache. Node 20 has no compile cache for ES modules, and compiling propbot's ~2 MB
 * of JavaScript, then compiling each function again lazily on its first call, was most of a
 * backtest's start-up. A `vm.Script` takes V8's cached data instead: the functions a run used,
 * compiled once when the build ran one (scripts/code-cache.mjs). When that cache does not fit this
 * Node (another version than the build's), the process writes one at exit to this user's cache
 * folder (cache-folders.ts), which the next process takes.
 *
 * Nothing depends on the cache. It is offered only when its header names this very bundle (sha256),
 * this Node and V8, this architecture, and its payload's own sha256 matches: V8's release builds do
 * not check the payload (given one with 64 flipped bytes, Node 20 aborted with "unreachable code"),
 * and V8 checks only the source's length, not its text. V8 then checks its version and flags and may
 * still reject it. Any miss, and any read error, compiles from source, as without a cache.
 *
 * The bundle file is one function expression taking CommonJS's five arguments and the two below.
 *
 * Only this file (with cache-folders.ts) is a real ES module of the bundle's: `import()` and `import.meta.resolve` inside a
 * `vm.Script` given cached data fail in Node 20 ("A dynamic import callback was not specified"), so
 * the bundle calls the two functions handed to it here (the build rewrites its `import(`).
 * The dist/ files that plugins, the CLI and workers import are thin ES modules re-exporting
 * `entry(name)`; this module is loaded once per thread, so each thread has one propbot.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { isMainThread } from 'node:worker_threads';
import { userCodeCacheFolder } from './cache-folders.js';

const DIST = new URL('../', import.meta.url);
const BUNDLE = fileURLToPath(new URL('propbot.cjs', DIST));
/**
 * Beside the bundle, made by the build; when it does not fit, one this user's processes write
 * (cache-folders.ts). `PROPBOT_CODE_CACHE` names the one file to use instead, or `off`.
 */
const BUILT_CACHE = path.join(path.dirname(BUNDLE), 'propbot.code-cache');
const MAGIC = 'propbot-code-cache 1';

/** What the bundle's wrapper function is given besides CommonJS's five. */
export interface BundleHost {
  /** dist/ as a URL ending in `/`: each module's `import.meta.url` is its own file under it. */
  readonly dist: string;
  readonly resolve: (specifier: string) => string;
}

type Entries = Record<string, () => Record<string, unknown>>;

export interface CodeCacheStatus {
  /** The cache file looked for, or null when turned off. */
  readonly file: string | null;
  /** Why it was not given to V8, when it was not: `missing`, `off`, `stale` or `corrupt`. */
  readonly skipped?: 'missing' | 'off' | 'stale' | 'corrupt';
  /** V8's verdict on a cache it was given. */
  readonly rejected?: boolean;
}

let loaded: { script: Script; entries: Entries; identity: Identity; status: CodeCacheStatus } | undefined;

/** The namespace of one of the bundle's entries (`index`, `cli/main`, `vendor/zod`, …). */
export function entry(name: string): Record<string, unknown> {
  const load = (loaded ??= loadBundle()).entries[name];
  if (load === undefined) throw new Error(`propbot bundle has no entry ${name}`);
  return load();
}

/** How this thread's bundle was compiled. */
export function codeCacheStatus(): CodeCacheStatus {
  return (loaded ??= loadBundle()).status;
}

/**
 * Writes what V8 has compiled of the bundle so far to `file` (atomically), to be offered next time.
 * Called after a run, the cache holds every function the run called, not only the top level.
 */
export function writeCodeCache(file: string = BUILT_CACHE): void {
  const { script, identity } = (loaded ??= loadBundle());
  const data = script.createCachedData();
  const header = { magic: MAGIC, ...identity, data: sha256(data) };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), data]), { mode: 0o600 });
  renameSync(tmp, file);
}

function loadBundle(): NonNullable<typeof loaded> {
  const source = readFileSync(BUNDLE);
  const id = identityOf(source);
  const { file, cache, refresh } = chooseCache(id);
  // The build writes ASCII (scripts/bundle.ts): latin1 is then the same text, decoded ~10x faster, and
  // the file is a function expression, so V8 compiles this very string.
  const script = new Script(source.toString(isAscii(source) ? 'latin1' : 'utf8'), {
    filename: BUNDLE,
    ...(cache.data !== undefined ? { cachedData: cache.data } : {}),
  });
  const status: CodeCacheStatus =
    cache.data !== undefined ? { file, rejected: script.cachedDataRejected === true } : { file, skipped: cache.skipped };
  const module = { exports: {} as Entries };
  const host: BundleHost = { dist: DIST.href, resolve: (specifier) => import.meta.resolve(specifier) };
  const importModule = (specifier: string): Promise<unknown> => import(specifier);
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(BUNDLE),
    module,
    BUNDLE,
    path.dirname(BUNDLE),
    host,
    importModule,
  );
  // Once per Node and bundle: at exit the cache holds what the whole process compiled. Workers leave
  // it to the main thread.
  if (refresh !== undefined && isMainThread) {
    process.once('exit', () => {
      try {
        writeCodeCache(refresh);
      } catch {
        // Next time compiles from source again.
      }
    });
  }
  return { script, entries: module.exports, identity: id, status };
}

/** The cache file to offer V8, and where to write one at exit when none fits. */
function chooseCache(id: Identity): { file: string | null; cache: CachedData; refresh?: string } {
  const chosen = process.env['PROPBOT_CODE_CACHE'];
  if (chosen === 'off') return { file: null, cache: { skipped: 'off' } };
  if (chosen) return { file: path.resolve(chosen), cache: readCache(path.resolve(chosen), id) };
  const built = readCache(BUILT_CACHE, id);
  if (built.data !== undefined) return { file: BUILT_CACHE, cache: built };
  const folder = userCodeCacheFolder();
  if (folder === null) return { file: BUILT_CACHE, cache: built };
  const file = path.join(folder, `${id.bundle.slice(0, 16)}-${id.node}-${id.arch}.bin`);
  const mine = readCache(file, id);
  return mine.data !== undefined ? { file, cache: mine } : { file, cache: mine, refresh: file };
}

interface CachedData {
  readonly data?: Buffer;
  readonly skipped?: CodeCacheStatus['skipped'];
}

function readCache(file: string, want: Identity): CachedData {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { skipped: 'missing' };
  }
  const newline = bytes.indexOf(10);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(bytes.subarray(0, newline < 0 ? 0 : newline).toString('utf8')) as Record<string, unknown>;
  } catch {
    return { skipped: 'corrupt' };
  }
  if (header['magic'] !== MAGIC) return { skipped: 'corrupt' };
  for (const key of Object.keys(want) as (keyof typeof want)[]) if (header[key] !== want[key]) return { skipped: 'stale' };
  const data = bytes.subarray(newline + 1);
  return header['data'] === sha256(data) ? { data } : { skipped: 'corrupt' };
}

/** What a cache must have been made for. */
interface Identity {
  readonly bundle: string;
  readonly node: string;
  readonly v8: string;
  readonly arch: string;
}

function identityOf(source: Buffer): Identity {
  return { bundle: sha256(source), node: process.version, v8: process.versions.v8, arch: process.arch };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
