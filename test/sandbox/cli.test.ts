import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpExchange } from '../../src/api/client.js';
import type { SandboxDescription } from '../../src/sandbox/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The CLI from source through tsx (works without a build). */
const FROM_SOURCE = ['--import', 'tsx', path.join(ROOT, 'test/sandbox/fixtures/cli.ts')];
/** The installed entry point; it runs dist/, which `npm test` builds first (pretest). */
const FROM_BUILD = [path.join(ROOT, 'bin/propbot.js')];
const BUILT = existsSync(path.join(ROOT, 'dist/cli/commands/sandbox.js'));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(entry: string[], args: string[]): Run {
  const child = spawn(process.execPath, [...entry, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function listening(r: Run): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (r.stdout().includes('listening on')) resolve();
    };
    r.child.stdout!.on('data', check);
    r.exit.then((code) => reject(new Error(`sandbox exited (${code}) before listening: ${r.stderr()}`)));
    check();
  });
}

async function serveAndStop(entry: string[]): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'propbot-sandbox-cli-'));
  const out = path.join(dir, 'describe.json');
  const r = run(entry, ['sandbox', '--port', '0', '--describe-out', out]);
  await listening(r);
  const d = JSON.parse(readFileSync(out, 'utf8')) as SandboxDescription;
  expect(d.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(r.stdout()).toContain(d.baseUrl);
  // Said once, on stdout: nothing on stderr repeats it.
  expect(`${r.stdout()}${r.stderr()}`.match(/listening on/g)).toHaveLength(1);
  expect(d.users.length).toBeGreaterThanOrEqual(2);
  expect(d.markets.map((m) => m.baseAsset)).toEqual(expect.arrayContaining(['BTC', 'ETH']));
  const user = d.users.find((u) => u.accounts.some((a) => a.apiTrading) && u.accounts.some((a) => !a.apiTrading))!;
  for (const a of user.accounts) expect(Object.keys(a)).toEqual(expect.arrayContaining(['accountId', 'apiTrading', 'type', 'phase']));

  const client = new HttpExchange({ baseUrl: d.baseUrl, apiKey: user.apiKey });
  const statuses = await client.listRiskStatuses();
  expect(statuses.map((s) => s.accountId)).toEqual(user.accounts.filter((a) => a.apiTrading).map((a) => a.accountId));
  expect((await client.listMarkets()).length).toBe(d.markets.length);

  r.child.kill('SIGTERM');
  expect(await r.exit).toBe(0);
}

describe('propbot sandbox (child process)', () => {
  it('serves the default config on an ephemeral port, writes the description and stops on SIGTERM', async () => {
    await serveAndStop(FROM_SOURCE);
  });

  it.runIf(BUILT)('runs from bin/propbot.js (the build)', async () => {
    await serveAndStop(FROM_BUILD);
  });

  it('a bad config exits 2 naming the key and line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'propbot-sandbox-cli-'));
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'adminToken: admin-token-1\nmarkets:\n  - baseAsset: BTC\n    price: { randomWalk: { initial: "-5" } }\nusers: []\n');
    const r = run(FROM_SOURCE, ['sandbox', '--config', file, '--port', '0']);
    expect(await r.exit).toBe(2);
    expect(r.stderr()).toContain('line 4');
    expect(r.stderr()).toContain('markets.0.price.randomWalk.initial');
  });

  it('a port already taken exits 2 naming the flag, or the key and line of the file that set it', async () => {
    const first = run(FROM_SOURCE, ['sandbox', '--port', '0']);
    await listening(first);
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(first.stdout())![1]);
    const byFlag = run(FROM_SOURCE, ['sandbox', '--port', String(port)]);
    expect(await byFlag.exit).toBe(2);
    const refused = `cannot listen on 127.0.0.1:${port}: EADDRINUSE (another sandbox may be running there); choose another port, 0 for any free one`;
    expect(byFlag.stderr().trim()).toBe(`propbot: --port: ${refused}`);
    const dir = mkdtempSync(path.join(tmpdir(), 'propbot-sandbox-cli-'));
    const file = path.join(dir, 'taken.yaml');
    writeFileSync(file, readFileSync(path.join(ROOT, 'config/sandbox.yaml'), 'utf8').replace(/^  port: \d+/m, `  port: ${port}`));
    const line = readFileSync(file, 'utf8').split('\n').findIndex((l) => l.startsWith(`  port: ${port}`)) + 1;
    const byFile = run(FROM_SOURCE, ['sandbox', '--config', file]);
    expect(await byFile.exit).toBe(2);
    expect(byFile.stderr().trim()).toBe(`propbot: ${file}:line ${line}: server.port: ${refused}`);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
  });
});
