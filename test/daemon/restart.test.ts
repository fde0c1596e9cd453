/**
 * Restart: the daemon is killed with SIGKILL at seeded random points of a run, 20 times, and started
 * again each time on the same store file. The sandbox holds every write a few ms between "key in
 * flight" and acting, so kills land between a request leaving and its answer, and it injects mild
 * faults (lost answers, 5xx, 429 storms) all along. Afterwards: no order was placed twice on the
 * server, no stop or take is left active on a closed position, the store passes
 * `PRAGMA integrity_check`, and every request left pending or unknown by a kill was settled by the
 * next start, or named by it as still in doubt (its settling reads failed too) and settled later.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { Store } from '../../src/store/store.js';
import { openIntent } from '../execution/helpers.js';
import {
  childrenTempDir,
  duplicateKeys,
  FINAL_STATUSES,
  ledger,
  orphanProtectives,
  query,
  RELAXED_RISK,
  runYaml,
  sandboxYaml,
  seeded,
  startDaemon,
  startSandboxChild,
} from './helpers.js';

const tmp = childrenTempDir('propbot-daemon-restart-');

const KILLS = 20;
const SEED = 0x5eed_2026;

async function integrity(store: string): Promise<string> {
  const rows = await query<{ integrity_check: string }>(store, 'PRAGMA integrity_check');
  return rows.map((r) => r.integrity_check).join('; ');
}

async function unsettled(store: string): Promise<Array<{ idempotency_key: string; outcome: string; attempts: number }>> {
  if (!existsSync(store)) return [];
  return query(store, "SELECT idempotency_key, outcome, attempts FROM requests WHERE outcome IN ('pending', 'unknown')");
}

describe('propbot run killed with SIGKILL and restarted on the same store', () => {
  it(`${KILLS} kills at seeded random points: no duplicate order, no orphan stop/take, a consistent store`, async () => {
    // Mild faults on top of the kills: lost answers (mostly after acting), 5xx and short 429 storms, at
    // start-up too (the reconciliation reads of a restart must survive them).
    const faults = { serverErrors: 0.05, drop: 0.1, afterActShare: 0.7, storm: 0.005, seed: 'restart-faults' };
    const sandbox = await startSandboxChild(tmp.dir, sandboxYaml({ speed: 60, beforeActMs: 15, faults }));
    const store = path.join(tmp.dir, 'restart.db');
    const configFile = path.join(tmp.dir, 'run.yaml');
    writeFileSync(configFile, runYaml({ baseUrl: sandbox.baseUrl, store, strategyParams: { everyMs: 20, maxIntents: 100_000, holdTicks: 3 }, risk: RELAXED_RISK }));
    const random = seeded(SEED);
    let leftUnsettled = 0;
    let resumed = 0;
    let carried = 0;

    for (let kill = 0; kill < KILLS; kill += 1) {
      const before = await unsettled(store);
      leftUnsettled += before.length;
      const daemon = await startDaemon(configFile);
      // The next start settles what the last one left in flight, before it trades (resume runs before `ready`).
      if (before.length > 0) {
        expect(daemon.cli.lines().some((l) => l['event'] === 'reconcile' && Array.isArray(l['resumed']))).toBe(true);
        resumed += 1;
      }
      // Run a while (the store flushes every 50 ms), then kill at a seeded point.
      await new Promise((r) => setTimeout(r, 200 + Math.floor(random() * 800)));
      daemon.cli.kill('SIGKILL');
      expect((await daemon.cli.exit).signal).toBe('SIGKILL');
      expect(await integrity(store)).toBe('ok');
      if (process.env['DAEMON_TEST_DEBUG']) console.log(`kill ${kill}: ${before.length} left by the last kill, ${(await unsettled(store)).length} left now`);
      if (before.length > 0) {
        const keys = before.map((r) => `'${r.idempotency_key}'`).join(', ');
        const still = await query<{ idempotency_key: string; outcome: string }>(store, `SELECT idempotency_key, outcome FROM requests WHERE idempotency_key IN (${keys})`);
        // Settled by this start, unless its own reads for one failed too (the faults reach them): the
        // start then names it, and a later one settles it (nothing is in doubt after the last run).
        const named = new Set(
          daemon.cli.lines().filter((l) => l['event'] === 'in_doubt').flatMap((l) => (l['requests'] as Array<{ key: string }>).map((r) => r.key)),
        );
        const doubt = still.filter((r) => r.outcome === 'pending' || r.outcome === 'unknown');
        expect(doubt.filter((r) => !named.has(r.idempotency_key)), `kill ${kill}: left in doubt by the last kill, neither settled nor named by this start`).toEqual([]);
        carried += doubt.length;
      }
    }
    // The kills did land mid-request: some starts had something to settle, and settled most of it.
    expect(leftUnsettled).toBeGreaterThan(0);
    expect(resumed).toBeGreaterThan(0);
    expect(carried, `${carried} of ${leftUnsettled} carried past the next start`).toBeLessThan(leftUnsettled);

    // A last run that ends cleanly.
    const before = await unsettled(store);
    const last = await startDaemon(configFile);
    await new Promise((r) => setTimeout(r, 1000));
    last.cli.kill('SIGTERM');
    expect(await last.cli.exit).toEqual({ code: 0, signal: null });
    expect(await integrity(store)).toBe('ok');
    expect(await unsettled(store), `left by the last kill: ${before.length}`).toEqual([]);
    const intents = await query<{ id: string; status: string }>(store, 'SELECT id, status FROM intents');
    expect(intents.filter((i) => !FINAL_STATUSES.includes(i.status))).toEqual([]);
    expect(intents.filter((i) => i.status === 'done').length).toBeGreaterThan(KILLS);
    // Requests whose answer a kill or a fault lost were settled by reading the venue or by replaying the key.
    const settled = await query<{ n: number }>(store, "SELECT COUNT(*) AS n FROM requests WHERE outcome = 'ok' AND settled_by IN ('read', 'replay')");
    expect(settled[0]!.n).toBeGreaterThan(0);

    // Server side: one order per idempotency key, and every keyed order is one the store knows.
    const orders = await ledger(sandbox);
    expect(duplicateKeys(orders)).toEqual([]);
    const known = new Set((await query<{ idempotency_key: string }>(store, 'SELECT idempotency_key FROM requests')).map((r) => r.idempotency_key));
    expect(orders.filter((o) => o.idempotencyKey !== null && !known.has(o.idempotencyKey))).toEqual([]);

    // No orphan protective order: every active stop/take belongs to an open position.
    expect(await orphanProtectives(sandbox)).toEqual({ api: [], ledger: [] });
    await sandbox.stop();
  }, 170_000);

  it('a request the start cannot settle is named as still in doubt, and stays in the store for the next start', async () => {
    const sandbox = await startSandboxChild(tmp.dir, sandboxYaml({ speed: 60 }));
    const store = path.join(tmp.dir, 'in-doubt.db');
    const configFile = path.join(tmp.dir, 'in-doubt.yaml');
    // A final intent whose order request lost its answer, for an account the venue refuses to read:
    // the start's settling read is refused, so the request keeps its doubt.
    const gone = '00000000-0000-4000-8000-00000000dead';
    const intent = openIntent({ accountId: gone });
    const key = 'pb1-in-doubt-test';
    const s = await Store.open({ file: store });
    s.saveIntent({ intent, status: 'rejected', code: 'retries_exhausted', reason: 'answer lost', updatedAt: Date.now() });
    const args = [{ accountId: gone, marketId: 'm', type: 'market', direction: 'long', amount: new Dec(100), leverage: new Dec(5) }];
    await s.beginRequest({ key, intentId: intent.id, step: 'create', operation: 'createOrder', args, storedAt: Date.now(), attempts: 1, outcome: 'unknown' });
    await s.close();
    writeFileSync(configFile, runYaml({ baseUrl: sandbox.baseUrl, store, strategyParams: { everyMs: 1_000_000, maxIntents: 1 } }));
    const daemon = await startDaemon(configFile);
    const line = daemon.cli.lines().find((l) => l['event'] === 'in_doubt');
    expect(line?.['requests']).toEqual([{ key, intentId: intent.id, step: 'create', operation: 'createOrder' }]);
    daemon.cli.kill('SIGTERM');
    expect(await daemon.cli.exit).toEqual({ code: 0, signal: null });
    expect(await unsettled(store)).toEqual([{ idempotency_key: key, outcome: 'unknown', attempts: 1 }]);
    await sandbox.stop();
  }, 60_000);
});
