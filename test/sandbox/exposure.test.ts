/**
 * The sandbox never serves beyond this machine by accident: a non-loopback bind with the documented
 * admin token is refused, `describe` withholds API keys from peers on other hosts, and the admin surface
 * checks its token before it reads a request body.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { handleAdmin, type AdminContext } from '../../src/sandbox/admin.js';
import { bindProblem, loadSandboxConfig, parseSandboxConfig } from '../../src/sandbox/config.js';
import { DEFAULT_ADMIN_TOKEN, DEFAULT_SANDBOX_YAML } from '../../src/sandbox/default-config.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { ADMIN, ALICE_KEY, raw, rejection, testConfig } from './helpers.js';

const withHost = (host: string, token = DEFAULT_ADMIN_TOKEN) =>
  DEFAULT_SANDBOX_YAML.replace('  host: 127.0.0.1', `  host: "${host}"`).replace(`adminToken: ${DEFAULT_ADMIN_TOKEN}`, `adminToken: ${token}`);

describe('binding beyond loopback', () => {
  it('a config with a public server.host and the default admin token is refused, naming file, line and key', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'propbot-exposure-'));
    const file = path.join(dir, 'public.yaml');
    writeFileSync(file, withHost('0.0.0.0'));
    const err = (() => {
      try {
        loadSandboxConfig(file);
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(err).toBeInstanceOf(ConfigError);
    const line = withHost('0.0.0.0').split('\n').findIndex((l) => l.includes('host: "0.0.0.0"')) + 1;
    expect(err.message).toBe(`${file}:line ${line}: server.host: 0.0.0.0 is not a loopback address, and adminToken is the documented default: set your own adminToken to serve beyond this machine`);
  });

  it('loopback hosts and an own token pass; the start-up option is checked too', async () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect(bindProblem(host, DEFAULT_ADMIN_TOKEN)).toBeUndefined();
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'sandbox.example.com']) expect(bindProblem(host, DEFAULT_ADMIN_TOKEN)).toMatch(/not a loopback address/);
    expect(parseSandboxConfig(withHost('0.0.0.0', 'a-token-of-my-own')).server.host).toBe('0.0.0.0');
    // The config is fine on loopback; `host` given at start-up would open it up: refused before listening.
    const config = parseSandboxConfig(DEFAULT_SANDBOX_YAML);
    const err = await rejection(startSandbox({ config, host: '0.0.0.0', port: 0 }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/^server\.host: 0\.0\.0\.0 is not a loopback address/);
  });
});

describe('the admin surface', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await startSandbox({ config: testConfig(), port: 0 });
  });
  afterAll(() => sb.close());

  it('checks its token before reading the body: a wrong token with an oversized body is 401, not 400', async () => {
    const big = JSON.stringify({ ms: 1, pad: 'x'.repeat(10_000) });
    const wrong = await raw(sb.baseUrl, 'POST', '/_sandbox/advance', { key: ALICE_KEY, body: big });
    expect([wrong.status, wrong.json.error]).toEqual([401, 'admin_unauthorized']);
    const none = await raw(sb.baseUrl, 'POST', '/_sandbox/advance', { key: null, body: big });
    expect(none.status).toBe(401);
    // With the token, the same body is read and refused for its size.
    const right = await raw(sb.baseUrl, 'POST', '/_sandbox/advance', { key: ADMIN, body: big });
    expect([right.status, right.json.error]).toEqual([400, 'body_too_large']);
  });

  it('describe gives keys to a client on this machine only', async () => {
    const local = await raw(sb.baseUrl, 'GET', '/_sandbox/describe', { key: ADMIN });
    expect(local.json.users[0].apiKey).toBe(ALICE_KEY);
    // A peer on another host cannot be made on loopback: the request is a stub with its address.
    const ctx = { config: { adminToken: ADMIN }, describe: () => sb.describe } as unknown as AdminContext;
    const fromAfar = (address: string) =>
      ({ method: 'GET', headers: { authorization: `Bearer ${ADMIN}` }, socket: { remoteAddress: address }, resume() {} }) as unknown as IncomingMessage;
    const url = new URL('http://sandbox.invalid/_sandbox/describe');
    const remote = (await handleAdmin(ctx, fromAfar('203.0.113.7'), url, Buffer.alloc(0))).body as Record<string, any>;
    expect(remote['adminToken']).toBeNull();
    expect(remote['users'].map((u: { apiKey: unknown }) => u.apiKey)).toEqual(sb.describe.users.map(() => null));
    expect(remote['users'][0].accounts).toEqual(sb.describe.users[0]!.accounts);
    expect(JSON.stringify(remote)).not.toContain(ALICE_KEY);
    const mapped = (await handleAdmin(ctx, fromAfar('::ffff:127.0.0.1'), url, Buffer.alloc(0))).body as Record<string, any>;
    expect(mapped['users'][0].apiKey).toBe(ALICE_KEY);
  });
});
