/**
 * Which plugins the built propbot loads without module hooks (plugin-direct.ts), and that those it
 * loads so get propbot's own dist/index.js and its bundled libraries. How a plugin then behaves (its
 * errors, lines, the copies it shares) is the same either way: plugins-anywhere and failures tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importDirect } from '../../src/strategy/plugin-direct.js';
import { REPO, tempDir } from '../backtest/helpers.js';

const propbot = { entry: pathToFileURL(path.join(REPO, 'dist/index.js')).href, vendor: pathToFileURL(path.join(REPO, 'dist/vendor/')).href };

const STRATEGY = "export default defineStrategy({ name: 'direct', version: '1.0.0', assets: ['ORCL'], setup: () => null });\n";

function write(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('plugins loaded without hooks', () => {
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
