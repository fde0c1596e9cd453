import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/research/random.js';
import { comboKey, enumerate, searchSpace, spaceSize } from '../../src/research/space.js';
import { normalCdf, TpeSampler, type Observation } from '../../src/research/tpe.js';

type Params = Record<string, unknown>;

/** Run a sampler against a loss function for `budget` trials in batches; returns the trials in order. */
function optimise(sampler: { propose(h: readonly Observation[], p: readonly Params[], n: number): Params[] }, loss: (p: Params) => number | null, budget: number, batch = 4): Observation[] {
  const history: Observation[] = [];
  while (history.length < budget) {
    const next = sampler.propose(history, [], Math.min(batch, budget - history.length));
    if (next.length === 0) break;
    for (const p of next) history.push({ params: p, loss: loss(p) });
  }
  return history;
}

/** Seeded random search over the same space: the baseline TPE must beat. */
function randomSearch(space: ReturnType<typeof searchSpace>, loss: (p: Params) => number, budget: number, seed: number): Observation[] {
  const rng = new SeededRandom(seed);
  const seen = new Set<string>();
  const out: Observation[] = [];
  while (out.length < budget) {
    const p: Params = {};
    for (const d of space) p[d.key] = d.values[rng.below(d.values.length)];
    const key = comboKey(space, p);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ params: p, loss: loss(p) });
  }
  return out;
}

const best = (h: readonly Observation[]): number => Math.min(...h.map((o) => o.loss ?? Infinity));

describe('TPE sampler', () => {
  // A smooth bowl with its floor away from the middle of a 60 × 60 grid (3,600 combinations).
  const space = searchSpace({ fast: ['1..60'], slow: ['5..300:5'] });
  const bowl = (p: Params): number => ((p['fast'] as number) - 47) ** 2 / 60 + ((p['slow'] as number) - 65) ** 2 / 900;

  it('gives the same trials in the same order for the same seed, and others for another seed', () => {
    const a = optimise(new TpeSampler(space, { seed: 7 }), bowl, 40);
    const b = optimise(new TpeSampler(space, { seed: 7 }), bowl, 40);
    const c = optimise(new TpeSampler(space, { seed: 8 }), bowl, 40);
    expect(a.map((o) => o.params)).toEqual(b.map((o) => o.params));
    expect(a.map((o) => o.params)).not.toEqual(c.map((o) => o.params));
  });

  it('finds a better combination than random search with the same budget, seed after seed', () => {
    const budget = 40;
    let tpeWins = 0;
    let tpeSum = 0;
    let randomSum = 0;
    for (let seed = 1; seed <= 10; seed += 1) {
      const t = best(optimise(new TpeSampler(space, { seed }), bowl, budget));
      const r = best(randomSearch(space, bowl, budget, seed));
      tpeSum += t;
      randomSum += r;
      if (t < r) tpeWins += 1;
    }
    expect(tpeWins).toBeGreaterThanOrEqual(7);
    expect(tpeSum / 10).toBeLessThan((randomSum / 10) * 0.5);
  });

  it('never proposes a combination twice, and runs a small space out exactly', () => {
    const small = searchSpace({ a: [1, 2, 3], b: ['x', 'y'] });
    const h = optimise(new TpeSampler(small, { seed: 3, startup: 2 }), (p) => (p['a'] as number) + (p['b'] === 'x' ? 0 : 1), 50);
    expect(h).toHaveLength(spaceSize(small));
    expect(new Set(h.map((o) => comboKey(small, o.params))).size).toBe(6);
    expect(new Set(h.map((o) => comboKey(small, o.params)))).toEqual(new Set(enumerate(small).map((p) => comboKey(small, p))));
  });

  it('spreads one batch: the proposals of a batch are distinct and pending ones are not proposed again', () => {
    const s = new TpeSampler(space, { seed: 5 });
    const history = optimise(new TpeSampler(space, { seed: 5 }), bowl, 20);
    const pending = [{ fast: 47, slow: 65 }];
    const batch = s.propose(history, pending, 8);
    const keys = batch.map((p) => comboKey(space, p));
    expect(new Set(keys).size).toBe(8);
    expect(keys).not.toContain(comboKey(space, pending[0]!));
    for (const o of history) expect(keys).not.toContain(comboKey(space, o.params));
  });

  it('treats infeasible trials as bad: it steers away from the region that fails', () => {
    // Everything with fast < 30 "fails a rule"; the loss elsewhere is flat.
    const loss = (p: Params): number | null => ((p['fast'] as number) < 30 ? null : 1 + ((p['slow'] as number) % 7) / 100);
    const h = optimise(new TpeSampler(space, { seed: 11 }), loss, 60);
    const late = h.slice(30);
    const failingLate = late.filter((o) => o.loss === null).length;
    const failingEarly = h.slice(0, 10).filter((o) => o.loss === null).length;
    expect(failingLate / late.length).toBeLessThan(0.35);
    expect(failingEarly).toBeGreaterThan(0);
  });

  it('learns a categorical parameter', () => {
    const cat = searchSpace({ mode: ['a', 'b', 'c', 'd', 'e'], n: ['1..40'] });
    const loss = (p: Params): number => (p['mode'] === 'd' ? 0 : 1) + Math.abs((p['n'] as number) - 20) / 40;
    const h = optimise(new TpeSampler(cat, { seed: 2 }), loss, 40);
    const late = h.slice(20);
    expect(late.filter((o) => o.params['mode'] === 'd').length).toBeGreaterThan(late.length / 2);
  });

  it('Φ is the standard normal distribution function', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.96)).toBeCloseTo(0.975, 4);
    expect(normalCdf(-1.96)).toBeCloseTo(0.025, 4);
  });
});

describe('search space', () => {
  it('expands lo..hi[:step] ranges, keeps listed values, and drops repeats', () => {
    const s = searchSpace({ fast: ['2..5', 5, 9], stop: ['0.01..0.03:0.01'], mode: ['a', 'b'] });
    expect(s[0]).toEqual({ key: 'fast', values: [2, 3, 4, 5, 9], numeric: true });
    expect(s[1]!.values).toEqual([0.01, 0.02, 0.03]);
    expect(s[2]).toEqual({ key: 'mode', values: ['a', 'b'], numeric: false });
    expect(spaceSize(s)).toBe(30);
  });

  it('refuses a backwards range, a zero step and a range too large to mean anything', () => {
    expect(() => searchSpace({ fast: ['9..2'] })).toThrow(/--grid fast.*runs backwards/);
    expect(() => searchSpace({ fast: ['1..9:0'] })).toThrow(/step of 1\.\.9:0 must be positive/);
    expect(() => searchSpace({ fast: ['1..1000000000'] })).toThrow(/more than 100000 values/);
  });

  it('refuses a value written as a range that is not one, naming the key and the value', () => {
    for (const v of ['5..x', '5..', '..10', '5...10', '1..9:x']) {
      expect(() => searchSpace({ fast: [v] })).toThrow(`--grid fast: ${JSON.stringify(v)} is not a range: write lo..hi or lo..hi:step with numbers`);
    }
  });
});
