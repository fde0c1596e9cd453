import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { from, lastValueFrom, toArray } from 'rxjs';
import { Dec, dec } from '../../src/core/decimal.js';
import type { Candle } from '../../src/feed/types.js';
import { candleNumbers, closeNumber, priceFrom, RSI, SMA, withIndicator } from '../../src/strategy/indicators.js';
import { MemoryStateStore, MemoryStrategyState } from '../../src/strategy/state.js';
import { REPO_ROOT } from '../feed/fixtures.js';

function candle(i: number, close: string): Candle {
  const c = dec(close);
  return { asset: 'X', period: '1m', openTime: i * 60_000, closeTime: (i + 1) * 60_000, open: c, high: c.plus(1), low: c.minus(1), close: c, ticks: 1 };
}

describe('MemoryStrategyState', () => {
  it('stores JSON: a Decimal comes back as its string, as from the sqlite store', () => {
    const s = new MemoryStrategyState();
    s.set('price', dec('123.456'));
    s.set('obj', { a: [1, 'x', null] });
    expect(s.get('price')).toBe('123.456');
    const obj = s.get<{ a: (string | number | null)[] }>('obj')!;
    obj.a.push('mutated');
    expect(s.get('obj')).toEqual({ a: [1, 'x', null] });
    expect(s.keys()).toEqual(['obj', 'price']);
    expect(() => s.set('price', undefined)).toThrow(/undefined is not storable; use delete\(\)/);
    s.delete('price');
    s.delete('obj');
    expect(s.keys()).toEqual([]);
    expect(() => s.set('fn', () => 1)).toThrow(/strategy state "fn": a function is not JSON-serialisable/);
    expect(() => s.set('nan', Number.NaN)).toThrow(/NaN is not JSON-serialisable/);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => s.set('cyc', cyclic)).toThrow(/strategy state "cyc": value is not JSON-serialisable/);
  });

  it('keeps one state per strategy and account', () => {
    const store = new MemoryStateStore();
    store.stateFor('a', 'acc1').set('k', 1);
    expect(store.stateFor('a', 'acc1').get('k')).toBe(1);
    expect(store.stateFor('a', 'acc2').get('k')).toBeUndefined();
    expect(store.stateFor('b', 'acc1').get('k')).toBeUndefined();
  });
});

describe('indicator glue', () => {
  it('feeds candles to a trading-signals indicator and emits once it is stable', async () => {
    const candles = ['10', '11', '12', '13', '14'].map((c, i) => candle(i, c));
    const out = await lastValueFrom(from(candles).pipe(withIndicator(() => new SMA(3), closeNumber), toArray()));
    expect(out.map((o) => o.value)).toEqual([11, 12, 13]);
    expect(out[0]!.candle).toBe(candles[2]);
    const rsi = await lastValueFrom(from(candles).pipe(withIndicator(() => new RSI(2), closeNumber), toArray()));
    expect(rsi.length).toBeGreaterThan(0);
    expect(rsi.every((r) => r.value === 100)).toBe(true); // only rises
  });

  it('converts candles to numbers and indicator values back to 9-decimal prices', () => {
    expect(candleNumbers(candle(0, '100.5'))).toEqual({ open: 100.5, high: 101.5, low: 99.5, close: 100.5 });
    expect(priceFrom(1 / 3).toString()).toBe('0.333333333');
    expect(priceFrom(2 / 3, Dec.ROUND_DOWN).toString()).toBe('0.666666666');
    expect(() => priceFrom(Number.NaN)).toThrow(/finite/);
  });
});

describe('example strategies', () => {
  it('import only from propbot', () => {
    const dir = path.join(REPO_ROOT, 'strategies');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'/g), ...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]);
      expect(specifiers.length, f).toBeGreaterThan(0);
      expect(new Set(specifiers), f).toEqual(new Set(['propbot']));
    }
  });
});
