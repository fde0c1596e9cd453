/**
 * Fields a run changes later are stored twice as their object is made (docs/performance-log.md,
 * fifteenth round): V8 takes a field stored only once for a constant, and code compiled while it was
 * one is thrown away at its first change, in the middle of a replay. V8's `%DebugPrint` names each
 * field "const data field" or "data field"; it prints from C++ to the process's stdout, so it runs in
 * a child process of its own, which has made each object and changed none of these fields.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COINBASE_BTC_1H } from '../data.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const cacheDir = mkdtempSync(path.join(tmpdir(), 'pb-const-fields-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

/** `%DebugPrint` of a fresh engine account, a fresh StreamingCandles and a fresh reader of the rows cache. */
function printed(): string {
  const probe = `
    import { EngineCore } from './src/engine/core.ts';
    import { StreamingCandles } from './src/report/downsample.ts';
    import { readCandleFile } from './src/feed/files/index.ts';
    import { Dec } from './src/core/decimal.ts';
    const print = new Function('o', '%DebugPrint(o)');
    print(new EngineCore().openAccount({ userId: 'u', type: 'demo', initialBalance: new Dec(100000) }));
    print(new StreamingCandles());
    // The first read fills the rows cache; the second reads it back.
    for (const _ of await readCandleFile(${JSON.stringify(COINBASE_BTC_1H)}).openReplay());
    print(await readCandleFile(${JSON.stringify(COINBASE_BTC_1H)}).openReplay());
  `;
  // Into a file: C's stdio writes to a pipe Node has made non-blocking, and drops what a full pipe refuses.
  const file = path.join(cacheDir, 'printed.txt');
  const fd = openSync(file, 'w');
  try {
    execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', probe], {
      cwd: ROOT,
      stdio: ['ignore', fd, 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '', PROPBOT_CACHE_DIR: cacheDir, PROPBOT_ROWS_CACHE: '' },
    });
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}

/** How V8 holds the field printed as `name` (a private field's name starts with #). */
function kind(out: string, name: string): string {
  const line = out.split('\n').find((l) => l.includes(`${name}>:`) || l.includes(`#${name}:`));
  if (line === undefined) throw new Error(`no field ${name} in the printed objects`);
  const m = /\((const data field|data field) \d+\)/.exec(line);
  if (m === null) throw new Error(`field ${name}: no kind in ${JSON.stringify(line)}`);
  return m[1]!;
}

describe('fields the replay changes are not constants when made', () => {
  it("the engine account's balance, margin and phase fields, StreamingCandles' #per and the rows cache reader's #diag", () => {
    const out = printed();
    expect(kind(out, 'balance')).toBe('data field');
    expect(kind(out, 'margin')).toBe('data field');
    expect(kind(out, '#per')).toBe('data field');
    expect(kind(out, '#diag')).toBe('data field');
    // The phase fields the first pass of a phase changes.
    expect(kind(out, 'phaseIndex')).toBe('data field');
    expect(kind(out, 'prevPeriodProfitableDays')).toBe('data field');
    expect(kind(out, 'rules')).toBe('data field');
    // A field the account keeps as made is a constant to V8: the print tells the two apart.
    expect(kind(out, 'userId')).toBe('const data field');
  });
});
