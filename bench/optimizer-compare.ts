/**
 * TPE against random search with the same budget, on real backtests: give it the `sweep.json` of a full
 * grid (every combination backtested once), and it runs both searches through `runSearch` many times,
 * each "run" of a combination answered from the grid (backtests are deterministic, so this is what the
 * search would have got), and prints what each found. docs/research.md shows its figures.
 *
 *   npx tsx bench/optimizer-compare.ts out/grid/sweep.json [budget=20] [seeds=30] [objective=sharpe]
 */
import { readFileSync } from 'node:fs';
import { objectiveOf, objectiveValue } from '../src/research/objectives.js';
import { runSearch, type JobRunner } from '../src/research/search.js';
import { comboKey, searchSpace } from '../src/research/space.js';
import type { SweepRow } from '../src/runtime/sweep.js';

const [file, budgetText = '20', seedsText = '30', objectiveText = 'sharpe'] = process.argv.slice(2);
if (!file) throw new Error('usage: optimizer-compare.ts SWEEP.json [budget] [seeds] [objective]');
const sweep = JSON.parse(readFileSync(file, 'utf8')) as { grid: Record<string, unknown[]>; ranked: SweepRow[] };
const objective = objectiveOf(objectiveText);
const space = searchSpace(sweep.grid);
const table = new Map(sweep.ranked.map((r) => [comboKey(space, r.params), r]));
const runner: JobRunner = {
  run: async (jobs) =>
    jobs.map((j) => {
      const row = table.get(comboKey(space, j.params));
      if (!row) throw new Error(`combination ${JSON.stringify(j.params)} is not in the grid`);
      return { ...row, index: j.index };
    }),
};
const values = [...table.values()].map((r) => objectiveValue(r, objective)).filter((v): v is number => v !== null).sort((a, b) => b - a);
const top5 = values[Math.max(0, Math.ceil(values.length * 0.05) - 1)]!;
const budget = Number(budgetText);
const seeds = Number(seedsText);
const found: Record<'tpe' | 'random', number[]> = { tpe: [], random: [] };
for (let seed = 1; seed <= seeds; seed += 1) {
  for (const method of ['tpe', 'random'] as const) {
    const r = await runSearch({ space, method, trials: budget, seed, objective, prune: false }, (params, index) => ({ index, params }) as never, runner);
    found[method].push(objectiveValue(r.ranked[0]!, objective) ?? Number.NEGATIVE_INFINITY);
  }
}
const mean = (xs: number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const wins = found.tpe.filter((t, i) => t > found.random[i]!).length;
const ties = found.tpe.filter((t, i) => t === found.random[i]!).length;
console.log(JSON.stringify({ combinations: table.size, objective, budget, seeds, gridBest: values[0], top5Threshold: top5 }));
for (const method of ['tpe', 'random'] as const) {
  const xs = found[method];
  console.log(JSON.stringify({ method, meanBest: +mean(xs).toFixed(4), medianBest: +median(xs).toFixed(4), worstBest: +Math.min(...xs).toFixed(4), top5Share: +(xs.filter((x) => x >= top5).length / xs.length).toFixed(3) }));
}
console.log(JSON.stringify({ tpeBetter: wins, ties, randomBetter: seeds - wins - ties }));
