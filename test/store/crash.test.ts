/**
 * Kill a writing process with SIGKILL at random points (fixed seed) and check that the database opens,
 * passes `PRAGMA integrity_check`, and holds whole batches only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/execution/retry.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from './helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PER_ROUND = 25;
const KILLS = 5;
const tmp = tempDir('propbot-crash-');
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  tmp.cleanup();
});

/** Start the writer; resolve once it has committed at least `minRound` rounds beyond its start. */
function startWriter(file: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/store/crash-child.ts', file, String(PER_ROUND)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      // Wait for one progress line after the start so the kill lands in the middle of writing.
      if (/round \d+/.test(out)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`writer exited (${String(code)}) before writing: ${err}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('Store: crash at any point', () => {
  it(`survives ${KILLS} SIGKILLs at random points with whole batches only`, async () => {
    const file = path.join(tmp.dir, 'crash.db');
    const random = seededRandom(20261122);
    let lastRounds = 0;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const child = await startWriter(file);
      await new Promise((r) => setTimeout(r, 5 + Math.floor(random() * 120)));
      await killed(child);

      const store = await Store.open({ file });
      try {
        const [check] = await store.query<{ integrity_check: string }>('PRAGMA integrity_check');
        expect(check?.integrity_check).toBe('ok');
        const perRound = await store.query<{ round: number; n: number }>(
          `SELECT at / ${PER_ROUND} AS round, COUNT(*) AS n FROM equity_samples WHERE account_id = 'crash' GROUP BY round ORDER BY round`,
        );
        const rounds = perRound.length;
        // Every round present is whole, and rounds are contiguous from 0.
        expect(perRound.every((r, i) => r.round === i && r.n === PER_ROUND)).toBe(true);
        // The marker and the key row of each round were committed with its samples, in the same transaction.
        const state = await store.strategyState('crash');
        expect(state.get<number>('round')).toBe(rounds - 1);
        const [keys] = await store.query<{ n: number }>("SELECT COUNT(*) AS n FROM requests WHERE idempotency_key LIKE 'crash-%'");
        expect(keys?.n).toBe(rounds);
        expect(rounds).toBeGreaterThan(lastRounds);
        lastRounds = rounds;
      } finally {
        await store.close();
      }
    }
  });
});
