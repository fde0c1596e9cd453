import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { defaultSandboxConfig, loadSandboxConfig, parseSandboxConfig } from '../../src/sandbox/config.js';
import { DEFAULT_SANDBOX_YAML } from '../../src/sandbox/default-config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const MINIMAL = `adminToken: admin-token-123
markets:
  - baseAsset: BTC
    price:
      randomWalk: { initial: "100" }
users:
  - name: u
    apiKey: key-of-u-123
    accounts:
      - name: a
`;

describe('sandbox configuration', () => {
  it('config/sandbox.yaml is the embedded default', () => {
    const fromFile = loadSandboxConfig(path.join(ROOT, 'config/sandbox.yaml'));
    expect(fromFile).toEqual(defaultSandboxConfig());
    expect(readFileSync(path.join(ROOT, 'config/sandbox.yaml'), 'utf8')).toBe(DEFAULT_SANDBOX_YAML);
  });

  it('the default has two users, api and non-api accounts, BTC, ETH and a paused-on-weekends RWA market, no faults', () => {
    const c = defaultSandboxConfig();
    expect(c.users.length).toBeGreaterThanOrEqual(2);
    const withBoth = c.users.find((u) => u.accounts.some((a) => a.apiTrading) && u.accounts.some((a) => !a.apiTrading));
    expect(withBoth).toBeDefined();
    const crypto = c.markets.filter((m) => m.category === 'crypto').map((m) => m.baseAsset);
    expect(crypto).toEqual(expect.arrayContaining(['BTC', 'ETH']));
    const rwa = c.markets.find((m) => m.category === 'rwa');
    expect(rwa?.weeklyPauses?.length).toBeGreaterThan(0);
    expect(c.markets.every((m) => m.price.kind === 'randomWalk')).toBe(true);
    expect(c.faults.enabled).toBe(false);
    expect(c.rateLimits.read.map((w) => w.label)).toEqual(['1s', '60s']);
    // Ids derive from the seed: the same config gives the same ids.
    expect(defaultSandboxConfig().users[0]!.accounts[0]!.accountId).toBe(c.users[0]!.accounts[0]!.accountId);
  });

  it('fills defaults and resolves durations, decimals and week times', () => {
    const c = parseSandboxConfig(
      MINIMAL +
        `rateLimits:
  write: [{ limit: 3, window: 500ms }, { limit: 10, window: 2m }]
`,
    );
    expect(c.server).toEqual({ host: '127.0.0.1', port: 8788, maxBodyBytes: 65536 });
    expect(c.rateLimits.write).toEqual([
      { limit: 3, windowMs: 500, label: '500ms' },
      { limit: 10, windowMs: 120000, label: '120s' },
    ]);
    expect(c.rateLimits.read).toEqual([]);
    expect(c.users[0]!.accounts[0]!.initialBalance.toString()).toBe('10000');
    expect(c.markets[0]!.price).toMatchObject({ kind: 'randomWalk', stepMs: 1000, decimals: 2 });
    expect(c.markets[0]!.weeklyPauses).toBeUndefined();
  });

  it('names the key and line of a bad value', () => {
    const text = MINIMAL.replace('initial: "100"', 'initial: 0.5');
    const err = configError(() => parseSandboxConfig(text, 'sb.yaml'));
    expect(err.path).toBe('markets.0.price.randomWalk.initial');
    expect(err.line).toBe(5);
    expect(err.message).toContain('sb.yaml');
    expect(err.message).toContain('quoted string');
  });

  it('names an unknown key at its own line', () => {
    const err = configError(() => parseSandboxConfig(MINIMAL.replace('    price:', '    prise: 1\n    price:'), 'sb.yaml'));
    expect(err.message).toContain('unknown key "prise"');
    expect(err.line).toBe(4);
  });

  it('refuses duplicate API keys, bad windows, bad week times and a missing admin token', () => {
    const dup = MINIMAL + '  - name: v\n    apiKey: key-of-u-123\n';
    expect(configError(() => parseSandboxConfig(dup)).path).toBe('users.1.apiKey');
    const window = MINIMAL + 'rateLimits:\n  read: [{ limit: 1, window: 1y }]\n';
    const w = configError(() => parseSandboxConfig(window, 'x.yaml'));
    expect(w.path).toBe('rateLimits.read.0.window');
    expect(w.line).toBe(12);
    const week = MINIMAL.replace('    price:', '    schedule: { weeklyPauses: [{ start: "Fry 21:00", end: "Sun 22:00" }] }\n    price:');
    expect(configError(() => parseSandboxConfig(week)).path).toBe('markets.0.schedule.weeklyPauses.0.start');
    expect(configError(() => parseSandboxConfig(MINIMAL.replace('adminToken: admin-token-123\n', ''))).path).toBe('adminToken');
  });

  it('reports YAML syntax errors with a line', () => {
    const err = configError(() => parseSandboxConfig('adminToken: x\nmarkets: [\n  - a\n', 'bad.yaml'));
    expect(err.line).toBeGreaterThanOrEqual(2);
  });

  it('resolves a replay file relative to the config file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'propbot-sandbox-cfg-'));
    writeFileSync(path.join(dir, 'c.csv'), 'timestamp_ms,open,high,low,close,volume\n0,1,2,0.5,1.5,1\n');
    const file = path.join(dir, 'sb.yaml');
    writeFileSync(file, MINIMAL.replace('randomWalk: { initial: "100" }', 'replay: { file: c.csv, candleMs: 4s }'));
    const c = loadSandboxConfig(file);
    expect(c.markets[0]!.price).toEqual({ kind: 'replay', file: path.join(dir, 'c.csv'), candleMs: 4000, loop: true });
  });
});
