import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/silent-logger.js';

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
});
