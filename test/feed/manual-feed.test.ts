import { describe, expect, it } from 'vitest';
import { ManualFeed } from '../../src/feed/manual-feed.js';
import { SnapshotPump } from '../../src/feed/snapshot-pump.js';
import { UnknownAssetError } from '../../src/feed/polling-feed.js';
import { CandleStreams } from '../../src/feed/candles.js';
import { marketSnapshot, riskSnapshot } from '../../src/feed/snapshots.js';
import { VirtualClock } from '../../src/core/clock.js';
import type { Candle, MarketSnapshot, OrdersSnapshot, PositionsSnapshot, RiskSnapshot } from '../../src/feed/types.js';
import { FakeExchange, makeMarket, makeRisk } from './fixtures.js';

const T0 = Date.UTC(2021, 4, 1);

describe('ManualFeed', () => {
  it('delivers pushed snapshots synchronously, per key, and the latest to late subscribers', () => {
    const feed = new ManualFeed();
    expect(feed.market$('BTC')).toBe(feed.market$('BTC'));
    const btc: MarketSnapshot[] = [];
    const eth: MarketSnapshot[] = [];
    feed.market$('BTC').subscribe((s) => btc.push(s));
    feed.market$('ETH').subscribe((s) => eth.push(s));
    const s1 = marketSnapshot(makeMarket('BTC', '1'), T0);
    feed.pushMarket(s1);
    expect(btc).toEqual([s1]);
    expect(eth).toEqual([]);
    const late: MarketSnapshot[] = [];
    feed.market$('BTC').subscribe((s) => late.push(s));
    expect(late).toEqual([s1]);
    expect(feed.latestMarket('BTC')).toBe(s1);
  });

  it('pushes to the subscribers a push started with, as a Subject does, and stops with an unsubscribe', () => {
    const feed = new ManualFeed();
    const seen: string[] = [];
    const s1 = marketSnapshot(makeMarket('BTC', '1'), T0);
    const s2 = marketSnapshot(makeMarket('BTC', '2'), T0 + 1);
    const s3 = marketSnapshot(makeMarket('BTC', '3'), T0 + 2);
    let second: { unsubscribe(): void } | undefined;
    const first = feed.market$('BTC').subscribe((s) => {
      seen.push(`a${s.price.toString()}`);
      // subscribing inside a push: the newcomer gets this snapshot as its latest, not the push a second time
      second ??= feed.market$('BTC').subscribe((t) => seen.push(`b${t.price.toString()}`));
    });
    const third = feed.market$('BTC').subscribe((s) => {
      seen.push(`c${s.price.toString()}`);
      // unsubscribing inside a push: the rest of this push still goes out, the next does not reach it
      if (s.price.toString() === '2') first.unsubscribe();
    });
    feed.pushMarket(s1);
    feed.pushMarket(s2);
    feed.pushMarket(s3);
    second!.unsubscribe();
    third.unsubscribe();
    feed.pushMarket(marketSnapshot(makeMarket('BTC', '4'), T0 + 3));
    expect(seen).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'b2', 'c3', 'b3']);
  });

  it('keys risk by account, positions by account and asset, orders by account', () => {
    const feed = new ManualFeed();
    const risk: RiskSnapshot[] = [];
    const pos: PositionsSnapshot[] = [];
    const orders: OrdersSnapshot[] = [];
    feed.risk$('a').subscribe((s) => risk.push(s));
    feed.positions$('a', 'BTC').subscribe((s) => pos.push(s));
    feed.orders$('a').subscribe((s) => orders.push(s));
    feed.pushRisk(riskSnapshot(makeRisk('b', '1'), T0));
    feed.pushRisk(riskSnapshot(makeRisk('a', '2'), T0));
    feed.pushPositions({ data: [], takenAt: T0, stale: false, accountId: 'a', asset: 'ETH' });
    feed.pushPositions({ data: [], takenAt: T0, stale: false, accountId: 'a', asset: 'BTC' });
    feed.pushOrders({ data: [], takenAt: T0, stale: false, accountId: 'a' });
    expect(risk.map((r) => r.accountId)).toEqual(['a']);
    expect(pos.map((p) => p.asset)).toEqual(['BTC']);
    expect(orders).toHaveLength(1);
  });

  it('completes every stream on complete(), and refuses pushes after', () => {
    const feed = new ManualFeed();
    let done = 0;
    feed.market$('BTC').subscribe({ complete: () => (done += 1) });
    feed.risk$('a').subscribe({ complete: () => (done += 1) });
    feed.complete();
    expect(done).toBe(2);
    let lateDone = false;
    feed.orders$('never-seen').subscribe({ complete: () => (lateDone = true) });
    expect(lateDone).toBe(true);
    expect(() => feed.pushMarket(marketSnapshot(makeMarket('BTC', '1'), T0))).toThrow(/after complete/);
  });

  it('feeds the candle builder the same way the live feed does', () => {
    const feed = new ManualFeed();
    const candles: Candle[] = [];
    new CandleStreams((a) => feed.market$(a)).candles$('BTC', '1m').subscribe((c) => candles.push(c));
    feed.pushMarket(marketSnapshot(makeMarket('BTC', '10'), T0));
    feed.pushMarket(marketSnapshot(makeMarket('BTC', '12'), T0 + 30_000));
    feed.pushMarket(marketSnapshot(makeMarket('BTC', '11'), T0 + 60_000));
    expect(candles).toHaveLength(1);
    expect(candles[0]!.high.toString()).toBe('12');
  });
});

describe('SnapshotPump', () => {
  it('reads the exchange and pushes account snapshots before market ones, stamped by the clock', async () => {
    const exchange = new FakeExchange();
    exchange.markets.set('BTC', makeMarket('BTC', '50000', 'id-btc'));
    exchange.risk.set('acc', makeRisk('acc', '1000'));
    const feed = new ManualFeed();
    const clock = new VirtualClock(T0);
    const order: string[] = [];
    feed.market$('BTC').subscribe((s) => order.push(`market@${s.takenAt - T0}`));
    feed.risk$('acc').subscribe((s) => order.push(`risk@${s.takenAt - T0}`));
    feed.positions$('acc', 'BTC').subscribe(() => order.push('positions'));
    feed.orders$('acc').subscribe(() => order.push('orders'));
    const pump = new SnapshotPump({ feed, exchange, clock, assets: ['BTC'], accountIds: ['acc'] });
    await pump.publish();
    clock.advance(60_000);
    exchange.markets.set('BTC', makeMarket('BTC', '50500', 'id-btc'));
    await pump.publish({ accounts: false });
    expect(order).toEqual(['risk@0', 'positions', 'orders', 'market@0', 'market@60000']);
    expect(feed.latestMarket('BTC')!.price.toString()).toBe('50500');
    expect(exchange.count('listMarkets')).toBe(1);
  });

  it('names an asset no market has', async () => {
    const pump = new SnapshotPump({ feed: new ManualFeed(), exchange: new FakeExchange(), clock: new VirtualClock(0), assets: ['XYZ'] });
    await expect(pump.publish()).rejects.toBeInstanceOf(UnknownAssetError);
  });
});
