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
