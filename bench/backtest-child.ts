/**
 * One full backtest of the SMA crossover example over the real BTC 1-minute month (or the shipped
 * hourly file when ../shared is absent), measured from inside a fresh process so peak RSS is its own.
 * Prints one JSON object: { candles, wallMs, peakRssMb, file }.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Dec } from '../dist/core/decimal.js';
import { runBacktest } from '../dist/runtime/backtest.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(root, '../shared/data/binance-btcusdt-1m-2021-04-20_2021-05-20.csv');
const shipped = path.join(root, 'backtest/data/coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv');
const file = existsSync(shared) ? shared : shipped;
const period = file === shared ? '15m' : '1h';

const started = performance.now();
const { result } = await runBacktest({
  markets: [{ asset: 'BTC', file }],
  strategies: [{ use: path.join(root, 'strategies/sma-cross.ts'), params: { period } }],
  balance: new Dec(100000),
  keepPrices: false,
});
const wallMs = performance.now() - started;
process.stdout.write(
  JSON.stringify({ candles: result.perf.candles, snapshots: result.perf.snapshots, wallMs, peakRssMb: process.resourceUsage().maxRSS / 1024, file: path.basename(file) }) + '\n',
);
