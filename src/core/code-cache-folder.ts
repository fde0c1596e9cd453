/**
 * Where a process keeps the code cache of propbot's bundle when the one the build made does not fit:
 * another Node or V8 than the build's (after an upgrade, or a package built on another machine).
 * It is `code-cache/` in this user's cache folder ($PROPBOT_CACHE_DIR, else $XDG_CACHE_HOME/propbot,
 * else ~/.cache/propbot, the data cache's too). V8 runs what it reads from there without checking
 * it, so the folder and its parent must be real folders of this user's that no one else may write;
 * otherwise there is none, and propbot compiles from source as without a cache.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export function userCodeCacheFolder(env: NodeJS.ProcessEnv = process.env): string | null {
  const home = env['XDG_CACHE_HOME'] ? path.resolve(env['XDG_CACHE_HOME']) : path.join(homedir(), '.cache');
  const base = env['PROPBOT_CACHE_DIR'] ? path.resolve(env['PROPBOT_CACHE_DIR']) : path.join(home, 'propbot');
  const folder = path.join(base, 'code-cache');
  const uid = process.getuid?.();
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    for (const dir of [base, folder]) {
      const s = lstatSync(dir);
      if (!s.isDirectory() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o022) !== 0) return null;
    }
    return folder;
  } catch {
    return null;
  }
}
