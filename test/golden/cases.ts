/**
 * The golden backtests: the four example strategies over the shipped data and a slice of the May 2021
 * crash, with both cost presets, run exactly as `propbot backtest` runs them. Their `report.json`
 * (everything but `perf`, which is timing) is frozen in `test/golden/reports/`; a change to the hot
 * path must leave every byte of it as it was (see `golden.test.ts`, regenerate with
 * `npm run golden` only when a commit says which rule makes the new numbers right).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { backtestOptions, buildScenario } from '../../src/cli/backtest-run.js';
import type { BacktestCliOptions } from '../../src/cli/scenario-args.js';
import { buildReportJson } from '../../src/report/report-json.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { COINBASE_BTC_1H, ORCL_1D } from '../data.js';

export const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const GOLDEN_DIR = path.join(REPO, 'test/golden/reports');
/** GPL-3.0, read from beside the checkout, never shipped (see ../shared/data/SOURCES.md). */
export const CRASH_FILE = path.resolve(REPO, '../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv');

const STRATEGIES = ['sma-cross', 'donchian-breakout', 'mean-reversion', 'challenge-aware'] as const;
const PRESETS = ['default', 'zero-cost'] as const;

interface DataSet {
  readonly id: string;
  readonly asset: string;
  readonly file: string;
  readonly from: string;
  readonly to: string;
  /** Candle period the strategies trade on this data. */
  readonly period: string;
  /** Data from ../shared: the case skips when it is absent. */
  readonly shared: boolean;
}

const DATA: readonly DataSet[] = [
  // Shipped, Apache-2.0: Coinbase hourly (newest first, with a banner line) and Oracle daily.
  { id: 'btc-1h', asset: 'BTC', file: COINBASE_BTC_1H, from: '2019-04-01', to: '2019-05-01', period: '1h', shared: false },
  { id: 'orcl-1d', asset: 'ORCL', file: ORCL_1D, from: '2001-01-01', to: '2002-01-01', period: '1D', shared: false },
  // The 19 May 2021 crash on Binance 1-minute candles: the day before, the crash day, the day after.
  { id: 'crash-1m', asset: 'BTC', file: CRASH_FILE, from: '2021-05-18T12:00:00Z', to: '2021-05-20T00:00:00Z', period: '5m', shared: true },
];

export interface GoldenCase {
  readonly name: string;
  readonly strategy: (typeof STRATEGIES)[number];
  readonly preset: (typeof PRESETS)[number];
  readonly data: DataSet;
}

export const GOLDEN_CASES: readonly GoldenCase[] = DATA.flatMap((data) =>
  STRATEGIES.flatMap((strategy) => PRESETS.map((preset) => ({ name: `${strategy}.${data.id}.${preset}`, strategy, preset, data }))),
);

export function goldenFile(c: GoldenCase): string {
  return path.join(GOLDEN_DIR, `${c.name}.json.gz`);
}

/** Why a case cannot run here (its data is in ../shared and that is absent), or null. */
export function missingData(c: GoldenCase): string | null {
  return c.data.shared && !existsSync(c.data.file) ? `${path.basename(c.data.file)} not found beside the checkout (../shared/data)` : null;
}

/** The case's report.json as `propbot backtest` writes it, without `perf`. */
export async function goldenReport(c: GoldenCase): Promise<string> {
  const opts: BacktestCliOptions = {
    strategy: c.strategy,
    data: [`${c.data.asset}=${c.data.file}`],
    from: Date.parse(c.data.from.length === 10 ? `${c.data.from}T00:00:00Z` : c.data.from),
    to: Date.parse(c.data.to.length === 10 ? `${c.data.to}T00:00:00Z` : c.data.to),
    params: { asset: c.data.asset, period: c.data.period },
    preset: c.preset,
  };
  const scenario = { ...buildScenario(undefined, opts), name: c.name };
  const { result } = await runBacktest({ ...backtestOptions(scenario), keepPrices: false });
  const { perf: _perf, ...json } = buildReportJson(result);
  // Data files are named as the run found them (absolute paths): relative to the checkout here, so a
  // golden does not depend on where the repository is cloned.
  const data = json.data.map((d) => ({ ...d, file: path.relative(REPO, d.file) }));
  return JSON.stringify({ ...json, data }, null, 2) + '\n';
}

/** Goldens are stored gzipped (mtime-free, so the bytes depend on the text only). */
export function packGolden(text: string): Buffer {
  return gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
}

export function unpackGolden(bytes: Buffer): string {
  return gunzipSync(bytes).toString('utf8');
}
