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
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { InitializeHook, LoadHook, ResolveHook } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from './plugin-compile.js';
import { COMPILED, isUserFile, packageName, packageType, SHARED, tsFormat, urlPath, vendorEntry } from './plugin-files.js';

export interface PluginHooksData {
  /** URL of the running propbot's entry module (dist/index.js). */
  readonly propbot: string;
  /** URL of dist/vendor/, the entries of the libraries propbot bundles (scripts/bundle.ts). */
  readonly vendor: string;
}

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
      const vendored = vendorEntry(specifier, vendorFolder);
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






/** Whether the nearest package.json says `"type": "commonjs"` (an explicit choice the user made). */
function declaresCommonJs(url: string): boolean {
  return packageType(url) === 'commonjs';
}

