import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { ManualFeed } from '../../src/feed/manual-feed.js';
import { marketSnapshot } from '../../src/feed/snapshots.js';
import { defineStrategy } from '../../src/strategy/define.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { StrategyRunner } from '../../src/strategy/runner.js';
import { makeMarket } from '../feed/fixtures.js';

const T0 = Date.UTC(2024, 0, 1);
const MIN = 60_000;

/** Candles of 1 minute from one price a minute; a candle completes at the next minute's price. */
function run(strategy: ReturnType<typeof defineStrategy>, prices: string[]) {
  const feed = new ManualFeed();
  const clock = new VirtualClock(T0);
  const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
  runner.add(strategy);
  const got: OrderIntent[] = [];
  runner.intents$.subscribe((i) => got.push(i));
  runner.start();
  prices.forEach((price, i) => {
    clock.set(T0 + i * MIN);
    feed.pushMarket(marketSnapshot(makeMarket('BTC', price), T0 + i * MIN));
  });
  return { got, status: runner.status()[0]! };
}

describe('ctx.onCandle', () => {
  it('emits what the callback returns for each completed candle: nothing, one intent, or several in order', () => {
    const seen: string[] = [];
    const strategy = defineStrategy({
      name: 'callback',
      version: '1.0.0',
      assets: ['BTC'],
      setup: (ctx) =>
        ctx.onCandle('BTC', '1m', (candle) => {
          seen.push(candle.close.toString());
          if (candle.close.gt(102)) return [ctx.intents.closeAll({ note: 'a' }), ctx.intents.openShort({ size: { quote: '10' }, note: 'b' })];
          if (candle.close.gt(100)) return ctx.intents.openLong({ size: { quote: '10' }, note: 'one' });
          return undefined;
        }),
    });
    const { got, status } = run(strategy, ['100', '101', '103', '99', '50']);
    // Four candles completed (the fifth price opens the fifth).
    expect(seen).toEqual(['100', '101', '103', '99']);
    expect(got.map((i) => `${i.kind}:${i.note}`)).toEqual(['open:one', 'close_all:a', 'open:b']);
    expect(status).toMatchObject({ state: 'running', intents: 3 });
  });

  it('a throw in the callback stops that strategy with its message, like any throw in its stream', () => {
    const strategy = defineStrategy({
      name: 'throws',
      version: '1.0.0',
      assets: ['BTC'],
      setup: (ctx) =>
        ctx.onCandle(undefined, '1m', (candle) => {
          if (candle.close.eq(101)) throw new Error('no good');
          return ctx.intents.openLong({ size: { quote: '10' } });
        }),
    });
    const { got, status } = run(strategy, ['100', '101', '102', '103']);
    expect(got).toHaveLength(1);
    expect(status).toMatchObject({ state: 'failed', error: 'no good', failedIn: 'in its stream' });
    expect(status.errorLocation).toMatch(/test\/strategy\/on-candle\.test\.ts:\d+:\d+$/);
  });
});
