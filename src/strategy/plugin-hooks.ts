/**
 * Module resolve hooks for strategy plugins, registered with `module.register` by the loader (they run
 * on Node's loader thread). A plugin in any folder imports 'propbot' and gets the very propbot that runs
 * it, in the same module graph: classes, symbols and `instanceof` agree on both sides, and there is one
 * copy of propbot, zod, decimal.js, RxJS and pino in memory.
 *
 * - `propbot` (and `propbot/…`) from anywhere, and the libraries whose objects cross the plugin boundary
 *   from the user's own files, resolve as if propbot itself imported them. A plugin needs no
 *   `npm install`, and a propbot (or zod) installed beside it is not loaded a second time.
 * - A plugin file of the user's (.ts, .mts, .js outside any node_modules) is an ES module even in a
 *   folder without a package.json: TypeScript plugins are written with `import`/`export`, and loading
 *   one as CommonJS would go through `require`, which these hooks (and one graph) do not reach.
 */
import { readFileSync } from 'node:fs';
import type { InitializeHook, ResolveHook } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PluginHooksData {
  /** URL of the running propbot's entry module (dist/index.js). */
  readonly propbot: string;
}

/** Packages resolved from propbot's own folder when a user's file imports them. */
const SHARED = new Set(['propbot', 'zod', 'decimal.js', 'rxjs', 'pino']);

let propbotEntry: string | undefined;

export const initialize: InitializeHook<PluginHooksData> = (data) => {
  propbotEntry = data.propbot;
};

export const resolve: ResolveHook = async (specifier, context, next) => {
  const name = packageName(specifier);
  if (propbotEntry !== undefined && name !== undefined && SHARED.has(name)) {
    if (name === 'propbot' || isUserFile(context.parentURL)) {
      return next(specifier, { ...context, parentURL: propbotEntry });
    }
  }
  const resolved = await next(specifier, context);
  if (resolved.format === 'commonjs' && isUserFile(resolved.url) && /\.(?:m?ts|js)$/.test(resolved.url) && !declaresCommonJs(resolved.url)) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
};

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
  let dir = path.dirname(fileURLToPath(url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type?: unknown };
      return pkg.type === 'commonjs';
    } catch {
      // No (readable) package.json here: look further up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}
