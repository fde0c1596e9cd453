/**
 * The read operations of the API over the engine's state: risk status, equity history, order and
 * position history, chart events and buckets, scalping coefficient, account events, markets. Pure
 * functions of the state; access checks happen in the caller (LocalExchange via EngineCore.account).
 */
import type {
  AccountEvent,
  ChartBucketsQuery,
  ChartEvent,
  ChartEventBucket,
  ChartEventsQuery,
  EquityHistoryQuery,
  EquityPoint,
  Market,
  Order,
  Page,
  PageQuery,
  Position,
  PositionEvent,
  ScalpingCoefficient,
} from '../api/types.js';
import { CHART_RESOLUTION_SECONDS } from '../api/types.js';
import type { EngineCore } from './core.js';
import { S, floorDiv, rawToDec } from './fixed.js';
import type { AccountRt, ChartRec, MarketRt, OrderRt } from './state.js';
import { invalid } from './validation.js';
import { accountEventView, marketView, orderView, positionEventView, positionView } from './views.js';

export function checkPage(q: PageQuery | undefined, def: number, max: number, request: string): { limit: number; offset: number } {
  const limit = q?.limit ?? def;
  const offset = q?.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw invalid('limit_out_of_range', `limit: expected an integer 1..${max}, got ${limit}`, request);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalid('offset_out_of_range', `offset: expected an integer 0..9007199254740991, got ${offset}`, request);
  return { limit, offset };
}

function page<T>(all: T[], p: { limit: number; offset: number }): Page<T> {
  return { data: all.slice(p.offset, p.offset + p.limit), totalCount: all.length };
}

export function equityHistory(core: EngineCore, a: AccountRt, q: EquityHistoryQuery | undefined, request: string): EquityPoint[] {
  const duration = q?.duration ?? core.presets.limits.equityHistoryDefaultMs;
  if (!Number.isSafeInteger(duration)) throw invalid('duration_invalid', `duration: expected integer milliseconds, got ${duration}`, request);
  if (duration === 0) throw invalid('duration_zero', 'duration: must not be zero (positive spans forward from timestamp, negative backward)', request);
  const ts = q?.timestamp;
  if (ts !== undefined && !Number.isSafeInteger(ts)) throw invalid('timestamp_invalid', `timestamp: expected unix ms, got ${ts}`, request);
  const anchorNow = a.failedAt ?? core.now;
  let start: number;
  let end: number;
  if (ts === undefined) {
    end = anchorNow;
    start = end - Math.abs(duration);
  } else if (duration > 0) {
    start = ts;
    end = ts + duration;
  } else {
    end = ts;
    start = ts + duration;
  }
  if (a.failedAt !== null && end > a.failedAt) end = a.failedAt;
  const step = core.sampleMs;
  const eqNow = a.balance + a.upnl;
  // Minutes after the last stored one and before the current one held the live equity (nothing changed).
  const lastComplete = a.failedAt !== null ? a.curMinute - 1 : Math.floor(core.now / step) - 1;
  const out: EquityPoint[] = [];
  const first = Math.max(a.sampleStart, Math.ceil(start / step));
  const last = Math.min(lastComplete, Math.floor(end / step));
  const phaseStart = (idx: number) => rawToDec(a.phaseStarts[idx]?.startEquity ?? a.initial);
  for (let mi = first; mi <= last; mi++) {
    const i = mi - a.sampleStart;
    const stored = i < a.samples.length;
    const phaseIndex = stored ? a.samples.phaseAt(i) : a.phaseIndex;
    out.push({ timestamp: mi * step, volume: rawToDec(stored ? a.samples.equityAt(i) : eqNow), phaseIndex, phaseStartEquity: phaseStart(phaseIndex) });
  }
  if (ts === undefined) out.push({ timestamp: end, volume: rawToDec(eqNow), phaseIndex: a.phaseIndex, phaseStartEquity: phaseStart(a.phaseIndex) });
  return out;
}

/** Final-state orders on one market in the current phase, newest first; `canceled_by_update` left out. */
export function orderHistory(core: EngineCore, a: AccountRt, m: MarketRt, q: PageQuery | undefined, request: string): Page<Order> {
  const p = checkPage(q, core.presets.limits.pageDefault, core.presets.limits.pageMax, request);
  const all = a.orders
    .filter((o) => o.market === m && o.phaseIndex === a.phaseIndex && o.status !== 'active' && o.status !== 'canceled_by_update')
    .sort((x, y) => y.createdAt - x.createdAt || y.seq - x.seq);
  return page(all.map(orderView), p);
}

/**
 * Where the account's active orders can start in `a.orders`: every order before the index returned
 * is final. Orders are only appended and an order never becomes active again, so the index only moves
 * forward, and a backtest that reads or cancels the active orders after every order event pays for
 * the orders placed since the oldest one still active, not for every order of the run.
 */
export function activeOrdersStart(a: AccountRt): number {
  const all = a.orders;
  let i = a.ordersActiveFrom;
  while (i < all.length && all[i]!.status !== 'active') i += 1;
  a.ordersActiveFrom = i;
  return i;
}

/** The account's active orders in the current phase, newest first. */
export function activeOrders(a: AccountRt): Order[] {
  const all = a.orders;
  const active: OrderRt[] = [];
  for (let i = activeOrdersStart(a); i < all.length; i += 1) {
    const o = all[i]!;
    if (o.status === 'active' && o.phaseIndex === a.phaseIndex) active.push(o);
  }
  return active.sort((x, y) => y.createdAt - x.createdAt || y.seq - x.seq).map(orderView);
}

export function activePositions(a: AccountRt, m: MarketRt): Position[] {
  return a.positions.filter((p) => p.market === m).map(positionView);
}

/** Events of one position, newest first, `payFunding` left out. */
export function positionHistory(core: EngineCore, positionId: string): PositionEvent[] {
  const pos = core.positions.get(positionId)!;
  const out: PositionEvent[] = [];
  for (let i = pos.history.length - 1; i >= 0; i--) {
    const s = pos.history[i]!;
    if (s.eventName === 'payFunding') continue;
    out.push(positionEventView(pos, s, s.orderId ? core.orders.get(s.orderId) : undefined));
  }
  return out;
}

function chartView(m: MarketRt, c: ChartRec): ChartEvent {
  return {
    asset: m.asset,
    direction: c.direction,
    eventName: c.eventName,
    executedAt: Math.floor(c.at / 1000),
    price: c.size > 0n ? rawToDec(floorDiv(c.quote * S, c.size)) : rawToDec(0n),
    size: rawToDec(c.size),
  };
}

function chartRecs(a: AccountRt, m: MarketRt, fromSec: number, toSec: number): ChartRec[] {
  const out: ChartRec[] = [];
  for (let i = a.chart.length - 1; i >= 0; i--) {
    const c = a.chart[i]!;
    if (c.marketId !== m.id || c.phaseIndex !== a.phaseIndex) continue;
    const sec = Math.floor(c.at / 1000);
    if (sec >= fromSec && sec <= toSec) out.push(c);
  }
  return out;
}

export function chartEvents(core: EngineCore, a: AccountRt, m: MarketRt, q: ChartEventsQuery, request: string): Page<ChartEvent> {
  const p = checkPage(q, core.presets.limits.pageDefault, core.presets.limits.chartPageMax, request);
  if (!Number.isSafeInteger(q.executedFrom) || !Number.isSafeInteger(q.executedTo)) {
    throw invalid('chart_range_invalid', `executedFrom/executedTo: expected unix seconds, got ${q.executedFrom}..${q.executedTo}`, request);
  }
  return page(chartRecs(a, m, q.executedFrom, q.executedTo).map((c) => chartView(m, c)), p);
}

export function chartBuckets(core: EngineCore, a: AccountRt, m: MarketRt, q: ChartBucketsQuery, request: string): ChartEventBucket[] {
  const res = CHART_RESOLUTION_SECONDS[q.resolution];
  if (res === undefined) throw invalid('resolution_invalid', `resolution: expected one of ${Object.keys(CHART_RESOLUTION_SECONDS).join(', ')}, got ${JSON.stringify(q.resolution)}`, request);
  if (!Number.isSafeInteger(q.from) || !Number.isSafeInteger(q.to) || q.from < 0 || q.to < 0 || q.to < q.from) {
    throw invalid('chart_range_invalid', `from/to: expected unix seconds with from ≤ to, got ${q.from}..${q.to}`, request);
  }
  const max = core.presets.limits.maxChartBucketCandles;
  if ((q.to - q.from) / res > max) {
    throw invalid('chart_range_too_large', `from/to: ${q.from}..${q.to} spans more than ${max} candles of ${q.resolution}`, request);
  }
  const keep = core.presets.limits.chartBucketSideEvents;
  const buckets = new Map<number, ChartEventBucket>();
  // Events whose candle starts in [from, to]: the candle of the last one ends at to + res.
  for (const c of chartRecs(a, m, q.from, q.to + res - 1)) {
    const sec = Math.floor(c.at / 1000);
    const time = Math.floor(sec / res) * res;
    if (time < q.from || time > q.to) continue;
    let b = buckets.get(time);
    if (!b) {
      b = { time, buy: { totalCount: 0, events: [] }, sell: { totalCount: 0, events: [] } };
      buckets.set(time, b);
    }
    const grows = c.eventName === 'open' || c.eventName === 'increase';
    const buy = c.direction === 'long' ? grows : !grows;
    const side = buy ? b.buy : b.sell;
    side.totalCount++;
    // chartRecs is newest first, so the first ones seen are the latest.
    if (side.events.length < keep) side.events.push(chartView(m, c));
  }
  return [...buckets.values()].sort((x, y) => x.time - y.time);
}

export function scalpingCoefficient(a: AccountRt, m: MarketRt, now: number): ScalpingCoefficient {
  const since = a.lastIncreaseAt.get(m.id);
  const running = since !== undefined && now < since + m.scalpingWindowMs;
  return {
    amount: rawToDec(m.scalpMult),
    amountRegular: rawToDec(m.regularMult),
    activeSince: running ? new Date(since) : null,
    activeUntil: running ? new Date(since + m.scalpingWindowMs) : null,
  };
}

export function accountEvents(core: EngineCore, userId: string, viaApiKey: boolean, q: PageQuery | undefined, request: string): Page<AccountEvent> {
  const p = checkPage(q, core.presets.limits.pageDefault, core.presets.limits.pageMax, request);
  const all = core.accountEvents.filter((e) => e.account.userId === userId && (!viaApiKey || e.account.apiTrading));
  all.sort((x, y) => y.createdAt - x.createdAt || y.seq - x.seq);
  const slice = all.slice(p.offset, p.offset + p.limit);
  return { data: slice.map(accountEventView), totalCount: all.length };
}

/** A market as seen by an account: leverage caps of its type and phase; hidden outside its category. */
export function marketFor(core: EngineCore, m: MarketRt, a: AccountRt | undefined, maxLeverage: bigint | undefined): Market {
  if (!a || maxLeverage === undefined) return marketView(m, { now: core.now });
  return marketView(m, { now: core.now, maxLeverageByAccount: { [a.type]: maxLeverage } });
}

export function sortedMarkets(core: EngineCore): MarketRt[] {
  return [...core.marketList].sort((x, y) => {
    const px = x.config.priority;
    const py = y.config.priority;
    if (px !== py) return (py ?? -Infinity) - (px ?? -Infinity);
    return x.asset < y.asset ? -1 : x.asset > y.asset ? 1 : 0;
  });
}
