import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sink() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, destination };
}

describe('a logger made before pino is needed', () => {
  it('answers for its level and writes what pino would, children and their bindings included', () => {
    const { lines, destination } = sink();
    const log = createLogger({ level: 'warn', destination, name: 'propbot' });
    expect(log.level).toBe('warn');
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.isLevelEnabled('error')).toBe(true);
    const child = log.child({ strategy: 'sma' });
    child.info('dropped');
    child.warn({ n: 1 }, 'kept %s', 'this');
    log.error('parent');
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map(({ time: _t, pid: _p, hostname: _h, ...r }) => r)).toEqual([
      { level: 40, name: 'propbot', strategy: 'sma', n: 1, msg: 'kept this' },
      { level: 50, name: 'propbot', msg: 'parent' },
    ]);
  });

  it("gives a child its parent's level of the moment until it has its own, as pino does", () => {
    const { lines, destination } = sink();
    const log = createLogger({ level: 'warn', destination });
    const child = log.child({ c: 1 });
    const own = log.child({ c: 2 });
    own.level = 'error';
    child.info('dropped: the parent is at warn');
    log.level = 'debug';
    child.info('kept: the parent is at debug now');
    own.warn('dropped: this child is at error');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['kept: the parent is at debug now']);
    expect([child.level, own.level]).toEqual(['debug', 'error']);
  });

  it('refuses an unknown level at once, as pino does', () => {
    expect(() => createLogger({ level: 'verbose' })).toThrow(/default level:verbose must be included/);
  });

  it('loads pino only for a line at an enabled level', () => {
    // From source through tsx, in a fresh process.
    const probe = `
      const { createRequire } = await import('node:module');
      const { Writable } = await import('node:stream');
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/node_modules/pino/'));
      const { createLogger } = await import(${JSON.stringify(path.join(ROOT, 'src/core/logger.ts'))});
      const log = createLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) });
      log.child({ part: 'x' }).info('dropped');
      log.debug('dropped');
      const before = loaded();
      log.warn('written');
      process.stdout.write(JSON.stringify({ before, after: loaded() }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ before: false, after: true });
  });
});
