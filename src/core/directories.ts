/**
 * Creating the folder a file will live in, one level at a time. Node 20's `mkdir(…, { recursive: true })`
 * spins forever where the file system refuses new entries without saying why (under /proc it answers
 * ENOENT for the folder it was just asked to create, so the recursion retries the parent and back),
 * blocking the event loop so that not even SIGTERM is handled. Walking the parent chain first and then
 * creating each missing level once turns every such path into one clear error.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PropbotError } from './errors.js';

/** A folder that does not exist and cannot be created; `reason` says which part of the path is wrong. */
export class DirectoryError extends PropbotError {
  readonly dir: string;
  readonly reason: string;
  constructor(dir: string, reason: string) {
    super('directory_unusable', `cannot create the folder ${dir}: ${reason}`);
    this.dir = dir;
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

/**
 * Make sure `dir` is a folder, creating missing levels (with `mode`, less the umask, when given); a
 * DirectoryError names what stands in the way.
 */
export function ensureDirectory(dir: string, mode?: number): void {
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
      throw new DirectoryError(target, `cannot look at ${at}: ${code}`);
    }
    if (!isDirectory) throw new DirectoryError(target, `${at} is a file, not a folder`);
    break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, mode === undefined ? undefined : { mode });
    } catch (err) {
      const code = codeOf(err);
      // Someone else created it meanwhile: fine if it is a folder.
      if (code === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw new DirectoryError(target, `cannot create ${level}: ${code}${WHY[code] ? ` (${WHY[code]})` : ''}`);
    }
  }
}
