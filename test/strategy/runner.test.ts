import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { filter, map, mergeMap, Observable, of, take } from 'rxjs';
import { z } from 'zod';
import { VirtualClock } from '../../src/core/clock.js';
import { ManualFeed } from '../../src/feed/manual-feed.js';
import type { MarketFeed } from '../../src/feed/types.js';
import { marketSnapshot, riskSnapshot } from '../../src/feed/snapshots.js';
import { defineStrategy } from '../../src/strategy/define.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { StrategyRunner, type StrategyStatus } from '../../src/strategy/runner.js';
import { MemoryStateStore } from '../../src/strategy/state.js';
import { makeMarket, makeRisk } from '../feed/fixtures.js';

const T0 = Date.UTC(2024, 0, 1);
const MIN = 60_000;

function logCapture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _e, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

/** Opens a long on every completed 1m candle. */
const everyCandle = defineStrategy({
  name: 'every-candle',
  version: '1.0.0',
  params: z.object({ asset: z.string().default('BTC') }),
  assets: (p) => [p.asset],
  setup: (ctx) => ctx.candles(undefined, '1m').pipe(map(() => ctx.intents.openLong({ size: { quote: '10' } }))),
});

function world() {
  const feed = new ManualFeed();
  const clock = new VirtualClock(T0);
  let t = T0;
  const tick = (price: string, asset = 'BTC') => {
    clock.set(t);
    feed.pushMarket(marketSnapshot(makeMarket(asset, price), t));
    t += MIN;
  };
  return { feed, clock, tick };
}

describe('StrategyRunner', () => {
  it('runs several strategies on one feed and merges their intents', () => {
    const { feed, clock, tick } = world();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    runner.add(everyCandle);
    runner.add(everyCandle, { name: 'every-eth', params: { asset: 'ETH' } });
    const got: OrderIntent[] = [];
    runner.intents$.subscribe((i) => got.push(i));
    runner.start();
    tick('100');
    tick('101', 'ETH');
    tick('102');
    tick('103', 'ETH');
    expect(got.map((i) => `${i.strategy}/${i.asset}`)).toEqual(['every-candle/BTC', 'every-eth/ETH']);
    expect(runner.status().map((s) => [s.name, s.state, s.intents])).toEqual([
      ['every-candle', 'running', 1],
      ['every-eth', 'running', 1],
    ]);
  });

  it('a throw in setup fails that strategy only, logged with its name', () => {
    const { feed, clock, tick } = world();
    const { lines, logger } = logCapture();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc', logger });
    runner.add(defineStrategy({ name: 'broken', version: '1.0.0', assets: ['BTC'], setup: () => { throw new Error('boom in setup'); } }));
    runner.add(everyCandle);
    const got: OrderIntent[] = [];
    runner.intents$.subscribe((i) => got.push(i));
    runner.start();
    tick('1');
    tick('2');
    expect(got).toHaveLength(1);
    const broken = runner.status().find((s) => s.name === 'broken')!;
    expect(broken).toMatchObject({ state: 'failed', error: 'boom in setup' });
    const line = lines.find((l) => l['level'] === 50)!;
    expect(line['strategy']).toBe('broken');
    expect(String(line['msg'])).toMatch(/strategy broken failed in setup; stopped: boom in setup/);
  });

  it('refuses in setup a stream of an asset the strategy does not trade, or an unnamed one of several', () => {
    const { feed, clock } = world();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    runner.add(defineStrategy({ name: 'wrong-asset', version: '1.0.0', assets: ['BTC'], setup: (ctx) => ctx.candles('ETH', '1m').pipe(map(() => ctx.intents.closeAll())) }));
    runner.add(defineStrategy({ name: 'two-assets', version: '1.0.0', assets: ['BTC', 'ETH'], setup: (ctx) => ctx.feed.market$().pipe(map(() => ctx.intents.closeAll())) }));
    runner.start();
    const status = Object.fromEntries(runner.status().map((s) => [s.name, s]));
    expect(status['wrong-asset']).toMatchObject({ state: 'failed' });
    expect(status['wrong-asset']!.error).toMatch(/^asset: candles: "ETH" is not one of the strategy's assets \(BTC\)$/);
    expect(status['two-assets']).toMatchObject({ state: 'failed' });
    expect(status['two-assets']!.error).toMatch(/^asset: market\$: the strategy trades 2 assets \(BTC, ETH\); name one$/);
  });

  it('a throw inside the stream completes that strategy and leaves the others running', () => {
    const { feed, clock, tick } = world();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    let calls = 0;
    runner.add(
      defineStrategy({
        name: 'thrower',
        version: '1.0.0',
        assets: ['BTC'],
        setup: (ctx) =>
          ctx.feed.market$().pipe(
            map((s) => {
              calls += 1;
              if (s.price.gt(1)) throw new Error('bad tick');
              return ctx.intents.close({ direction: 'long' });
            }),
          ),
      }),
    );
    runner.add(everyCandle);
    const statuses: StrategyStatus[] = [];
    runner.status$.subscribe((s) => statuses.push(s));
    const got: OrderIntent[] = [];
    runner.intents$.subscribe((i) => got.push(i));
    runner.start();
    tick('1');
    tick('2');
    tick('3');
    tick('4');
    expect(calls).toBe(2);
    expect(got.filter((i) => i.strategy === 'thrower')).toHaveLength(1);
    expect(got.filter((i) => i.strategy === 'every-candle')).toHaveLength(3);
    expect(statuses.filter((s) => s.name === 'thrower').map((s) => s.state)).toEqual(['running', 'failed']);
  });

  it('a throw in a callback the strategy subscribed itself is caught, not an unhandled error', async () => {
    const { feed, clock, tick } = world();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    let afterThrow = 0;
    runner.add(
      defineStrategy({
        name: 'side-subscriber',
        version: '1.0.0',
        assets: ['BTC'],
        setup: (ctx) => {
          ctx.candles(undefined, '1m').pipe(filter(() => true)).subscribe(() => {
            throw new Error('oops in my own subscribe');
          });
          ctx.feed.market$().subscribe(() => (afterThrow += 1));
          return new Observable<OrderIntent>(() => undefined);
        },
      }),
    );
    runner.add(everyCandle);
    runner.start();
    tick('1');
    tick('2'); // the side subscriber throws here
    tick('3');
    await new Promise((r) => setTimeout(r, 10)); // an unhandled error would surface by now and fail the run
    const s = runner.status().find((x) => x.name === 'side-subscriber')!;
    expect(s).toMatchObject({ state: 'failed', error: 'oops in my own subscribe' });
    // Its other subscriptions ended with it, at once: tick 2 reached the candle callback first.
    expect(afterThrow).toBe(1);
    expect(runner.status().find((x) => x.name === 'every-candle')!.state).toBe('running');
  });

  it('fails a strategy that emits an invalid or repeated intent', () => {
    const { feed, clock, tick } = world();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    runner.add(
      defineStrategy({
        name: 'dup',
        version: '1.0.0',
        assets: ['BTC'],
        setup: (ctx) => {
          const once = ctx.intents.close({ direction: 'long' });
          return ctx.feed.market$().pipe(map(() => once));
        },
      }),
    );
    runner.add(
      defineStrategy({
        name: 'foreign',
        version: '1.0.0',
        assets: ['BTC'],
        setup: (ctx) => ctx.feed.market$().pipe(map(() => ({ ...ctx.intents.close({ direction: 'long' }), accountId: 'other' }))),
      }),
    );
    const got: OrderIntent[] = [];
    runner.intents$.subscribe((i) => got.push(i));
    runner.start();
    tick('1');
    tick('2');
    expect(got.map((i) => i.strategy)).toEqual(['dup']);
    const st = Object.fromEntries(runner.status().map((s) => [s.name, s]));
    expect(st['dup']!.error).toMatch(/was emitted before; every intent needs a new id/);
    expect(st['foreign']!.error).toMatch(/intent\.accountId: expected the strategy's account acc, got "other"/);
  });

  it('sizes by risk from the latest risk snapshot, and completes when the feed ends', () => {
    const { feed, clock, tick } = world();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    runner.add(
      defineStrategy({
        name: 'risky',
        version: '1.0.0',
        assets: ['BTC'],
        setup: (ctx) =>
          ctx.candles(undefined, '1m').pipe(
            take(1),
            map((c) => ctx.intents.openLong({ size: { risk: '0.01' }, stopLoss: c.close.times('0.98'), leverage: 2 })),
          ),
      }),
    );
    const got: OrderIntent[] = [];
    let completed = false;
    runner.intents$.subscribe({ next: (i) => got.push(i), complete: () => (completed = true) });
    runner.start();
    feed.pushRisk(riskSnapshot(makeRisk('acc', '5000'), T0));
    tick('100');
    tick('100');
    expect(got).toHaveLength(1);
    expect((got[0] as { sizedBy: Record<string, unknown> }).sizedBy).toMatchObject({ kind: 'risk', equity: '5000', entry: '100', stop: '98' });
    expect(runner.status()[0]!.state).toBe('completed');
    expect(completed).toBe(true);
  });

  it("reads a feed's own latest snapshots when given them, without subscribing to keep copies", () => {
    const sizedFrom = (latest: boolean): { equities: unknown[]; riskSubscriptions: number; marketSubscriptions: number } => {
      const { feed, clock, tick } = world();
      // The runner sees the feed through a wrapper that counts who subscribes to what.
      let riskSubscriptions = 0;
      let marketSubscriptions = 0;
      const counted: MarketFeed = {
        market$: (asset) => (marketSubscriptions++, feed.market$(asset)),
        risk$: (id) => (riskSubscriptions++, feed.risk$(id)),
        positions$: (id, asset) => feed.positions$(id, asset),
        orders$: (id) => feed.orders$(id),
        accountEvents$: () => feed.accountEvents$(),
      };
      const runner = new StrategyRunner({ feed: counted, clock, accountId: 'acc', ...(latest ? { latest: feed.latest } : {}) });
      runner.add(
        defineStrategy({
          name: 'risky',
          version: '1.0.0',
          assets: ['BTC'],
          setup: (ctx) => ctx.candles(undefined, '1m').pipe(map((c) => ctx.intents.openLong({ size: { risk: '0.01' }, stopLoss: c.close.times('0.98'), leverage: 2 }))),
        }),
      );
      const equities: unknown[] = [];
      runner.intents$.subscribe((i) => equities.push((i as unknown as { sizedBy: { equity: string } }).sizedBy.equity));
      runner.start();
      feed.pushRisk(riskSnapshot(makeRisk('acc', '5000'), T0));
      tick('100');
      tick('100');
      feed.pushRisk(riskSnapshot(makeRisk('acc', '8000'), T0 + 2 * MIN));
      tick('100');
      return { equities, riskSubscriptions, marketSubscriptions };
    };
    const own = sizedFrom(false);
    const feeds = sizedFrom(true);
    // The same sizes, from the snapshot pushed last, either way.
    expect(own.equities).toEqual(['5000', '8000']);
    expect(feeds.equities).toEqual(own.equities);
    // Kept by the runner: it subscribes to risk and market itself (the candles add one market stream).
    expect(own).toMatchObject({ riskSubscriptions: 1, marketSubscriptions: 2 });
    // Read from the feed: only the strategy's candles subscribe.
    expect(feeds).toMatchObject({ riskSubscriptions: 0, marketSubscriptions: 1 });
  });

  it('gives each strategy its own state and refuses duplicate names and late adds', () => {
    const { feed, clock } = world();
    const states = new MemoryStateStore();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc', states });
    runner.add(
      defineStrategy({
        name: 'counter',
        version: '1.0.0',
        assets: ['BTC'],
        setup: (ctx) => {
          ctx.state.set('runs', (ctx.state.get<number>('runs') ?? 0) + 1);
          return of();
        },
      }),
    );
    expect(() => runner.add(everyCandle, { name: 'counter' })).toThrow(/two strategies named "counter"/);
    runner.start();
    expect(states.stateFor('counter', 'acc').get('runs')).toBe(1);
    expect(() => runner.add(everyCandle)).toThrow(/add strategies before start/);
    expect(() => new StrategyRunner({ feed, clock }).add(everyCandle)).toThrow(/no account/);
  });

  it('filters account events to the strategy account', () => {
    const { feed, clock } = world();
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    const seen: string[][] = [];
    runner.add(
      defineStrategy({
        name: 'events',
        version: '1.0.0',
        assets: ['BTC'],
        setup: (ctx) => ctx.feed.accountEvents$().pipe(mergeMap((s) => { seen.push(s.data.map((e) => e.id)); return of(); })),
      }),
    );
    runner.start();
    const ev = (id: string, accountId: string) => ({ id, accountId, eventType: 'x', payload: {}, createdAt: new Date(0), account: {} as never });
    feed.pushAccountEvents({ data: [ev('1', 'acc'), ev('2', 'other')], takenAt: T0, stale: false });
    expect(seen).toEqual([['1']]);
  });
});
