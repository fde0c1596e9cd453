/**
 * What propbot's plugin loading knows about a plugin's files and the names it imports: which files
 * are the user's, which format a TypeScript file has, and which libraries a plugin shares with the
 * propbot that runs it (see plugin-hooks.ts for why). Used on the loader thread by the hooks and on
 * the main thread by plugin-direct.ts, which must agree.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Packages resolved from propbot's own folder when a user's file imports them. */
export const SHARED = new Set(['propbot', 'zod', 'decimal.js', 'rxjs', 'pino']);

/** Files compiled by propbot: TypeScript, and JSX as tsx compiles it. */
export const COMPILED = /\.(?:[cm]?ts|[tj]sx)$/;

export function urlPath(url: string): string {
  return url.replace(/[?#].*$/, '');
}

/** The format of a file compiled here: `.mts` module, `.cts` CommonJS, others as a `.js` file there would be. */
export function tsFormat(url: string): 'module' | 'commonjs' | undefined {
  if (!url.startsWith('file:')) return undefined;
  const plain = urlPath(url);
  if (!COMPILED.test(plain)) return undefined;
  if (plain.endsWith('.mts')) return 'module';
  if (plain.endsWith('.cts')) return 'commonjs';
  const type = packageType(plain);
  if (type !== undefined) return type;
  // No "type" said: the user's files are modules (see plugin-hooks.ts), an installed package's are CommonJS.
  return isUserFile(plain) ? 'module' : 'commonjs';
}

/** The bundled copy of a library propbot shares (`zod/v4` is vendor/zod/v4.js), if the build made one. */
export function vendorEntry(specifier: string, vendorFolder: string | undefined): string | undefined {
  if (vendorFolder === undefined || /[?#]/.test(specifier)) return undefined;
  const url = new URL(`${specifier}.js`, vendorFolder);
  return url.href.startsWith(vendorFolder) && existsSync(fileURLToPath(url)) ? url.href : undefined;
}

/** `zod` of `zod/mini`, `@scope/x` of `@scope/x/y`; undefined for relative, absolute and URL specifiers. */
export function packageName(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A file of the user's: on disk and in no node_modules folder (an installed package keeps its own choices). */
export function isUserFile(url: string | undefined): boolean {
  return url !== undefined && url.startsWith('file:') && !fileURLToPath(url).split(path.sep).includes('node_modules');
}

/** The `type` of the nearest package.json, when it says one. */
export function packageType(url: string): 'module' | 'commonjs' | undefined {
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
