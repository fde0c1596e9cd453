/**
 * `backtest.sma-cross`: candles per second of the SMA crossover example through the whole pipeline
 * (replay, engine, snapshots, candle builder, strategy, guard, executor), and its peak RSS.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { report } from './report.js';

export async function run(): Promise<void> {
  const child = fileURLToPath(new URL('./backtest-child.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { candles: number; wallMs: number; peakRssMb: number; file: string };
  report('backtest.sma-cross', (r.candles * 1000) / r.wallMs, 'candles/s');
  report('backtest.sma-cross.peak-rss', r.peakRssMb, 'MB');
}
