/**
 * The body of `/status` and of the dashboard's live stream, built fresh on each request from the
 * latest snapshots of the feed, the guard's view and the tracker's memory.
 */
import type { Decimal } from 'decimal.js';
import type { Observable } from 'rxjs';
import type { Order, Position } from '../../api/types.js';
import { Dec } from '../../core/decimal.js';
import type { CockpitTracker } from './tracker.js';
import type { CockpitVenue } from './types.js';

export interface ViewSources extends CockpitVenue {
  readonly mode: string;
  readonly external: { readonly orders: ReadonlySet<string>; readonly positions: ReadonlySet<string> };
  readonly tracker: CockpitTracker;
  readonly stopping: () => boolean;
  /** Whether the control endpoints answer (a token is configured). */
  readonly control: boolean;
}

const PROTECTIVE_TYPES = new Set(['stop', 'take', 'trailing_stop']);

/** Entry price, leverage and pnl of an open position, marked at the index price `mark`. */
export function positionFigures(p: Position, mark: Decimal | undefined): {
  entryPrice: Decimal | null;
  leverage: Decimal | null;
  unrealisedPnl: Decimal | null;
  realisedPnl: Decimal;
} {
  const entryPrice = p.size.isZero() ? null : p.notional.div(p.size).toDecimalPlaces(9);
  const leverage = p.margin.isZero() ? null : p.notional.div(p.margin).toDecimalPlaces(2);
  // ENGINE-MODEL: equity = balance + Σ unrealised pnl at I; a long gains size × I − notional.
  const value = mark === undefined ? null : p.size.times(mark);
  const unrealisedPnl = value === null ? null : (p.direction === 'long' ? value.minus(p.notional) : p.notional.minus(value)).toDecimalPlaces(9);
  return { entryPrice, leverage, unrealisedPnl, realisedPnl: p.pnl ?? new Dec(0) };
}

export function statusBody(s: ViewSources): Record<string, unknown> {
  const marks = new Map<string, Decimal>();
  for (const asset of s.assets) {
    const m = latestValue(s.feed.market$(asset));
    if (m !== undefined && m.price.gt(0)) marks.set(asset, m.price);
  }
  const paused = s.guard.pausedStrategies();
  const accounts = [];
  for (const accountId of s.accounts) {
    const view = s.guard.accountView(accountId);
    const orders: Order[] = (latestValue(s.feed.orders$(accountId)))?.data ?? [];
    const positions = [];
    for (const asset of s.assets) {
      for (const p of (latestValue(s.feed.positions$(accountId, asset)))?.data ?? []) {
        if (p.status !== 'opened') continue;
        const protective = orders.filter((o) => o.positionId === p.idx && PROTECTIVE_TYPES.has(o.type) && o.status === 'active');
        const trigger = (type: string): Decimal | null => protective.find((o) => o.type === type)?.triggerPrice ?? null;
        positions.push({
          positionId: p.idx,
          asset,
          direction: p.direction,
          size: p.size,
          notional: p.notional,
          margin: p.margin,
          ...positionFigures(p, marks.get(asset)),
          markPrice: marks.get(asset) ?? null,
          stopLoss: trigger('stop'),
          takeProfit: trigger('take'),
          trailingStop: trigger('trailing_stop'),
          openedAt: p.openedAt,
          external: s.external.positions.has(p.idx),
        });
      }
    }
    const counts = s.tracker.counts(accountId);
    accounts.push({
      accountId,
      guard: view ? { state: view.state, reason: view.reason } : { state: s.guard.state(accountId), reason: s.guard.stateReason(accountId) },
      phase: view?.phase ?? null,
      equity: view?.equity ?? null,
      balance: view?.balance ?? null,
      freeBalance: view?.freeBalance ?? null,
      headroom: Object.fromEntries((view?.floors ?? []).map((f) => [f.rule, { floor: f.floor, headroom: f.headroom }])),
      positions,
      activeOrders: orders
        .filter((o) => o.status === 'active')
        .map((o) => ({ id: o.id, type: o.type, direction: o.direction, triggerPrice: o.triggerPrice, amount: o.amount, positionId: o.positionId, createdAt: o.createdAt, external: s.external.orders.has(o.id) })),
      trades: counts.trades,
      fills: counts.fills,
      realisedPnl: counts.realisedPnl,
    });
  }
  return {
    mode: s.mode,
    now: new Date(s.clock.now()).toISOString(),
    stopping: s.stopping(),
    control: s.control,
    accounts,
    strategies: s.runner.status().map((st) => ({ ...st, paused: paused.has(st.name), pausedReason: paused.get(st.name) ?? null })),
    intents: { ...s.pipeline.counts, queues: s.executor.stats() },
  };
}

/** What the dashboard draws: the status plus the remembered series and tables. */
export function dashboardState(s: ViewSources, afterSeq: number): Record<string, unknown> {
  return {
    status: statusBody(s),
    seq: s.tracker.lastSeq,
    equity: Object.fromEntries(s.accounts.map((a) => [a, s.tracker.equity(a, afterSeq)])),
    decisions: s.tracker.decisions().slice(-50),
    fills: s.tracker.fills().slice(-100),
    guardChanges: s.tracker.guardChanges().slice(-20),
  };
}

/** The latest value a shared stream replays to a new subscriber, if it has one. */
export function latestValue<T>(stream: Observable<T>): T | undefined {
  let value: T | undefined;
  stream.subscribe((v) => (value = v)).unsubscribe();
  return value;
}
