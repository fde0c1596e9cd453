/** Candle builder throughput: snapshots per second through one period, and through all seven at once. */
import { Dec } from '../src/core/decimal.js';
import { CandleBuilder, MultiCandleBuilder } from '../src/feed/candles.js';
import { report } from './report.js';

export async function run(): Promise<void> {
  const n = 2_000_000;
  const prices = Array.from({ length: 1024 }, (_, i) => new Dec(50_000 + (i % 97) * 3 - (i % 13)));
  const t0 = Date.UTC(2021, 0, 1);
  const single = new CandleBuilder('BTC', '1m');
  let start = performance.now();
  for (let i = 0; i < n; i += 1) single.update(t0 + i * 1_000, prices[i & 1023]!);
  report('candles.single-1m', n / ((performance.now() - start) / 1000), 'snapshots/s');
  const multi = new MultiCandleBuilder('BTC');
  let emitted = 0;
  start = performance.now();
  for (let i = 0; i < n; i += 1) multi.update(t0 + i * 1_000, prices[i & 1023]!, () => (emitted += 1));
  report('candles.all-periods', n / ((performance.now() - start) / 1000), 'snapshots/s');
}
