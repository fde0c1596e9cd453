/**
 * Start-up failures of the real CLI (bin/propbot.js, child processes): each is one line on stderr that
 * names the config file, the line and the key (or quotes the venue's answer), exits 2, never prints a
 * stack, and never prints the API key.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/server.js';
import { ALICE_KEY, testConfig } from '../sandbox/helpers.js';
import { childrenTempDir, cli, type Cli } from '../daemon/helpers.js';
import { COINBASE_BTC_1H } from '../data.js';
import { freePort } from '../research/redis.js';

const { dir } = childrenTempDir('propbot-startup-');
const STRATEGY = 'strategies:\n  - use: sma-cross\n    params: { asset: BTC, period: 1h, fast: 10, slow: 30, amount: "5000", leverage: "2" }\n';

/** Write a run config; returns its path and the 1-based line of the first line containing `marker`. */
function config(name: string, text: string, marker?: string): { file: string; line: number } {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return { file, line: marker === undefined ? 0 : text.split('\n').findIndex((l) => l.includes(marker)) + 1 };
}
const paper = (extra: string) =>
  `mode: paper\npaper:\n  markets:\n    - { asset: BTC, file: ${JSON.stringify(COINBASE_BTC_1H)} }\n  from: 2019-05-01\n  speed: 0\n${STRATEGY}status: { enabled: false }\n${extra}`;

/** Run the CLI to its end; the child is killed if it is still running after `boundMs` (a hang fails the test). */
async function finish(c: Cli, boundMs = 60_000): Promise<{ code: number | null; stderr: string; stdout: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const bound = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), boundMs)));
    const end = await Promise.race([c.exit, bound]);
    if (end === 'hung') throw new Error(`the CLI did not exit within ${boundMs} ms; stderr: ${c.stderr()}`);
    return { code: end.code, stderr: c.stderr(), stdout: c.stdout() };
  } finally {
    clearTimeout(timer);
    c.kill('SIGKILL');
  }
}

/** stderr is exactly one line starting `propbot: `, with no stack frame. */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^propbot: /);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

/**
 * A paper config refused before its store is opened: exit 2, nothing on stdout, no store file made.
 * `name` names the config and its store; returns the config's path, the line of `marker`, and the one line.
 */
async function refusedBeforeTheStore(name: string, edit: (text: string) => string, marker: string): Promise<{ file: string; line: number; error: string }> {
  const { file, line } = config(`${name}.yaml`, edit(paper(`store: { file: ${name}.db }\n`)), marker);
  const r = await finish(cli(['run', '--config', file]));
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(existsSync(path.join(dir, `${name}.db`))).toBe(false);
  return { file, line, error: oneLine(r.stderr) };
}

describe('start-up errors are one line naming file, line and key', () => {
  it('a store path through a regular file (EEXIST and ENOTDIR)', async () => {
    const regular = path.join(dir, 'not-a-folder');
    writeFileSync(regular, 'x');
    for (const [name, store] of [['eexist.yaml', path.join(regular, 'db.sqlite')], ['enotdir.yaml', path.join(regular, 'deeper', 'db.sqlite')]] as const) {
      const { file, line } = config(name, paper(`store:\n  file: ${JSON.stringify(store)}\n`), '  file: "');
      const r = await finish(cli(['run', '--config', file]));
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toBe(`propbot: ${file}:line ${line}: store.file: cannot keep the store at ${store}: ${regular} is a file, not a folder`);
    }
  });

  it('a YAML alias bomb', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 7; i++) {
      const [prev, cur] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)];
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const { file } = config('bomb.yaml', `${levels.join('\n')}\nmode: paper\n`);
    const r = await finish(cli(['run', '--config', file]));
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(new RegExp(`^propbot: ${file}:line \\d+: [a-g]: not usable YAML: Excessive alias count`));
  });

  it('connection.baseUrl problems name the file, the line and the right key', async () => {
    const live = (url: string) => `mode: live\nconnection:\n  baseUrl: ${url}\n${STRATEGY}`;
    const creds = config('creds.yaml', live('https://trader:hunter2@api.example.com'), 'baseUrl');
    const r1 = await finish(cli(['run', '--config', creds.file], { PROPBOT_API_KEY: 'psk_test_unused_1' }));
    expect(r1.code).toBe(2);
    expect(oneLine(r1.stderr)).toBe(
      `propbot: ${creds.file}:line ${creds.line}: connection.baseUrl: must not carry credentials; the API key belongs in the environment variable named by connection.apiKeyEnv`,
    );
    const plain = config('plain.yaml', live('http://api.example.com'), 'baseUrl');
    const r2 = await finish(cli(['run', '--config', plain.file], { PROPBOT_API_KEY: 'psk_test_unused_1' }));
    expect(oneLine(r2.stderr)).toMatch(new RegExp(`^propbot: ${plain.file}:line ${plain.line}: connection\\.baseUrl: plain http:// is refused`));
  });

  it('a strategy name that is no example, file or package: its key and line, the examples and the nearest; no store is made', async () => {
    const { file, line, error } = await refusedBeforeTheStore('typo', (t) => t.replace('use: sma-cross', 'use: sma-crosss'), 'use:');
    expect(error).toBe(
      `propbot: ${file}:line ${line}: strategies.0.use: "sma-crosss" is not a shipped example (challenge-aware, donchian-breakout, mean-reversion, sma-cross), ` +
        `a file path (start it with ./ or give its .ts/.js extension), or a package installed where ${dir} resolves packages; did you mean "sma-cross"?`,
    );
  });

  it("a mistyped key of the run's own schema is named with the key it most likely meant", async () => {
    const risk = config('risk-typo.yaml', paper('risk:\n  drawdown:\n    maxAdverseMov: 0.05\n'), 'maxAdverseMov');
    const r1 = await finish(cli(['run', '--config', risk.file]));
    expect(r1.code).toBe(2);
    expect(oneLine(r1.stderr)).toBe(`propbot: ${risk.file}:line ${risk.line}: risk.drawdown.maxAdverseMov: unknown key "maxAdverseMov"; did you mean "maxAdverseMove"?`);
    // A scenario's singular `strategy:` copied into a run config.
    const singular = config('singular.yaml', paper('').replace('strategies:', 'strategy:'), 'strategy:');
    const r2 = await finish(cli(['run', '--config', singular.file]));
    expect(oneLine(r2.stderr)).toBe(`propbot: ${singular.file}:line ${singular.line}: strategy: unknown key "strategy"; did you mean "strategies"?`);
  });

  it("a strategy's parameter refused after the file was read names its line; no store is made", async () => {
    const { file, line, error } = await refusedBeforeTheStore('params', (t) => t.replace('fast: 10', 'fast: 40'), 'params:');
    expect(error).toBe(`propbot: ${file}:line ${line}: strategies.0.params.fast: strategy "sma-cross": parameter "fast": fast must be shorter than slow`);
  });

  it('two strategies of one name: the second by its key and line, naming the first; a `name:` settles it', async () => {
    const twice = `${STRATEGY}  - use: sma-cross\n    params: { asset: BTC, period: 4h, fast: 10, slow: 30, amount: "5000", leverage: "2" }\n`;
    const { file, line, error } = await refusedBeforeTheStore('twice', (t) => t.replace(STRATEGY, twice), 'period: 4h');
    expect(error).toBe(`propbot: ${file}:line ${line - 1}: strategies.1: a second strategy named "sma-cross" (the first is strategies.0); give one of them its own \`name:\``);
    const named = config('named.yaml', paper('store: { file: named.db }\n').replace(STRATEGY, twice.replace('  - use: sma-cross\n    params: { asset: BTC, period: 4h', '  - use: sma-cross\n    name: sma-4h\n    params: { asset: BTC, period: 4h')).replace('speed: 0', 'speed: 0\n  to: 2019-05-03'));
    const ok = await finish(cli(['run', '--config', named.file]));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('"strategies":["sma-cross","sma-4h"]');
  });

  it("paper.from after the data's last candle: the key, its line, and where the file's candles are", async () => {
    const { file, line } = config('late.yaml', paper('').replace('from: 2019-05-01', 'from: 2025-01-01'), 'from:');
    const r = await finish(cli(['run', '--config', file]));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(oneLine(r.stderr)).toBe(
      `propbot: ${file}:line ${line}: paper.from: 2025-01-01T00:00Z is after the last candle of ${COINBASE_BTC_1H} (2019-10-17T09:00Z; its first: 2017-07-01T11:00Z)`,
    );
  });

  it('paper.to not after paper.from: both keys and lines; no store is made (it would replay nothing and stop)', async () => {
    const { file, line, error } = await refusedBeforeTheStore('backwards', (t) => t.replace('  from: 2019-05-01\n', '  from: 2019-05-01\n  to: 2019-04-01\n'), 'to: 2019-04-01');
    expect(error).toBe(`propbot: ${file}:line ${line}: paper.to: 2019-04-01T00:00Z must be after paper.from (2019-05-01T00:00Z, line ${line - 1})`);
  });

  it('a dashboard port in use: status.port and its line, with no run summary before it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const { file, line } = config('port.yaml', paper(`store: { file: port.db }\n`).replace('status: { enabled: false }', `status: { port: ${port} }`), 'status:');
      const r = await finish(cli(['run', '--config', file]));
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(oneLine(r.stderr)).toBe(`propbot: ${file}:line ${line}: status.port: cannot listen on 127.0.0.1:${port}: EADDRINUSE; choose another port, 0 for any free one`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a sandbox address where nothing listens: connection.baseUrl, its line, and how to start the sandbox', async () => {
    // A port just freed on loopback: connecting is refused at once (each of the start-up's retries too).
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const { file, line } = config(
      'no-sandbox.yaml',
      `mode: sandbox\nconnection:\n  baseUrl: ${baseUrl}\n${STRATEGY}status: { enabled: false }\nstore: { file: ${JSON.stringify(path.join(dir, 'no-sandbox.db'))} }\n`,
      'baseUrl',
    );
    const r = await finish(cli(['run', '--config', file], { PROPBOT_API_KEY: 'psk_test_unused_1' }));
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      `propbot: ${file}:line ${line}: connection.baseUrl: nothing answered at ${baseUrl}: GET /accounts/risk-status: connection failed ` +
        `(ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}); is the sandbox running? start it with \`propbot sandbox --port ${port}\``,
    );
  });

  it("an API key variable that is not set: apiKeyEnv's line, or the connection block's when the default applies", async () => {
    const text = (extra: string) => `mode: sandbox\nconnection:\n  baseUrl: http://127.0.0.1:1\n${extra}${STRATEGY}status: { enabled: false }\nstore: { file: ${JSON.stringify(path.join(dir, 'no-key.db'))} }\n`;
    const byDefault = config('default-key.yaml', text(''), 'connection:');
    const r1 = await finish(cli(['run', '--config', byDefault.file], { PROPBOT_API_KEY: '' }));
    expect(r1.code).toBe(2);
    expect(oneLine(r1.stderr)).toBe(
      `propbot: ${byDefault.file}:line ${byDefault.line}: connection.apiKeyEnv: the API key is read from the environment variable PROPBOT_API_KEY ` +
        '(the default; set connection.apiKeyEnv to read another), which is not set',
    );
    const named = config('named-key.yaml', text('  apiKeyEnv: MY_DESK_KEY\n'), 'apiKeyEnv');
    const r2 = await finish(cli(['run', '--config', named.file], { MY_DESK_KEY: '' }));
    expect(oneLine(r2.stderr)).toBe(`propbot: ${named.file}:line ${named.line}: connection.apiKeyEnv: the API key is read from the environment variable MY_DESK_KEY, which is not set`);
  });

  describe('a wrong API key in sandbox mode', () => {
    let sb: SandboxHandle;
    beforeAll(async () => {
      sb = await startSandbox({ config: testConfig(), port: 0 });
    });
    afterAll(() => sb.close());

    it('names the variable and quotes the venue, with and without configured accounts', async () => {
      const account = sb.describe.users[0]!.accounts[0]!.accountId;
      const WRONG = 'psk_test_wrong_key_77';
      for (const accounts of ['', `accounts: [{ id: ${account} }]\n`]) {
        const { file, line } = config(
          `wrong-key-${accounts ? 'accounts' : 'all'}.yaml`,
          `mode: sandbox\nconnection:\n  baseUrl: ${sb.baseUrl}\n  apiKeyEnv: WRONG_KEY_VAR\n${accounts}${STRATEGY}status: { enabled: false }\nstore: { file: ${JSON.stringify(path.join(dir, 'wrong.db'))} }\n`,
          'apiKeyEnv',
        );
        const r = await finish(cli(['run', '--config', file], { WRONG_KEY_VAR: WRONG }));
        expect(r.code).toBe(2);
        const text = oneLine(r.stderr);
        expect(text).toMatch(
          new RegExp(`^propbot: ${file}:line ${line}: connection\\.apiKeyEnv: ${sb.baseUrl.replace(/[.]/g, '\\.')} refused the API key in WRONG_KEY_VAR: GET /\\S+: missing or invalid API key`),
        );
        expect(r.stderr + r.stdout).not.toContain(WRONG);
      }
    });

    it("a strategy's asset the venue does not list: the strategy's key and line, the venue's markets and the nearest", async () => {
      const { file, line } = config(
        'unlisted.yaml',
        `mode: sandbox\nconnection:\n  baseUrl: ${sb.baseUrl}\n${STRATEGY.replace('asset: BTC', 'asset: BTCC')}status: { enabled: false }\nstore: { file: ${JSON.stringify(path.join(dir, 'unlisted.db'))} }\n`,
        '- use:',
      );
      const r = await finish(cli(['run', '--config', file], { PROPBOT_API_KEY: ALICE_KEY }));
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(oneLine(r.stderr)).toBe(
        `propbot: ${file}:line ${line}: strategies.0: strategy sma-cross trades BTCC, which ${sb.baseUrl} does not list (its markets: BTC, ETH, XAU); did you mean "BTC"?`,
      );
    });
  });
});

describe('a store path that can never be created', () => {
  it.runIf(process.platform === 'linux')('fails in one line instead of spinning in mkdir (bounded; the child is killed in any case)', async () => {
    const store = '/proc/propbot-test-never/sub/db.sqlite';
    const { file, line } = config('proc.yaml', paper(`store:\n  file: ${store}\n`), '  file: /proc');
    const r = await finish(cli(['run', '--config', file]), 30_000);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      `propbot: ${file}:line ${line}: store.file: cannot keep the store at ${store}: cannot create /proc/propbot-test-never: ENOENT (the file system refuses new entries there)`,
    );
  });
});

describe('an output folder that can never be created', () => {
  it.runIf(process.platform === 'linux')('backtest --out under /proc fails in one line instead of hanging (bounded)', async () => {
    const out = '/proc/propbot-test-never/report';
    const r = await finish(cli(['backtest', '--strategy', 'sma-cross', '--data', COINBASE_BTC_1H, '--market', 'BTC', '--param', 'period=1h', '--from', '2019-05-01', '--to', '2019-05-03', '--out', out]), 60_000);
    expect(r.code).toBe(2);
    // The run's own log lines come first; the failure is the last line, without a stack.
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`propbot: cannot create the folder ${out}: cannot create /proc/propbot-test-never: ENOENT (the file system refuses new entries there)`);
  });

  it.runIf(process.platform === 'linux')('a cache folder under /proc leaves a backtest without its rows cache, not hanging (bounded)', async () => {
    const out = path.join(dir, 'cache-under-proc');
    const r = await finish(
      cli(['backtest', '--strategy', 'sma-cross', '--data', COINBASE_BTC_1H, '--market', 'BTC', '--param', 'period=1h', '--from', '2019-05-01', '--to', '2019-05-03', '--out', out], {
        PROPBOT_CACHE_DIR: '/proc/propbot-test-never/cache',
      }),
      60_000,
    );
    expect(r.code).toBe(0);
    expect(existsSync(path.join(out, 'report.json'))).toBe(true);
  });
});

describe('secrets in the CLI’s last words', () => {
  const KEY = 'psk_live_LEAK-CHECK-5f2e91';
  const leaky = path.join(dir, 'leaky-strategy.mjs');
  beforeAll(() => writeFileSync(leaky, 'throw new Error(`refused key ${process.env.CUSTOM_KEY_VAR ?? process.env.PROPBOT_API_KEY}`);\n'));

  it('a plugin load error holding the key of connection.apiKeyEnv prints [redacted]', async () => {
    const { file } = config(
      'leak.yaml',
      `mode: sandbox\nconnection:\n  baseUrl: http://127.0.0.1:9\n  apiKeyEnv: CUSTOM_KEY_VAR\nstrategies:\n  - use: ${JSON.stringify(leaky)}\nstatus: { enabled: false }\nstore: { file: ${JSON.stringify(path.join(dir, 'leak.db'))} }\n`,
    );
    const r = await finish(cli(['run', '--config', file], { CUSTOM_KEY_VAR: KEY }));
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toContain('refused key [redacted]');
    expect(r.stderr + r.stdout).not.toContain(KEY);
  });

  it('the key in PROPBOT_API_KEY is hidden from a backtest’s output too', async () => {
    const r = await finish(cli(['backtest', '--strategy', leaky, '--data', COINBASE_BTC_1H, '--market', 'BTC'], { PROPBOT_API_KEY: KEY }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('refused key [redacted]');
    expect(r.stderr + r.stdout).not.toContain(KEY);
  });
});
