/**
 * Second half of `npm run build`: tsc's one file per module in dist/ becomes one bundle of propbot,
 * loaded with a V8 code cache. Node 20 has no compile cache for ES modules: an ES module costs a
 * resolve, a read and a compile of its own, and every function is compiled again on its first call.
 * esbuild bundles tsc's JavaScript (its semantics are tsc's; esbuild only joins modules and keeps names)
 * into dist/propbot.cjs, which src/core/bundle-loader.ts compiles as a `vm.Script` with the cached
 * data scripts/code-cache.mjs then writes (dist/propbot.code-cache, made by running a backtest).
 * Where that cache does not fit the Node that runs propbot, the loader writes one to the user's cache
 * folder at exit and takes it from there next time.
 *
 * - Entries keep their paths: the package's export (dist/index.js), the CLI (bin/propbot.js runs
 *   dist/cli/main.js), files loaded by URL (the sweep worker) and what the bench imports. Each is a
 *   thin ES module re-exporting its part of the bundle (`entry(name)`), so the CLI, plugins and the
 *   bench share one instance per thread. The bundle initialises an entry's modules on its first
 *   `entry()`, as an import would, and modules the code imports with `import()` on that call.
 * - The modules src/index.ts re-exports from are entries too, and dist/api-parts.json says which of
 *   them each name of dist/index.js comes from (checked against the bundle): a plugin takes its names
 *   from those parts (plugin-direct.ts) and initialises only them.
 * - zod, rxjs and decimal.js are bundled, and each of their public subpaths is an entry in
 *   dist/vendor/ (`zod/v4` is dist/vendor/zod/v4.js): a plugin importing them gets the very copy
 *   propbot uses (plugin-hooks.ts maps the names there), as it did when both came from node_modules.
 * - The plugin hooks run on Node's loader thread, apart from any propbot: they are their own small
 *   ES module bundle (dist/strategy/plugin-hooks.js).
 * - Packages that load files by path at run time (pino's transports, sqlite3's binding) and those only
 *   a daemon or a queue needs stay in node_modules, `require`d or imported where the source did.
 * - In the bundle, `import.meta.url` is the module's own dist/ file as tsc wrote it, and `import(…)`
 *   and `import.meta.resolve` call functions the loader hands in (a cached `vm.Script` cannot import).
 * Other tsc .js files are removed so nothing can load a second copy of propbot; .d.ts files stay.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';
import ts from 'typescript';
import { packageName } from '../src/strategy/plugin-files.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'dist');
const BUNDLE = path.join(DIST, 'propbot.cjs');
/** What bundle-loader.ts passes the bundle: CommonJS's five, the loader's `BundleHost` and its import. */
const BUNDLE_PARAMS = 'exports, require, module, __filename, __dirname, __pb, __impt';

/** Modules loaded by path or imported by their dist path from outside the bundle. */
const ENTRIES = ['index', 'cli/main', 'cli/commands/sandbox', 'cli/backtest-run', 'runtime/backtest', 'runtime/sweep-worker', 'report/write'];
/** Real ES modules beside the bundle: its loader (and the folder of its run-time caches), and the hooks of Node's loader thread. */
const LOADER = 'core/bundle-loader';
const LOADER_FILES = [LOADER, 'core/cache-folders', 'core/folder-levels'];
const HOOKS = 'strategy/plugin-hooks';

/** Packages bundled: many small modules each, loaded on every run. */
const BUNDLED = new Set(['zod', 'rxjs', 'decimal.js', 'trading-signals', 'p-queue', 'p-timeout', 'eventemitter3', 'tslib', 'yaml']);
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
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      const name = packageName(args.path);
      if (name === undefined || !BUNDLED.has(name)) return { external: true };
      if (name === 'rxjs' && !args.path.startsWith('rxjs/internal/')) return { path: rxjsEsm(args.path) };
      // The bundle's table of entries `require`s the vendored packages; they must be the copy
      // propbot's modules import (zod and decimal.js have a CommonJS build beside their ES one).
      if (args.kind === 'require-call') {
        return { path: (await build.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir })).path };
      }
      return undefined;
    });
  },
};

/** tsc's `import.meta.url` of the module in `file`, as the bundle knows it (see bundle-loader.ts). */
const importMeta: Esbuild.Plugin = {
  name: 'import-meta',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(DIST + path.sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const url = JSON.stringify(path.relative(DIST, args.path).split(path.sep).join('/'));
      const contents = requireBundled(source).replaceAll('import.meta.url', `(__pb.dist + ${url})`).replaceAll('import.meta.resolve(', '__pb.resolve(');
      return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * `createRequire(import.meta.url)('yaml')`, a bundled package required where it is first used (a
 * synchronous load an ES module can only write so), becomes `require('yaml')`: esbuild then bundles the
 * package and runs it at that call, not at start-up, and the code cache holds it. Left as it was, the
 * call loaded the package's ~70 files from node_modules at every run that read a YAML file (~20 ms).
 */
function requireBundled(source: string): string {
  return source.replace(/createRequire\(import\.meta\.url\)\((['"])([^'"]+)\1\)/g, (call, _quote: string, specifier: string) => {
    const name = packageName(specifier);
    return name !== undefined && BUNDLED.has(name) ? `require(${JSON.stringify(specifier)})` : call;
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const file = path.join(dir, f);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

/** How many times each class name is declared in these files' code. */
function classDeclarations(sources: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const source of sources) {
    // esbuild writes some as `var X = class {` (or `X = class {` in a module it initialises on demand),
    // which names the class X all the same.
    for (const m of source.matchAll(/^\s*(?:(?:export\s+)?class ([\w$]+)|(?:var )?([\w$]+) = class\b)/gm)) {
      const name = m[1] ?? m[2]!;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * `import(x)` calls become `__impt(x)`, the loader's import (same length, so the source map holds).
 * A parser, not a pattern: the code also holds `import(` in strings (the sweep worker's boot script).
 */
function routeDynamicImports(code: string): string {
  const file = ts.createSourceFile('propbot.cjs', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const at: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) at.push(node.expression.getStart(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = code;
  for (const pos of at.reverse()) out = `${out.slice(0, pos)}__impt${out.slice(pos + 'import'.length)}`;
  return out;
}

/**
 * esbuild defines every namespace object's getters where the bundle starts (`__export`): ~4,000 of
 * them, 7-10 ms of each start-up, most for entries a run never requires (zod's subpaths in
 * dist/vendor/, propbot's own entries). A namespace the code reaches only through its entry
 * (`__toCommonJS`, when that entry is first required) gets its getters then instead; one the code
 * reads directly (zod's `z`) keeps them at the start. Found with a parser, not a pattern; `__exLazy`
 * is as long as `__export` and no line is added, so the source map holds (only the two helper lines,
 * esbuild's own code, get longer).
 */
function deferNamespaceExports(code: string): string {
  for (const name of ['__exLazy', '__lazyNs']) if (code.includes(name)) throw new Error(`the bundle already uses ${name}`);
  const exportHelper = /^var __export = \(target, all\d*\) => \{$/m;
  const toCommonJs = /^var __toCommonJS = \((\w+)\) => (__copyProps\(__defProp\(\{\}, "__esModule", \{ value: true \}\), \1\));$/m;
  if (!exportHelper.test(code) || !toCommonJs.test(code)) throw new Error('esbuild\'s __export or __toCommonJS is not the one deferNamespaceExports knows');
  const file = ts.createSourceFile('propbot.cjs', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const references = new Map<string, number>();
  const required = new Map<string, number>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const p = node.parent;
      const isName = (ts.isPropertyAccessExpression(p) && p.name === node) || (ts.isPropertyAssignment(p) && p.name === node);
      if (!isName) references.set(node.text, (references.get(node.text) ?? 0) + 1);
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === '__toCommonJS' && node.arguments[0] !== undefined && ts.isIdentifier(node.arguments[0])) {
      required.set(node.arguments[0].text, (required.get(node.arguments[0].text) ?? 0) + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  // The bundle is one `(function (...) { ... })`: the statements of its body are its top level.
  const wrapper = file.statements[0];
  const fn = wrapper && ts.isExpressionStatement(wrapper) && ts.isParenthesizedExpression(wrapper.expression) ? wrapper.expression.expression : undefined;
  if (fn === undefined || !ts.isFunctionExpression(fn)) throw new Error('the bundle is not the one function expression deferNamespaceExports knows');
  const exportedAt = new Map<string, number>();
  for (const statement of fn.body.statements) {
    if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) continue;
    const { expression: callee, arguments: args } = statement.expression;
    if (ts.isIdentifier(callee) && callee.text === '__export' && args[0] !== undefined && ts.isIdentifier(args[0])) exportedAt.set(args[0].text, callee.getStart(file));
  }
  // Its declaration, the __export call and the __toCommonJS calls: nothing else reads it.
  const deferred = [...exportedAt].filter(([name]) => references.get(name) === 2 + (required.get(name) ?? 0)).map(([, at]) => at);
  if (exportedAt.size === 0) throw new Error('deferNamespaceExports found no __export at the top of the bundle');
  let out = code;
  for (const at of deferred.sort((a, b) => b - a)) out = `${out.slice(0, at)}__exLazy${out.slice(at + '__export'.length)}`;
  return out
    .replace(exportHelper, (line) => `var __lazyNs = new Map(), __exLazy = (target, all) => void __lazyNs.set(target, all); ${line}`)
    .replace(toCommonJs, (_line, mod: string, copy: string) => `var __toCommonJS = (${mod}) => (__lazyNs.has(${mod}) && (__export(${mod}, __lazyNs.get(${mod})), __lazyNs.delete(${mod})), ${copy});`);
}

/** The generated ES module at an entry's path: the entry's exports, taken from the bundle. */
function wrapper(name: string, exports: readonly string[]): string {
  const loader = path.relative(path.dirname(path.join(DIST, name)), path.join(DIST, LOADER)).split(path.sep).join('/');
  const lines = [
    `// Written by scripts/bundle.ts: propbot lives in dist/propbot.cjs, one instance per thread.`,
    `import { entry } from '${loader.startsWith('.') ? loader : `./${loader}`}.js';`,
    `const m = entry(${JSON.stringify(name)});`,
  ];
  exports.forEach((e, i) => lines.push(`const e${i} = m[${JSON.stringify(e)}];`));
  if (exports.length > 0) lines.push(`export { ${exports.map((e, i) => `e${i} as ${/^[A-Za-z_$][\w$]*$/.test(e) ? e : JSON.stringify(e)}`).join(', ')} };`);
  return lines.join('\n') + '\n';
}

/**
 * The modules src/index.ts re-exports values from, each an entry of its own (its dist/ wrapper). A
 * plugin that imports a few names from 'propbot' gets them from these (plugin-direct.ts), so it
 * initialises the parts that hold them, not the sandbox, the HTTP client and the research tools too.
 */
function apiParts(): string[] {
  const file = ts.createSourceFile('index.ts', readFileSync(path.join(ROOT, 'src/index.ts'), 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const parts = new Set<string>();
  for (const s of file.statements) {
    if (!ts.isExportDeclaration(s) || s.isTypeOnly || s.moduleSpecifier === undefined || !ts.isStringLiteral(s.moduleSpecifier)) continue;
    const clause = s.exportClause;
    if (clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly)) continue;
    parts.add(path.posix.normalize(s.moduleSpecifier.text).replace(/\.js$/, ''));
  }
  return [...parts];
}
const API_PARTS = apiParts();
/** Which part each name of dist/index.js comes from (plugin-direct.ts reads it); `index` for the rest. */
const API_PARTS_FILE = path.join(DIST, 'api-parts.json');

const entrySources: Record<string, string> = {};
for (const e of [...ENTRIES, ...API_PARTS]) entrySources[e] = path.join(DIST, `${e}.js`);
const vendorSources: Record<string, string> = {};
for (const name of VENDORED) for (const sub of publicSubpaths(name)) vendorSources[`vendor/${sub}`] = sub;

const vendorEntries: Esbuild.Plugin = {
  name: 'vendor-entries',
  setup(build) {
    build.onResolve({ filter: /^vendor-entry:/ }, (args) => ({ path: args.path, namespace: 'vendor-entry' }));
    build.onLoad({ filter: /.*/, namespace: 'vendor-entry' }, (args) => {
      const sub = args.path.slice('vendor-entry:'.length);
      // `export *` leaves a default export out; decimal.js's Decimal is one.
      const hasDefault = sub === 'decimal.js';
      return { contents: `export * from '${sub}';${hasDefault ? ` export { default } from '${sub}';` : ''}`, resolveDir: ROOT, loader: 'js' };
    });
  },
};

const before = new Set(filesUnder(DIST).filter((f) => /\.(c?js)(\.map)?$/.test(f) || f.endsWith('.code-cache')));
// tsc rewrites its own files; what is in chunks/ and vendor/ is an older build's.
const tscFiles = [...before].filter((f) => f.endsWith('.js') && !/^(chunks|vendor)\//.test(path.relative(DIST, f)));
const tscClasses = classDeclarations(tscFiles.filter((f) => !f.endsWith(`${HOOKS}.js`)).map((f) => readFileSync(f, 'utf8')));

// What each entry exports as an ES module, which the wrappers re-export: esbuild works it out.
const analysis = await esbuild.build({
  entryPoints: { ...entrySources, ...Object.fromEntries(Object.entries(vendorSources).map(([k, v]) => [k, `vendor-entry:${v}`])) },
  outdir: DIST,
  write: false,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  metafile: true,
  logLevel: 'warning',
  plugins: [vendorEntries, dependencies],
});
const exportsOf = new Map<string, string[]>();
for (const [out, meta] of Object.entries(analysis.metafile.outputs)) {
  const name = path.relative(DIST, path.resolve(ROOT, out)).replace(/\.js$/, '');
  if (name in entrySources || name in vendorSources) exportsOf.set(name, meta.exports);
}

const table = [...Object.entries(entrySources).map(([k, v]) => [k, `./${path.relative(DIST, v)}`]), ...Object.entries(vendorSources)].map(
  ([k, v]) => `  ${JSON.stringify(k)}: () => require(${JSON.stringify(v)}),`,
);
const result = await esbuild.build({
  stdin: { contents: `module.exports = {\n${table.join('\n')}\n};\n`, resolveDir: DIST, sourcefile: 'bundle-entries.cjs', loader: 'js' },
  outfile: BUNDLE,
  write: false,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'external',
  metafile: true,
  logLevel: 'warning',
  // The file is the function bundle-loader.ts calls, so V8 compiles the file's text as it is read, with
  // no copy joined to a wrapper. tsc's output is ES modules, which are strict.
  banner: { js: `(function (${BUNDLE_PARAMS}) {"use strict";` },
  footer: { js: '})' },
  plugins: [dependencies, importMeta],
});
for (const w of result.warnings) if (w.id === 'empty-import-meta') throw new Error(`import.meta the bundle does not know: ${w.location?.file}:${w.location?.line}`);
const code = result.outputFiles.find((f) => f.path === BUNDLE)!;
const map = result.outputFiles.find((f) => f.path === `${BUNDLE}.map`)!;

const hooks = await esbuild.build({
  entryPoints: { [HOOKS]: path.join(DIST, `${HOOKS}.js`) },
  outdir: DIST,
  allowOverwrite: true,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [dependencies],
});

// esbuild escapes every non-ASCII character of the code but copies comments as they are; a bundle of
// ASCII alone is a one-byte string to V8, and bundle-loader.ts reads it as such (no UTF-8 decoding).
// One `?` per UTF-16 unit keeps every column the source map knows. A raw template (String.raw) cannot
// be escaped, so it must hold ASCII only; test/project/ascii-raw-templates.test.ts keeps it so.
writeFileSync(BUNDLE, deferNamespaceExports(routeDynamicImports(code.text)).replace(/[^\x00-\x7f]/g, '?'));
writeFileSync(map.path, map.contents);
const written = new Set([BUNDLE, map.path, ...LOADER_FILES.flatMap((f) => [path.join(DIST, `${f}.js`), path.join(DIST, `${f}.js.map`)])]);
for (const f of Object.keys(hooks.metafile.outputs)) written.add(path.resolve(ROOT, f));
for (const [name, exports] of exportsOf) {
  const file = path.join(DIST, `${name}.js`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, wrapper(name, exports));
  written.add(file);
}
for (const f of before) if (!written.has(f)) rmSync(f);
// Left by builds before the single bundle, which split propbot into chunks.
rmSync(path.join(DIST, 'chunks'), { recursive: true, force: true });

// Not esbuild's `keepNames`: its calls at every function's creation made the replay ~20% slower. Without
// it, a class whose name another module also uses is renamed (`X2`), and an error's `name`
// (`new.target.name`) is what the CLI prints; such a clash fails the build instead.
const bundleClasses = classDeclarations([readFileSync(BUNDLE, 'utf8')]);
for (const [name, count] of tscClasses) {
  if ((bundleClasses.get(name) ?? 0) < count) throw new Error(`class ${name} was renamed by the bundler: give it a name no other module uses`);
}
if (!existsSync(path.join(DIST, 'index.js'))) throw new Error('dist/index.js was not written');

// A name goes to the one part that exports it, if the bundle hands out the very binding dist/index.js
// does (a renamed or namespace re-export, or a name two parts export, stays with the index).
const owners = new Map<string, string[]>();
for (const part of API_PARTS) for (const name of exportsOf.get(part) ?? []) owners.set(name, [...(owners.get(name) ?? []), part]);
const candidates = Object.fromEntries((exportsOf.get('index') ?? []).map((name) => [name, owners.get(name)?.length === 1 ? owners.get(name)![0]! : 'index']));
const check = `import { entry } from ${JSON.stringify(pathToFileURL(path.join(DIST, `${LOADER}.js`)).href)};
const wanted = ${JSON.stringify(candidates)};
const index = entry('index');
const out = {};
for (const [name, part] of Object.entries(wanted)) out[name] = part !== 'index' && entry(part)[name] === index[name] ? part : 'index';
process.stdout.write(JSON.stringify(out));`;
const parts = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', check], { encoding: 'utf8' })) as Record<string, string>;
writeFileSync(API_PARTS_FILE, JSON.stringify(parts, null, 1) + '\n');

// The code cache: a backtest run by the new build, in a process of its own (see the script).
execFileSync(process.execPath, [path.join(ROOT, 'scripts/code-cache.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
