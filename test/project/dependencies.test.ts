/**
 * The README's table of runtime dependencies matches package.json, row for row, and CI prints the
 * shipped tree, so every dependency a user installs is explained and reviewable.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('runtime dependencies', () => {
  it('each one has a README row saying what it does and why it beats hand-written code', () => {
    const deps = Object.keys((JSON.parse(read('package.json')) as { dependencies: Record<string, string> }).dependencies).sort();
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('## Runtime dependencies'), readme.indexOf('\n## ', readme.indexOf('## Runtime dependencies') + 1));
    const rows = [...section.matchAll(/^\| `([^`]+)` \|([^|]+)\|([^|]+)\|$/gm)];
    expect(rows.map((r) => r[1]).sort()).toEqual(deps);
    for (const r of rows) {
      expect(r[2]!.trim().length, r[1]).toBeGreaterThan(15);
      expect(r[3]!.trim().length, r[1]).toBeGreaterThan(15);
    }
  });

  it('.ci/run installs from the lockfile, prints the shipped tree, then runs the tests', () => {
    const steps = read('.ci/run')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^npm /.test(l));
    expect(steps).toEqual(['npm ci', 'npm ls --omit=dev --all', 'npm test']);
  });
});
