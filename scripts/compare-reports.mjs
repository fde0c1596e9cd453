/**
 * Whole reports of two builds over a matrix of backtests, compared to the byte: what a change to the
 * replay's hot path must leave alone. The goldens (`npm run golden -- --check`) hold 24 reports; this
 * runs 80 (the four shipped strategies; 5m, 15m and 1h over the crash week of the 1-minute BTC month
 * in ../shared, 1h and 4h over the first half of 2018 of the shipped hourly file; both presets; rules
 * on and off), and it found a kill-switch threshold that quiet steps had moved and the goldens had
 * not. Without ../shared it runs the 32 over the shipped file and says so.
 *   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci)   # or any build's dist/
 *   node scripts/compare-reports.mjs /tmp/before/dist dist
 * Prints each configuration whose reports differ (with the first differing field) and a count;
 * exits 1 when one differs. Everything but `perf` is compared: fills, trades, equity, denials,
 * guard actions, funding, the challenge verdict, prices, data summaries.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const crash = path.resolve(root, '../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv');
const hourly = path.join(root, 'backtest/data/coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv');

const [distA, distB] = process.argv.slice(2);
if (distA === undefined || distB === undefined) {
  process.stderr.write('usage: node scripts/compare-reports.mjs DIST_BEFORE DIST_AFTER (two builds\' dist/ folders)\n');
  process.exit(2);
}

async function build(dist) {
  const base = pathToFileURL(path.resolve(dist) + '/').href;
  const cli = await import(new URL('cli/backtest-run.js', base).href);
  const runtime = await import(new URL('runtime/backtest.js', base).href);
  return { buildScenario: cli.buildScenario, backtestOptions: cli.backtestOptions, runBacktest: runtime.runBacktest };
}

const configs = [];
const haveCrash = existsSync(crash);
if (!haveCrash) process.stdout.write(`skipping the crash-week configurations: needs ${crash}\n`);
for (const strategy of ['sma-cross', 'mean-reversion', 'challenge-aware', 'donchian-breakout']) {
  for (const preset of ['default', 'zero-cost']) {
    for (const rules of ['on', 'off']) {
      if (haveCrash) for (const period of ['5m', '15m', '1h']) configs.push({ strategy, preset, rules, period, data: crash, from: Date.UTC(2021, 4, 12), to: Date.UTC(2021, 4, 20) });
      for (const period of ['1h', '4h']) configs.push({ strategy, preset, rules, period, data: hourly, from: Date.UTC(2018, 0, 1), to: Date.UTC(2018, 6, 1) });
    }
  }
}

/** The report as text, field by field (a Decimal writes its digits; a bigint is given as its digits), the equity series sample by sample. */
function fields(result) {
  const { perf: _perf, equity, ...rest } = result;
  const text = (v) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x));
  const out = Object.entries(rest).map(([k, v]) => [k, text(v)]);
  const samples = [];
  for (let i = 0; i < equity.length; i++) {
    const s = equity.at(i);
    samples.push(`${s.time}:${s.equity}`);
  }
  out.push(['equity', samples.join(',')]);
  return out;
}

async function report(b, c) {
  const scenario = b.buildScenario(undefined, { strategy: c.strategy, data: [`BTC=${c.data}`], params: { period: c.period }, preset: c.preset, rules: c.rules });
  const { result } = await b.runBacktest({ ...b.backtestOptions(scenario), from: c.from, to: c.to });
  return fields(result);
}

const [a, b] = [await build(distA), await build(distB)];
let differ = 0;
for (const c of configs) {
  const [ra, rb] = [await report(a, c), await report(b, c)];
  const first = ra.find(([k, v], i) => rb[i]?.[0] !== k || rb[i]?.[1] !== v);
  if (first !== undefined || ra.length !== rb.length) {
    differ += 1;
    process.stdout.write(`differ: ${c.strategy} ${c.period} ${path.basename(c.data)} preset ${c.preset} rules ${c.rules}: first at ${first?.[0] ?? 'the field list'}\n`);
  }
}
process.stdout.write(`${configs.length - differ} of ${configs.length} configurations give the same report\n`);
process.exitCode = differ === 0 ? 0 : 1;
