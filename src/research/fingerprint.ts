/**
 * What a distributed run must agree on: the bytes of every data file and of the strategy, and the build
 * of propbot itself. The coordinator puts its hashes into every job; a worker computes its own and
 * refuses a job whose hashes differ, naming both, instead of adding figures of another data set or
 * another engine to the sweep.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Fingerprint {
  /** `version+hash` of the running propbot build (every module of it). */
  readonly propbot: string;
  /** sha256 of each data file and of the strategy file, by the name the job gives it (a path, or a data URL). */
  readonly files: Readonly<Record<string, string>>;
}

const fileHashes = new Map<string, { size: number; mtimeMs: number; hash: string }>();

/** sha256 of a file's bytes, remembered while its size and mtime stay the same. */
export function fileSha256(file: string): string {
  const st = statSync(file);
  const known = fileHashes.get(file);
  if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.hash;
  const hash = createHash('sha256').update(readFileSync(file)).digest('hex');
  fileHashes.set(file, { size: st.size, mtimeMs: st.mtimeMs, hash });
  return hash;
}

let buildCache: string | undefined;
/** The package version and a hash over every module of this build (dist/ with its bundle when built, src/ from source). */
export function propbotBuild(): string {
  if (buildCache !== undefined) return buildCache;
  const root = fileURLToPath(new URL('../', import.meta.url));
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(c?js|ts)$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.test.ts')) hash.update(path.relative(root, full)).update('\0').update(readFileSync(full));
    }
  };
  walk(root);
  buildCache = `${pkg.version}+${hash.digest('hex').slice(0, 16)}`;
  return buildCache;
}

/**
 * The fingerprint of the files a job reads, each under `key` (the coordinator's name for it) and read
 * from `file` (where this machine has it). A strategy counts when it is a file, not a package name.
 */
export function fingerprintOf(files: ReadonlyArray<{ readonly key: string; readonly file: string }>): Fingerprint {
  const out: Record<string, string> = {};
  for (const { key, file } of files) if (existsSync(file) && statSync(file).isFile()) out[key] = fileSha256(file);
  return { propbot: propbotBuild(), files: out };
}

/** Why `mine` and `theirs` disagree, naming both hashes; null when they agree. */
export function mismatch(theirs: Fingerprint, mine: Fingerprint, where: (file: string) => string = (f) => f): string | null {
  if (theirs.propbot !== mine.propbot) return `propbot build differs: coordinator ${theirs.propbot}, worker ${mine.propbot}`;
  for (const [file, hash] of Object.entries(theirs.files)) {
    const local = mine.files[file];
    if (local === undefined) return `${where(file)} is missing on this worker (coordinator's sha256 ${hash})`;
    if (local !== hash) return `${where(file)} differs: coordinator sha256 ${hash}, worker sha256 ${local}`;
  }
  return null;
}

/** sha256 of a value's JSON with object keys sorted: the same content always gives the same hash. */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
