/**
 * A TypeScript plugin that imports nothing but 'propbot', the libraries it shares with propbot and
 * Node's own modules is loaded without module hooks. Registering the hooks starts Node's loader
 * thread, and every import after that waits on a round trip to it: ~70 ms of a backtest's start-up,
 * more than the rest of loading a plugin. Such a plugin is compiled once with its imports written as
 * the URLs the hooks would resolve them to (plugin-hooks.ts), kept in the compile cache as an .mjs
 * file, and imported from there: the same module, in the same graph, without the thread. Its names
 * from 'propbot' are imported from the parts of the API that hold them (dist/api-parts.json), the very
 * bindings dist/index.js exports: a strategy taking defineStrategy and a few indicators does not
 * initialise the sandbox, the HTTP client and the research tools at start-up.
 *
 * Anything else goes through the hooks as before (undefined here): relative imports and other
 * packages (found from the plugin's own folder), `import.meta` and `import()` (which would see the
 * cached file's URL), CommonJS, JavaScript plugins, and a file esbuild cannot compile (the hooks
 * report its error as they always did). What was decided is cached with the compiled code, keyed by
 * the source, the file, esbuild, Node and the propbot build, so an edited plugin is decided again.
 */
import { readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedFile, cacheKey, compileOptions, findEsbuild, withInlineMap, writeCached } from './plugin-compile.js';
import { packageName, SHARED, tsFormat, vendorEntry } from './plugin-files.js';

export interface PropbotUrls {
  /** URL of the running propbot's entry module (dist/index.js). */
  readonly entry: string;
  /** URL of dist/vendor/. */
  readonly vendor: string;
  /**
   * URL of dist/api-parts.json (scripts/bundle.ts): which part of the API (a module with an entry of
   * its own) each name of the entry module comes from. Without it 'propbot' is the entry module.
   */
  readonly parts?: string;
}

/** Marks a plugin the hooks must load; its content is unused. */
const NEEDS_HOOKS = '';

/** The plugin's module namespace, or undefined when it must be loaded through the hooks. */
export async function importDirect(file: string, propbot: PropbotUrls): Promise<{ module: unknown } | undefined> {
  if (tsFormat(pathToFileURL(file).href) !== 'module') return undefined;
  const source = readFileSync(file, 'utf8');
  const { version } = findEsbuild();
  const options = compileOptions(file, 'module');
  const build = statSync(fileURLToPath(propbot.entry)).mtimeMs;
  const key = cacheKey([version, options, source, 'direct', propbot.entry, build]);
  let cached = cachedFile(`${key}.mjs`);
  if (cached === undefined) {
    if (cachedFile(`${key}.hooks`) !== undefined) return undefined;
    const code = await compileDirect(source, file, options, propbot);
    writeCached(code === undefined ? `${key}.hooks` : `${key}.mjs`, code ?? NEEDS_HOOKS);
    // Without a cache folder there is no file to import: the hooks compile in memory.
    cached = code === undefined ? undefined : cachedFile(`${key}.mjs`);
    if (cached === undefined) return undefined;
  }
  // propbot's own modules are loaded already (the bundle), and its entry wrappers have no source map
  // to read once source maps are on.
  process.setSourceMapsEnabled(true);
  return { module: await import(pathToFileURL(cached).href) };
}

class NotDirect extends Error {}

/** What of esbuild's plugin API the rewrite uses (esbuild is found at run time, its types are not imported). */
interface EsbuildPluginBuild {
  onResolve(
    o: { filter: RegExp },
    f: (args: { path: string; kind: string; namespace: string }) => { path: string; external?: boolean; sideEffects?: boolean; namespace?: string },
  ): void;
  onLoad(o: { filter: RegExp; namespace: string }, f: () => { contents: string; loader: 'js' }): void;
}

const API_NAMESPACE = 'propbot-api';

/**
 * 'propbot' as a module that re-exports each name from its part of the API, or undefined when the
 * build has no api-parts.json (then 'propbot' is dist/index.js, every part initialised).
 */
function apiModule(propbot: PropbotUrls): string | undefined {
  if (propbot.parts === undefined) return undefined;
  let byName: Record<string, string>;
  try {
    byName = JSON.parse(readFileSync(fileURLToPath(propbot.parts), 'utf8')) as Record<string, string>;
  } catch {
    return undefined;
  }
  const byPart = new Map<string, string[]>();
  for (const [name, part] of Object.entries(byName)) byPart.set(part, [...(byPart.get(part) ?? []), name]);
  return [...byPart]
    .map(([part, names]) => `export { ${names.join(', ')} } from ${JSON.stringify(part === 'index' ? propbot.entry : new URL(`${part}.js`, new URL('./', propbot.entry)).href)};`)
    .join('\n');
}

/** The plugin compiled with its imports as URLs, or undefined when it imports something else. */
async function compileDirect(source: string, file: string, options: ReturnType<typeof compileOptions>, propbot: PropbotUrls): Promise<string | undefined> {
  const parts = apiModule(propbot);
  const rewrite = {
    name: 'propbot-imports',
    setup(build: EsbuildPluginBuild) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'import-statement') throw new NotDirect(args.kind);
        // The parts are side-effect free to esbuild: those the plugin takes no name from are dropped.
        if (args.namespace === API_NAMESPACE) return { path: args.path, external: true, sideEffects: false };
        if (args.path === 'propbot' && parts !== undefined) return { path: 'propbot', namespace: API_NAMESPACE };
        const url = sharedUrl(args.path, propbot);
        if (url === undefined) throw new NotDirect(args.path);
        return { path: url, external: true };
      });
      if (parts !== undefined) build.onLoad({ filter: /.*/, namespace: API_NAMESPACE }, () => ({ contents: parts, loader: 'js' }));
    },
  };
  try {
    const { outputFiles } = await findEsbuild()
      .api()
      .build({
        stdin: { contents: source, sourcefile: options.sourcefile, loader: options.loader },
        bundle: true,
        write: false,
        outfile: path.join(path.dirname(file), 'plugin.mjs'),
        format: 'esm',
        platform: 'node',
        target: options.target,
        sourcemap: 'external',
        sourcesContent: false,
        keepNames: options.keepNames,
        minifyWhitespace: options.minifyWhitespace,
        tsconfigRaw: {},
        logLevel: 'silent',
        plugins: [rewrite],
      });
    const code = outputFiles.find((f) => f.path.endsWith('.mjs'))!.text;
    const map = outputFiles.find((f) => f.path.endsWith('.map'))!.text;
    // Both would see the cached file's URL instead of the plugin's.
    if (/\bimport\.meta\b|\bimport\s*\(/.test(code)) return undefined;
    return withInlineMap(code.replace(/\n\/\/# sourceMappingURL=.*\n?$/, ''), map, file);
  } catch {
    return undefined;
  }
}

/** What the hooks resolve `specifier` to from a user's file, if it is one they resolve from propbot. */
function sharedUrl(specifier: string, propbot: PropbotUrls): string | undefined {
  if (isBuiltin(specifier)) return specifier;
  const name = packageName(specifier);
  if (name === undefined || !SHARED.has(name)) return undefined;
  if (specifier === 'propbot') return propbot.entry;
  if (name === 'propbot') return undefined;
  try {
    return vendorEntry(specifier, propbot.vendor) ?? import.meta.resolve(specifier);
  } catch {
    return undefined;
  }
}
