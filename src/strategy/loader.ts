/**
 * Loads a strategy plugin from a file (TypeScript, compiled by esbuild, or JavaScript) or an installed package
 * into this process's own module graph (see plugin-hooks.ts), checks that its default export was made
 * with `defineStrategy`, and validates the parameters against its schema. Every failure is a `ConfigError` that names the plugin and, for parameters, the key.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, describeValue } from '../core/errors.js';
import { shippedFiles } from '../core/package.js';
import { didYouMean } from '../core/suggest.js';
import { isStrategy, resolveAssets, STRATEGY_API_VERSION, type Strategy } from './define.js';
import { errorLocation } from './error-location.js';
import { missingExport } from './missing-export.js';
import { parseParams } from './params.js';
import { importDirect, type PropbotUrls } from './plugin-direct.js';
import type { PluginHooksData } from './plugin-hooks.js';
import { syntaxErrorPlace } from './syntax-error.js';

export interface LoadedStrategy {
  readonly strategy: Strategy;
  /** Validated parameters, defaults filled in. */
  readonly params: Record<string, unknown>;
  /** Assets it trades with these parameters. */
  readonly assets: readonly string[];
  /** Absolute file path or package name it came from. */
  readonly source: string;
}

export interface LoadStrategyOptions {
  /** Raw parameters, e.g. from the config file. */
  params?: unknown;
  /** Base of a relative path and of package resolution. Default `process.cwd()`. */
  cwd?: string;
  /** Config file the parameters come from, for error messages. */
  configFile?: string;
  /** Dotted key of the parameters in that file, for error messages. Default `params`. */
  configPath?: string;
  /** Dotted key (or flag) that named the strategy, for error messages. Default `strategy`. */
  usePath?: string;
  /** The parameters a command-line flag gave (name → `--param`, `--params`, `--grid`), named by it in errors. */
  paramFlags?: Readonly<Record<string, string>>;
}

const SCRIPT_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];

/** Whether `spec` names a file rather than a package. */
export function looksLikePath(spec: string): boolean {
  return (
    spec.startsWith('.') ||
    path.isAbsolute(spec) ||
    SCRIPT_EXTENSIONS.includes(path.extname(spec)) ||
    spec.startsWith('file:')
  );
}

/**
 * Import a plugin and check its default export, without parameters: what `propbot strategies` lists.
 */
export async function importStrategy(spec: string, options: LoadStrategyOptions = {}): Promise<{ strategy: Strategy; source: string }> {
  const key = options.usePath ?? 'strategy';
  if (typeof spec !== 'string' || spec.trim().length === 0) {
    throw new ConfigError(key, `expected a file path or package name, got ${describeValue(spec)}`);
  }
  const cwd = options.cwd ?? process.cwd();
  const where = { key, ...(options.configFile !== undefined ? { file: options.configFile } : {}) };
  let source: string;
  let module: unknown;
  if (looksLikePath(spec)) {
    const file = spec.startsWith('file:') ? new URL(spec).pathname : path.resolve(cwd, spec);
    if (!existsSync(file) || !statSync(file).isFile()) {
      throw new ConfigError(key, `strategy file not found: ${file}`, placeOf(where));
    }
    const ext = path.extname(file);
    if (!SCRIPT_EXTENSIONS.includes(ext)) {
      throw new ConfigError(key, `${file}: expected a .ts, .mts, .js or .mjs file, got "${ext || '(no extension)'}"`, placeOf(where));
    }
    source = file;
    module = await importPlugin(file, where);
  } else {
    source = spec;
    module = await importPackage(spec, cwd, where);
  }

  const strategy = defaultExport(module);
  if (!isStrategy(strategy)) {
    throw new ConfigError(
      key,
      `${source}: the default export is not a strategy made with defineStrategy() (got ${describeValue(strategy)}); ` +
        `write \`export default defineStrategy({ ... })\``,
      placeOf(where),
    );
  }
  if (strategy.apiVersion !== STRATEGY_API_VERSION) {
    throw new ConfigError(
      key,
      `${source}: written for strategy API ${strategy.apiVersion}, this propbot runs API ${STRATEGY_API_VERSION}`,
      placeOf(where),
    );
  }
  return { strategy, source };
}

/**
 * Two strategies of one run need two names (their state, intents and dashboard rows are keyed by the
 * name): the second of a pair is refused by its key, naming the first.
 */
export function requireDistinctNames(entries: ReadonlyArray<{ readonly name: string; readonly key: string }>, file?: string): void {
  const seen = new Map<string, string>();
  for (const e of entries) {
    const first = seen.get(e.name);
    if (first !== undefined) {
      throw new ConfigError(e.key, `a second strategy named "${e.name}" (the first is ${first}); give one of them its own \`name:\``, file !== undefined ? { file } : {});
    }
    seen.set(e.name, e.key);
  }
}

export async function loadStrategy(spec: string, options: LoadStrategyOptions = {}): Promise<LoadedStrategy> {
  const { strategy, source } = await importStrategy(spec, options);
  const where = options.configFile !== undefined ? { file: options.configFile } : {};
  const params = parseParams(strategy.name, strategy.params, options.params, {
    ...where,
    path: options.configPath ?? 'params',
    ...(options.paramFlags !== undefined ? { flags: options.paramFlags } : {}),
  }) as Record<string, unknown>;
  const assets = resolveAssets(strategy, params);
  return { strategy, params, assets, source };
}

/** Where a load failure is reported: the key (or flag) that named the strategy, in the config file if any. */
interface LoadPlace {
  key: string;
  file?: string;
}

const placeOf = (where: LoadPlace): { file?: string } => (where.file !== undefined ? { file: where.file } : {});

async function importPlugin(file: string, where: LoadPlace): Promise<unknown> {
  try {
    const direct = built() ? await importDirect(file, propbotUrls()) : undefined;
    if (direct !== undefined) return direct.module;
    await usePluginHooks();
    return await import(pathToFileURL(file).href);
  } catch (error) {
    const missing = missingExport(error, file);
    if (missing) {
      // propbot's own names are known here; another module's are its own business.
      const names = missing.module === 'propbot' ? Object.keys((await (built() ? import(propbotUrls().entry) : import('../index.js'))) as object) : [];
      const at = missing.line !== undefined ? `${file}:${missing.line}` : file;
      throw new ConfigError(where.key, `${at}: '${missing.module}' has no export named "${missing.name}"${didYouMean(missing.name, names)}`, placeOf(where));
    }
    const syntax = await syntaxErrorPlace(error, file);
    if (syntax) throw new ConfigError(where.key, `${syntax.at}: syntax error: ${syntax.text}${syntax.lineText ? ` (\`${syntax.lineText}\`)` : ''}`, placeOf(where));
    const at = errorLocation(error, file);
    throw new ConfigError(where.key, `${file}: failed to load: ${(error as Error)?.message ?? String(error)}${at ? ` (${at})` : ''}`, placeOf(where));
  }
}

let hooks: Promise<void> | undefined;

/**
 * Once per thread: propbot's module hooks (plugin-hooks.ts: its resolution, and TypeScript compiled
 * as tsx would), so every plugin joins this process's one module graph. Run from source (vitest, tsx),
 * the host's loader already compiles TypeScript and maps 'propbot' to src/.
 *
 * propbot's public entry is imported first: every plugin imports it, and once hooks are registered
 * each module loaded goes through them on the hooks thread, one round trip at a time. Loaded before,
 * propbot and the libraries it shares with plugins are already in the graph; the hooks only see the
 * plugin's own files. Source maps are turned on (as tsx did) so a plugin's stack names its .ts lines.
 */
function usePluginHooks(): Promise<void> {
  hooks ??= (async () => {
    if (!built()) return;
    const { entry, vendor } = propbotUrls();
    await import(entry);
    process.setSourceMapsEnabled(true);
    const data: PluginHooksData = { propbot: entry, vendor };
    register(new URL('../strategy/plugin-hooks.js', import.meta.url), { data });
  })();
  return hooks;
}

/** Run from dist/, not from source by a loader that compiles TypeScript (vitest, tsx). */
function built(): boolean {
  return !import.meta.url.endsWith('.ts');
}

/**
 * The files plugins are given for 'propbot' and the libraries it bundles, found by way of dist/:
 * built, this code's import.meta.url is its own dist/strategy/ file, though the code is in the bundle
 * (scripts/bundle.ts).
 */
function propbotUrls(): PropbotUrls {
  return {
    entry: new URL('../index.js', import.meta.url).href,
    vendor: new URL('../vendor/', import.meta.url).href,
    parts: new URL('../api-parts.json', import.meta.url).href,
  };
}

async function importPackage(name: string, cwd: string, where: LoadPlace): Promise<unknown> {
  let target = name;
  try {
    // Resolve from the user's directory, where the plugin package is installed, not from propbot's.
    target = pathToFileURL(createRequire(path.join(cwd, 'package.json')).resolve(name)).href;
  } catch {
    // ESM-only packages have no require entry; let the ESM resolver try from here.
  }
  try {
    await usePluginHooks();
    return await import(target);
  } catch (error) {
    const code = (error as { code?: string })?.code;
    const message = (error as Error)?.message ?? String(error);
    // The package itself missing, not one of its own imports (that one's message names another).
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(`'${packageName(name)}'`)) throw notFound(name, cwd, where);
    throw new ConfigError(where.key, `${name}: failed to load: ${message}`, placeOf(where));
  }
}

/** `@scope/pkg/sub` → `@scope/pkg`; `pkg/sub` → `pkg`. */
function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function notFound(name: string, cwd: string, where: LoadPlace): ConfigError {
  const shipped = shippedNames();
  const text =
    `"${name}" is not a shipped example (${shipped.join(', ')}), a file path (start it with ./ or give its .ts/.js extension), ` +
    `or a package installed where ${cwd} resolves packages${didYouMean(name, shipped)}`;
  return new ConfigError(where.key, text, placeOf(where));
}

/** The examples a bare name may name (`sma-cross`): strategies/*.ts of the package. */
function shippedNames(): string[] {
  return shippedFiles('strategies', ['.ts'])
    .filter((f) => !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -3));
}

function defaultExport(module: unknown): unknown {
  let value = (module as { default?: unknown } | null)?.default;
  // A CommonJS plugin compiled from `export default` arrives as { default: { default: strategy } }.
  if (value && !isStrategy(value) && isStrategy((value as { default?: unknown }).default)) {
    value = (value as { default?: unknown }).default;
  }
  return value;
}
