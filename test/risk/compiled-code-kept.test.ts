/**
 * A sweep worker runs backtest after backtest in one thread, and V8 keeps the code it compiled in the
 * first run for the next, unless an object made anew each run widens a field that code relied on
 * (docs/performance-log.md, eighteenth and nineteenth rounds). V8 makes a literal's later objects
 * from a boilerplate of its site, which widens each field holding an object to hold any object: the
 * market book's per-asset slot, the settings' figures, the risk view's memo, the snapshot pump's
 * options, the engine's account and market and the market view's memo were such literals, made once
 * a run, and the second run threw away the guard's evaluation, book and quiet checks, the market
 * figures, the risk view, the pump's publish, and the engine's price step, equity sample and market
 * view. `--trace-deopt` names each function whose code is thrown away ("marking dependent code"); it
 * prints from C++ to the process's stdout, so the sweep writes into a file.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../data.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pb-code-kept-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The trace of a two-run sweep (one worker, so both runs share one thread and its compiled code). */
function twoRunSweep(): string {
  const file = path.join(dir, 'trace.txt');
  const fd = openSync(file, 'w');
  try {
    const run = spawnSync(
      process.execPath,
      [
        '--v8-pool-size=0',
        // Compiles on the JavaScript thread, so the first run's code is there before the second run, however busy the machine.
        '--no-concurrent-recompilation',
        '--trace-opt',
        '--trace-deopt',
        path.join(REPO, 'bin/propbot.js'),
        'sweep',
        path.join(REPO, 'backtest/sma-cross-btc-2019.yaml'),
        '--grid', 'fast=5',
        '--grid', 'slow=20,30',
        '--workers', '1',
        '--out', path.join(dir, 'out'),
        '--no-progress',
      ],
      { cwd: REPO, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    if (run.status !== 0) throw new Error(`sweep failed (${run.status}): ${run.stderr}`);
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}

/**
 * Functions of the replay's every step that read those objects: the guard's (the market book's slots
 * and figures), the engine's risk view (its memo), the snapshot pump's publish (its clock), and the
 * engine's own (its account and market, and the market view's memo).
 */
const KEPT = ['#evaluate', '#computeBook', '#move', 'quietPrice', 'quietAt', '#figures', 'riskStatusView', 'publishNow', '#setPrice', '#sample', 'marketView'];

describe("the code compiled in a sweep's first run outlives it", () => {
  it("no function of the guard, the risk view, the pump or the engine is thrown away when the second run makes its objects", () => {
    const trace = twoRunSweep();
    const compiled = (name: string): boolean => trace.split('\n').some((l) => l.startsWith('[completed compiling') && l.includes(`<JSFunction ${name} `));
    const marked = trace
      .split('\n')
      .filter((l) => l.startsWith('[marking dependent code'))
      .map((l) => /<SharedFunctionInfo ?([^>]*)>/.exec(l)?.[1] ?? '');
    // The premise: the first run had this code compiled, so there was code to keep.
    expect(KEPT.filter(compiled)).toEqual(KEPT);
    expect(marked.filter((name) => KEPT.includes(name))).toEqual([]);
  });
});
