/**
 * Tree-structured Parzen Estimator (Bergstra et al., "Algorithms for Hyper-Parameter Optimization",
 * 2011), univariate, as Optuna's default sampler runs it, over the finite spaces of `space.ts`.
 *
 * After `startup` random trials, the finished trials are split: the best ⌈10 %⌉ (at most 25) are
 * "good", the rest and every infeasible, failed or pruned trial are "bad". Each parameter gets two
 * Parzen densities, l(x) over the good values and g(x) over the bad ones (plus a flat prior), and the
 * next trial is the best of `candidates` draws from l by Σ log l(x) − log g(x). Numeric parameters are
 * ordinal (a truncated Gaussian kernel on the value's position, 0.2 × range × n^−1/5 wide);
 * others are categorical (counts with a prior). Trials still running count as bad ("constant liar"),
 * so one batch spreads out instead of proposing one point several times. A combination already tried
 * or pending is never proposed again: backtests are deterministic, a repeat would waste the budget.
 *
 * Everything random comes from one seeded generator, advanced only by `propose`: the same seed and the
 * same finished trials give the same proposals.
 */
import { SeededRandom } from './random.js';
import { comboKey, enumerate, spaceSize, type Dimension, type SearchSpace } from './space.js';

export interface TpeOptions {
  readonly seed: number;
  /** Random trials before the model is used (default 10). */
  readonly startup?: number;
  /** Draws from l(x) scored per proposal (default 24). */
  readonly candidates?: number;
  /** Weight of the flat prior in each density (default 1). */
  readonly priorWeight?: number;
}

export interface Observation {
  readonly params: Readonly<Record<string, unknown>>;
  /** Lower is better; null when the trial is infeasible, failed or was pruned (always "bad"). */
  readonly loss: number | null;
}

type Params = Record<string, unknown>;

interface Density {
  logPdf(index: number): number;
  sample(rng: SeededRandom): number;
}

export class TpeSampler {
  readonly #space: readonly Dimension[];
  readonly #rng: SeededRandom;
  readonly #startup: number;
  readonly #candidates: number;
  readonly #prior: number;

  constructor(space: SearchSpace, options: TpeOptions) {
    if (space.length === 0) throw new RangeError('TpeSampler: the space has no parameter');
    for (const d of space) if (d.values.length === 0) throw new RangeError(`TpeSampler: ${d.key} has no value`);
    // Numeric values in ascending order, so a position's neighbours are its nearest values.
    this.#space = space.map((d) => (d.numeric ? { ...d, values: [...(d.values as number[])].sort((a, b) => a - b) } : d));
    this.#rng = new SeededRandom(options.seed);
    this.#startup = options.startup ?? 10;
    this.#candidates = options.candidates ?? 24;
    this.#prior = options.priorWeight ?? 1;
  }

  /** Up to `count` new combinations (fewer only when the space runs out). */
  propose(history: readonly Observation[], pending: readonly Params[], count: number): Params[] {
    const seen = new Set([...history.map((h) => comboKey(this.#space, h.params)), ...pending.map((p) => comboKey(this.#space, p))]);
    const out: Params[] = [];
    const liars = [...pending];
    for (let n = 0; n < count; n += 1) {
      const useModel = history.length + liars.length >= this.#startup;
      const next = (useModel ? this.#fromModel(history, liars, seen) : undefined) ?? this.#randomUnseen(seen);
      if (!next) break;
      seen.add(comboKey(this.#space, next));
      out.push(next);
      liars.push(next);
    }
    return out;
  }

  #fromModel(history: readonly Observation[], pending: readonly Params[], seen: ReadonlySet<string>): Params | undefined {
    const feasible = history
      .map((h, order) => ({ h, order }))
      .filter((x) => x.h.loss !== null && Number.isFinite(x.h.loss))
      .sort((a, b) => a.h.loss! - b.h.loss! || a.order - b.order);
    const total = history.length + pending.length;
    const nGood = Math.min(Math.ceil(0.1 * total), 25, feasible.length);
    if (nGood === 0) return undefined;
    const goodSet = new Set(feasible.slice(0, nGood).map((x) => x.order));
    const good = feasible.slice(0, nGood).map((x) => x.h.params);
    const bad = [...history.filter((_, i) => !goodSet.has(i)).map((h) => h.params), ...pending];
    const dims = this.#space.filter((d) => d.values.length > 1);
    const l = dims.map((d) => this.#density(d, good));
    const g = dims.map((d) => this.#density(d, bad));
    for (let round = 0; round < 10; round += 1) {
      const scored: Array<{ params: Params; score: number }> = [];
      for (let c = 0; c < this.#candidates; c += 1) {
        const params: Params = {};
        let score = 0;
        for (const d of this.#space) if (d.values.length === 1) params[d.key] = d.values[0];
        dims.forEach((d, i) => {
          const index = l[i]!.sample(this.#rng);
          params[d.key] = d.values[index];
          score += l[i]!.logPdf(index) - g[i]!.logPdf(index);
        });
        scored.push({ params, score });
      }
      // stable: equal scores keep their draw order
      const best = scored.map((s, i) => ({ ...s, i })).sort((a, b) => b.score - a.score || a.i - b.i).find((s) => !seen.has(comboKey(this.#space, s.params)));
      if (best) return best.params;
    }
    return undefined;
  }

  #randomUnseen(seen: ReadonlySet<string>): Params | undefined {
    for (let tries = 0; tries < 1000; tries += 1) {
      const params: Params = {};
      for (const d of this.#space) params[d.key] = d.values[this.#rng.below(d.values.length)];
      if (!seen.has(comboKey(this.#space, params))) return params;
    }
    // nearly exhausted: look for what is left, when the space is small enough to list
    if (spaceSize(this.#space) > 1_000_000) return undefined;
    const left = enumerate(this.#space).filter((p) => !seen.has(comboKey(this.#space, p)));
    return left.length === 0 ? undefined : left[this.#rng.below(left.length)];
  }

  #density(d: Dimension, group: readonly Params[]): Density {
    const indexOf = new Map(d.values.map((v, i) => [JSON.stringify(v), i]));
    const observed = group.map((p) => indexOf.get(JSON.stringify(p[d.key]))).filter((i): i is number => i !== undefined);
    return d.numeric ? ordinalDensity(d.values.length, observed, this.#prior) : categoricalDensity(d.values.length, observed, this.#prior);
  }
}

/** Gaussian kernels on positions 0..n−1, truncated to [−0.5, n − 0.5], summed into masses per position. */
function ordinalDensity(n: number, observed: readonly number[], priorWeight: number): Density {
  const span = n;
  // Optuna's bandwidth: 0.2 × range × n^(−1/5), never under range / min(100, n + 1) ("magic clip").
  const sigma = Math.max(0.2 * span * Math.max(observed.length, 1) ** -0.2, span / Math.min(100, 1 + observed.length));
  const kernels = [{ mu: (n - 1) / 2, sigma: span, w: priorWeight }, ...observed.map((mu) => ({ mu, sigma, w: 1 }))];
  const totalWeight = kernels.reduce((a, k) => a + k.w, 0);
  const mass = (k: { mu: number; sigma: number }, lo: number, hi: number): number => normalCdf((hi - k.mu) / k.sigma) - normalCdf((lo - k.mu) / k.sigma);
  const norms = kernels.map((k) => mass(k, -0.5, n - 0.5));
  const logPdf = new Array<number>(n);
  for (let v = 0; v < n; v += 1) {
    let p = 0;
    kernels.forEach((k, i) => {
      p += (k.w * mass(k, v - 0.5, v + 0.5)) / Math.max(norms[i]!, 1e-300);
    });
    logPdf[v] = Math.log(Math.max(p / totalWeight, 1e-300));
  }
  return {
    logPdf: (v) => logPdf[v]!,
    sample(rng) {
      let pick = rng.next() * totalWeight;
      let k = kernels[kernels.length - 1]!;
      for (const c of kernels) {
        if (pick < c.w) {
          k = c;
          break;
        }
        pick -= c.w;
      }
      for (let tries = 0; tries < 100; tries += 1) {
        const x = k.mu + k.sigma * rng.normal();
        if (x >= -0.5 && x < n - 0.5) return Math.round(x);
      }
      return Math.min(n - 1, Math.max(0, Math.round(k.mu)));
    },
  };
}

function categoricalDensity(n: number, observed: readonly number[], priorWeight: number): Density {
  const weights = new Array<number>(n).fill(priorWeight / n);
  for (const i of observed) weights[i]! += 1;
  const total = weights.reduce((a, w) => a + w, 0);
  return {
    logPdf: (v) => Math.log(weights[v]! / total),
    sample(rng) {
      let pick = rng.next() * total;
      for (let i = 0; i < n; i += 1) {
        if (pick < weights[i]!) return i;
        pick -= weights[i]!;
      }
      return n - 1;
    },
  };
}

/** Φ(x) from erf (Abramowitz & Stegun 7.1.26, |error| < 1.5e−7: plenty to rank candidates). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}
