/**
 * A search space: for each strategy parameter, the finite list of values to try. `--grid key=a,b,c`
 * lists them; a value written `lo..hi` or `lo..hi:step` stands for the range (step 1 by default), so a
 * space too large to enumerate (`fast=2..200 slow=10..400`) can still be searched by sampling.
 */
import { ConfigError } from '../core/errors.js';

export interface Dimension {
  readonly key: string;
  readonly values: readonly unknown[];
  /** Every value is a finite number: the optimizer treats them as ordered (neighbours alike). */
  readonly numeric: boolean;
}

export type SearchSpace = readonly Dimension[];

const RANGE = /^(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)(?::(\d+(?:\.\d+)?))?$/;
/** More values than this in one range is a typo, not a plan. */
const MAX_RANGE_VALUES = 100_000;

/** The space of a parsed grid (`parseGrid`), with `lo..hi[:step]` values expanded. */
export function searchSpace(grid: Readonly<Record<string, readonly unknown[]>>): SearchSpace {
  return Object.entries(grid).map(([key, raw]) => {
    const values: unknown[] = [];
    for (const v of raw) {
      const m = typeof v === 'string' ? RANGE.exec(v) : null;
      if (!m) {
        // No parameter value is written with "..": it is a range with a typo, not a text to try.
        if (typeof v === 'string' && v.includes('..')) {
          throw new ConfigError(`--grid ${key}`, `${JSON.stringify(v)} is not a range: write lo..hi or lo..hi:step with numbers, e.g. 5..50:5`);
        }
        values.push(v);
        continue;
      }
      const [lo, hi, step] = [m[1]!, m[2]!, m[3] ?? '1'];
      const places = Math.max(decimals(lo), decimals(step));
      const scale = 10 ** places;
      const [a, b, s] = [Math.round(Number(lo) * scale), Math.round(Number(hi) * scale), Math.round(Number(step) * scale)];
      if (s <= 0) throw new ConfigError(`--grid ${key}`, `step of ${v} must be positive`);
      if (b < a) throw new ConfigError(`--grid ${key}`, `range ${v} runs backwards (${lo} > ${hi})`);
      if ((b - a) / s + 1 > MAX_RANGE_VALUES) throw new ConfigError(`--grid ${key}`, `range ${v} has more than ${MAX_RANGE_VALUES} values; use a larger step`);
      for (let x = a; x <= b; x += s) values.push(x / scale);
    }
    const unique = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
    const numeric = unique.every((v) => typeof v === 'number' && Number.isFinite(v));
    return { key, values: unique, numeric };
  });
}

function decimals(text: string): number {
  const i = text.indexOf('.');
  return i < 0 ? 0 : text.length - i - 1;
}

/** Number of combinations (may exceed 2^53 only in absurd spaces; it is then a float, still > any cap). */
export function spaceSize(space: SearchSpace): number {
  return space.reduce((n, d) => n * d.values.length, 1);
}

/** Every combination, the last key varying fastest (as `gridCombinations`). */
export function enumerate(space: SearchSpace): Record<string, unknown>[] {
  let combos: Record<string, unknown>[] = [{}];
  for (const d of space) combos = combos.flatMap((c) => d.values.map((v) => ({ ...c, [d.key]: v })));
  return combos;
}

/** A stable key of one combination (keys in space order). */
export function comboKey(space: SearchSpace, params: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(space.map((d) => params[d.key]));
}
