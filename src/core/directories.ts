/**
 * Creating the folder a file will live in, one level at a time (folder-levels.ts says why not a
 * recursive mkdir), with propbot's error when it cannot be.
 */
import path from 'node:path';
import { PropbotError } from './errors.js';
import { FolderRefused, makeFolderLevels } from './folder-levels.js';

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

/**
 * Make sure `dir` is a folder, creating missing levels (with `mode`, less the umask, when given); a
 * DirectoryError names what stands in the way.
 */
export function ensureDirectory(dir: string, mode?: number): void {
  try {
    makeFolderLevels(dir, mode);
  } catch (err) {
    if (err instanceof FolderRefused) throw new DirectoryError(path.resolve(dir), err.reason);
    throw err;
  }
}
