/**
 * The plain summary line CI reads agrees with vitest's own "Tests" line, and a file that fails to load
 * is counted, not hidden: vitest run as a child process on a small suite with one test of each kind.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './data.js';

describe('plain summary reporter', () => {
  it('prints the counts of vitest\'s own summary, plus the files that failed outside their tests', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'pb-reporter-'));
    mkdirSync(path.join(root, 'test'));
    symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
    writeFileSync(
      path.join(root, 'vitest.config.mjs'),
      `export default { test: { include: ['test/*.test.mjs'], reporters: ['default', ${JSON.stringify(path.join(REPO, 'test/plain-summary-reporter.ts'))}] } };\n`,
    );
    writeFileSync(
      path.join(root, 'test/some.test.mjs'),
      "import { expect, it } from 'vitest';\nit('passes', () => expect(1).toBe(1));\nit('fails', () => expect(1).toBe(2));\nit.skip('is skipped', () => {});\n",
    );
    writeFileSync(path.join(root, 'test/broken.test.mjs'), "throw new Error('does not load');\n");
    const output = await new Promise<string>((resolve) => {
      execFile(process.execPath, [path.join(REPO, 'node_modules/vitest/vitest.mjs'), 'run'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '1' } }, (_err, stdout, stderr) =>
        resolve(`${stdout}\n${stderr}`),
      );
    });
    expect(output).toMatch(/Tests\s+1 failed \| 1 passed \| 1 skipped \(3\)/);
    expect(output).toContain('\n1 passed, 1 failed, 1 skipped, 1 test file failed outside their tests\n');
  });
});
