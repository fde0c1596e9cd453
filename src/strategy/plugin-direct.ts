/**
 * A TypeScript plugin that imports nothing but 'propbot', the libraries it shares with propbot and
 * Node's own modules is loaded without module hooks. Registering the hooks starts Node's loader
 * thread, and every import after that waits on a round trip to it: ~70 ms of a backtest's start-up,
 * more than the rest of loading a plugin. Such a plugin is compiled once with its imports written as
 * the URLs the hooks would resolve them to (plugin-hooks.ts), kept in the compile cache as an .mjs
 * file, and imported from there: the same module, in the same graph, without the thread.
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
  // propbot first, as the hooks do: once source maps are on, each module loaded has its map read too.
  await import(propbot.entry);
  process.setSourceMapsEnabled(true);
  return { module: await import(pathToFileURL(cached).href) };
}

class NotDirect extends Error {}

/** The plugin compiled with its imports as URLs, or undefined when it imports something else. */
async function compileDirect(source: string, file: string, options: ReturnType<typeof compileOptions>, propbot: PropbotUrls): Promise<string | undefined> {
  const rewrite = {
    name: 'propbot-imports',
    setup(build: { onResolve(o: { filter: RegExp }, f: (args: { path: string; kind: string }) => { path: string; external: boolean }): void }) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'import-statement') throw new NotDirect(args.kind);
        const url = sharedUrl(args.path, propbot);
        if (url === undefined) throw new NotDirect(args.path);
        return { path: url, external: true };
      });
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
