/**
 * Which plugins the built propbot loads without module hooks (plugin-direct.ts), and that those it
 * loads so get propbot's own dist/index.js and its bundled libraries. How a plugin then behaves (its
 * errors, lines, the copies it shares) is the same either way: plugins-anywhere and failures tests.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileCacheFolder } from '../../src/strategy/plugin-compile.js';
import { importDirect } from '../../src/strategy/plugin-direct.js';
import { REPO, tempDir } from '../backtest/helpers.js';

const propbot = { entry: pathToFileURL(path.join(REPO, 'dist/index.js')).href, vendor: pathToFileURL(path.join(REPO, 'dist/vendor/')).href };

const STRATEGY = "export default defineStrategy({ name: 'direct', version: '1.0.0', assets: ['ORCL'], setup: () => null });\n";

function write(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The compiled plugin in the compile cache holding `marker`, and the dist/ files it imports. */
function compiledImports(marker: string): string[] {
  const dir = compileCacheFolder();
  if (dir === null) throw new Error('no compile cache folder: the compiled plugin cannot be read');
  const file = readdirSync(dir).find((f) => f.endsWith('.mjs') && readFileSync(path.join(dir, f), 'utf8').includes(marker));
  if (file === undefined) throw new Error(`no compiled plugin holds ${marker}`);
  const code = readFileSync(path.join(dir, file), 'utf8');
  const dist = pathToFileURL(path.join(REPO, 'dist')).href;
  return [...code.matchAll(/from\s*"([^"]+)"/g)].map((m) => m[1]!).filter((u) => u.startsWith(dist)).map((u) => u.slice(dist.length + 1)).sort();
}

describe('plugins loaded without hooks', () => {
  it("gives a plugin each name of 'propbot' from the part of the API holding it: the very binding, and no other part", async () => {
    const parts = { ...propbot, parts: pathToFileURL(path.join(REPO, 'dist/api-parts.json')).href };
    const dir = tempDir('pb-parts-');
    const marker = `marker-${path.basename(dir)}`;
    const names = ['defineStrategy', 'Dec', 'SMA', 'wire', 'startSandbox', 'HttpExchange', 'RiskGuard'];
    const wide = write(dir, 'wide.ts', `import { ${names.join(', ')} } from 'propbot';\nexport const got = { ${names.join(', ')} };\nexport const mark = '${marker}-wide';\n${STRATEGY}`);
    const loaded = (await importDirect(wide, parts)) as { module: { got: Record<string, unknown> } } | undefined;
    const index = (await import(propbot.entry)) as Record<string, unknown>;
    for (const name of names) expect({ name, same: loaded?.module.got[name] === index[name] && index[name] !== undefined }).toEqual({ name, same: true });
    // `wire` is a namespace re-export: it comes from the index, the rest from their modules
    expect(compiledImports(`${marker}-wide`)).toEqual(['api/client.js', 'core/decimal.js', 'index.js', 'risk/index.js', 'sandbox/index.js', 'strategy/index.js']);

    const narrow = write(dir, 'narrow.ts', `import { defineStrategy, Dec } from 'propbot';\nexport const one = Dec(1);\nexport const mark = '${marker}-narrow';\n${STRATEGY}`);
    expect((await importDirect(narrow, parts)) !== undefined).toBe(true);
    expect(compiledImports(`${marker}-narrow`)).toEqual(['core/decimal.js', 'strategy/index.js']);
  });

  it('names in dist/api-parts.json are the bindings dist/index.js exports', async () => {
    const { entry } = (await import(pathToFileURL(path.join(REPO, 'dist/core/bundle-loader.js')).href)) as { entry: (name: string) => Record<string, unknown> };
    const byName = JSON.parse(readFileSync(path.join(REPO, 'dist/api-parts.json'), 'utf8')) as Record<string, string>;
    const index = entry('index');
    expect(Object.keys(byName).sort()).toEqual(Object.keys(index).sort());
    const wrong = Object.entries(byName).filter(([name, part]) => entry(part)[name] !== index[name]);
    expect(wrong).toEqual([]);
    // most names come from a part of their own, not the whole index
    expect(Object.values(byName).filter((p) => p === 'index').length).toBeLessThan(10);
  });

  it('a plugin importing only propbot, its shared libraries and node: modules', async () => {
    const dir = tempDir('pb-direct-');
    const file = write(
      dir,
      'only-shared.ts',
      `import { defineStrategy, z as propbotZ } from 'propbot';\nimport { z } from 'zod';\nimport { readFileSync } from 'node:fs';\nexport const same: boolean = z === propbotZ && typeof readFileSync === 'function';\n${STRATEGY}`,
    );
    for (const run of ['compiled', 'cached']) {
      const loaded = (await importDirect(file, propbot)) as { module: { same: boolean; default: { name: string } } } | undefined;
      expect({ run, name: loaded?.module.default.name, same: loaded?.module.same }).toEqual({ run, name: 'direct', same: true });
    }
  });

  it('leaves to the hooks what would see the cached file instead of the plugin', async () => {
    const dir = tempDir('pb-hooked-');
    mkdirSync(path.join(dir, 'lib'));
    write(dir, 'lib/helper.ts', 'export const two = 2;\n');
    const cases = {
      relative: `import { defineStrategy } from 'propbot';\nimport { two } from './lib/helper.js';\nexport const four = two * 2;\n${STRATEGY}`,
      userPackage: `import { defineStrategy } from 'propbot';\nimport left from 'left-pad';\nexport const pad = left;\n${STRATEGY}`,
      importMeta: `import { defineStrategy } from 'propbot';\nexport const here = import.meta.url;\n${STRATEGY}`,
      dynamicImport: `import { defineStrategy } from 'propbot';\nexport const later = () => import('propbot');\n${STRATEGY}`,
      syntaxError: `import { defineStrategy } from 'propbot';\nconst = ;\n${STRATEGY}`,
      javascript: `import { defineStrategy } from 'propbot';\n${STRATEGY}`,
    };
    for (const [name, text] of Object.entries(cases)) {
      const file = write(dir, name === 'javascript' ? `${name}.mjs` : `${name}.ts`, text);
      expect({ name, loaded: await importDirect(file, propbot) }).toEqual({ name, loaded: undefined });
    }
  });
});
