/**
 * End to end: `propbot sandbox` and `propbot run` as two child processes. The daemon trades the churn
 * fixture against the sandbox over HTTP; orders are checked on the server (admin surface), the status
 * endpoint while it runs, and the store file after it stopped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpExchange } from '../../src/api/client.js';
import { DASHBOARD_SCRIPT } from '../../src/runtime/cockpit/page-script.js';
import {
  API_KEY,
  childrenTempDir,
  cli,
  duplicateKeys,
  FINAL_STATUSES,
  KEY_ENV,
  ledger,
  query,
  runYaml,
  sandboxYaml,
  startDaemon,
  startSandboxChild,
} from './helpers.js';

const tmp = childrenTempDir('propbot-daemon-e2e-');

async function getJson(url: string): Promise<{ status: number; body: unknown; type: string | null }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text, type: res.headers.get('content-type') };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface StatusBody {
  mode: string;
  accounts: Array<{
    accountId: string;
    guard: { state: string; reason: string | null };
    equity: string | null;
    headroom: Record<string, { floor: string; headroom: string }>;
    positions: unknown[];
    activeOrders: unknown[];
  }>;
  strategies: Array<{ name: string; state: string; intents: number }>;
  intents: { intents: number; approved: number; denied: number };
}

describe('propbot run against propbot sandbox (two child processes)', () => {
  it('places and fills orders, records guard denials, answers /health, /status and /metrics, exits 0 on SIGTERM', async () => {
    const sandbox = await startSandboxChild(tmp.dir, sandboxYaml({ speed: 60 }));
    const store = path.join(tmp.dir, 'e2e.db');
    const configFile = path.join(tmp.dir, 'run.yaml');
    // At most 4 opens a day: the rest of the strategy's opens are denied by the guard.
    writeFileSync(
      configFile,
      runYaml({
        baseUrl: sandbox.baseUrl,
        store,
        strategyParams: { everyMs: 40, maxIntents: 30 },
        risk: 'scalping: { enabled: false }\ntradesPerDay: { max: 4 }\nopenPositions: { max: 100 }\nprofitWindow: { enabled: false }\nlossStreak: { enabled: false }\nconsistency: { enabled: false }',
      }),
    );
    const daemon = await startDaemon(configFile);
    expect(daemon.ready.accounts).toEqual([sandbox.accountId]);
    expect(daemon.ready.store).toBe(store);
    const statusUrl = daemon.ready.status!;
    expect(statusUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The key never reaches the log.
    expect(daemon.cli.stdout()).not.toContain(API_KEY);

    const health = await getJson(`${statusUrl}/health`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', detail: { mode: 'sandbox', stopping: false } });

    // The built CLI serves the dashboard's script as written: no character of it lost to the bundle.
    const script = await getJson(`${statusUrl}/assets/dashboard.js`);
    expect(script.type).toBe('text/javascript; charset=utf-8');
    expect(script.body).toBe(DASHBOARD_SCRIPT);

    // /status: the account, its guard state and headroom to every drawdown floor once a risk snapshot arrived.
    const status = await until('a /status with headroom', async () => {
      const s = (await getJson(`${statusUrl}/status`)).body as StatusBody;
      return Object.keys(s.accounts[0]?.headroom ?? {}).length > 0 ? s : undefined;
    });
    expect(status.mode).toBe('sandbox');
    const account = status.accounts[0]!;
    expect(account.accountId).toBe(sandbox.accountId);
    expect(account.guard.state).toBe('ACTIVE');
    expect(Number(account.equity)).toBeGreaterThan(0);
    for (const [rule, h] of Object.entries(account.headroom)) {
      expect(rule).toMatch(/daily|total|trailing/);
      // Headroom is equity above the floor: both are decimal strings and headroom is positive.
      expect(Number(h.floor)).toBeGreaterThan(0);
      expect(Number(h.headroom)).toBeGreaterThan(0);
    }
    expect(status.strategies.map((s) => s.name)).toEqual(['churn']);

    // Let the strategy finish its 30 intents.
    await daemon.cli.waitFor((out) => out.includes('"msg":"strategy completed"'), 'the strategy to complete', 60_000);
    const final = await until('every intent settled', async () => {
      const s = (await getJson(`${statusUrl}/status`)).body as StatusBody & { intents: { inFlight: number } };
      return s.intents.inFlight === 0 ? s : undefined;
    });
    expect(final.intents.intents).toBe(30);
    expect(final.intents.denied).toBeGreaterThan(0);
    expect(final.intents.approved + final.intents.denied).toBe(30);

    const metrics = await getJson(`${statusUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    const text = metrics.body as string;
    expect(text).toContain('# TYPE propbot_requests_total counter');
    expect(text).toMatch(/propbot_requests_total\{bucket="write",operation="createOrder",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/propbot_requests_total\{bucket="read",operation="getRiskStatus",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/propbot_guard_decisions_total\{verdict="denied",code="trades_per_day"\} [1-9]/);
    expect(text).toMatch(/propbot_equity\{account="[0-9a-f-]+"\} [1-9]/);
    // The guard's equity is checked against every risk status polled (counted, logged when it differs).
    expect(text).toMatch(/propbot_guard_divergence_total\{account="[0-9a-f-]+"\} \d+/);

    // On the server: orders created through the API with the daemon's keys, market entries executed.
    const orders = await ledger(sandbox);
    const api = orders.filter((o) => o.via === 'api');
    expect(api.length).toBeGreaterThan(0);
    expect(api.every((o) => o.user === 'tester')).toBe(true);
    // Every create carries the executor's key (an edit, PATCH, carries none: the API takes no key there).
    const keyed = api.filter((o) => o.idempotencyKey !== null);
    expect(keyed.length).toBeGreaterThan(0);
    expect(keyed.every((o) => o.idempotencyKey!.startsWith('pb1-'))).toBe(true);
    expect(api.filter((o) => o.order.type === 'market' && o.order.status === 'executed').length).toBeGreaterThan(0);
    expect(duplicateKeys(orders)).toEqual([]);
    // The client sees the same account the daemon traded.
    const client = new HttpExchange({ baseUrl: sandbox.baseUrl, apiKey: API_KEY });
    expect((await client.listRiskStatuses()).map((r) => r.accountId)).toEqual([sandbox.accountId]);

    // Every fill the daemon logged names its origin; the strategy's carry their intent.
    const fills = daemon.cli.lines().filter((l) => l['event'] === 'fill');
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.every((l) => typeof l['origin'] === 'string')).toBe(true);
    expect(fills.filter((l) => l['origin'] === 'strategy').every((l) => typeof l['intentId'] === 'string')).toBe(true);

    daemon.cli.kill('SIGTERM');
    expect(await daemon.cli.exit).toEqual({ code: 0, signal: null });
    expect(daemon.cli.lines().some((l) => l['event'] === 'stopped')).toBe(true);
    await sandbox.stop();

    // The store, after the daemon stopped: every intent has a decision; denials carry the rule's code.
    const decisions = await query<{ intent_id: string; verdict: string; code: string | null; rule: string | null }>(store, 'SELECT intent_id, verdict, code, rule FROM decisions');
    expect(decisions.length).toBe(30);
    const denied = decisions.filter((d) => d.verdict === 'denied');
    expect(denied.length).toBe(final.intents.denied);
    // As a list, so a failure shows the denials that broke it.
    expect(denied.filter((d) => d.code !== 'trades_per_day' || d.rule === null)).toEqual([]);
    const intents = await query<{ id: string; status: string }>(store, 'SELECT id, status FROM intents');
    // Approved intents reached the executor and ended final; denied ones never did.
    expect(intents.length).toBe(final.intents.approved);
    expect(intents.every((i) => FINAL_STATUSES.includes(i.status))).toBe(true);
    expect(new Set(intents.map((i) => i.id))).toEqual(new Set(decisions.filter((d) => d.verdict === 'approved').map((d) => d.intent_id)));
    const stored = await query<{ n: number }>(store, "SELECT COUNT(*) AS n FROM orders WHERE status = 'executed'");
    expect(stored[0]!.n).toBeGreaterThan(0);
    const equity = await query<{ n: number }>(store, 'SELECT COUNT(*) AS n FROM equity_samples');
    expect(equity[0]!.n).toBeGreaterThan(0);
    // Positions as the polls saw them: one row per new version, the first being the opening increase.
    const events = await query<{ position_id: string; version: number; event_name: string }>(store, 'SELECT position_id, version, event_name FROM position_events ORDER BY position_id, version');
    expect(events.length).toBeGreaterThan(0);
    expect(events.some((e) => e.event_name === 'increasePosition')).toBe(true);
  });

  it('does not die when the venue fails at start: start-up reads are retried until the venue answers', async () => {
    const dir = path.join(tmp.dir, 'start-faults');
    mkdirSync(dir);
    // Every API request is answered 503 until the test turns the faults off.
    const sandbox = await startSandboxChild(dir, sandboxYaml({ faults: { serverErrors: 1, seed: 'all-fail' } }));
    const configFile = path.join(dir, 'run.yaml');
    // A drain timeout of an hour: the daemon must still exit as soon as it has drained (a drain timer
    // left pending once used to keep the process alive that long after "bye").
    writeFileSync(
      configFile,
      runYaml({ baseUrl: sandbox.baseUrl, store: path.join(dir, 'start.db'), strategyParams: { everyMs: 50, maxIntents: 5 }, extra: 'shutdown: { drainTimeoutMs: 3600000 }\n' }),
    );
    const daemon = cli(['run', '--config', configFile], { [KEY_ENV]: API_KEY });
    await daemon.waitFor((out) => out.includes('"event":"retry"'), 'a retried start-up read');
    expect(daemon.child.exitCode).toBeNull();
    await sandbox.admin('PUT', 'faults', { enabled: false });
    await daemon.waitFor((out) => out.includes('"event":"ready"'), 'the daemon to be ready');
    const retry = daemon.lines().find((l) => l['event'] === 'retry')!;
    expect(retry['what']).toBe('listRiskStatuses');
    daemon.kill('SIGTERM');
    expect(await daemon.exit).toEqual({ code: 0, signal: null });
    await sandbox.stop();
  });
});
