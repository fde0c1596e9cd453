/**
 * The run's temporary folder (test/global-setup.ts): what a test or a child it starts makes with
 * `tmpdir()` lands in one folder removed at the run's end, not in the machine's /tmp.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';

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
});
