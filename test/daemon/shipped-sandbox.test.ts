/**
 * The shipped rehearsal pair: `propbot sandbox` on config/sandbox.yaml and `propbot run` on
 * config/sandbox-run.yaml, with alice's key, as the README tells a new user to start them. Both are
 * real child processes; only the ports are moved to free ones, so a test never takes the defaults.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadRunConfig } from '../../src/runtime/run-config.js';
import { loadSandboxConfig } from '../../src/sandbox/config.js';
import type { SandboxDescription } from '../../src/sandbox/types.js';
import { childrenTempDir, cli } from './helpers.js';

const ROOT = path.resolve(__dirname, '../..');
const tmp = childrenTempDir('propbot-shipped-sandbox-');

describe('config/sandbox.yaml and config/sandbox-run.yaml', () => {
  it('point at each other and do not share a port with the dashboard', () => {
    const sandbox = loadSandboxConfig(path.join(ROOT, 'config/sandbox.yaml'));
    const { config } = loadRunConfig(path.join(ROOT, 'config/sandbox-run.yaml'));
    expect(new URL(config.connection!.baseUrl).port).toBe(String(sandbox.server.port));
    expect(config.status.port).not.toBe(sandbox.server.port);
    // The key the run config's header names is one of the sandbox's users'.
    const key = /PROPBOT_API_KEY=(\S+)/.exec(readFileSync(path.join(ROOT, 'config/sandbox-run.yaml'), 'utf8'))?.[1];
    expect(sandbox.users.map((u) => u.apiKey)).toContain(key);
  });

  it("the daemon starts on the sandbox's alice-api account, runs its strategy and stops cleanly", async () => {
    const describeFile = path.join(tmp.dir, 'sandbox.json');
    const sandbox = cli(['sandbox', '--config', 'config/sandbox.yaml', '--port', '0', '--describe-out', describeFile]);
    try {
      await sandbox.waitFor((out) => out.includes('listening on'), 'the sandbox to listen');
      const described = JSON.parse(readFileSync(describeFile, 'utf8')) as SandboxDescription;
      const alice = described.users.find((u) => u.name === 'alice')!;
      const text = readFileSync(path.join(ROOT, 'config/sandbox-run.yaml'), 'utf8');
      const run = path.join(tmp.dir, 'sandbox-run.yaml');
      writeFileSync(
        run,
        text
          .replace('http://127.0.0.1:8788', described.baseUrl)
          .replace('port: 8787', 'port: 0')
          .replace('../.propbot/sandbox.db', path.join(tmp.dir, 'sandbox.db')),
      );
      expect(parse(readFileSync(run, 'utf8')).connection.baseUrl).toBe(described.baseUrl);
      const daemon = cli(['run', '--config', run, '--log-format', 'json'], { PROPBOT_API_KEY: alice.apiKey });
      await daemon.waitFor((out) => out.includes('"event":"ready"'), 'the daemon to be ready');
      const ready = daemon.lines().find((l) => l['event'] === 'ready')!;
      const apiAccounts = alice.accounts.filter((a) => a.apiTrading).map((a) => a.accountId);
      expect(apiAccounts).toHaveLength(1);
      expect(ready['accounts']).toEqual(apiAccounts);
      expect(ready['strategies']).toEqual(['sma-cross']);
      await daemon.waitFor((out) => out.includes('strategy started'), 'the strategy to start');
      daemon.kill('SIGTERM');
      expect((await daemon.exit).code, daemon.stderr()).toBe(0);
      expect(daemon.stdout()).toContain('store flushed and closed; bye');
    } finally {
      sandbox.kill('SIGTERM');
      await sandbox.exit;
    }
  });
});
