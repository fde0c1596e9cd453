/**
 * The run's temporary folder (test/global-setup.ts): what a test or a child it starts makes with
 * `tmpdir()` lands in one folder removed at the run's end, not in the machine's /tmp.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import setup from './global-setup.js';

describe('the test run’s temporary folder', () => {
  const temp = process.env['PROPBOT_TEST_TMP'];

  it('is what tmpdir() returns in a test process', () => {
    expect(temp).toMatch(/propbot-test-tmp-/);
    expect(tmpdir()).toBe(temp);
  });

  it('is what tmpdir() returns in a child process a test starts', () => {
    const child = execFileSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], { encoding: 'utf8' });
    expect(child).toBe(temp);
  });

  it('is removed with what was made in it at teardown, and the environment is as it was', () => {
    const keys = ['PROPBOT_CACHE_DIR', 'TMPDIR', 'TMP', 'TEMP', 'PROPBOT_TEST_TMP'];
    const before = keys.map((k) => process.env[k]);
    const teardown = setup();
    const inner = tmpdir();
    const cache = process.env['PROPBOT_CACHE_DIR']!;
    expect(inner).not.toBe(temp);
    expect(process.env['PROPBOT_TEST_TMP']).toBe(inner);
    writeFileSync(path.join(inner, 'left-behind.txt'), 'x');
    writeFileSync(path.join(cache, 'cached.bin'), 'x');
    teardown();
    expect(existsSync(inner)).toBe(false);
    expect(existsSync(cache)).toBe(false);
    expect(keys.map((k) => process.env[k])).toEqual(before);
  });
});
