/**
 * Objects the hot path reads keep one V8 map from run to run (see src/core/arrays.ts and
 * docs/performance-log.md, thirteenth round). Checked with V8's own test functions, which
 * `--allow-natives-syntax` opens to code compiled after the flag is set.
 */
import { execFileSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { doubleArray, objectArray, objectsWhere } from '../../src/core/arrays.js';
import { Dec } from '../../src/core/decimal.js';
import { fp9Decimal } from '../../src/core/fp9.js';
import { EngineCore } from '../../src/engine/core.js';
import { ENGINE_PRESETS, phaseRules } from '../../src/engine/presets.js';
import { readCandleFile } from '../../src/feed/files/index.js';
import type { ReplayRow } from '../../src/feed/files/types.js';
import { worstSlippageJson } from '../../src/report/report-json.js';
import { withinRangeSync } from '../../src/runtime/local-session.js';
import { ORCL_1D, REPO } from '../data.js';
import { world } from '../engine/helpers.js';

setFlagsFromString('--allow-natives-syntax');
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const objectElements = new Function('a', 'return %HasObjectElements(a)') as (a: unknown[]) => boolean;
const doubleElements = new Function('a', 'return %HasDoubleElements(a)') as (a: unknown[]) => boolean;
const smiElements = new Function('a', 'return %HasSmiElements(a)') as (a: unknown[]) => boolean;
const fastProperties = new Function('a', 'return %HasFastProperties(a)') as (a: object) => boolean;

describe('empty arrays of their final kind', () => {
  it('objectArray holds objects from the start, and stays empty and separate', () => {
    const a = objectArray<{ x: number }>();
    const b = objectArray<{ x: number }>();
    expect(objectElements(a)).toBe(true);
    expect(a).toEqual([]);
    a.push({ x: 1 });
    expect(b).toEqual([]);
    expect(objectElements(b)).toBe(true);
    expect(sameMap(a, b)).toBe(true);
  });

  it('doubleArray holds doubles from the start', () => {
    const a = doubleArray();
    expect(doubleElements(a)).toBe(true);
    a.push(1_621_543_259_999);
    expect(doubleElements(a)).toBe(true);
    expect(doubleArray()).toEqual([]);
  });
});

describe('filtered lists of one kind', () => {
  it('objectsWhere keeps what filter keeps, in an array for objects whether or not it keeps any', () => {
    const list = [{ s: 'opened', n: 1 }, { s: 'closed', n: 2 }, { s: 'opened', n: 3 }];
    // A list read back empty is often a literal `[]`, and filter's result takes the kind of its input.
    const empty: typeof list = [];
    const some = objectsWhere(list, (p) => p.s === 'opened');
    const none = objectsWhere(list, (p) => p.s === 'pending');
    const fromEmpty = objectsWhere(empty, () => true);
    expect(some).toEqual(list.filter((p) => p.s === 'opened'));
    expect(none).toEqual([]);
    expect(fromEmpty).toEqual([]);
    expect(sameMap(list.filter((p) => p.s === 'opened'), empty.filter(() => true))).toBe(false);
    expect(objectElements(fromEmpty)).toBe(true);
    expect(sameMap(some, none)).toBe(true);
    expect(sameMap(some, fromEmpty)).toBe(true);
  });
});

describe("decimal.js's words", () => {
  it('an fp9 Decimal holds its words as small integers, as decimal.js holds its own', () => {
    const words = (d: unknown): number[] => (d as { d: number[] }).d;
    // An integer part, both fraction words, one fraction word, a fraction alone, a negative.
    for (const raw of [123_456_789_012_345n, 5_000_012_300_000n, 1_000_000_000n, 123n, -987_654_321_000n]) {
      const d = fp9Decimal(raw);
      expect(smiElements(words(d)), `${raw}`).toBe(true);
      expect(d.eq(new Dec(raw.toString()).div(1e9)), `${raw}`).toBe(true);
    }
    expect(smiElements(words(new Dec('50000.123')))).toBe(true);
    expect(smiElements(words(new Dec('50000.123').div(3)))).toBe(true);
  });
});

describe('one map whatever the inputs', () => {
  it("report.json's worst slippage is plain data in the file's order, off the maps of literals that start with time", () => {
    const worst = worstSlippageJson({
      time: Date.UTC(2021, 4, 19, 17, 43, 40),
      market: 'BTC',
      trigger: new Dec('39184.5454'),
      price: new Dec('38892.219649892'),
      slippage: new Dec('292.325750108'),
      slippagePct: new Dec('0.746023'),
    });
    const literal = { time: '2021-05-19T17:43:40.000Z', market: 'BTC', trigger: '39184.5454', price: '38892.219649892', slippage: '292.325750108', slippagePct: '0.746023' };
    expect(Object.getPrototypeOf(worst)).toBe(Object.prototype);
    expect(isDeepStrictEqual(worst, literal)).toBe(true);
    expect(JSON.stringify(worst)).toBe(JSON.stringify(literal));
    // Two literals of the same keys share a map: the tree a row's `time` is on.
    const other = { time: 'x', market: 'ETH', trigger: '1', price: '2', slippage: '1', slippagePct: '100' };
    expect(sameMap(literal, other)).toBe(true);
    expect(sameMap(worst, literal)).toBe(false);
  });

  it("the rows cache's rows are off the six-field literals' maps, and plain data all the same", async () => {
    // A whole read fills the cache; the next read comes from it (rows without texts).
    for (const _ of (await readCandleFile(ORCL_1D).openReplay()) as Iterable<ReplayRow>);
    const [row, second] = [...((await readCandleFile(ORCL_1D).openReplay()) as Iterable<ReplayRow>)];
    expect('open' in row!).toBe(false);
    // A literal of the same six keys and kinds of value has the map a literal row would have.
    const literal = { time: 978_307_200_000, line: 2, openFp9: 1n, highFp9: 1n, lowFp9: 1n, closeFp9: 1n };
    expect(sameMap(row!, literal)).toBe(false);
    expect(sameMap(row!, second!)).toBe(true);
    // Own fields in the file's order, equal to a literal of them, kept by a spread and a structured clone.
    expect(Object.keys(row!)).toEqual(['time', 'line', 'openFp9', 'highFp9', 'lowFp9', 'closeFp9']);
    expect({ ...row }).toStrictEqual({ time: Date.UTC(2001, 0, 2), line: 2, openFp9: 29_560_000_000n, highFp9: 29_750_000_000n, lowFp9: 25_620_000_000n, closeFp9: 26_370_000_000n });
    expect(structuredClone(row)).toStrictEqual({ ...row });
  });

  it("a plugin's candle literal with a text time keeps the code compiled for the cached rows", () => {
    // In a process of its own: this one's literals (the tests above) have already been through V8's maps.
    const probe = `
      import { readCandleFile } from './src/feed/files/index.ts';
      const native = (body) => new Function('f', body);
      const prepare = native('%PrepareFunctionForOptimization(f)');
      const optimizeNext = native('%OptimizeFunctionOnNextCall(f)');
      const optimized = native('return %ActiveTierIsTurbofan(f)');
      const open = () => readCandleFile(${JSON.stringify(ORCL_1D)}).openReplay();
      for (const _ of await open());
      function count(rows) { let n = 0; for (const r of rows) if (r.time > 0) n++; return n; }
      prepare(count);
      for (let i = 0; i < 5; i++) count(await open());
      optimizeNext(count);
      const rows = count(await open());
      const before = optimized(count);
      globalThis.candle = { time: '2021-05-19T00:00:00.000Z', open: '1', high: '1', low: '1', close: '1', volume: '1' };
      console.log(JSON.stringify({ rows, before, after: optimized(count) }));
    `;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', probe], {
      cwd: REPO,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', PROPBOT_ROWS_CACHE: '' },
    });
    // With the rows as six-field literals, the candle's text `time` threw the loop's code away (after: false).
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ rows: 248, before: true, after: true });
  });

  it("the replay's rows inside a range come from generators of one map, run after run", () => {
    const rows: ReplayRow[] = [0, 1, 2, 3].map((i) => ({ time: i * 60_000, line: i + 2, openFp9: 1n, highFp9: 1n, lowFp9: 1n, closeFp9: 1n }));
    const runs = [1, 2, 3].map((from) => withinRangeSync(rows, () => from * 60_000, 3 * 60_000));
    expect(sameMap(runs[0]!, runs[1]!)).toBe(true);
    expect(sameMap(runs[0]!, runs[2]!)).toBe(true);
    expect([...(runs[0] as unknown as Iterable<ReplayRow>)].map((r) => r.time)).toEqual([60_000, 120_000]);
  });

  it('phaseRules: overrides of different keys give the same shape, and the same values a spread gives', () => {
    const base = ENGINE_PRESETS.phases['active_evaluation']!;
    const a = phaseRules(base, { profitTarget: '5' });
    const b = phaseRules(base, { maxLeverage: '3', minTradingDays: 2 });
    const c = phaseRules(base, {});
    // V8 shares a spread's map for its first few objects, then gives each its own: ask many times.
    for (let i = 0; i < 40; i += 1) expect(sameMap(a, phaseRules(base, i % 2 ? { profitTarget: String(i) } : { maxLeverage: String(i) }))).toBe(true);
    expect(sameMap(a, b)).toBe(true);
    expect(sameMap(a, c)).toBe(true);
    expect(a).toEqual({ ...base, profitTarget: '5' });
    expect(b).toEqual({ ...base, maxLeverage: '3', minTradingDays: 2 });
    expect(Object.keys(c)).toEqual(Object.keys(base));
  });

  it("the engine's markets and accounts are objects of one map across engines, with fast properties", () => {
    // Classes (engine/state.ts) whose constructors store each field by name: filling one from a literal
    // with Object.assign or a keyed loop would leave a dictionary of 50 fields, which every step reads.
    const open = () => {
      const core = new EngineCore();
      const market = core.addMarket({ baseAsset: 'BTC', price: new Dec(50000) });
      const account = core.openAccount({ userId: 'u', type: 'real', initialBalance: new Dec(100000) });
      return { market, account };
    };
    const one = open();
    const two = open();
    expect(fastProperties(one.market)).toBe(true);
    expect(fastProperties(one.account)).toBe(true);
    expect(sameMap(one.market, two.market)).toBe(true);
    expect(sameMap(one.account, two.account)).toBe(true);
    expect(one.account.balance).toBe(100_000_000_000_000n);
    expect(two.market.price).toBe(50_000_000_000_000n);
  });

  it("a market's config view has one map across engines, and every field of the engine's config", () => {
    const one = world().market;
    const tags = ['x', 'y'];
    const two = world({ market: { baseAsset: 'ETH', tags } }).market;
    tags.push('z');
    expect(sameMap(one.config, two.config)).toBe(true);
    for (let i = 0; i < 40; i += 1) expect(sameMap(one.config, world().market.config)).toBe(true);
    expect(Object.isFrozen(two.config)).toBe(true);
    expect(Object.isFrozen(two.config.tags)).toBe(true);
    expect(two.config.tags).toEqual(['x', 'y']);
    expect(Object.keys(one.config)).toEqual(['baseAsset', 'quoteAsset', 'settlementToken', 'type', 'name', 'description', 'ticker', 'imageLink', 'tags', 'category', 'priority']);
  });
});
