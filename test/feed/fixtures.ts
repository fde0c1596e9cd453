/**
 * Test fixtures of the feed tests: decoded API objects and a fake Exchange that implements the few
 * reads a feed makes (the feed is the part under test; the exchange is only its input).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Decimal } from 'decimal.js';
import { VirtualTimeScheduler } from 'rxjs';
import type { FeedExchange } from '../../src/feed/polling-feed.js';
import type { AccountEvent, Market, MarketQuery, Order, Position, RiskStatus } from '../../src/api/types.js';
import { dec } from '../../src/core/decimal.js';
import type { PlainCandle } from '../data.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function makeMarket(asset: string, price: Decimal | string, id = `market-${asset}`, fee = '0.00008'): Market {
  return {
    id,
    config: {
      baseAsset: asset,
      quoteAsset: 'USD',
      settlementToken: 'USD',
      type: 'index',
      name: asset,
      description: '',
      ticker: `${asset}/USD`,
      imageLink: '',
      tags: [],
      category: 'crypto',
      priority: null,
    },
    state: {
      indexPrice: dec(price),
      blockTimestamp: 0,
      fundingRate: dec('0.0003'),
      nextFundingAt: 0,
      lastFundingAt: null,
      vpiSpread: dec(0),
      vpiMarketDepthLong: dec(1_000_000),
      vpiMarketDepthShort: dec(1_000_000),
      vpiCoefficientLong: dec(0),
      vpiCoefficientShort: dec(0),
    },
    settings: {
      fee: dec(fee),
      minInitMarginRatio: dec('0.2'),
      initMarginRatio: dec('0.2'),
      maintenanceMarginRatio: dec('0.05'),
      maxLeverageByAccount: { demo: dec(5) },
      spreadLimit: dec('0.01'),
      maxPriceImpact: dec('0.01'),
      maxPriceSpread: dec('0.01'),
      maxOpenNotionalLong: dec(0),
      maxOpenNotionalShort: dec(0),
      minStopTriggerDistanceRatio: dec(0),
      isCloseOnly: false,
      isClosed: false,
      isPaused: false,
      isZeroSpread: false,
    },
    change: { initialPrice: dec(0), initialPrice1h: dec(0), initialPrice4h: dec(0) },
    schedule: null,
  };
}

export function makeRisk(accountId: string, equity: Decimal | string, extra: Partial<RiskStatus> = {}): RiskStatus {
  const e = dec(equity);
  return {
    accountId,
    tradingDays: 0,
    currentBalance: e,
    currentEquity: e,
    dayStartEquity: e,
    maxEquity: null,
    periodStartEquity: null,
    maxPeriodDailyEquityDelta: null,
    maxPeriodDailyEquityDeltaAt: null,
    consistencyRuleApplies: false,
    consistencyRuleMet: null,
    consistencyRuleRatio: null,
    consistencyRuleLimit: dec('0.3'),
    payoutBaselineBalance: e,
    isPayoutBaselineRequirementMet: false,
    ...extra,
  };
}

/** A fake exchange: counts calls, can be told to fail, returns what the test set. */
export class FakeExchange implements FeedExchange {
  readonly markets = new Map<string, Market>();
  readonly risk = new Map<string, RiskStatus>();
  positions: Position[] = [];
  orders: Order[] = [];
  events: AccountEvent[] = [];
  readonly calls: Record<string, number> = {};
  /** While > 0, every call fails (and decrements). */
  failNext = 0;
  failWith: () => unknown = () => new Error('venue unavailable');

  #call(name: string): void {
    this.calls[name] = (this.calls[name] ?? 0) + 1;
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw this.failWith();
    }
  }
  count(name: string): number {
    return this.calls[name] ?? 0;
  }
  /** Query of the last getMarket call. */
  lastMarketQuery: MarketQuery | undefined;
  async getMarket(marketId: string, query?: MarketQuery): Promise<Market> {
    this.#call('getMarket');
    this.lastMarketQuery = query;
    const m = [...this.markets.values()].find((x) => x.id === marketId);
    if (!m) throw new Error(`no market ${marketId}`);
    return m;
  }
  async listMarkets(): Promise<Market[]> {
    this.#call('listMarkets');
    return [...this.markets.values()];
  }
  async getRiskStatus(accountId: string): Promise<RiskStatus> {
    this.#call('getRiskStatus');
    const r = this.risk.get(accountId);
    if (!r) throw new Error(`no account ${accountId}`);
    return r;
  }
  async listActivePositions(): Promise<Position[]> {
    this.#call('listActivePositions');
    return this.positions;
  }
  async listActiveOrders(): Promise<Order[]> {
    this.#call('listActiveOrders');
    return this.orders;
  }
  async listAccountEvents() {
    this.#call('listAccountEvents');
    return { data: this.events, totalCount: this.events.length };
  }
}

/** Let promise callbacks run (a fetch resolving is a microtask or two away). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Run a virtual-time scheduler up to `frame`, letting promises settle between scheduled actions so a
 * poll that awaits its fetch schedules its next poll at the right virtual time.
 */
export async function advanceTo(scheduler: VirtualTimeScheduler, frame: number): Promise<void> {
  for (;;) {
    await settle();
    const next = scheduler.actions[0];
    if (!next || next.delay > frame) break;
    scheduler.maxFrames = next.delay;
    scheduler.flush();
  }
  scheduler.frame = frame;
}

/** The four snapshots a 1m candle becomes: open, then the nearer extreme, the other, close. */
export function candleTicks(c: PlainCandle, stepMs = 15_000): { time: number; price: string }[] {
  const up = Number(c.close) >= Number(c.open);
  const [first, second] = up ? [c.low, c.high] : [c.high, c.low];
  return [
    { time: c.time, price: c.open },
    { time: c.time + stepMs, price: first },
    { time: c.time + 2 * stepMs, price: second },
    { time: c.time + 3 * stepMs, price: c.close },
  ];
}
