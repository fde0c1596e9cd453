/**
 * Second half of `npm run build`: tsc's one file per module in dist/ becomes a few bundled files.
 * Node 20 has no compile cache, and an ES module costs a resolve, a read and a compile of its own:
 * the ~440 files a backtest loaded (rxjs, zod and trading-signals are most of them) took ~450 ms
 * before the first candle. esbuild bundles tsc's JavaScript (its semantics are tsc's; esbuild only
 * joins modules and keeps names), split so that every entry shares one copy of each module.
 *
 * - Entries keep their paths: the package's export (dist/index.js), the CLI (bin/propbot.js runs
 *   dist/cli/main.js), files loaded by URL (the sweep worker, the plugin hooks) and what the bench
 *   imports. Other modules live in dist/chunks/; their tsc files are removed so nothing can load a
 *   second copy of propbot. The .d.ts files stay as tsc wrote them.
 * - zod, rxjs and decimal.js are bundled, and each of their public subpaths is an entry in
 *   dist/vendor/ (`zod/v4` is dist/vendor/zod/v4.js): a plugin importing them gets the very copy
 *   propbot uses (plugin-hooks.ts maps the names there), as it did when both came from node_modules.
 * - Packages that load files by path at run time (pino's transports, sqlite3's binding) and those only
 *   a daemon or a queue needs stay in node_modules.
 */
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type * as Esbuild from 'esbuild';
import { packageName } from '../src/strategy/plugin-files.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'dist');

/** Modules loaded by path or imported by their dist path from outside the bundle. */
const ENTRIES = [
  'index',
  'cli/main',
  'cli/commands/sandbox',
  'cli/backtest-run',
  'runtime/backtest',
  'runtime/sweep-worker',
  'report/write',
  'strategy/plugin-hooks',
];

/** Packages bundled: many small modules each, loaded on every run. */
const BUNDLED = new Set(['zod', 'rxjs', 'decimal.js', 'trading-signals', 'p-queue', 'p-timeout', 'eventemitter3', 'tslib']);
/** Bundled packages a plugin may import itself; they get entries in dist/vendor/. */
const VENDORED = ['zod', 'rxjs', 'decimal.js'] as const;

// esbuild as tsx ships it, as plugin-hooks.ts finds it.
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as typeof Esbuild;

/** `zod`, `zod/v4`, …: the package's export subpaths without wildcards. */
function publicSubpaths(name: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
  const keys = pkg.exports && Object.keys(pkg.exports).every((k) => k.startsWith('.')) ? Object.keys(pkg.exports) : ['.'];
  return keys.filter((k) => !k.includes('*') && !k.endsWith('.json')).map((k) => (k === '.' ? name : `${name}/${k.slice(2)}`));
}

/**
 * rxjs gives Node its CommonJS build, one wrapped closure per file once bundled; its ES2015 build
 * (the same code) bundles flat.
 */
function rxjsEsm(specifier: string): string {
  const sub = specifier === 'rxjs' ? '' : specifier.slice('rxjs/'.length) + '/';
  return path.join(ROOT, 'node_modules/rxjs/dist/esm', sub, 'index.js');
}

const dependencies: Esbuild.Plugin = {
  name: 'dependencies',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      const name = packageName(args.path);
      if (name === undefined || !BUNDLED.has(name)) return { external: true };
      if (name === 'rxjs' && !args.path.startsWith('rxjs/internal/')) return { path: rxjsEsm(args.path) };
      return undefined;
    });
  },
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const file = path.join(dir, f);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

/** How many times each class name is declared in these files. */
function classDeclarations(files: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of files) {
    if (!f.endsWith('.js') || path.relative(DIST, f).startsWith('vendor/')) continue;
    // esbuild writes some as `var X = class {`, which names the class X all the same.
    for (const m of readFileSync(f, 'utf8').matchAll(/^\s*(?:(?:export\s+)?class ([\w$]+)|var ([\w$]+) = class\b)/gm)) {
      const name = m[1] ?? m[2]!;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  return counts;
}

const entryPoints: Record<string, string> = {};
for (const e of ENTRIES) entryPoints[e] = path.join(DIST, `${e}.js`);
const vendorSources: Record<string, string> = {};
for (const name of VENDORED) {
  for (const sub of publicSubpaths(name)) {
    entryPoints[`vendor/${sub}`] = `vendor-entry:${sub}`;
    vendorSources[`vendor-entry:${sub}`] = sub;
  }
}

const vendorEntries: Esbuild.Plugin = {
  name: 'vendor-entries',
  setup(build) {
    build.onResolve({ filter: /^vendor-entry:/ }, (args) => ({ path: args.path, namespace: 'vendor-entry' }));
    build.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, (args) => {
      const sub = vendorSources[args.path]!;
      // `export *` leaves a default export out; decimal.js's Decimal is one.
      const hasDefault = sub === 'decimal.js';
      return { contents: `export * from '${sub}';${hasDefault ? ` export { default } from '${sub}';` : ''}`, resolveDir: ROOT, loader: 'js' };
    });
  },
};

const before = new Set(filesUnder(DIST).filter((f) => /\.js(\.map)?$/.test(f)));
// tsc rewrites its own files; what is in chunks/ and vendor/ is the last bundle's.
const classesBefore = classDeclarations([...before].filter((f) => !/^(chunks|vendor)\//.test(path.relative(DIST, f))));
const result = await esbuild.build({
  entryPoints,
  outdir: DIST,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: `node20`,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [vendorEntries, dependencies],
});

const written = new Set(Object.keys(result.metafile.outputs).map((f) => path.resolve(ROOT, f)));
for (const f of before) if (!written.has(f)) rmSync(f);

// Not esbuild's `keepNames`: its calls at every function's creation made the replay ~20% slower. Without
// it, a class whose name another module in its chunk also uses is renamed (`X2`), and an error's
// `name` (`new.target.name`) is what the CLI prints; such a clash fails the build instead.
const classesAfter = classDeclarations([...written]);
for (const [name, count] of classesBefore) {
  if ((classesAfter.get(name) ?? 0) < count) throw new Error(`class ${name} was renamed by the bundler: give it a name no other module uses`);
}

// Modules find the package by URLs relative to their own file (`new URL('../../', import.meta.url)`),
// written for dist/<folder>/<file>.js; the chunks sit at that depth, and so must any other output that uses them.
for (const file of written) {
  if (!file.endsWith('.js')) continue;
  const depth = path.relative(DIST, file).split(path.sep).length;
  if (depth !== 2 && /import\.meta\.(url|dirname|filename)/.test(readFileSync(file, 'utf8'))) {
    throw new Error(`${path.relative(ROOT, file)} uses import.meta but is not at dist/<folder>/<file>.js`);
  }
}
if (!existsSync(path.join(DIST, 'index.js'))) throw new Error('dist/index.js was not written');
