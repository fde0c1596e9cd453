/**
 * Writes dist/propbot.code-cache (see src/core/bundle-loader.ts) for the bundle the build just wrote:
 * `propbot backtest` of the shipped SMA crossover scenario (a YAML file, as `npm start` and most runs
 * read one), as a user would run it, then V8's cached data of everything the run compiled. Plain
 * JavaScript in a process of its own, so the cache is made by the Node and V8 flags that run the CLI
 * (not tsx's), and with no cache to start from.
 *   node scripts/code-cache.mjs
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.PROPBOT_CODE_CACHE = 'off';
const root = fileURLToPath(new URL('..', import.meta.url));
const out = mkdtempSync(path.join(tmpdir(), 'propbot-code-cache-'));
try {
  const { runCli } = await import('../dist/cli/main.js');
  const scenario = path.join(root, 'backtest/sma-cross-btc-2019.yaml');
  // The run's own cache folder (its rows cache): a build leaves nothing in the user's.
  const cacheDir = process.env.PROPBOT_CACHE_DIR;
  process.env.PROPBOT_CACHE_DIR = path.join(out, 'cache');
  const code = await runCli(['backtest', scenario, '--from', '2019-01-01', '--to', '2019-03-01', '--out', out]);
  if (cacheDir === undefined) delete process.env.PROPBOT_CACHE_DIR;
  else process.env.PROPBOT_CACHE_DIR = cacheDir;
  if (code !== 0) throw new Error(`the backtest that makes the code cache failed (exit ${code})`);
  const { writeCodeCache } = await import('../dist/core/bundle-loader.js');
  delete process.env.PROPBOT_CODE_CACHE;
  writeCodeCache();
} finally {
  rmSync(out, { recursive: true, force: true });
}
