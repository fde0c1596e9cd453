/**
 * A `MarketFeed` driven by hand: the replay hook. The backtester and the paper runner push the
 * engine's snapshots into it after every step (see `SnapshotPump`), so strategies and the risk guard
 * subscribe to exactly the stream types they get live. Pushing is synchronous: when `pushMarket`
 * returns, every subscriber (and every candle builder behind it) has seen the snapshot.
 */
import { Observable, type Subscriber } from 'rxjs';
import type {
  AccountEventsSnapshot,
  LatestSnapshots,
  MarketFeed,
  MarketSnapshot,
  OrdersSnapshot,
  PositionsSnapshot,
  RiskSnapshot,
} from './types.js';

/**
 * A subject that hands its latest value to each new subscriber. It calls its subscribers directly: a
 * backtest pushes a snapshot on every price step, and rxjs's Subject spends more on each push (its
 * error-context wrapper, a copy of the observer list) than a step's candle builder does. The list is
 * replaced, never changed in place, on (un)subscribe, so a push goes to the subscribers it started
 * with, as with a Subject; a throwing handler is reported by the subscriber, as with a Subject.
 */
class LatestChannel<T> {
  #subscribers: readonly Subscriber<T>[] = [];
  #has = false;
  #last: T | undefined;
  #completed = false;
  readonly stream: Observable<T>;

  /** `changed`: called when a subscriber comes or goes. */
  constructor(changed: () => void) {
    this.stream = new Observable<T>((subscriber) => {
      if (this.#has) subscriber.next(this.#last as T);
      if (this.#completed) {
        subscriber.complete();
        return undefined;
      }
      this.#subscribers = [...this.#subscribers, subscriber];
      changed();
      return () => {
        this.#subscribers = this.#subscribers.filter((s) => s !== subscriber);
        changed();
      };
    });
  }

  /** Never after complete(): ManualFeed refuses the push first. */
  next(value: T): void {
    this.#last = value;
    this.#has = true;
    const subscribers = this.#subscribers;
    for (let i = 0; i < subscribers.length; i += 1) subscribers[i]!.next(value);
  }

  latest(): T | undefined {
    return this.#last;
  }

  get observers(): number {
    return this.#subscribers.length;
  }

  complete(): void {
    if (this.#completed) return;
    this.#completed = true;
    const subscribers = this.#subscribers;
    this.#subscribers = [];
    for (const s of subscribers) s.complete();
  }
}

export class ManualFeed implements MarketFeed {
  readonly #markets = new Map<string, LatestChannel<MarketSnapshot>>();
  readonly #risk = new Map<string, LatestChannel<RiskSnapshot>>();
  readonly #positions = new Map<string, LatestChannel<PositionsSnapshot>>();
  readonly #orders = new Map<string, LatestChannel<OrdersSnapshot>>();
  readonly #events = new LatestChannel<AccountEventsSnapshot>(() => this.#audience++);
  #completed = false;
  #audience = 0;

  market$(asset: string): Observable<MarketSnapshot> {
    return this.#channel(this.#markets, asset).stream;
  }
  risk$(accountId: string): Observable<RiskSnapshot> {
    return this.#channel(this.#risk, accountId).stream;
  }
  positions$(accountId: string, asset: string): Observable<PositionsSnapshot> {
    return this.#channel(this.#positions, `${accountId}:${asset}`).stream;
  }
  orders$(accountId: string): Observable<OrdersSnapshot> {
    return this.#channel(this.#orders, accountId).stream;
  }
  accountEvents$(): Observable<AccountEventsSnapshot> {
    return this.#events.stream;
  }

  pushMarket(snapshot: MarketSnapshot): void {
    this.#open();
    this.#channel(this.#markets, snapshot.asset).next(snapshot);
  }
  pushRisk(snapshot: RiskSnapshot): void {
    this.#open();
    this.#channel(this.#risk, snapshot.accountId).next(snapshot);
  }
  pushPositions(snapshot: PositionsSnapshot): void {
    this.#open();
    this.#channel(this.#positions, `${snapshot.accountId}:${snapshot.asset}`).next(snapshot);
  }
  pushOrders(snapshot: OrdersSnapshot): void {
    this.#open();
    this.#channel(this.#orders, snapshot.accountId).next(snapshot);
  }
  pushAccountEvents(snapshot: AccountEventsSnapshot): void {
    this.#open();
    this.#events.next(snapshot);
  }

  /** Latest pushed market snapshot, for the code driving the replay. */
  latestMarket(asset: string): MarketSnapshot | undefined {
    return this.#markets.get(asset)?.latest();
  }

  /**
   * How many subscribers a market's (by asset) or an account's risk stream has now: a replay skips a
   * step's snapshots only when every one of them is a part that takes the step another way (see
   * LocalSession's quiet steps).
   */
  observers(stream: 'market' | 'risk', key: string): number {
    return (stream === 'market' ? this.#markets : this.#risk).get(key)?.observers ?? 0;
  }

  /** A count that moves whenever any stream gains or loses a subscriber (so `observers` need not be asked again while it stands). */
  get audience(): number {
    return this.#audience;
  }

  /**
   * The latest snapshot of each stream, set before a push reaches any subscriber (a strategy runner
   * reads these instead of keeping copies: `StrategyRunnerOptions.latest`).
   */
  readonly latest: LatestSnapshots = {
    market: (asset) => this.#markets.get(asset)?.latest(),
    risk: (accountId) => this.#risk.get(accountId)?.latest(),
    positions: (accountId, asset) => this.#positions.get(`${accountId}:${asset}`)?.latest(),
    orders: (accountId) => this.#orders.get(accountId)?.latest(),
  };

  /** End of the replay: every stream completes, so strategies' intent streams can complete too. */
  complete(): void {
    this.#completed = true;
    for (const map of [this.#markets, this.#risk, this.#positions, this.#orders] as Map<string, LatestChannel<unknown>>[]) {
      for (const c of map.values()) c.complete();
    }
    this.#events.complete();
  }

  #channel<T>(map: Map<string, LatestChannel<T>>, key: string): LatestChannel<T> {
    let c = map.get(key);
    if (!c) {
      c = new LatestChannel<T>(() => this.#audience++);
      if (this.#completed) c.complete();
      map.set(key, c);
    }
    return c;
  }

  #open(): void {
    if (this.#completed) throw new Error('ManualFeed: push after complete()');
  }
}

