/**
 * The polling feed against the real thing: the HTTP client talking to the sandbox server (the local
 * engine behind the API's paths) on 127.0.0.1, with real timers and short intervals. Faults are real
 * too: the sandbox's injected 5xx answers, then the server going away.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpExchange } from '../../src/api/client.js';
import { ConnectionError, ServerError } from '../../src/api/errors.js';
import { WallClock } from '../../src/core/clock.js';
import { PollingFeed, type FeedError } from '../../src/feed/polling-feed.js';
import type { MarketSnapshot, OrdersSnapshot, PositionsSnapshot, RiskSnapshot } from '../../src/feed/types.js';
import { parseSandboxConfig } from '../../src/sandbox/config.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

const KEY = 'psk_feed_test_0001';

function config(faults = '') {
  return parseSandboxConfig(`seed: feed-test
adminToken: admin-token-feed
clock: { mode: manual, start: "2024-01-03T12:00:00Z" }
markets:
  - baseAsset: BTC
    category: crypto
    price: { randomWalk: { initial: "60000", stepMs: 60s, volatility: "0" } }
users:
  - name: trader
    apiKey: ${KEY}
    accounts:
      - { name: main, type: demo, initialBalance: "25000", apiTrading: true }
${faults}`);
}

async function until(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await sandbox?.close().catch(() => undefined);
  sandbox = undefined;
});

describe('PollingFeed over HTTP against the sandbox', () => {
  it('streams markets, risk, positions and orders of a real account', async () => {
    sandbox = await startSandbox({ config: config(), port: 0 });
    const accountId = sandbox.describe.users[0]!.accounts[0]!.accountId;
    const feed = new PollingFeed({
      exchange: new HttpExchange({ baseUrl: sandbox.baseUrl, apiKey: KEY }),
      clock: new WallClock(),
      intervalMs: { market: 30, risk: 30, positions: 30, orders: 30 },
    });
    const markets: MarketSnapshot[] = [];
    const risk: RiskSnapshot[] = [];
    const positions: PositionsSnapshot[] = [];
    const orders: OrdersSnapshot[] = [];
    const subs = [
      feed.market$('BTC').subscribe((s) => markets.push(s)),
      feed.risk$(accountId).subscribe((s) => risk.push(s)),
      feed.positions$(accountId, 'BTC').subscribe((s) => positions.push(s)),
      feed.orders$(accountId).subscribe((s) => orders.push(s)),
    ];
    await until('two snapshots of each', () => [markets, risk, positions, orders].every((l) => l.length >= 2));
    subs.forEach((s) => s.unsubscribe());
    expect(markets[0]).toMatchObject({ asset: 'BTC', marketId: sandbox.describe.markets[0]!.id, stale: false });
    expect(markets[0]!.price.toString()).toBe('60000');
    expect(risk[0]!.data.currentEquity.toString()).toBe('25000');
    expect(risk[0]!.accountId).toBe(accountId);
    expect(positions[0]!.data).toEqual([]);
    expect(orders[0]!.data).toEqual([]);
    expect(markets[1]!.takenAt).toBeGreaterThanOrEqual(markets[0]!.takenAt);
  });

  it('reports injected server errors and a vanished server on errors$, goes stale, and never ends the stream', async () => {
    sandbox = await startSandbox({
      config: config('faults: { enabled: true, seed: 7, serverErrors: { rate: 0.5, statuses: [503] } }'),
      port: 0,
    });
    const accountId = sandbox.describe.users[0]!.accounts[0]!.accountId;
    const feed = new PollingFeed({
      exchange: new HttpExchange({ baseUrl: sandbox.baseUrl, apiKey: KEY, timeoutMs: 2_000 }),
      intervalMs: { risk: 20 },
      maxAgeMs: { risk: 300 },
      backoff: { initialMs: 20, maxMs: 80 },
    });
    const errors: FeedError[] = [];
    feed.errors$.subscribe((e) => errors.push(e));
    const seen: RiskSnapshot[] = [];
    let ended = false;
    const sub = feed.risk$(accountId).subscribe({ next: (s) => seen.push(s), error: () => (ended = true), complete: () => (ended = true) });
    await until('fresh snapshots between injected 503s', () => seen.filter((s) => !s.stale).length >= 3 && errors.length >= 2);
    expect(errors.some((e) => e.error instanceof ServerError)).toBe(true);
    expect(errors.every((e) => e.resource === 'risk' && e.key === accountId)).toBe(true);

    await sandbox.close();
    sandbox = undefined;
    const before = errors.length;
    await until('connection errors and a stale re-emission', () => errors.length > before + 2 && seen[seen.length - 1]!.stale);
    expect(errors.slice(before).some((e) => e.error instanceof ConnectionError)).toBe(true);
    const stale = seen[seen.length - 1]!;
    const lastFresh = [...seen].reverse().find((s) => !s.stale)!;
    expect(stale.data).toBe(lastFresh.data);
    expect(stale.takenAt).toBe(lastFresh.takenAt);
    expect(ended).toBe(false);
    sub.unsubscribe();
  });
});
