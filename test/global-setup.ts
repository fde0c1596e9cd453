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

const KEYS = ['PROPBOT_CACHE_DIR', 'TMPDIR', 'TMP', 'TEMP'] as const;

export default function setup(): () => void {
  const cache = mkdtempSync(path.join(tmpdir(), 'propbot-test-cache-'));
  const temp = mkdtempSync(path.join(tmpdir(), 'propbot-test-tmp-'));
  const before = new Map(KEYS.map((k) => [k, process.env[k]]));
  process.env['PROPBOT_CACHE_DIR'] = cache;
  for (const k of ['TMPDIR', 'TMP', 'TEMP'] as const) process.env[k] = temp;
  process.env['PROPBOT_TEST_TMP'] = temp;
  return () => {
    for (const k of KEYS) {
      const v = before.get(k);
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    delete process.env['PROPBOT_TEST_TMP'];
    rmSync(cache, { recursive: true, force: true });
    rmSync(temp, { recursive: true, force: true });
  };
}
