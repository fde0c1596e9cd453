/**
 * What the cockpit remembers of a running pipeline, in bounded memory: per account the equity curve
 * since start against the drawdown floors, the latest decisions, guard state changes, fills with their
 * origin, and the day's figures (the daily summary is emitted when a UTC day ends, by the pipeline's
 * clock). Everything else the dashboard shows is read fresh from the feed and the guard on request.
 *
 * Chart points are JS numbers: they are drawn, never added up. Money shown as figures stays Decimal.
 */
import type { Decimal } from 'decimal.js';
import { Subject, Subscription, type Observable } from 'rxjs';
import type { PositionEvent } from '../../api/types.js';
import type { Origin } from '../../report/origin.js';
import { Dec } from '../../core/decimal.js';
import type { GuardStateChange } from '../../risk/types.js';
import type { StrategyStatus } from '../../strategy/runner.js';
import { describeIntent } from '../pipeline.js';
import type { CockpitVenue, DaySummary, DecisionView, EquityPoint, FillOrigin, FillView } from './types.js';


export interface TrackerSources extends Pick<CockpitVenue, 'clock' | 'feed' | 'guard' | 'executor' | 'accounts' | 'assets'> {
  /**
   * Every position event the daemon sees (engine events on paper, new versions from polls live), with
   * its origin as the daemon recorded it in the store and the log (when it has one).
   */
  readonly positionEvents$: Observable<{ readonly event: PositionEvent; readonly origin?: Origin }>;
  readonly strategyStatus$: Observable<StrategyStatus>;
}

export interface TrackerLimits {
  /** Equity points kept per account; past it the older half is thinned. Default 4000. */
  readonly maxPoints?: number;
  /** Decisions, fills and guard changes kept. Default 200. */
  readonly maxRows?: number;
}

const GUARD = 'risk-guard';
/** Strategy name of intents made by the cockpit's controls. */
export const CONTROL_STRATEGY = 'control';
const FILL_EVENTS = new Set(['increasePosition', 'closePosition', 'liquidate', 'forceClose']);
const DAY_MS = 86_400_000;

interface AccountTrack {
  points: EquityPoint[];
  fills: number;
  trades: number;
  realisedPnl: Decimal;
  day: number;
  dayStartEquity: Decimal | null;
  lastEquity: Decimal | null;
  dayFills: number;
  dayTrades: number;
}

/** An order's link to the intent that placed it. */
interface OrderLink {
  readonly strategy: string;
  readonly step: string;
}

export class CockpitTracker {
  readonly #s: TrackerSources;
  readonly #maxPoints: number;
  readonly #maxRows: number;
  readonly #subs = new Subscription();
  readonly #accounts = new Map<string, AccountTrack>();
  readonly #decisions: DecisionView[] = [];
  readonly #guardChanges: GuardStateChange[] = [];
  readonly #fills: FillView[] = [];
  readonly #orderLinks = new Map<string, OrderLink>();
  readonly #positionOwners = new Map<string, string>();
  /**
   * Intents being executed now, by account. On paper the engine fills inside the executor's request,
   * before the executor has seen the order's id: a fill that arrives while an intent of the same
   * market and side (or a close_all of the account) is working is that intent's.
   */
  readonly #working = new Map<string, Map<string, { strategy: string; kind: string; asset: string; direction: string | null }>>();
  readonly #assetOf = new Map<string, string>();
  readonly #fills$ = new Subject<FillView>();
  readonly #days$ = new Subject<DaySummary>();
  readonly #failures$ = new Subject<StrategyStatus>();
  #seq = 0;
  #version = 0;

  /** Every fill as it is seen. */
  readonly fills$: Observable<FillView> = this.#fills$.asObservable();
  /** A summary per account each time a UTC day ends. */
  readonly days$: Observable<DaySummary> = this.#days$.asObservable();
  /** Strategies that failed. */
  readonly failures$: Observable<StrategyStatus> = this.#failures$.asObservable();

  constructor(sources: TrackerSources, limits: TrackerLimits = {}) {
    this.#s = sources;
    this.#maxPoints = limits.maxPoints ?? 4000;
    this.#maxRows = limits.maxRows ?? 200;
    const day = Math.floor(sources.clock.now() / DAY_MS);
    for (const accountId of sources.accounts) {
      this.#accounts.set(accountId, { points: [], fills: 0, trades: 0, realisedPnl: new Dec(0), day, dayStartEquity: null, lastEquity: null, dayFills: 0, dayTrades: 0 });
    }
  }

  /** Subscribe to the sources; call before the pipeline starts so nothing is missed. */
  start(): this {
    const s = this.#s;
    for (const asset of s.assets) {
      this.#subs.add(s.feed.market$(asset).subscribe((m) => this.#assetOf.set(m.marketId, m.asset)));
    }
    for (const accountId of s.accounts) {
      this.#subs.add(s.feed.risk$(accountId).subscribe((r) => !r.stale && this.#onEquity(accountId, r.takenAt, r.data.currentEquity)));
    }
    this.#subs.add(
      s.guard.decisions$.subscribe((d) => {
        this.#push(this.#decisions, {
          at: d.at,
          intentId: d.intent.id,
          strategy: d.intent.strategy,
          accountId: d.intent.accountId,
          kind: d.intent.kind,
          asset: d.intent.asset,
          summary: describeIntent(d.intent),
          verdict: d.verdict,
          code: d.verdict === 'denied' ? d.code : null,
          rule: d.verdict === 'denied' ? d.rule : null,
          reason: d.verdict === 'denied' ? d.reason : null,
        });
      }),
    );
    this.#subs.add(s.guard.state$.subscribe((c) => this.#push(this.#guardChanges, c)));
    this.#subs.add(
      s.executor.updates$.subscribe(({ kind, state }) => {
        const { intent } = state;
        if (kind === 'working') {
          if (!this.#working.has(intent.accountId)) this.#working.set(intent.accountId, new Map());
          this.#working.get(intent.accountId)!.set(intent.id, { strategy: intent.strategy, kind: intent.kind, asset: intent.asset, direction: 'direction' in intent ? intent.direction : null });
        }
        if (kind === 'final') this.#working.get(intent.accountId)?.delete(intent.id);
        for (const o of state.orders) {
          this.#remember(this.#orderLinks, o.id, { strategy: intent.strategy, step: o.step });
          if (o.order.positionId !== null) this.#remember(this.#positionOwners, o.order.positionId, intent.strategy);
        }
      }),
    );
    this.#subs.add(s.positionEvents$.subscribe(({ event, origin }) => this.#onPositionEvent(event, origin)));
    this.#subs.add(s.strategyStatus$.subscribe((st) => st.state === 'failed' && this.#failures$.next(st)));
    return this;
  }

  stop(): void {
    this.#subs.unsubscribe();
    this.#fills$.complete();
    this.#days$.complete();
    this.#failures$.complete();
  }

  /** Grows on every change: the live stream sends only when it moved. */
  get version(): number {
    return this.#version;
  }

  /** Equity points of an account with a sequence number above `afterSeq`. */
  equity(accountId: string, afterSeq = -1): EquityPoint[] {
    const points = this.#accounts.get(accountId)?.points ?? [];
    if (afterSeq < 0) return [...points];
    let i = points.length;
    while (i > 0 && points[i - 1]!.seq > afterSeq) i -= 1;
    return points.slice(i);
  }

  get lastSeq(): number {
    return this.#seq;
  }

  counts(accountId: string): { fills: number; trades: number; realisedPnl: Decimal } {
    const a = this.#accounts.get(accountId);
    return { fills: a?.fills ?? 0, trades: a?.trades ?? 0, realisedPnl: a?.realisedPnl ?? new Dec(0) };
  }

  decisions(): readonly DecisionView[] {
    return this.#decisions;
  }

  fills(): readonly FillView[] {
    return this.#fills;
  }

  guardChanges(): readonly GuardStateChange[] {
    return this.#guardChanges;
  }

  #onEquity(accountId: string, at: number, equity: Decimal): void {
    const a = this.#accounts.get(accountId);
    if (!a) return;
    const day = Math.floor(at / DAY_MS);
    if (day !== a.day) {
      if (a.lastEquity !== null) {
        const start = a.dayStartEquity ?? a.lastEquity;
        this.#days$.next({ accountId, day: new Date(a.day * DAY_MS).toISOString().slice(0, 10), startEquity: start, endEquity: a.lastEquity, pnl: a.lastEquity.minus(start), fills: a.dayFills, trades: a.dayTrades, totalTrades: a.trades });
      }
      a.day = day;
      a.dayStartEquity = a.lastEquity ?? equity;
      a.dayFills = 0;
      a.dayTrades = 0;
    }
    a.dayStartEquity ??= equity;
    a.lastEquity = equity;
    const view = this.#s.guard.accountView(accountId);
    const floor = (rule: string): number | null => {
      const f = view?.floors.find((x) => x.rule === rule);
      return f === undefined ? null : f.floor.toNumber();
    };
    const t = Math.floor(at / 1000);
    const point: EquityPoint = { seq: ++this.#seq, t, equity: equity.toNumber(), daily: floor('daily'), total: floor('total'), trailing: floor('trailing') };
    // One point per chart second (the library wants strictly rising times): the latest wins.
    const last = a.points[a.points.length - 1];
    if (last !== undefined && last.t >= t) a.points[a.points.length - 1] = { ...point, t: last.t };
    else a.points.push(point);
    if (a.points.length > this.#maxPoints) {
      // Thin the older half, keeping its extremes' neighbourhood coarse and the recent half whole.
      const half = Math.floor(a.points.length / 2);
      a.points = [...a.points.slice(0, half).filter((_, i) => i % 2 === 1), ...a.points.slice(half)];
    }
    this.#version += 1;
  }

  #onPositionEvent(e: PositionEvent, recorded: Origin | undefined): void {
    if (!FILL_EVENTS.has(e.eventName) || e.exchangedBase.isZero()) return;
    const a = this.#accounts.get(e.trader);
    if (!a) return;
    // The daemon's attribution is what the store and the log say: the page shows the same.
    const { origin, strategy } = recorded !== undefined ? { origin: recorded.kind, strategy: recorded.strategy ?? null } : this.#originOf(e);
    const closing = e.eventName !== 'increasePosition';
    const fill: FillView = {
      id: `${e.idx}:${e.version}`,
      at: e.timestamp.getTime(),
      accountId: e.trader,
      asset: this.#assetOf.get(e.market) ?? e.market,
      positionId: e.idx,
      direction: e.direction,
      action: closing ? (e.status === 'opened' ? 'decrease' : e.eventName === 'liquidate' ? 'liquidation' : 'close') : e.version <= 1 || e.size.eq(e.exchangedBase) ? 'open' : 'increase',
      size: e.exchangedBase,
      price: e.exchangedQuote.div(e.exchangedBase).toDecimalPlaces(9),
      realisedPnl: closing ? e.pnlInEvent : null,
      fee: e.feeInEvent,
      orderId: e.order?.id ?? null,
      origin,
      strategy,
    };
    a.fills += 1;
    a.dayFills += 1;
    if (closing) a.realisedPnl = a.realisedPnl.plus(e.pnlInEvent);
    if (closing && e.status !== 'opened') {
      a.trades += 1;
      a.dayTrades += 1;
    }
    this.#push(this.#fills, fill);
    this.#fills$.next(fill);
  }

  /** Who caused a fill, from what this process knows (the order, the intent that placed it). */
  #originOf(e: PositionEvent): { origin: FillOrigin; strategy: string | null } {
    if (e.eventName === 'liquidate') return { origin: 'liquidation', strategy: null };
    if (e.eventName === 'forceClose') return { origin: 'force_close', strategy: null };
    const o = e.order;
    const asset = this.#assetOf.get(e.market);
    const working = [...(this.#working.get(e.trader)?.values() ?? [])];
    const flattening = working.find((w) => w.kind === 'close_all');
    if (flattening !== undefined && e.eventName === 'closePosition') return { origin: flattening.strategy === GUARD ? 'kill_switch' : 'control', strategy: flattening.strategy };
    // A stop or take with a trigger is protective; a `take` at trigger 0 is how a close is sent at market.
    const market = o === null || o.type === 'market' || o.type === 'limit' || (o.type === 'take' && o.triggerPrice.isZero());
    const mine = market ? working.find((w) => w.asset === asset && (w.direction === null || w.direction === e.direction) && w.kind !== 'protect') : undefined;
    if (mine !== undefined) return { origin: mine.strategy === CONTROL_STRATEGY ? 'control' : 'strategy', strategy: mine.strategy };
    const link = o ? (this.#orderLinks.get(o.id) ?? (o.parentOrderId ? this.#orderLinks.get(o.parentOrderId) : undefined)) : undefined;
    const owner = link?.strategy ?? this.#positionOwners.get(e.idx) ?? null;
    if (o?.type === 'stop') return { origin: 'stop_loss', strategy: owner };
    if (o?.type === 'take' && !o.triggerPrice.isZero()) return { origin: 'take_profit', strategy: owner };
    if (o?.type === 'trailing_stop') return { origin: 'trailing_stop', strategy: owner };
    if (o?.type === 'liquidation') return { origin: 'liquidation', strategy: null };
    if (link !== undefined) {
      if (link.strategy === GUARD) return { origin: 'kill_switch', strategy: link.strategy };
      if (link.strategy === CONTROL_STRATEGY) return { origin: 'control', strategy: link.strategy };
      return { origin: 'strategy', strategy: link.strategy };
    }
    if (o === null && owner !== null && e.eventName === 'increasePosition') return { origin: 'strategy', strategy: owner };
    return { origin: 'unknown', strategy: owner };
  }

  #push<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > this.#maxRows) list.splice(0, list.length - this.#maxRows);
    this.#version += 1;
  }

  #remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > 10_000) map.delete(map.keys().next().value!);
  }
}
