/**
 * propbot's folders in this user's cache: `$PROPBOT_CACHE_DIR`, else `$XDG_CACHE_HOME/propbot`, else
 * `~/.cache/propbot`. Downloaded data goes to its `data/` (feed/files/remote.ts), the code cache of the
 * bundle to `code-cache/` when the one the build made does not fit another Node or V8 (bundle-loader.ts),
 * and the rows cache to `rows/` (feed/files/row-cache.ts).
 *
 * V8 runs a code cache it reads without checking it, and cached rows become prices, so a folder those
 * two read must be a real folder of this user's, with a parent likewise, that no one else may write;
 * otherwise there is none, and propbot works as without the cache. On Windows a folder's mode bits say
 * nothing of who may write it (Node reports any writable folder as 0o666, and what guards it is the
 * profile's access list): a real folder is enough there, or the caches would never be used.
 *
 * A real ES module beside the bundle (the bundle's loader imports it before there is a bundle), so it
 * imports Node's modules only, and folder-levels.ts, which is one too.
 */
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { makeFolderLevels } from './folder-levels.js';

/** The cache folder's root (made by no one here). */
export function propbotCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env['PROPBOT_CACHE_DIR']) return path.resolve(env['PROPBOT_CACHE_DIR']);
  return path.join(env['XDG_CACHE_HOME'] ? path.resolve(env['XDG_CACHE_HOME']) : path.join(homedir(), '.cache'), 'propbot');
}

/** `name/` of the cache folder, made if missing; null when it or the root is not this user's alone to write. */
export function ownedCacheFolder(name: string, env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform): string | null {
  const base = propbotCacheDir(env);
  const folder = path.join(base, name);
  const uid = process.getuid?.();
  const modes = platform !== 'win32';
  try {
    makeFolderLevels(folder, 0o700);
    for (const dir of [base, folder]) {
      const s = lstatSync(dir);
      const why = !s.isDirectory()
        ? 'it is not a real folder (a link?)'
        : uid !== undefined && s.uid !== uid
          ? `it belongs to user ${s.uid}, not to this one (${uid})`
          : modes && (s.mode & 0o022) !== 0
            ? `others may write it (mode ${(s.mode & 0o777).toString(8)}: chmod 700 mends that)`
            : undefined;
      if (why !== undefined) return refuse(dir, why);
    }
    return folder;
  } catch {
    return null;
  }
}

const refused = new Set<string>();

/**
 * No cache, said once a folder and thread: a cache that is silently off looks like a slow machine. A
 * folder that cannot be made at all (read-only, no home) says nothing: there is nothing to mend.
 */
function refuse(dir: string, why: string): null {
  if (!refused.has(dir)) {
    refused.add(dir);
    process.emitWarning(`propbot does not use the cache folder ${dir}: ${why}. Its rows and code caches stay off while it is so.`, { code: 'PROPBOT_CACHE_FOLDER' });
  }
  return null;
}

/** Where a process keeps the bundle's code cache when the build's does not fit (see above). */
export function userCodeCacheFolder(env: NodeJS.ProcessEnv = process.env): string | null {
  return ownedCacheFolder('code-cache', env);
}
