import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfigFile, parseConfigText } from '../../src/core/config-file.js';
import { ConfigError } from '../../src/core/errors.js';

const schema = z.strictObject({
  mode: z.enum(['paper', 'live']),
  accounts: z.array(z.strictObject({ id: z.string(), maxDailyDrawdown: z.number().positive() })),
  apiKey: z.string().optional(),
});

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('YAML config files', () => {
  it('returns the validated value', () => {
    const cfg = parseConfigText('mode: paper\naccounts:\n  - id: a\n    maxDailyDrawdown: 5\n', schema);
    expect(cfg).toEqual({ mode: 'paper', accounts: [{ id: 'a', maxDailyDrawdown: 5 }] });
  });

  it('names the key and line of a wrong value', () => {
    const err = errorOf(() =>
      parseConfigText('mode: paper\naccounts:\n  - id: a\n    maxDailyDrawdown: -5\n', schema, { displayName: 'run.yaml' }),
    );
    expect(err.path).toBe('accounts.0.maxDailyDrawdown');
    expect(err.line).toBe(4);
    expect(err.message).toMatch(/^run\.yaml:line 4: accounts\.0\.maxDailyDrawdown: /);
  });

  it('refuses an unknown key at its own line', () => {
    const err = errorOf(() => parseConfigText('mode: paper\naccounts: []\nmaxDailyDrawdwn: 5\n', schema));
    expect(err.path).toBe('maxDailyDrawdwn');
    expect(err.line).toBe(3);
    // Not near any key at the root: the keys allowed there instead of a guess.
    expect(err.reason).toBe('unknown key "maxDailyDrawdwn"; the keys here: mode, accounts, apiKey');
  });

  it('suggests the nearest key the schema allows at that place, through lists, optionals and unions', () => {
    const nested = errorOf(() => parseConfigText('mode: paper\naccounts:\n  - id: a\n    maxDailyDrawdwn: 5\n', schema));
    expect(nested.path).toBe('accounts.0.maxDailyDrawdwn');
    expect(nested.reason).toBe('unknown key "maxDailyDrawdwn"; did you mean "maxDailyDrawdown"?');
    const wrapped = z.strictObject({
      channels: z
        .array(z.discriminatedUnion('type', [z.strictObject({ type: z.literal('a'), url: z.string() }), z.strictObject({ type: z.literal('b'), chatIdEnv: z.string() })]))
        .optional()
        .default([]),
    });
    expect(errorOf(() => parseConfigText('channels:\n  - { type: b, chatIdEvn: X }\n', wrapped)).reason).toBe('unknown key "chatIdEvn"; did you mean "chatIdEnv"?');
    expect(errorOf(() => parseConfigText('mod: paper\naccounts: []\n', schema)).reason).toBe('unknown key "mod"; did you mean "mode"?');
  });

  it('suggests the nearest allowed value of a mistyped choice, and nothing for a value far from all', () => {
    const near = errorOf(() => parseConfigText('mode: paepr\naccounts: []\n', schema));
    expect(near.line).toBe(1);
    expect(near.reason).toBe('Invalid option: expected one of "paper"|"live"; did you mean "paper"?');
    expect(errorOf(() => parseConfigText('mode: sandbox\naccounts: []\n', schema)).reason).toBe('Invalid option: expected one of "paper"|"live"');
  });

  it('names the line of a YAML syntax error', () => {
    const err = errorOf(() => parseConfigText('mode: paper\naccounts: [\n  - x: : y\n', schema));
    expect(err.line).toBeGreaterThanOrEqual(2);
    expect(err.message).toContain('not valid YAML');
  });

  it('interpolates ${VAR} and names an unset variable with its key', () => {
    const text = 'mode: live\naccounts: []\napiKey: ${PB_KEY}\n';
    expect(parseConfigText(text, schema, { env: { PB_KEY: 'secret' } }).apiKey).toBe('secret');
    const err = errorOf(() => parseConfigText(text, schema, { env: {} }));
    expect(err.path).toBe('apiKey');
    expect(err.line).toBe(3);
    expect(err.message).toContain('PB_KEY is not set');
  });

  it('reports a missing file by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-cfg-'));
    const err = errorOf(() => loadConfigFile(join(dir, 'nope.yaml'), schema));
    expect(err.message).toContain('nope.yaml');
    expect(err.message).toContain('ENOENT');
    writeFileSync(join(dir, 'ok.yaml'), 'mode: paper\naccounts: []\n');
    expect(loadConfigFile(join(dir, 'ok.yaml'), schema).mode).toBe('paper');
  });
});
