/**
 * The run config of `propbot run`: every key checked (unknown keys are errors naming the key and its
 * line, inside `risk` too), `${VAR}` interpolation, mode rules, the API key only from the environment,
 * and a paper-mode daemon run in process to the end of its data.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { Daemon } from '../../src/runtime/daemon.js';
import { loadRunConfig, parseRunConfig } from '../../src/runtime/run-config.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { query, ROOT, tempDir } from './helpers.js';
import { COINBASE_BTC_1H } from '../data.js';

const tmp = tempDir('propbot-run-config-');
afterAll(() => tmp.cleanup());

const PAPER = `mode: paper
paper:
  markets:
    - asset: BTC
      file: data.csv
strategies:
  - use: sma-cross
`;

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

const parse = (text: string, env: Record<string, string | undefined> = {}) => parseRunConfig(text, tmp.dir, 'run.yaml', env);

describe('run config: unknown keys', () => {
  it('an unknown top-level key is an error naming the key and its line', () => {
    const e = configError(() => parse(`${PAPER}statuss:\n  port: 0\n`));
    expect(e.path).toBe('statuss');
    expect(e.line).toBe(8);
    expect(e.message).toContain('unknown key "statuss"');
    expect(e.message).toContain('run.yaml:line 8');
  });

  it('an unknown key in a nested block names the dotted key and its line', () => {
    const e = configError(() => parse(`${PAPER}shutdown:\n  pending: drain\n  drainTimeout: 5\n`));
    expect(e.path).toBe('shutdown.drainTimeout');
    expect(e.line).toBe(10);
  });

  it('an unknown key directly under risk is an error', () => {
    const e = configError(() => parse(`${PAPER}risk:\n  tradesPerDayy:\n    max: 3\n`));
    expect(e.path).toBe('risk.tradesPerDayy');
    expect(e.line).toBe(9);
  });

  it.each([
    ['scalping', 'windowMS: 1000', 'risk.scalping.windowMS'],
    ['drawdown', 'maxAdverseMov: 0.05', 'risk.drawdown.maxAdverseMov'],
    ['killSwitch', 'shares: 0.2', 'risk.killSwitch.shares'],
    ['tradesPerDay', 'maxx: 3', 'risk.tradesPerDay.maxx'],
  ])('an unknown key inside risk.%s is an error naming it and its line', (block, line, key) => {
    const e = configError(() => parse(`${PAPER}risk:\n  ${block}:\n    enabled: true\n    ${line}\n`));
    expect(e.path).toBe(key);
    expect(e.line).toBe(11);
    expect(e.message).toContain('unknown key');
  });

  it('an unknown key deeper in risk (a phase of the drawdown presets, a strategy entry) is an error', () => {
    const phase = configError(() => parse(`${PAPER}risk:\n  drawdown:\n    phases:\n      funded:\n        daily: 0.04\n        dayly: 0.04\n`));
    expect(phase.path).toBe('risk.drawdown.phases.funded.dayly');
    expect(phase.line).toBe(13);
    const strategy = configError(() => parse(`${PAPER}risk:\n  strategies:\n    sma-cross:\n      allowScalpin: true\n`));
    expect(strategy.path).toBe('risk.strategies.sma-cross.allowScalpin');
    expect(strategy.line).toBe(11);
  });

  it('known risk keys parse to their values', () => {
    const { config } = parse(`${PAPER}risk:\n  scalping:\n    enabled: false\n  tradesPerDay: { max: 3 }\n  drawdown:\n    maxAdverseMove: 0.04\n`);
    expect(config.risk?.scalping.enabled).toBe(false);
    expect(config.risk?.tradesPerDay.max).toBe(3);
    expect(config.risk?.drawdown.maxAdverseMove.toString()).toBe('0.04');
  });
});

describe('run config: environment and modes', () => {
  const SANDBOX = `mode: sandbox
connection:
  baseUrl: \${SANDBOX_URL}
  apiKeyEnv: MY_PROPBOT_KEY
strategies:
  - use: sma-cross
`;

  it('${VAR} is replaced from the environment', () => {
    const { config } = parse(SANDBOX, { SANDBOX_URL: 'http://127.0.0.1:9999' });
    expect(config.mode).toBe('sandbox');
    expect(config.connection?.baseUrl).toBe('http://127.0.0.1:9999');
    expect(config.connection?.apiKeyEnv).toBe('MY_PROPBOT_KEY');
  });

  it('an unset ${VAR} is an error naming the variable, the key and the line', () => {
    const e = configError(() => parse(SANDBOX, {}));
    expect(e.path).toBe('connection.baseUrl');
    expect(e.line).toBe(3);
    expect(e.message).toContain('SANDBOX_URL');
  });

  it('live mode refuses a config without a connection', () => {
    const e = configError(() => parse('mode: live\nstrategies:\n  - use: sma-cross\n'));
    expect(e.path).toBe('connection');
    expect(e.message).toContain("mode 'live' needs 'connection.baseUrl'");
  });

  it("an account that is no account id says what one looks like, under accounts and a strategy's account", () => {
    const hint = 'expected an account id, a UUID such as 4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';
    const strategy = configError(() => parse(`${PAPER}    account: 4b0c…\n`));
    expect([strategy.path, strategy.line, strategy.reason]).toEqual(['strategies.0.account', 8, hint]);
    const listed = configError(() => parse(`${PAPER}accounts:\n  - id: main\n`));
    expect([listed.path, listed.line, listed.reason]).toEqual(['accounts.0.id', 9, hint]);
  });

  it('paper mode refuses a config without its paper block', () => {
    expect(configError(() => parse('mode: paper\nstrategies:\n  - use: sma-cross\n')).path).toBe('paper');
  });

  it.each([
    ['in the connection block', 'mode: live\nconnection:\n  baseUrl: https://api.example.com\n  apiKey: psk_live_secret\nstrategies:\n  - use: sma-cross\n', 'connection.apiKey', 4],
    ['at the top level', 'mode: live\napiKey: psk_live_secret\nconnection:\n  baseUrl: https://api.example.com\nstrategies:\n  - use: sma-cross\n', 'apiKey', 2],
  ])('an API key written in the file (%s) is an unknown-key error', (_where, text, key, line) => {
    const e = configError(() => parse(text));
    expect(e.path).toBe(key);
    expect(e.line).toBe(line);
    // The secret itself is not echoed back.
    expect(e.message).not.toContain('psk_live_secret');
  });

  it('the key is read only from the variable named by connection.apiKeyEnv', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      const key = sandbox.describe.users[0]!.apiKey;
      const dir = path.join(tmp.dir, 'key');
      mkdirSync(dir, { recursive: true });
      const text = `mode: sandbox\nconnection:\n  baseUrl: ${sandbox.baseUrl}\n  apiKeyEnv: MY_PROPBOT_KEY\nstrategies:\n  - use: sma-cross\nstore:\n  file: key.db\nstatus: { enabled: false }\nlog: { level: silent, format: json }\n`;
      const loaded = parseRunConfig(text, dir, 'run.yaml', {});
      // The default variable holds a key, the named one does not: refused, naming the variable.
      const missing = await new Daemon(loaded, { env: { PROPBOT_API_KEY: key }, handleSignals: false }).run().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(missing).toBeInstanceOf(ConfigError);
      expect((missing as ConfigError).path).toBe('connection.apiKeyEnv');
      expect((missing as ConfigError).message).toContain('MY_PROPBOT_KEY');
      // With the key in the named variable the daemon connects and sees the key's accounts.
      let accounts: readonly string[] = [];
      const daemon = new Daemon(loaded, {
        env: { MY_PROPBOT_KEY: key },
        handleSignals: false,
        onReady: (info) => {
          accounts = info.accounts;
          daemon.stop('test done');
        },
      });
      expect(await daemon.run()).toBe(0);
      expect(accounts).toEqual(sandbox.describe.users[0]!.accounts.filter((a) => a.apiTrading).map((a) => a.accountId));
    } finally {
      await sandbox.close();
    }
  });
});

describe('paper mode in process', () => {
  it('trades a short window of the shipped candles, stops at the end of the data and leaves decisions, intents and equity in the store', async () => {
    const dir = path.join(tmp.dir, 'paper');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'paper.yaml');
    writeFileSync(
      file,
      `mode: paper
paper:
  markets:
    - asset: BTC
      file: ${COINBASE_BTC_1H}
  from: 2019-05-01
  to: 2019-05-15
  speed: 0
  balance: 100000
  phase: active_evaluation
strategies:
  - use: sma-cross
    params: { asset: BTC, period: 1h, fast: 5, slow: 20, amount: "2000", leverage: "2", stopPercent: "0.03" }
risk:
  scalping: { enabled: false }
store:
  file: paper.db
status: { port: 0 }
log: { level: info, format: json }
`,
    );
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l.startsWith('{')) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    let statusUrl: string | null = null;
    const daemon = new Daemon(loadRunConfig(file, {}), {
      handleSignals: false,
      logDestination: sink,
      onReady: (info) => (statusUrl = info.statusUrl),
    });
    // It stops by itself: the data ends.
    expect(await daemon.run()).toBe(0);
    expect(statusUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const shutdown = lines.find((l) => l['event'] === 'shutdown');
    expect(shutdown?.['reason']).toBe('the paper data has ended');
    const end = lines.find((l) => l['event'] === 'replay_end');
    // 14 days of hourly candles.
    expect(end?.['candles']).toBe(14 * 24);
    expect(end?.['aborted']).toBe(false);

    const store = path.join(dir, 'paper.db');
    const decisions = await query<{ verdict: string }>(store, 'SELECT verdict FROM decisions');
    expect(decisions.length).toBeGreaterThan(0);
    const intents = await query<{ kind: string; status: string }>(store, 'SELECT kind, status FROM intents');
    expect(intents.filter((i) => i.kind === 'open' && i.status === 'done').length).toBeGreaterThan(0);
    expect(intents.every((i) => ['done', 'rejected', 'dropped', 'failed'].includes(i.status))).toBe(true);
    const executed = await query<{ n: number }>(store, "SELECT COUNT(*) AS n FROM orders WHERE status = 'executed'");
    expect(executed[0]!.n).toBeGreaterThan(0);
    const equity = await query<{ at: number; equity: string }>(store, 'SELECT at, equity FROM equity_samples ORDER BY at');
    expect(equity.length).toBeGreaterThan(1);
    // Samples are stamped with the replay's (virtual) time, inside the window.
    expect(equity[0]!.at).toBeGreaterThanOrEqual(Date.parse('2019-05-01T00:00:00Z'));
    expect(equity[equity.length - 1]!.at).toBeLessThan(Date.parse('2019-05-15T00:00:00Z'));
    expect(equity.every((s) => /^\d+(\.\d+)?$/.test(s.equity))).toBe(true);
  });
});

describe('config files outside the checkout', () => {
  it('`${VAR}` fills numeric and boolean keys (status.port: ${PORT}) and says so when the text is no number', () => {
    const text = `${PAPER}status:\n  port: \${PB_TEST_PORT}\n  enabled: \${PB_TEST_ON}\n`;
    const { config } = parseRunConfig(text, tmp.dir, 'env.yaml', { PB_TEST_PORT: '9123', PB_TEST_ON: 'true' });
    expect(config.status.port).toBe(9123);
    expect(config.status.enabled).toBe(true);
    const err = configError(() => parseRunConfig(text, tmp.dir, 'env.yaml', { PB_TEST_PORT: 'http', PB_TEST_ON: 'true' }));
    expect(err.message).toContain('status.port');
    expect(err.message).toContain('"http"');
    expect(err.message).toContain('env.yaml:line 9');
    // A string key stays a string whatever the variable holds.
    const named = parseRunConfig(`${PAPER.replace('use: sma-cross', 'use: sma-cross\n    name: ${PB_TEST_NAME}')}`, tmp.dir, 'env.yaml', { PB_TEST_NAME: '42' });
    expect(named.config.strategies[0]!.name).toBe('42');
  });

  it('a copy of config/paper.yaml in another folder still finds the shipped data; a missing file of its own stays its own', () => {
    const dir = path.join(tmp.dir, 'copied');
    mkdirSync(dir, { recursive: true });
    const copy = path.join(dir, 'paper.yaml');
    writeFileSync(copy, readFileSync(path.join(ROOT, 'config/paper.yaml'), 'utf8'));
    const { config } = loadRunConfig(copy);
    expect(config.paper!.markets[0]!.file).toBe(COINBASE_BTC_1H);
    expect(existsSync(config.paper!.markets[0]!.file)).toBe(true);
    // Not there: refused as the config loads (before the store is opened), by its key and line.
    const mine = path.join(dir, 'mine.yaml');
    writeFileSync(mine, PAPER.replace('data.csv', 'prices/btc.csv'));
    const missing = configError(() => loadRunConfig(mine));
    expect(missing.message).toBe(
      `${mine}:line 5: paper.markets.0.file: data file not found: ${path.join(dir, 'prices/btc.csv')}; ` +
        'the shipped datasets, found by name from any folder: coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv, pyalgotrade-orcl-2001-daily.csv',
    );
    mkdirSync(path.join(dir, 'prices'));
    writeFileSync(path.join(dir, 'prices/btc.csv'), readFileSync(COINBASE_BTC_1H));
    expect(loadRunConfig(mine).config.paper!.markets[0]!.file).toBe(path.join(dir, 'prices/btc.csv'));
  });
});
