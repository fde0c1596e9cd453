import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownedCacheFolder, propbotCacheDir } from '../../src/core/cache-folders.js';

describe('the cache folders', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'propbot-cache-folders-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds the root in PROPBOT_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(propbotCacheDir({ PROPBOT_CACHE_DIR: path.join(root, 'x'), XDG_CACHE_HOME: '/elsewhere' })).toBe(path.join(root, 'x'));
    expect(propbotCacheDir({ XDG_CACHE_HOME: root })).toBe(path.join(root, 'propbot'));
  });

  it('makes a folder only its user may write, and refuses one others may write or a link', () => {
    const env = { PROPBOT_CACHE_DIR: path.join(root, 'propbot') };
    const rows = ownedCacheFolder('rows', env, 'linux');
    expect(rows).toBe(path.join(root, 'propbot', 'rows'));
    expect(statSync(rows!).mode & 0o077).toBe(0);
    chmodSync(rows!, 0o777);
    expect(ownedCacheFolder('rows', env, 'linux')).toBeNull();
    chmodSync(rows!, 0o700);
    chmodSync(path.join(root, 'propbot'), 0o775);
    expect(ownedCacheFolder('rows', env, 'linux')).toBeNull();
    mkdirSync(path.join(root, 'real'), { mode: 0o700 });
    symlinkSync(path.join(root, 'real'), path.join(root, 'linked'));
    expect(ownedCacheFolder('rows', { PROPBOT_CACHE_DIR: path.join(root, 'linked') }, 'linux')).toBeNull();
  });

  it('says once, as a process warning, why it will not use a folder', async () => {
    const env = { PROPBOT_CACHE_DIR: path.join(root, 'propbot') };
    const rows = ownedCacheFolder('rows', env, 'linux')!;
    chmodSync(rows, 0o777);
    const warnings: Error[] = [];
    // Only this test's folders: an earlier test's warnings may still be on their way.
    const listen = (w: Error): void => void (w.message.includes(root) && warnings.push(w));
    process.on('warning', listen);
    try {
      expect(ownedCacheFolder('rows', env, 'linux')).toBeNull();
      expect(ownedCacheFolder('rows', env, 'linux')).toBeNull();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expect(warnings.map((w) => [(w as NodeJS.ErrnoException).code, w.message])).toEqual([
      ['PROPBOT_CACHE_FOLDER', `propbot does not use the cache folder ${rows}: others may write it (mode 777: chmod 700 mends that). Its rows and code caches stay off while it is so.`],
    ]);
  });

  it('on Windows, where mode bits say nothing of who may write, takes any real folder', () => {
    const env = { PROPBOT_CACHE_DIR: path.join(root, 'propbot') };
    const rows = ownedCacheFolder('rows', env, 'win32')!;
    // As Node reports a writable folder on Windows.
    chmodSync(rows, 0o777);
    chmodSync(path.join(root, 'propbot'), 0o777);
    expect(ownedCacheFolder('rows', env, 'win32')).toBe(rows);
    mkdirSync(path.join(root, 'real'), { mode: 0o700 });
    symlinkSync(path.join(root, 'real'), path.join(root, 'linked'));
    expect(ownedCacheFolder('rows', { PROPBOT_CACHE_DIR: path.join(root, 'linked') }, 'win32')).toBeNull();
  });
});
