/**
 * Creating a folder one level at a time. Node 20's `mkdir(…, { recursive: true })` spins forever where
 * the file system refuses new entries without saying why (under /proc it answers ENOENT for the folder
 * it was just asked to create, so the recursion retries the parent and back), blocking the event loop
 * so that not even SIGTERM is handled. Walking the parent chain first and then creating each missing
 * level once turns every such path into one clear refusal.
 *
 * Node's modules only: the bundle's loader makes the user's cache folders with it (cache-folders.ts)
 * before there is a bundle. directories.ts gives its refusals propbot's own error.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Why a folder cannot be made: which part of the path is wrong. */
export class FolderRefused extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.name = 'FolderRefused';
    this.reason = reason;
  }
}

const WHY: Record<string, string> = {
  ENOENT: 'the file system refuses new entries there',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  ENAMETOOLONG: 'the name is too long',
};

const codeOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? 'unknown error';

/** Make sure `dir` is a folder, creating missing levels (with `mode`, less the umask, when given). */
export function makeFolderLevels(dir: string, mode?: number): void {
  const target = path.resolve(dir);
  const missing: string[] = [];
  for (let at = target; ; at = path.dirname(at)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(at).isDirectory();
    } catch (err) {
      const code = codeOf(err);
      // ENOTDIR: a level above is a file; keep walking up to name it.
      if ((code === 'ENOENT' || code === 'ENOTDIR') && path.dirname(at) !== at) {
        missing.push(at);
        continue;
      }
      throw new FolderRefused(`cannot look at ${at}: ${code}`);
    }
    if (!isDirectory) throw new FolderRefused(`${at} is a file, not a folder`);
    break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, mode === undefined ? undefined : { mode });
    } catch (err) {
      const code = codeOf(err);
      // Someone else created it meanwhile: fine if it is a folder.
      if (code === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw new FolderRefused(`cannot create ${level}: ${code}${WHY[code] ? ` (${WHY[code]})` : ''}`);
    }
  }
}
