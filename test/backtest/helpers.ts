import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(__dirname, '../..');
export const SHARED_DATA = path.resolve(REPO, '../shared/data');
export const BTC_1M = path.join(SHARED_DATA, 'binance-btcusdt-1m-2021-04-20_2021-05-20.csv');
export const ETH_1M = path.join(SHARED_DATA, 'binance-ethusdt-1m-2021-04-20_2021-05-20.csv');

export function tempDir(prefix = 'pb-bt-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export interface SynthCandle {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

/** Write candles in the shared data's CSV layout. */
export function writeCandles(dir: string, name: string, candles: readonly SynthCandle[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, ['timestamp_ms,open,high,low,close,volume', ...candles.map((c) => `${c.time},${c.open},${c.high},${c.low},${c.close},1`)].join('\n') + '\n');
  return file;
}

/** n rising 1-minute candles whose close never equals the next open: open 100+2i, close 101+2i. */
export function risingCandles(n: number, start = Date.UTC(2021, 0, 4)): SynthCandle[] {
  return Array.from({ length: n }, (_, i) => ({
    time: start + i * 60_000,
    open: String(100 + 2 * i),
    high: String(101.5 + 2 * i),
    low: String(99.5 + 2 * i),
    close: String(101 + 2 * i),
  }));
}
