/**
 * Two folders for the whole test run, both removed at its end:
 * - a cache folder: the rows cache (src/feed/files/row-cache.ts) and any other per-user cache a test
 *   reaches write there, not into the user's ~/.cache/propbot;
 * - a temporary folder that `os.tmpdir()` returns (TMPDIR, and TMP/TEMP for Windows): the folders
 *   the tests make with `mkdtempSync(tmpdir())`, and those the CLI children and servers they start
 *   make (compiled plugins, sweep outputs, sandbox files), go there, so a run leaves none in /tmp.
 * Set before the test processes start, so they and the children they start inherit both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const cache = mkdtempSync(path.join(tmpdir(), 'propbot-test-cache-'));
  const temp = mkdtempSync(path.join(tmpdir(), 'propbot-test-tmp-'));
  // PROPBOT_TEST_TMP names the temporary folder for test/global-setup.test.ts.
  const set = { PROPBOT_CACHE_DIR: cache, TMPDIR: temp, TMP: temp, TEMP: temp, PROPBOT_TEST_TMP: temp };
  const before = Object.keys(set).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, set);
  return () => {
    for (const [k, v] of before) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(cache, { recursive: true, force: true });
    rmSync(temp, { recursive: true, force: true });
  };
}
