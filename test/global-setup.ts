/**
 * One cache folder for the whole test run, removed at its end: the rows cache (src/feed/files/row-cache.ts)
 * and any other per-user cache a test reaches write there, not into the user's ~/.cache/propbot. Set
 * before the test processes start, so they and the CLI children they start inherit it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'propbot-test-cache-'));
  const before = process.env['PROPBOT_CACHE_DIR'];
  process.env['PROPBOT_CACHE_DIR'] = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    if (before === undefined) delete process.env['PROPBOT_CACHE_DIR'];
    else process.env['PROPBOT_CACHE_DIR'] = before;
  };
}
