/**
 * Real market data for tests. The Apache-2.0 files ship in backtest/data, so every test that needs only
 * some real candles runs on a fresh clone. The GPL-3.0 files stay in ../shared/data beside the checkout
 * (CI has it): a test that truly needs one asks `sharedFile`, which, when the file is absent, prints one
 * line naming the file and why, and gives `undefined` so the test can `skipIf`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCandleFile } from '../src/feed/files/index.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SHIPPED_DATA = path.join(REPO, 'backtest/data');
/** Coinbase BTC/USD hourly, 2017-07 to 2019-10, in the CryptoDataDownload layout as users download it. */
export const COINBASE_BTC_1H = path.join(SHIPPED_DATA, 'coinbase-btcusd-1h-2017-2019.cryptodatadownload.csv');
/** Oracle daily candles of 2001 in propbot's own `timestamp_ms,open,high,low,close,volume` layout. */
export const ORCL_1D = path.join(SHIPPED_DATA, 'pyalgotrade-orcl-2001-daily.csv');
export const SHARED_DATA = path.resolve(REPO, '../shared/data');

/** The path of a GPL-3.0 file of ../shared/data, or undefined (with one line saying what is skipped) when absent. */
export function sharedFile(name: string, why: string): string | undefined {
  const file = path.join(SHARED_DATA, name);
  if (existsSync(file)) return file;
  process.stderr.write(`skipped: ${why}: needs ../shared/data/${name} (GPL-3.0, not shipped; CI has it)\n`);
  return undefined;
}

export interface PlainCandle {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

/** The first `limit` candles of a shipped file, oldest first, as the project's own reader gives them. */
export async function shippedCandles(file: string, limit = Number.POSITIVE_INFINITY): Promise<PlainCandle[]> {
  const out: PlainCandle[] = [];
  for await (const row of readCandleFile(file)) {
    if (out.length >= limit) break;
    out.push({ time: row.time, open: row.open, high: row.high, low: row.low, close: row.close });
  }
  return out;
}
