/**
 * Runs an example strategy through the local engine over real candles: the engine's state is read
 * through the Exchange port after every price (SnapshotPump → ManualFeed), the strategy runs in a
 * StrategyRunner, and its intents go straight to the engine through the executor's request builders
 * (without its queues and retries: here it only has to show that the engine accepts what the strategy asks).
 */
import path from 'node:path';
import type { Exchange } from '../../src/api/exchange.js';
import type { AccountType, Order } from '../../src/api/types.js';
import { VirtualClock } from '../../src/core/clock.js';
import { dec } from '../../src/core/decimal.js';
import { SeededIds } from '../../src/core/ids.js';
import { Engine } from '../../src/engine/index.js';
import { closeRequest, openRequest } from '../../src/execution/requests.js';
import { ManualFeed } from '../../src/feed/manual-feed.js';
import { SnapshotPump } from '../../src/feed/snapshot-pump.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { StrategyRunner, type StrategyStatus } from '../../src/strategy/runner.js';
import { COINBASE_BTC_1H, shippedCandles } from '../data.js';
import { candleTicks, REPO_ROOT } from '../feed/fixtures.js';

export interface EngineRunOptions {
  /** File under strategies/. */
  strategy: string;
  params?: Record<string, unknown>;
  asset?: string;
  /** A shipped candle file; default the Coinbase BTC hourly file. */
  data?: string;
  /** First row and number of rows to replay. */
  from?: number;
  rows: number;
  accountType?: AccountType;
  initialBalance?: string;
}

export interface Refusal {
  intent: OrderIntent;
  code: string;
  message: string;
}

export interface EngineRunResult {
  engine: Engine;
  accountId: string;
  intents: OrderIntent[];
  /** Orders the engine accepted (created), per intent kind. */
  accepted: { intent: OrderIntent; order: Order }[];
  refused: Refusal[];
  /** Orders the engine reports executed (entries, closes, stops and takes that fired). */
  executed: Order[];
  status: StrategyStatus;
}

export async function runThroughEngine(options: EngineRunOptions): Promise<EngineRunResult> {
  const asset = options.asset ?? 'BTC';
  const rows = (await shippedCandles(options.data ?? COINBASE_BTC_1H, (options.from ?? 0) + options.rows)).slice(options.from ?? 0);
  const start = rows[0]!.time;
  // Four prices per candle, spread over its period.
  const step = (rows[1]!.time - start) / 4;
  const engine = new Engine({ startMs: start - 1, seed: 'strategy-test' });
  const market = engine.addMarket({ baseAsset: asset, price: dec(rows[0]!.open) });
  const userId = engine.addUser('trader');
  const account = engine.openAccount({
    userId,
    type: options.accountType ?? 'demo',
    initialBalance: dec(options.initialBalance ?? '100000'),
  });
  const exchange = engine.exchangeFor(userId);
  const executed: Order[] = [];
  engine.onEvent((e) => {
    if (e.kind === 'order' && e.order.status === 'executed') executed.push(e.order);
  });

  const loaded = await loadStrategy(path.join(REPO_ROOT, 'strategies', options.strategy), { params: options.params ?? {} });
  const feed = new ManualFeed();
  const clock = new VirtualClock(start - 1);
  const pump = new SnapshotPump({ feed, exchange, clock, assets: [asset], accountIds: [account.accountId] });
  const ids = new SeededIds(options.strategy);
  const runner = new StrategyRunner({ feed, clock, accountId: account.accountId, newId: () => ids.next() });
  runner.add(loaded);
  const queue: OrderIntent[] = [];
  const intents: OrderIntent[] = [];
  runner.intents$.subscribe((i) => {
    queue.push(i);
    intents.push(i);
  });
  runner.start();

  const accepted: EngineRunResult['accepted'] = [];
  const refused: Refusal[] = [];
  for (const row of rows) {
    let first = true;
    for (const tick of candleTicks(row, step)) {
      clock.set(tick.time);
      engine.setIndexPrice(market.id, dec(tick.price), tick.time);
      // Account state before the candle's first price (where candles close and strategies decide);
      // within the candle only the price moves the strategy.
      await pump.publish({ accounts: first });
      first = false;
      if (queue.length === 0) continue;
      while (queue.length > 0) {
        const intent = queue.shift()!;
        try {
          for (const order of await execute(exchange, market.id, intent)) accepted.push({ intent, order });
        } catch (error) {
          const e = error as { code?: string; message?: string };
          refused.push({ intent, code: e.code ?? 'error', message: e.message ?? String(error) });
        }
      }
      // The strategy decides on the next snapshot with its orders' effect visible.
      await pump.publish({ markets: false });
    }
  }
  const status = runner.status()[0]!;
  feed.complete();
  return { engine, accountId: account.accountId, intents, accepted, refused, executed, status };
}

/** The intent → API step with the executor's own request builders, minus its queues and retries. */
async function execute(exchange: Exchange, marketId: string, intent: OrderIntent): Promise<Order[]> {
  switch (intent.kind) {
    case 'open':
      return [(await exchange.createOrder(openRequest(intent, marketId), { idempotencyKey: intent.id })).value];
    case 'close': {
      const positions = (await exchange.listActivePositions(intent.accountId, intent.asset)).filter(
        (p) => p.direction === intent.direction && (intent.positionId === undefined || p.idx === intent.positionId),
      );
      const out: Order[] = [];
      for (const p of positions) {
        out.push((await exchange.createOrder(closeRequest(intent, p), { idempotencyKey: `${intent.id}:${p.idx}` })).value);
      }
      return out;
    }
    case 'close_all':
      if (intent.scope === 'account') await exchange.closeAllAccount(intent.accountId, { idempotencyKey: intent.id });
      else await exchange.closeAllPositions(intent.accountId, { idempotencyKey: intent.id });
      return [];
    case 'cancel':
      await exchange.cancelOrder(intent.orderId);
      return [];
    case 'protect':
      throw new Error('protect is not used by the examples');
  }
}
