/**
 * Child processes for the daemon tests: the sandbox server (`propbot sandbox`) and the daemon
 * (`propbot run`), both started from bin/propbot.js (the build; `npm test` builds first), plus readers
 * of the sandbox's admin surface and of the daemon's sqlite store. Every child started here is in
 * `children` and `killAll()` ends them; call it in afterAll/finally.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll } from 'vitest';
import { HttpExchange } from '../../src/api/client.js';
import { TransientFailure } from '../../src/api/errors.js';
import type { SandboxDescription } from '../../src/sandbox/server.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'bin/propbot.js');
export const CHURN = path.join(ROOT, 'test/fixtures/churn-strategy.mjs');
export const API_KEY = 'psk_test_daemon_7c1e42';
export const KEY_ENV = 'PROPBOT_TEST_DAEMON_KEY';
export const ADMIN_TOKEN = 'daemon-test-admin-token';

const children = new Set<ChildProcess>();

/** SIGKILL every child still running (afterAll / finally). */
export async function killAll(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      waits.push(new Promise((resolve) => child.once('exit', resolve)));
      child.kill('SIGKILL');
    }
  }
  children.clear();
  await Promise.all(waits);
}

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // DAEMON_TEST_KEEP=1 keeps the folder (stores, configs) to look at after a failure.
  const keep = process.env['DAEMON_TEST_KEEP'] !== undefined;
  return { dir, cleanup: () => (keep ? console.log(`kept ${dir}`) : rmSync(dir, { recursive: true, force: true })) };
}

/** The temp folder of a test file whose tests start children: afterAll kills them all, then removes it. */
export function childrenTempDir(prefix: string): { dir: string } {
  const tmp = tempDir(prefix);
  afterAll(async () => {
    await killAll();
    tmp.cleanup();
  });
  return tmp;
}

export interface Cli {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** stdout's JSON lines (the daemon logs JSON with `log.format: json`). */
  lines(): Array<Record<string, unknown>>;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once `pred` holds for stdout; rejects if the child exits first or after `timeoutMs`. */
  waitFor(pred: (stdout: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

export function cli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  let exited = false;
  void exit.then(() => (exited = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    exit,
    kill: (signal) => {
      if (!exited) child.kill(signal);
    },
    waitFor: (pred, what, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}; stderr: ${err.slice(-2000)}`)), timeoutMs);
        const check = () => {
          if (pred(out)) finish();
        };
        const onExit = () => {
          // The last chunk may arrive with the exit.
          setImmediate(() => (pred(out) ? finish() : finish(new Error(`child exited before ${what}; stderr: ${err.slice(-2000)}`))));
        };
        function finish(error?: Error): void {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('exit', onExit);
          if (error) reject(error);
          else resolve();
        }
        child.stdout!.on('data', check);
        child.once('exit', onExit);
        check();
      }),
  };
}

// ── the sandbox ──────────────────────────────────────────────────────────────────────────────────

export interface FaultSettings {
  serverErrors?: number;
  drop?: number;
  afterActShare?: number;
  storm?: number;
  stormRequests?: number;
  stormRetryAfterMs?: number;
  seed?: string;
}

/**
 * A sandbox whose prices move fast: the clock runs `speed`× wall time and BTC random-walks every
 * sandbox second. Rate limits are generous (the daemon's own limits and the injected 429 storms are
 * what the tests exercise).
 */
export function sandboxYaml(options: { speed?: number; faults?: FaultSettings; beforeActMs?: number } = {}): string {
  const f = options.faults;
  return `seed: daemon-tests
adminToken: ${ADMIN_TOKEN}
clock: { mode: accelerated, speed: ${options.speed ?? 60}, tickMs: 50 }
rateLimits:
  read:
    - { limit: 1000, window: 1s }
  write:
    - { limit: 500, window: 1s }
markets:
  - baseAsset: BTC
    category: crypto
    price:
      randomWalk: { initial: "60000", stepMs: 1000, volatility: "0.001", decimals: 2 }
users:
  - name: tester
    apiKey: ${API_KEY}
    accounts:
      - name: main
        type: real
        phase: active_evaluation
        initialBalance: "100000"
        apiTrading: true
latency:
  beforeActMs: ${options.beforeActMs ?? 0}
faults:
  enabled: ${f ? 'true' : 'false'}
  seed: ${f?.seed ?? 'daemon-faults'}
  serverErrors: { rate: ${f?.serverErrors ?? 0}, statuses: [500, 502, 503] }
  latency: { rate: 0, minMs: 0, maxMs: 0 }
  drop: { rate: ${f?.drop ?? 0}, afterActShare: ${f?.afterActShare ?? 0.5} }
  rateLimitStorm: { rate: ${f?.storm ?? 0}, requests: ${f?.stormRequests ?? 5}, retryAfterMs: ${f?.stormRetryAfterMs ?? 200} }
`;
}

export interface Sandbox {
  readonly cli: Cli;
  readonly describe: SandboxDescription;
  readonly baseUrl: string;
  readonly accountId: string;
  admin<T>(method: string, route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startSandboxChild(dir: string, yaml: string): Promise<Sandbox> {
  const configFile = path.join(dir, 'sandbox.yaml');
  const describeFile = path.join(dir, 'sandbox.json');
  writeFileSync(configFile, yaml);
  const c = cli(['sandbox', '--config', configFile, '--port', '0', '--describe-out', describeFile]);
  await c.waitFor((out) => out.includes('listening on'), 'the sandbox to listen');
  const describe = JSON.parse(readFileSync(describeFile, 'utf8')) as SandboxDescription;
  const accountId = describe.users[0]!.accounts[0]!.accountId;
  return {
    cli: c,
    describe,
    baseUrl: describe.baseUrl,
    accountId,
    admin: async <T>(method: string, route: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${describe.baseUrl}/_sandbox/${route}`, {
        method,
        headers: { authorization: `Bearer ${describe.adminToken}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (!res.ok) throw new Error(`admin ${method} ${route}: HTTP ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    stop: async () => {
      c.kill('SIGTERM');
      await c.exit;
    },
  };
}

/** One entry of GET /_sandbox/orders (the order in wire form). */
export interface LedgerEntry {
  order: { id: string; type: string; status: string; positionId: string | null; parentOrderId: string | null; trader: string };
  via: 'api' | 'engine';
  user: string | null;
  idempotencyKey: string | null;
  requestSeq: number | null;
}

export async function ledger(sandbox: Sandbox): Promise<LedgerEntry[]> {
  return (await sandbox.admin<{ data: LedgerEntry[] }>('GET', 'orders')).data;
}

/** Idempotency keys that created more than one order on the server. */
export function duplicateKeys(entries: readonly LedgerEntry[]): Array<{ key: string; orders: string[] }> {
  const byKey = new Map<string, string[]>();
  for (const e of entries) {
    if (e.idempotencyKey === null) continue;
    byKey.set(e.idempotencyKey, [...(byKey.get(e.idempotencyKey) ?? []), e.order.id]);
  }
  return [...byKey].filter(([, ids]) => ids.length > 1).map(([key, orders]) => ({ key, orders }));
}

const PROTECTIVE = new Set(['stop', 'take', 'trailing_stop']);

/** A read of the test's own through the API, which meets the sandbox's injected faults too: retried. */
async function throughFaults<T>(read: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof TransientFailure) || i >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * Stops and takes left active on the server whose position is not open (read through the API as the
 * trader, and from the admin ledger's latest state of every order).
 */
export async function orphanProtectives(sandbox: Sandbox, asset = 'BTC'): Promise<{ api: string[]; ledger: string[] }> {
  const client = new HttpExchange({ baseUrl: sandbox.baseUrl, apiKey: API_KEY });
  const positions = await throughFaults(() => client.listActivePositions(sandbox.accountId, asset));
  const open = new Set(positions.filter((p) => p.status === 'opened').map((p) => p.idx));
  const orphan = (o: { type: string; positionId: string | null }) => PROTECTIVE.has(o.type) && (o.positionId === null || !open.has(o.positionId));
  const api = (await throughFaults(() => client.listActiveOrders(sandbox.accountId))).filter(orphan).map((o) => o.id);
  const entries = (await ledger(sandbox)).filter((e) => e.order.status === 'active' && orphan(e.order)).map((e) => e.order.id);
  return { api, ledger: entries };
}

// ── the daemon ───────────────────────────────────────────────────────────────────────────────────

export interface RunYamlOptions {
  baseUrl: string;
  store: string;
  strategyParams: Record<string, unknown>;
  risk?: string;
  extra?: string;
}

/** A sandbox-mode run config: fast polls, generous client-side limits, JSON logs, status on port 0. */
export function runYaml(o: RunYamlOptions): string {
  return `mode: sandbox
connection:
  baseUrl: ${o.baseUrl}
  apiKeyEnv: ${KEY_ENV}
  timeoutMs: 5000
strategies:
  - use: ${CHURN}
    params: ${JSON.stringify(o.strategyParams)}
risk:
${(o.risk ?? RELAXED_RISK).replace(/^/gm, '  ')}
executor:
  limits:
    read: [{ limit: 300, windowMs: 1000 }]
    write: [{ limit: 150, windowMs: 1000 }]
feed:
  intervalMs: { market: 50, risk: 100, positions: 100, orders: 100, accountEvents: 2000 }
  # Generous: on a loaded test machine a late poll must not make the guard deny opens as stale.
  maxAgeMs: { market: 2000, risk: 2000, positions: 2000, orders: 2000 }
store:
  file: ${o.store}
status: { port: 0 }
log: { level: info, format: json }
${o.extra ?? ''}`;
}

/** Rules relaxed so that most of the churn strategy's intents are approved. */
export const RELAXED_RISK = `scalping: { enabled: false }
tradesPerDay: { max: 100000 }
openPositions: { max: 100 }
profitWindow: { enabled: false }
lossStreak: { enabled: false }
consistency: { enabled: false }`;

export interface DaemonChild {
  readonly cli: Cli;
  /** The `ready` log line. */
  readonly ready: { status: string | null; accounts: string[]; store: string };
}

export async function startDaemon(configFile: string): Promise<DaemonChild> {
  const c = cli(['run', '--config', configFile], { [KEY_ENV]: API_KEY });
  await c.waitFor((out) => out.includes('"event":"ready"'), 'the daemon to be ready');
  const ready = c.lines().find((l) => l['event'] === 'ready') as unknown as DaemonChild['ready'];
  return { cli: c, ready };
}

// ── the store file ───────────────────────────────────────────────────────────────────────────────

/** Read-only queries on a store file (opened after the daemon stopped, or between runs). */
export async function query<T = Record<string, unknown>>(file: string, sql: string): Promise<T[]> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const d = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(d)));
  });
  try {
    return await new Promise<T[]>((resolve, reject) => db.all(sql, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

export const FINAL_STATUSES = ['done', 'rejected', 'dropped', 'failed'];

/** Seeded PRNG (mulberry32) for kill points that repeat run to run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
