import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type LoggerConfig } from '../../src/core/logger.js';

const KEY = 'pk_live_LOGGER-SECRET-9a8b7c';

function capture(config: Omit<LoggerConfig, 'destination'> = {}) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = createLogger({ ...config, destination });
  // The scrubbing sink forwards asynchronously to the destination; wait for it before reading.
  const flushed = () => new Promise<string[]>((resolve) => setImmediate(() => resolve(lines)));
  return { log, flushed };
}

describe('createLogger', () => {
  it('writes JSON lines by default, with the name and level', async () => {
    const { log, flushed } = capture({ name: 'propbot', level: 'debug' });
    log.debug({ op: 'listMarkets' }, 'hello');
    log.trace('below the level');
    const lines = await flushed();
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record).toMatchObject({ name: 'propbot', op: 'listMarkets', msg: 'hello' });
  });

  it('redacts secret-named keys at the top level, one level down and in nested headers', async () => {
    const { log, flushed } = capture();
    log.info({ apiKey: KEY, config: { token: KEY, password: 'hunter22' }, req: { headers: { authorization: `Bearer ${KEY}` } } }, 'x');
    const text = (await flushed()).join('');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('hunter22');
    const record = JSON.parse(text) as { apiKey: string; config: { token: string }; req: { headers: { authorization: string } } };
    expect(record.apiKey).toBe('[redacted]');
    expect(record.config.token).toBe('[redacted]');
    expect(record.req.headers.authorization).toBe('[redacted]');
  });

  it('scrubs a known secret value wherever it appears, and only when secrets are given', async () => {
    const scrubbed = capture({ secrets: [KEY, 'abc'] });
    scrubbed.log.warn({ detail: `server said ${KEY}`, short: 'abc' }, `echoed ${KEY}`);
    const text = (await scrubbed.flushed()).join('');
    expect(text).not.toContain(KEY);
    expect(text).toContain('server said [redacted]');
    expect(text).toContain('echoed [redacted]');
    // Too short to be a key: scrubbing it would mangle ordinary words.
    expect(JSON.parse(text)).toMatchObject({ short: 'abc' });

    const plain = capture();
    plain.log.warn({ detail: `server said ${KEY}` }, 'm');
    expect((await plain.flushed()).join('')).toContain(KEY);
  });
});
