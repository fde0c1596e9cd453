import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/silent-logger.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('silentLogger', () => {
  it('answers as a silent pino logger does', () => {
    expect(silentLogger.level).toBe('silent');
    expect(silentLogger.isLevelEnabled('fatal')).toBe(false);
    expect(silentLogger.child({ strategy: 'x' })).toBe(silentLogger);
    expect(silentLogger.bindings()).toEqual({});
    expect(silentLogger.levels.values.info).toBe(30);
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
      expect(silentLogger[level]({ a: 1 }, 'dropped %s', 'arg')).toBeUndefined();
    }
    let flushed = false;
    silentLogger.flush(() => (flushed = true));
    expect(flushed).toBe(true);
  });

  it('gives a child asked for custom levels those levels, dropping too', () => {
    const child = silentLogger.child({}, { customLevels: { audit: 35 } });
    expect(child.audit('dropped')).toBeUndefined();
    expect(child.isLevelEnabled('audit')).toBe(false);
    expect((silentLogger as unknown as Record<string, unknown>)['audit']).toBeUndefined();
  });

  it('keeps pino unloaded until a logger is created', () => {
    // From source through tsx, in a fresh process: the module graph of a backtest's logging parts.
    const probe = `
      const { createRequire } = await import('node:module');
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/node_modules/pino/'));
      const logger = await import(${JSON.stringify(path.join(ROOT, 'src/core/logger.ts'))});
      await import(${JSON.stringify(path.join(ROOT, 'src/runtime/pipeline.ts'))});
      const before = loaded();
      logger.createLogger({ level: 'info' });
      process.stdout.write(JSON.stringify({ before, after: loaded() }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ before: false, after: true });
  });
});
