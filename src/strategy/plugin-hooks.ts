/**
 * Module hooks for strategy plugins, registered with `module.register` by the loader (they run on
 * Node's loader thread). A plugin in any folder imports 'propbot' and gets the very propbot that runs
 * it, in the same module graph: classes, symbols and `instanceof` agree on both sides, and there is one
 * copy of propbot, zod, decimal.js, RxJS and pino in memory.
 *
 * - `propbot` (and `propbot/…`) from anywhere, and the libraries whose objects cross the plugin boundary
 *   from the user's own files, resolve as if propbot itself imported them. A plugin needs no
 *   `npm install`, and a propbot (or zod) installed beside it is not loaded a second time.
 * - A plugin file of the user's (.ts, .mts, .js outside any node_modules) is an ES module even in a
 *   folder without a package.json: TypeScript plugins are written with `import`/`export`, and loading
 *   one as CommonJS would go through `require`, which these hooks (and one graph) do not reach.
 * - TypeScript (.ts, .mts, .cts, .tsx) and JSX are compiled by esbuild, the copy tsx ships, with the
 *   options tsx uses (no tsconfig, inline source maps, so stack traces name the line of the .ts file).
 *   Imports are found the way tsx finds them: `./x.js` is `./x.ts` when only that exists (and from a
 *   TypeScript file, when both do), `./x` tries the usual extensions and `./dir` its index file.
 *   Registering all of tsx cost a few hundred milliseconds of start-up; this is what plugins use of it.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire, type InitializeHook, type LoadHook, type ResolveHook } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface PluginHooksData {
  /** URL of the running propbot's entry module (dist/index.js). */
  readonly propbot: string;
  /** URL of dist/vendor/, the entries of the libraries propbot bundles (scripts/bundle.ts). */
  readonly vendor: string;
}

/** Packages resolved from propbot's own folder when a user's file imports them. */
const SHARED = new Set(['propbot', 'zod', 'decimal.js', 'rxjs', 'pino']);

let propbotEntry: string | undefined;
let vendorFolder: string | undefined;

export const initialize: InitializeHook<PluginHooksData> = (data) => {
  propbotEntry = data.propbot;
  vendorFolder = data.vendor;
};

export const resolve: ResolveHook = async (specifier, context, next) => {
  const name = packageName(specifier);
  if (propbotEntry !== undefined && name !== undefined && SHARED.has(name)) {
    if (name === 'propbot' || isUserFile(context.parentURL)) {
      const vendored = vendorEntry(specifier);
      if (vendored !== undefined) return { url: vendored, format: 'module', shortCircuit: true };
      return next(specifier, { ...context, parentURL: propbotEntry });
    }
  }
  const resolved = await resolveFile(specifier, context, next);
  const ts = tsFormat(resolved.url);
  if (ts !== undefined) return { ...resolved, format: ts };
  // A .js file: CommonJS by Node's default, or left open when no package.json says (Node then guesses
  // at load time); the user's are modules unless their package.json says "commonjs".
  const open = resolved.format === 'commonjs' || resolved.format === undefined || resolved.format === null;
  if (open && resolved.url.endsWith('.js') && isUserFile(resolved.url) && !declaresCommonJs(resolved.url)) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
};

export const load: LoadHook = async (url, context, next) => {
  // JSON imported as TypeScript writes it (`import data from './data.json'`), as tsx allows.
  if (JSON_FILE.test(url) && context.importAttributes?.['type'] === undefined) {
    return next(url, { ...context, importAttributes: { ...context.importAttributes, type: 'json' } });
  }
  if (!url.startsWith('file:') || !COMPILED.test(urlPath(url))) return next(url, context);
  const file = fileURLToPath(url);
  const format = context.format === 'commonjs' ? 'commonjs' : 'module';
  return { format, source: await compile(await readFile(file, 'utf8'), file, format), shortCircuit: true };
};

// ---------------------------------------------------------------------------------------- resolving

/** Files compiled here: TypeScript, and JSX as tsx compiles it. */
const COMPILED = /\.(?:[cm]?ts|[tj]sx)$/;
const TS_FILE = /\.(?:[cm]?ts|tsx)$/;
const JSON_FILE = /\.json(?:$|[?#])/;
/** What tsx tries for an import with this extension (`./x.js` may be `./x.ts`). */
const ALTERNATIVES: Readonly<Record<string, readonly string[]>> = {
  '.js': ['.ts', '.tsx', '.js', '.jsx'],
  '.jsx': ['.tsx', '.ts', '.jsx', '.js'],
  '.cjs': ['.cts'],
  '.mjs': ['.mts'],
};
/** Extensions tried for an import without one, in the user's files and in installed packages. */
const BARE_USER = ['.ts', '.tsx', '.jsx', '.js', '.json'];
const BARE_DEPENDENCY = ['.js', '.json', '.ts', '.tsx', '.jsx'];

type NextResolve = Parameters<ResolveHook>[2];
type Resolved = Awaited<ReturnType<NextResolve>>;

/**
 * Node's resolution, with tsx's extensions: from a TypeScript file a relative import tries its
 * TypeScript names first; from any file an import Node cannot find tries them after.
 */
async function resolveFile(specifier: string, context: Parameters<ResolveHook>[1], next: NextResolve): Promise<Resolved> {
  const relative = isRelative(specifier) || specifier.startsWith('file:') || path.isAbsolute(specifier);
  if (relative && COMPILED.test(urlPath(context.parentURL ?? ''))) {
    const found = await firstExisting(candidates(specifier, context.parentURL), context, next);
    if (found) return found;
  }
  try {
    return await next(specifier, context);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (!relative || (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_UNSUPPORTED_DIR_IMPORT')) throw error;
    const found = await firstExisting(candidates(specifier, context.parentURL), context, next);
    if (found) return found;
    throw error;
  }
}

/** Specifiers to try for `specifier` (a directory: its index file). */
function candidates(specifier: string, parentURL: string | undefined): string[] {
  const cut = specifier.search(/[?#]/);
  const [bare, query] = cut === -1 ? [specifier, ''] : [specifier.slice(0, cut), specifier.slice(cut)];
  const target = targetPath(bare, parentURL);
  if (target !== undefined && isDirectory(target)) {
    const index = bare.endsWith('/') ? `${bare}index` : `${bare}/index`;
    return BARE_USER.map((ext) => index + ext + query);
  }
  const ext = path.extname(bare);
  if (TS_FILE.test(bare) || ext === '.json' || ext === '.node') return [];
  const swap = ALTERNATIVES[ext];
  if (swap) return swap.map((e) => bare.slice(0, -ext.length) + e + query);
  const tries = target !== undefined && target.split(path.sep).includes('node_modules') ? BARE_DEPENDENCY : BARE_USER;
  return tries.map((e) => bare + e + query);
}

async function firstExisting(specifiers: readonly string[], context: Parameters<ResolveHook>[1], next: NextResolve): Promise<Resolved | undefined> {
  for (const s of specifiers) {
    const file = targetPath(s.replace(/[?#].*$/, ''), context.parentURL);
    if (file === undefined || !existsSync(file) || isDirectory(file)) continue;
    try {
      return await next(s, context);
    } catch {
      // Not loadable under this name: try the next one.
    }
  }
  return undefined;
}

function targetPath(specifier: string, parentURL: string | undefined): string | undefined {
  try {
    if (specifier.startsWith('file:')) return fileURLToPath(specifier);
    if (path.isAbsolute(specifier)) return specifier;
    if (isRelative(specifier) && parentURL?.startsWith('file:')) return fileURLToPath(new URL(specifier, parentURL));
  } catch {
    // Not a path this can check.
  }
  return undefined;
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function isRelative(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

function urlPath(url: string): string {
  return url.replace(/[?#].*$/, '');
}

/** The format of a file compiled here: `.mts` module, `.cts` CommonJS, others as a `.js` file there would be. */
function tsFormat(url: string): 'module' | 'commonjs' | undefined {
  if (!url.startsWith('file:')) return undefined;
  const plain = urlPath(url);
  if (!COMPILED.test(plain)) return undefined;
  if (plain.endsWith('.mts')) return 'module';
  if (plain.endsWith('.cts')) return 'commonjs';
  const type = packageType(plain);
  if (type !== undefined) return type;
  // No "type" said: the user's files are modules (see above), an installed package's are CommonJS.
  return isUserFile(plain) ? 'module' : 'commonjs';
}

/** The bundled copy of a library propbot shares (`zod/v4` is vendor/zod/v4.js), if the build made one. */
function vendorEntry(specifier: string): string | undefined {
  if (vendorFolder === undefined || /[?#]/.test(specifier)) return undefined;
  const url = new URL(`${specifier}.js`, vendorFolder);
  return url.href.startsWith(vendorFolder) && existsSync(fileURLToPath(url)) ? url.href : undefined;
}

/** `zod` of `zod/mini`, `@scope/x` of `@scope/x/y`; undefined for relative, absolute and URL specifiers. */
function packageName(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A file of the user's: on disk and in no node_modules folder (an installed package keeps its own choices). */
function isUserFile(url: string | undefined): boolean {
  return url !== undefined && url.startsWith('file:') && !fileURLToPath(url).split(path.sep).includes('node_modules');
}

/** Whether the nearest package.json says `"type": "commonjs"` (an explicit choice the user made). */
function declaresCommonJs(url: string): boolean {
  return packageType(url) === 'commonjs';
}

/** The `type` of the nearest package.json, when it says one. */
function packageType(url: string): 'module' | 'commonjs' | undefined {
  let dir = path.dirname(fileURLToPath(url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type?: unknown };
      return pkg.type === 'module' || pkg.type === 'commonjs' ? pkg.type : undefined;
    } catch {
      // No (readable) package.json here: look further up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

// ---------------------------------------------------------------------------------------- compiling

/** The part of esbuild's API used here. */
interface Esbuild {
  transform(source: string, options: Record<string, unknown>): Promise<{ code: string; map: string }>;
}

let esbuild: { readonly api: () => Esbuild; readonly version: string } | undefined;

/**
 * esbuild as tsx ships it (propbot depends on tsx, and through it on the esbuild tsx was tested with).
 * Its version is read at once (it keys the cache); the API is loaded only to compile.
 */
function findEsbuild(): { readonly api: () => Esbuild; readonly version: string } {
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
async function compile(source: string, file: string, format: 'module' | 'commonjs'): Promise<string> {
  const { api, version } = findEsbuild();
  const options = {
    loader: LOADERS[path.extname(file)] ?? 'ts',
    format: format === 'module' ? 'esm' : 'cjs',
    target: `node${process.versions.node}`,
    sourcefile: file,
    sourcemap: 'external',
    sourcesContent: false,
    keepNames: true,
    minifyWhitespace: true,
  };
  const key = createHash('sha256').update(JSON.stringify([version, options, source])).digest('hex');
  const cached = readCached(key);
  if (cached !== undefined) return cached;
  const { code, map } = await api().transform(source, options);
  // The map names the file by its path; as a URL it is unambiguous whatever the module's URL is.
  const fixed = JSON.parse(map) as { sources: string[] };
  fixed.sources = fixed.sources.map((s) => (path.isAbsolute(s) ? pathToFileURL(s).href : s));
  const output = `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(fixed)).toString('base64')}`;
  writeCached(key, output);
  return output;
}

let cacheFolder: string | null | undefined;

/**
 * This user's cache folder in the temporary directory, or null when it cannot be trusted: it must be
 * a real folder (not a link), owned by this user and writable by no one else, since what is in it runs.
 */
function cache(): string | null {
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

function readCached(key: string): string | undefined {
  const dir = cache();
  if (dir === null) return undefined;
  try {
    return readFileSync(path.join(dir, `${key}.js`), 'utf8');
  } catch {
    return undefined;
  }
}

/** Written whole under a temporary name and renamed, so a reader never sees half a file. */
function writeCached(key: string, output: string): void {
  const dir = cache();
  if (dir === null) return;
  const temporary = path.join(dir, `${key}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(temporary, output, { mode: 0o600 });
    renameSync(temporary, path.join(dir, `${key}.js`));
  } catch {
    rmSync(temporary, { force: true });
  }
}
