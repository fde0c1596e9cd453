import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactText, registerSecret, type LoggerConfig } from '../../src/core/logger.js';

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

  it('scrubs a known secret value wherever it appears, in every logger of the process', async () => {
    const scrubbed = capture({ secrets: [KEY, 'abc'] });
    scrubbed.log.warn({ detail: `server said ${KEY}`, short: 'abc' }, `echoed ${KEY}`);
    const text = (await scrubbed.flushed()).join('');
    expect(text).not.toContain(KEY);
    expect(text).toContain('server said [redacted]');
    expect(text).toContain('echoed [redacted]');
    // Too short to be a key: scrubbing it would mangle ordinary words.
    expect(JSON.parse(text)).toMatchObject({ short: 'abc' });

    // Secrets are the process's: a logger made later without `secrets` hides the key too, and a value
    // never registered as a secret is left alone.
    const later = capture();
    const other = 'pk_live_NEVER-REGISTERED-1';
    later.log.warn({ detail: `server said ${KEY}` }, other);
    const laterText = (await later.flushed()).join('');
    expect(laterText).not.toContain(KEY);
    expect(laterText).toContain(other);
  });

  it('redactText hides registered secrets and bearer tokens in plain text', () => {
    registerSecret('pk_live_TEXT-SECRET-42');
    expect(redactText('plugin failed: key pk_live_TEXT-SECRET-42 refused')).toBe('plugin failed: key [redacted] refused');
    expect(redactText('Authorization: Bearer abc.def-123, retry')).toBe('Authorization: Bearer [redacted], retry');
    expect(redactText('nothing secret here')).toBe('nothing secret here');
    expect(redactText('expected the header Authorization: Bearer <API key>')).toBe('expected the header Authorization: Bearer <API key>');
  });
});
