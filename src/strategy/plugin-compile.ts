/**
 * Compiling a plugin's TypeScript with esbuild, the copy tsx ships, with the options tsx uses (no
 * tsconfig, inline source maps, so stack traces name the line of the .ts file), and the disk cache of
 * what was compiled. The hooks (plugin-hooks.ts) and the direct loader (plugin-direct.ts) share both.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The part of esbuild's API used here. */
export interface Esbuild {
  transform(source: string, options: Record<string, unknown>): Promise<{ code: string; map: string }>;
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ path: string; text: string }> }>;
}

let esbuild: { readonly api: () => Esbuild; readonly version: string } | undefined;

/**
 * esbuild as tsx ships it (propbot depends on tsx, and through it on the esbuild tsx was tested with).
 * Its version is read at once (it keys the cache); the API is loaded only to compile.
 */
export function findEsbuild(): { readonly api: () => Esbuild; readonly version: string } {
  if (!esbuild) {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
    const { version } = JSON.parse(readFileSync(fromTsx.resolve('esbuild/package.json'), 'utf8')) as { version: string };
    let api: Esbuild | undefined;
    esbuild = { version, api: () => (api ??= fromTsx('esbuild') as Esbuild) };
  }
  return esbuild;
}

const LOADERS: Readonly<Record<string, string>> = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.jsx': 'jsx' };

/**
 * TypeScript to JavaScript with an inline source map, as tsx compiles it (no tsconfig). The output is
 * kept on disk by the hash of everything it depends on (esbuild's version, the options, which name
 * the file and the Node version, and the source), so a plugin run again is not compiled again: loading
 * esbuild and starting its service cost more than the rest of loading a plugin. tsx kept such a cache.
 */
export async function compile(source: string, file: string, format: 'module' | 'commonjs'): Promise<string> {
  const { api, version } = findEsbuild();
  const options = compileOptions(file, format);
  const key = cacheKey([version, options, source]);
  const cached = readCached(`${key}.js`);
  if (cached !== undefined) return cached;
  const { code, map } = await api().transform(source, options);
  const output = withInlineMap(code, map, file);
  writeCached(`${key}.js`, output);
  return output;
}

/** esbuild's options for `file`, tsx's (see plugin-hooks.ts). */
export function compileOptions(file: string, format: 'module' | 'commonjs') {
  return {
    loader: LOADERS[path.extname(file)] ?? 'ts',
    format: format === 'module' ? 'esm' : 'cjs',
    target: `node${process.versions.node}`,
    sourcefile: file,
    sourcemap: 'external',
    sourcesContent: false,
    keepNames: true,
    minifyWhitespace: true,
  };
}

export function cacheKey(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * The code with its source map inline, the map naming `file` by its URL: unambiguous whatever the
 * module's own URL is, so a stack names the .ts file and its line.
 */
export function withInlineMap(code: string, map: string, file: string): string {
  const fixed = JSON.parse(map) as { sources: string[] };
  fixed.sources = fixed.sources.map((s) => (path.isAbsolute(s) ? pathToFileURL(s).href : path.basename(s) === path.basename(file) ? pathToFileURL(file).href : s));
  return `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(fixed)).toString('base64')}`;
}

let cacheFolder: string | null | undefined;

/**
 * This user's cache folder in the temporary directory, or null when it cannot be trusted: it must be
 * a real folder (not a link), owned by this user and writable by no one else, since what is in it runs.
 */
export function compileCacheFolder(): string | null {
  if (cacheFolder === undefined) {
    cacheFolder = null;
    const uid = process.getuid?.();
    const dir = path.join(tmpdir(), `propbot-${uid ?? 'user'}`, 'plugins');
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const d of [path.dirname(dir), dir]) {
        const s = lstatSync(d);
        if (!s.isDirectory() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o022) !== 0) return cacheFolder;
      }
      cacheFolder = dir;
    } catch {
      // No cache: every run compiles.
    }
  }
  return cacheFolder;
}

/** The path of a file in the cache, by name (the key and an extension), if it is there. */
export function cachedFile(name: string): string | undefined {
  const dir = compileCacheFolder();
  return dir !== null && existsSync(path.join(dir, name)) ? path.join(dir, name) : undefined;
}

/** The text of a file in the cache, by name (the key and an extension). */
export function readCached(name: string): string | undefined {
  const dir = compileCacheFolder();
  if (dir === null) return undefined;
  try {
    return readFileSync(path.join(dir, name), 'utf8');
  } catch {
    return undefined;
  }
}

/** Written whole under a temporary name and renamed, so a reader never sees half a file. */
export function writeCached(name: string, output: string): void {
  const dir = compileCacheFolder();
  if (dir === null) return;
  const temporary = path.join(dir, `${name}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(temporary, output, { mode: 0o600 });
    renameSync(temporary, path.join(dir, name));
  } catch {
    rmSync(temporary, { force: true });
  }
}
