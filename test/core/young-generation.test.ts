import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { holdYoungGeneration, workerYoungGeneration } from '../../src/core/young-generation.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Keeps a sliding window of objects alive across scavenges, as a replay's working set does, and
 * yields to the event loop as the replay does (code for an async context).
 */
const CHURN = `
  const keep = [];
  for (let round = 0; round < 150; round++) {
    for (let i = 0; i < 20000; i++) {
      const o = { a: i, b: [i, round] };
      if (i % 5 === 0) keep.push(o);
    }
    if (keep.length > 40000) keep.splice(0, 20000);
    await new Promise((r) => setImmediate(r));
  }
`;

/**
 * A fresh process (V8 flags are the process's) that does `CHURN`'s work; it prints the young
 * generation's size (MiB) at the end, and whether a code cache made before the hold was accepted
 * while held and after the release.
 */
function churn(hold: 'hold' | 'none', env: NodeJS.ProcessEnv = {}): { youngMb: number; rejectedHeld: boolean | null; rejectedAfter: boolean | null } {
  const probe = `
    import { Script } from 'node:vm';
    import { holdYoungGeneration, youngGenerationBytes } from './src/core/young-generation.ts';
    // The isolate's own compilation cache would answer for a source seen before; V8 checks a code
    // cache against the source's length only, so each check compiles a new text of the same length.
    const src = (n) => 'function f(x) { return x * 2 + ' + n + ' } f(3);';
    const before = new Script(src(1), { produceCachedData: true }).createCachedData();
    const release = ${hold === 'hold' ? 'holdYoungGeneration(4)' : '() => {}'};
    ${CHURN}
    const youngMb = youngGenerationBytes() / 1048576;
    const rejectedHeld = new Script(src(2), { cachedData: before }).cachedDataRejected;
    release();
    const rejectedAfter = new Script(src(3), { cachedData: before }).cachedDataRejected;
    process.stdout.write(JSON.stringify({ youngMb, rejectedHeld, rejectedAfter }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', ...env },
  });
  return JSON.parse(out) as { youngMb: number; rejectedHeld: boolean | null; rejectedAfter: boolean | null };
}

describe('holdYoungGeneration', () => {
  it('stops the young generation at its size where the same work grows it further, and gives the growth back on release', () => {
    const free = churn('none');
    const held = churn('hold');
    // Without the hold, V8 doubles the young generation past 4 MiB for this work.
    expect(free.youngMb).toBeGreaterThan(4);
    // Held, it stays where the first scavenge at 4 MiB found it.
    expect(held.youngMb).toBeLessThanOrEqual(4);
    // While held, V8's flags differ from the process's start (a code cache is refused); after the
    // release they are the start's again, so the exit-time code cache and later workers fit.
    expect(held.rejectedHeld).toBe(true);
    expect(held.rejectedAfter).toBe(false);
    expect(free.rejectedAfter).toBe(false);
  });

  it("leaves V8 alone where the user sized the young generation (NODE_OPTIONS, either spelling V8 takes)", () => {
    for (const flag of ['--max-semi-space-size=16', '--max_semi_space_size=16']) {
      const user = churn('hold', { NODE_OPTIONS: flag });
      expect(user.youngMb, flag).toBeGreaterThan(4);
      expect(user.rejectedHeld, flag).toBe(false);
    }
  });

  it('refuses a size that is not a positive number of MiB', () => {
    expect(() => holdYoungGeneration(0)).toThrow(/maxMb must be a positive number of MiB, got 0/);
    expect(() => holdYoungGeneration(Number.NaN)).toThrow(/got NaN/);
  });
});

/** `churn`'s work in a worker thread started with `resourceLimits`; its young generation's size at the end (MiB). */
async function workerChurn(resourceLimits: ReturnType<typeof workerYoungGeneration>): Promise<number> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    const v8 = require('node:v8');
    (async () => {
      ${CHURN}
      parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576);
    })();
  `;
  const worker = new Worker(code, { eval: true, resourceLimits });
  try {
    return await new Promise<number>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe('workerYoungGeneration', () => {
  it("keeps a worker thread's young generation at the size asked for, where the same work doubles it further", async () => {
    expect(await workerChurn({})).toBeGreaterThan(4);
    // At the size, not below it: V8's limit also counts the new large-object space.
    expect(await workerChurn(workerYoungGeneration(4, {}, []))).toBe(4);
  }, 60_000);

  it('asks for no limit where the user sized the young generation (NODE_OPTIONS or node\'s own options, either spelling)', () => {
    expect(workerYoungGeneration(4, { NODE_OPTIONS: '--max-semi-space-size=16' }, [])).toEqual({});
    expect(workerYoungGeneration(4, {}, ['--max_semi_space_size=16'])).toEqual({});
    expect(workerYoungGeneration(4, { NODE_OPTIONS: '--semi-space-growth-factor=4' }, [])).toEqual({});
    expect(workerYoungGeneration(16, { NODE_OPTIONS: '--max-old-space-size=512' }, [])).toEqual({ maxYoungGenerationSizeMb: 24 });
  });

  it('refuses a size that is not a positive number of MiB', () => {
    expect(() => workerYoungGeneration(-1)).toThrow(/maxMb must be a positive number of MiB, got -1/);
  });
});
