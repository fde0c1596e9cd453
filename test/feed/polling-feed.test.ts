import { describe, expect, it } from 'vitest';
import { VirtualTimeScheduler } from 'rxjs';
import { RateLimitError } from '../../src/api/errors.js';
import { ConfigError } from '../../src/core/errors.js';
import { dec } from '../../src/core/decimal.js';
import { PollingFeed, UnknownAssetError, type FeedError } from '../../src/feed/polling-feed.js';
import type { MarketSnapshot, RiskSnapshot } from '../../src/feed/types.js';
import { advanceTo, FakeExchange, makeMarket, makeRisk } from './fixtures.js';

const START = Date.UTC(2024, 0, 1);

function setup(options: Partial<ConstructorParameters<typeof PollingFeed>[0]> = {}) {
  const scheduler = new VirtualTimeScheduler();
  const exchange = new FakeExchange();
  exchange.markets.set('BTC', makeMarket('BTC', '50000', 'id-btc'));
  exchange.markets.set('ETH', makeMarket('ETH', '3000', 'id-eth'));
  exchange.risk.set('acc-1', makeRisk('acc-1', '10000'));
  const clock = { now: () => START + scheduler.now() };
  const feed = new PollingFeed({ exchange, scheduler, clock, ...options });
  const errors: FeedError[] = [];
  feed.errors$.subscribe((e) => errors.push(e));
  return { scheduler, exchange, feed, errors, clock };
}

describe('PollingFeed', () => {
  it('makes one request per interval however many subscribers there are', async () => {
    const { scheduler, exchange, feed } = setup({ intervalMs: { market: 1_000 } });
    const seen: MarketSnapshot[][] = [[], [], []];
    for (const list of seen) feed.market$('BTC').subscribe((s) => list.push(s));
    await advanceTo(scheduler, 4_500);
    // Polls at 0, 1000, 2000, 3000, 4000.
    expect(exchange.count('getMarket')).toBe(5);
    expect(exchange.count('listMarkets')).toBe(1);
    for (const list of seen) expect(list).toHaveLength(5);
    expect(seen[0]![0]).toMatchObject({ asset: 'BTC', marketId: 'id-btc', stale: false, takenAt: START });
    expect(seen[0]![0]!.price.toString()).toBe('50000');
    expect(seen[0]![4]!.takenAt).toBe(START + 4_000);
  });

  it('returns the same stream per key and replays the latest snapshot to a late subscriber', async () => {
    const { scheduler, exchange, feed } = setup({ intervalMs: { risk: 2_000 } });
    expect(feed.risk$('acc-1')).toBe(feed.risk$('acc-1'));
    const early: RiskSnapshot[] = [];
    feed.risk$('acc-1').subscribe((s) => early.push(s));
    await advanceTo(scheduler, 2_500);
    const late: RiskSnapshot[] = [];
    feed.risk$('acc-1').subscribe((s) => late.push(s));
    expect(late).toHaveLength(1);
    expect(late[0]).toBe(early[early.length - 1]);
    expect(exchange.count('getRiskStatus')).toBe(2);
  });

  it('resolves assets to market ids with one listing for several assets', async () => {
    const { scheduler, exchange, feed } = setup();
    const got: string[] = [];
    feed.market$('BTC').subscribe((s) => got.push(s.marketId));
    feed.market$('ETH').subscribe((s) => got.push(s.marketId));
    await advanceTo(scheduler, 10);
    expect(got.sort()).toEqual(['id-btc', 'id-eth']);
    expect(exchange.count('listMarkets')).toBe(1);
  });

  it('asks for market figures as they apply to the configured account', async () => {
    const { scheduler, exchange, feed } = setup({ marketAccountId: 'acc-1' });
    feed.market$('BTC').subscribe();
    await advanceTo(scheduler, 10);
    expect(exchange.lastMarketQuery).toEqual({ accountId: 'acc-1' });
  });

  it('reports an unknown asset on errors$ and keeps the stream open', async () => {
    const { scheduler, feed, errors } = setup({ backoff: { initialMs: 1_000, maxMs: 8_000 } });
    let ended = false;
    feed.market$('DOGE').subscribe({ error: () => (ended = true), complete: () => (ended = true) });
    await advanceTo(scheduler, 100);
    expect(errors[0]).toMatchObject({ resource: 'market', key: 'DOGE', attempt: 1, retryInMs: 1_000 });
    expect(errors[0]!.error).toBeInstanceOf(UnknownAssetError);
    expect(errors[0]!.message).toMatch(/no market has baseAsset "DOGE"; listed: BTC, ETH/);
    expect(ended).toBe(false);
  });

  it('backs off exponentially up to the cap, then recovers without ending the stream', async () => {
    const { scheduler, exchange, feed, errors } = setup({
      intervalMs: { risk: 1_000 },
      maxAgeMs: { risk: 1_000_000 },
      backoff: { initialMs: 1_000, maxMs: 5_000, factor: 2 },
    });
    const seen: RiskSnapshot[] = [];
    let ended = false;
    feed.risk$('acc-1').subscribe({ next: (s) => seen.push(s), error: () => (ended = true), complete: () => (ended = true) });
    await advanceTo(scheduler, 0);
    expect(seen).toHaveLength(1);
    exchange.failNext = 5;
    // Failures at 1000, then retries after 1000, 2000, 4000, 5000 (capped); success after that.
    await advanceTo(scheduler, 30_000);
    expect(errors.map((e) => e.retryInMs)).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(errors.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(errors.map((e) => e.at - START)).toEqual([1_000, 2_000, 4_000, 8_000, 13_000]);
    expect(ended).toBe(false);
    const fresh = seen.filter((s) => !s.stale);
    expect(fresh[1]!.takenAt - START).toBe(18_000);
    // Back to the normal interval after recovering.
    expect(fresh[2]!.takenAt - START).toBe(19_000);
  });

  it('waits for a rate limit retryAt when it is later than the back-off', async () => {
    const { scheduler, exchange, feed, errors, clock } = setup({ intervalMs: { orders: 1_000 }, backoff: { initialMs: 500 } });
    exchange.failNext = 1;
    exchange.failWith = () =>
      new RateLimitError({ status: 429, code: 'api_key_rate_limit_exceeded', message: 'slow down', details: { retryAt: new Date(clock.now() + 7_000) } });
    feed.orders$('acc-1').subscribe();
    await advanceTo(scheduler, 10);
    expect(errors[0]!.retryInMs).toBe(7_000);
    await advanceTo(scheduler, 6_999);
    expect(exchange.count('listActiveOrders')).toBe(1);
    await advanceTo(scheduler, 7_000);
    expect(exchange.count('listActiveOrders')).toBe(2);
  });

  it('re-emits the last data marked stale when nothing fresh arrives within maxAge, then fresh again', async () => {
    const { scheduler, exchange, feed } = setup({
      intervalMs: { market: 1_000 },
      maxAgeMs: { market: 2_500 },
      backoff: { initialMs: 1_000, maxMs: 1_000 },
    });
    const seen: MarketSnapshot[] = [];
    feed.market$('BTC').subscribe((s) => seen.push(s));
    await advanceTo(scheduler, 0);
    exchange.failNext = 4; // polls at 1000..4000 fail
    await advanceTo(scheduler, 4_500);
    const stale = seen.filter((s) => s.stale);
    expect(stale).toHaveLength(1);
    // Same data, original takenAt: a consumer sees how old it is.
    expect(stale[0]!.data).toBe(seen[0]!.data);
    expect(stale[0]!.takenAt).toBe(START);
    expect(seen.indexOf(stale[0]!)).toBe(1);
    exchange.markets.set('BTC', makeMarket('BTC', '51000', 'id-btc'));
    await advanceTo(scheduler, 5_000);
    const last = seen[seen.length - 1]!;
    expect(last.stale).toBe(false);
    expect(last.price.eq(dec('51000'))).toBe(true);
    expect(last.takenAt).toBe(START + 5_000);
  });

  it('stops polling when the last subscriber leaves and restarts with the next', async () => {
    const { scheduler, exchange, feed } = setup({ intervalMs: { positions: 1_000 } });
    const a = feed.positions$('acc-1', 'BTC').subscribe();
    const b = feed.positions$('acc-1', 'BTC').subscribe();
    await advanceTo(scheduler, 1_500);
    expect(exchange.count('listActivePositions')).toBe(2);
    a.unsubscribe();
    await advanceTo(scheduler, 2_500);
    expect(exchange.count('listActivePositions')).toBe(3);
    b.unsubscribe();
    await advanceTo(scheduler, 10_000);
    expect(exchange.count('listActivePositions')).toBe(3);
    const got: unknown[] = [];
    feed.positions$('acc-1', 'BTC').subscribe((s) => got.push(s));
    await advanceTo(scheduler, 10_001);
    expect(exchange.count('listActivePositions')).toBe(4);
    expect(got).toHaveLength(1);
  });

  it('polls account events with the configured page size', async () => {
    const { scheduler, exchange, feed } = setup({ intervalMs: { accountEvents: 5_000 } });
    const seen: unknown[] = [];
    feed.accountEvents$().subscribe((s) => seen.push(s));
    await advanceTo(scheduler, 12_000);
    expect(exchange.count('listAccountEvents')).toBe(3);
    expect(seen).toHaveLength(3);
  });

  it('refuses bad options with the option named', () => {
    const exchange = new FakeExchange();
    expect(() => new PollingFeed({ exchange, intervalMs: { market: 0 } })).toThrow(ConfigError);
    expect(() => new PollingFeed({ exchange, intervalMs: { market: -5 } })).toThrow(/feed\.intervalMs\.market: expected a positive number/);
    expect(() => new PollingFeed({ exchange, intervalMs: { markets: 5 } as never })).toThrow(/feed\.intervalMs\.markets: unknown resource/);
    expect(() => new PollingFeed({ exchange, accountEventsLimit: 500 })).toThrow(/feed\.accountEventsLimit/);
    expect(() => new PollingFeed({ exchange, maxAgeMs: { risk: Number.NaN } })).toThrow(/feed\.maxAgeMs\.risk/);
  });
});
