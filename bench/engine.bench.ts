/**
 * Price updates per second through `Engine.setIndexPrice` (Decimal in, as the façade takes it), one
 * second of engine time per update so minute, funding and day boundaries are crossed as in a replay.
 *   engine.price-updates.empty   one market, nothing open
 *   engine.price-updates.loaded  the same market with 10 open positions and 20 active orders
 * plus the fp9 fast path (`setIndexPriceFp9`) for replays that hold integers already, and
 *   engine.market-reads          getMarket after each price update (the view a backtest's feed polls).
 * Each figure is the best of three rounds after a warm-up.
 */
import type { Decimal } from 'decimal.js';
import { dec } from '../src/core/decimal.js';
import { toFp9Raw } from '../src/core/fp9.js';
import { Engine } from '../src/engine/index.js';
import { report } from './report.js';

const START = Date.UTC(2024, 0, 1);

function prices(n: number): Decimal[] {
  const out: Decimal[] = [];
  // a deterministic wiggle of ±0.5% around 50000 with cents
  for (let i = 0; i < n; i++) out.push(dec(`${50000 + ((i * 7919) % 500) - 250}.${String((i * 31) % 100).padStart(2, '0')}`));
  return out;
}

async function setup(loaded: boolean): Promise<{ engine: Engine; marketId: string }> {
  const engine = new Engine({ startMs: START });
  const m = engine.addMarket({ baseAsset: 'BTC', price: dec('50000') });
  if (loaded) {
    for (let i = 0; i < 5; i++) {
      const user = `u${i}`;
      const acc = engine.openAccount({ userId: user, type: 'demo', initialBalance: dec('100000') });
      const ex = engine.exchangeFor(user);
      for (const direction of ['long', 'short'] as const) {
        await ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'market', direction, amount: dec('100'), leverage: dec('2') });
      }
      for (let k = 0; k < 2; k++) {
        await ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'limit', direction: 'long', amount: dec('100'), leverage: dec('2'), triggerPrice: dec(String(40000 - k * 100)) });
        await ex.createOrder({ accountId: acc.accountId, marketId: m.id, type: 'limit', direction: 'short', amount: dec('100'), leverage: dec('2'), triggerPrice: dec(String(60000 + k * 100)) });
      }
    }
  }
  return { engine, marketId: m.id };
}

/** Best of three timed rounds after a warm-up, so one noisy round on a shared machine does not decide. */
async function measure(name: string, loaded: boolean, n: number, fp9: boolean): Promise<void> {
  const { engine, marketId } = await setup(loaded);
  const ps = prices(4096);
  const raws = ps.map((p) => toFp9Raw(p, 'exact'));
  let t = engine.now();
  const step = (count: number): number => {
    const t0 = process.hrtime.bigint();
    if (fp9) for (let i = 0; i < count; i++) engine.setIndexPriceFp9(marketId, raws[i & 4095]!, (t += 1000));
    else for (let i = 0; i < count; i++) engine.setIndexPrice(marketId, ps[i & 4095]!, (t += 1000));
    return count / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  step(Math.min(n, 200_000));
  let best = 0;
  for (let r = 0; r < 3; r++) best = Math.max(best, step(n));
  report(name, best, 'updates/s');
}

/** `getMarket` reads per second between price updates, as a backtest's feed polls them. */
async function measureReads(n: number): Promise<void> {
  const { engine, marketId } = await setup(false);
  const ex = engine.exchangeFor(engine.addUser('reader'));
  let t = engine.now();
  const round = async (count: number): Promise<number> => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < count; i++) {
      engine.setIndexPrice(marketId, dec(50000 + (i % 100)), (t += 1000));
      await ex.getMarket(marketId);
    }
    return count / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  await round(Math.min(n, 20_000));
  let best = 0;
  for (let r = 0; r < 3; r++) best = Math.max(best, await round(n));
  report('engine.market-reads', best, 'reads/s');
}

export async function run(): Promise<void> {
  await measureReads(100_000);
  await measure('engine.price-updates.empty', false, 1_000_000, false);
  await measure('engine.price-updates.loaded', true, 500_000, false);
  await measure('engine.price-updates-fp9.empty', false, 1_000_000, true);
  await measure('engine.price-updates-fp9.loaded', true, 500_000, true);
}
