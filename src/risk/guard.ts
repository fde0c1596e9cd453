/**
 * The risk guard: every intent passes `check()` before the executor sees it. The rules are the pure
 * functions of `./rules`; the guard keeps the per-account view they read (fed by `observe*` calls or by
 * `connect(feed)`), the guard state of each account (ACTIVE / REDUCING / HALTED), and the kill switch.
 *
 * Decisions are events: every decision goes out on `decisions$` (and to the logger, denials at `warn`);
 * nothing here throws for a refused intent. A hold (`held_profit_window`, cooldowns, a scheduled pause)
 * is a denial carrying `retryAt`: the guard keeps no queue, the strategy or the executor decides whether
 * to submit a new intent after that time (a queue here would re-submit intents the strategy may no
 * longer want, against a market that has moved since).
 *
 * The kill switch emits its own intents on `intents$` (strategy `risk-guard`, `close_all` with scope
 * `account`: cancel every order, then close every position); the runtime feeds them through `check()`
 * like any intent (HALTED lets `close_all` pass) and on to the executor.
 */
import { Subject, Subscription, type Observable } from 'rxjs';
import type { Account, ScalpingCoefficient } from '../api/types.js';
import { objectArray, objectsWhere } from '../core/arrays.js';
import { WallClock, type Clock } from '../core/clock.js';
import type { Decimal } from 'decimal.js';
import { newId } from '../core/ids.js';
import type {
  MarketFeed,
  MarketSnapshot,
  OrdersSnapshot,
  PositionsSnapshot,
  RiskSnapshot,
} from '../feed/types.js';
import type { CloseAllIntent, OrderIntent } from '../strategy/intents.js';
import { AccountBook, MarketBook } from './account-book.js';
import {
  DEFAULT_RISK_GUARD_CONFIG,
  parseRiskGuardConfig,
  type RiskGuardConfig,
  type RiskGuardConfigInput,
  type StrategyRiskConfig,
} from './config.js';
import { DAY_MS, nextUtcDay, type AccountTrackers, type RuleContext, type RuleNumbers } from './context.js';
import { intentEntryFigures, type ExposureParams } from './exposure.js';
import { fmt, fromRaw, pct, toRaw } from './fixed.js';
import { consistencyReached, killSwitchTrip, RULES, type KillSwitchTrip, type RuleEntry } from './rules/index.js';
import { quietAtPrice, quietMark, stillQuiet, type QuietMark } from './quiet.js';
import type { Decision, Denial, EquityDivergence, GuardAction, GuardState, GuardStateChange } from './types.js';

/** The part of a pino logger the guard uses. */
export interface GuardLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
  /** For a divergence from the platform's equity; a logger without it gets a warning. */
  error?(obj: object, msg: string): void;
}

export interface RiskGuardOptions {
  /** Configuration (validated here; a bad value throws ConfigError naming `risk.<key>`). Default: all defaults. */
  config?: RiskGuardConfigInput;
  /** The pipeline's clock (virtual in backtests). Default: the wall clock. */
  clock?: Clock;
  /** Where decisions and state changes are logged; default: not logged (still on the streams). */
  logger?: GuardLogger;
  /** Id of the guard's own intents; default random UUIDs (pass a seeded source for reproducible runs). */
  newId?: () => string;
  /**
   * Skip the full evaluation on a price that provably cannot trip the kill switch or the consistency
   * rule (see risk/quiet.ts). Default true; false evaluates on every update, to compare the two.
   */
  quietPath?: boolean;
}

/** A closed trade, for the losing-streak cooldown. */
export interface TradeRecord {
  readonly accountId: string;
  readonly realizedPnl: Decimal;
  /** When it closed, unix ms. */
  readonly at: number;
}

export interface ConnectOptions {
  readonly accountId: string;
  /** Markets to watch (base asset tickers). */
  readonly assets: readonly string[];
}

interface PendingOpen {
  readonly id: string;
  readonly at: number;
  readonly asset: string;
  readonly key: string;
  readonly worst: bigint;
  readonly reserve: bigint;
  ordersSeen: boolean;
  positionsSeen: boolean;
}

const RISK_GUARD_STRATEGY = 'risk-guard';
const SEVERITY: Record<GuardState, number> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

/** A book plus what the guard tracks for approved opens not yet visible. */
class GuardBook extends AccountBook implements AccountTrackers {
  /** What the last full evaluation found, while it found no trip (see risk/quiet.ts). */
  quiet: QuietMark | undefined;
  pending: PendingOpen[] = objectArray();
  pendingWorst = 0n;
  pendingReserve = 0n;
  pendingKeys = new Set<string>();

  settle(now: number, settleMs: number, what: 'orders' | 'positions', asset?: string): void {
    if (this.pending.length === 0) return;
    let changed = false;
    for (const p of this.pending) {
      if (now < p.at + settleMs) continue;
      if (what === 'orders') p.ordersSeen = true;
      else if (p.asset === asset) p.positionsSeen = true;
      changed ||= p.ordersSeen && p.positionsSeen;
    }
    if (!changed) return;
    this.pending = this.pending.filter((p) => !(p.ordersSeen && p.positionsSeen));
    this.pendingWorst = 0n;
    this.pendingReserve = 0n;
    this.pendingKeys = new Set();
    for (const p of this.pending) {
      this.pendingWorst += p.worst;
      this.pendingReserve += p.reserve;
      this.pendingKeys.add(p.key);
    }
  }
}

/** What `accountView` reports. Money as Decimals. */
export interface GuardAccountView {
  readonly accountId: string;
  readonly state: GuardState;
  readonly reason: string;
  readonly phase: string;
  readonly equity: Decimal;
  readonly balance: Decimal;
  readonly freeBalance: Decimal;
  readonly dayStartEquity: Decimal;
  readonly openPositions: number;
  /** Open notional per `asset:direction` (positions only, not pending entries). */
  readonly exposure: ReadonlyMap<string, Decimal>;
  readonly floors: ReadonlyArray<{ readonly rule: string; readonly floor: Decimal; readonly headroom: Decimal }>;
}

export class RiskGuard {
  readonly #config: RiskGuardConfig;
  readonly #numbers: RuleNumbers;
  readonly #params: ExposureParams;
  readonly #rules: readonly RuleEntry[];
  readonly #clock: Clock;
  readonly #logger: GuardLogger | undefined;
  readonly #newId: () => string;
  readonly #markets: MarketBook;
  readonly #quietPath: boolean;
  #evaluations = 0;
  /** Subscriptions `connect` holds, by stream (see `observing`). */
  readonly #watching = new Map<string, number>();
  #banded = 0;
  readonly #books = new Map<string, GuardBook>();
  readonly #defaultStrategy: StrategyRiskConfig = { allowScalping: false };
  readonly #decisions = new Subject<Decision>();
  readonly #states = new Subject<GuardStateChange>();
  readonly #intents = new Subject<OrderIntent>();
  readonly #divergences = new Subject<EquityDivergence>();
  readonly #actions = new Subject<GuardAction>();
  /** Strategies paused by hand (the cockpit): every intent of theirs is denied until resumed. */
  readonly #paused = new Map<string, string>();

  /** Every decision, approvals and denials, in the order made. */
  readonly decisions$: Observable<Decision> = this.#decisions.asObservable();
  /** Every change of an account's guard state, with its reason. */
  readonly state$: Observable<GuardStateChange> = this.#states.asObservable();
  /** The guard's own intents (kill switch flattening). */
  readonly intents$: Observable<OrderIntent> = this.#intents.asObservable();
  /** What the guard did on its own (the kill switch), with the figures that made it act. */
  readonly actions$: Observable<GuardAction> = this.#actions.asObservable();
  /**
   * Each risk snapshot whose equity the guard's own derivation does not reproduce (beyond one fp9 unit,
   * and beyond what the price moved between the market reads around it): a drift to see before it
   * costs a challenge. Also logged at `warn`.
   */
  readonly divergence$: Observable<EquityDivergence> = this.#divergences.asObservable();

  constructor(options: RiskGuardOptions = {}) {
    this.#config = options.config === undefined ? DEFAULT_RISK_GUARD_CONFIG : parseRiskGuardConfig(options.config);
    const c = this.#config;
    this.#numbers = {
      minLeverage: toRaw(c.leverage.minLeverage, 'ceil'),
      maxLeverage: c.leverage.maxLeverage === null ? null : toRaw(c.leverage.maxLeverage, 'floor'),
      adverse: toRaw(c.drawdown.maxAdverseMove, 'ceil'),
      stopSlippage: toRaw(c.drawdown.stopSlippage, 'ceil'),
      consistencyBuffer: toRaw(c.consistency.buffer, 'ceil'),
      killShare: toRaw(c.killSwitch.share, 'ceil'),
    };
    this.#params = { adverse: this.#numbers.adverse, stopSlippage: this.#numbers.stopSlippage };
    this.#rules = RULES.filter((r) => r.enabled(c));
    this.#clock = options.clock ?? new WallClock();
    this.#logger = options.logger;
    this.#newId = options.newId ?? newId;
    this.#markets = new MarketBook(toRaw(c.drawdown.spreadMultiplier, 'ceil'));
    this.#quietPath = options.quietPath ?? true;
  }

  get config(): RiskGuardConfig {
    return this.#config;
  }

  /** Full evaluations of an account's state so far (the quiet path skips most while nothing can trip). */
  get evaluations(): number {
    return this.#evaluations;
  }

  /**
   * The prices of a one-market book's market between which, as things stand, no rule can trip (see
   * quiet.ts); undefined when the account has no such band now.
   */
  quietBand(accountId: string): { readonly asset: string; readonly low: Decimal; readonly high: Decimal } | undefined {
    const band = this.#books.get(accountId)?.quiet?.band;
    return band ? { asset: band.asset, low: fromRaw(band.lo), high: fromRaw(band.hi) } : undefined;
  }

  /** Updates the quiet path passed on the price alone, inside a one-market book's quiet band (see quiet.ts). */
  get bandPasses(): number {
    return this.#banded;
  }

  /** Names of the rules that run, in order. */
  get rules(): readonly string[] {
    return this.#rules.map((r) => r.name);
  }

  state(accountId: string): GuardState {
    return this.#books.get(accountId)?.state ?? 'ACTIVE';
  }

  stateReason(accountId: string): string {
    return this.#books.get(accountId)?.stateReason ?? 'no account seen yet';
  }

  /** Judge an intent now. Synchronous; never throws for a refused intent. */
  check(intent: OrderIntent): Decision {
    const now = this.#clock.now();
    const book = this.#book(intent.accountId);
    const paused = this.#paused.get(intent.strategy);
    if (paused !== undefined) return this.#deny(intent, now, 'control', 'strategy_paused', `strategy ${intent.strategy} is paused: ${paused}`, undefined);
    let ctx: RuleContext;
    try {
      this.#expire(book, now);
      ctx = this.#context(intent, book, now);
      for (const entry of this.#rules) {
        const v = entry.rule(intent, ctx);
        if (v !== undefined) return this.#deny(intent, now, entry.name, v.code, v.reason, v.retryAt);
      }
    } catch (error) {
      // A malformed intent (a NaN amount, …) or a bug must not let an intent through, nor kill the pipeline.
      const why = error instanceof Error ? error.message : String(error);
      return this.#deny(intent, now, 'guard', 'guard_error', `the guard could not judge this intent: ${why}`, undefined);
    }
    if (intent.kind === 'open') {
      book.tradesToday += 1;
      const e = ctx.entry;
      if (e !== undefined) {
        const key = `${intent.asset}:${intent.direction}`;
        book.pending.push({
          id: intent.id,
          at: now,
          asset: intent.asset,
          key,
          worst: e.worstLoss,
          reserve: e.reserve,
          ordersSeen: false,
          positionsSeen: false,
        });
        book.pendingWorst += e.worstLoss;
        book.pendingReserve += e.reserve;
        book.pendingKeys.add(key);
      }
    }
    const approval: Decision = { verdict: 'approved', intent, at: now };
    this.#logger?.debug({ accountId: intent.accountId, intentId: intent.id }, `risk guard approved ${intent.kind} ${intent.asset}`);
    this.#decisions.next(approval);
    return approval;
  }

  #deny(intent: OrderIntent, now: number, rule: string, code: string, reason: string, retryAt: number | undefined): Denial {
    const denial: Denial = {
      verdict: 'denied',
      intent,
      at: now,
      code,
      reason,
      rule,
      ...(retryAt !== undefined ? { retryAt } : {}),
    };
    this.#logger?.warn(
      { accountId: intent.accountId, intentId: intent.id, strategy: intent.strategy, code, rule, retryAt },
      `risk guard denied ${intent.kind} ${intent.asset}: ${reason}`,
    );
    this.#decisions.next(denial);
    return denial;
  }

  /**
   * The guard's view of an account for status pages: state, equity marked to the latest prices, and
   * each drawdown floor with the headroom above it. Undefined before the account was observed.
   */
  accountView(accountId: string): GuardAccountView | undefined {
    const book = this.#books.get(accountId);
    if (!book) return undefined;
    const f = book.figures(this.#markets, this.#config, this.#params);
    const equity = fromRaw(f.equity);
    return {
      accountId,
      state: book.state,
      reason: book.stateReason,
      phase: f.phase,
      equity,
      balance: fromRaw(f.balance),
      freeBalance: fromRaw(f.freeBalance),
      dayStartEquity: fromRaw(f.dayStartEquity),
      openPositions: f.openCount,
      exposure: new Map([...f.openNotional].map(([key, n]) => [key, fromRaw(n)])),
      floors: f.floors.map((fl) => ({ rule: fl.name, floor: fromRaw(fl.floor), headroom: equity.minus(fromRaw(fl.floor)) })),
    };
  }

  /** What the rules would see for this intent now (for diagnostics and tests); changes nothing. */
  context(intent: OrderIntent): RuleContext {
    const book = this.#book(intent.accountId);
    return this.#context(intent, book, this.#clock.now());
  }

  #context(intent: OrderIntent, book: GuardBook, now: number): RuleContext {
    const market = intent.kind === 'close_all' ? undefined : this.#markets.get(intent.asset);
    return {
      now,
      config: this.#config,
      numbers: this.#numbers,
      strategy: this.#config.strategies[intent.strategy] ?? this.#defaultStrategy,
      state: book.state,
      stateReason: book.stateReason,
      account: book.figures(this.#markets, this.#config, this.#params),
      trackers: book,
      market,
      entry: intent.kind === 'open' && market !== undefined ? intentEntryFigures(intent, market, this.#params) : undefined,
    };
  }

  // ---- observing -------------------------------------------------------------------------------

  observeMarket(snapshot: MarketSnapshot): void {
    this.#markets.update(snapshot.data, snapshot.asset, snapshot.takenAt, snapshot.stale);
    const now = this.#clock.now();
    for (const book of this.#books.values()) {
      if (book.positions.size > 0 || book.orders.length > 0) this.#evaluate(book, now);
      this.#reconcile(book);
    }
  }

  observeRisk(snapshot: RiskSnapshot): void {
    const book = this.#book(snapshot.accountId);
    book.setRisk(snapshot.data, snapshot.takenAt, snapshot.stale);
    this.#evaluate(book, this.#clock.now());
    this.#reconcile(book);
  }

  observePositions(snapshot: PositionsSnapshot): void {
    const book = this.#book(snapshot.accountId);
    const open = objectsWhere(snapshot.data, (p) => p.status === 'opened');
    for (const p of open) {
      const increasedAt = p.eventName === 'increasePosition' ? p.lastUpdatedAt.getTime() : p.openedAt.getTime();
      const known = book.lastIncreaseByPosition.get(p.idx) ?? 0;
      if (increasedAt > known) book.lastIncreaseByPosition.set(p.idx, increasedAt);
      const assetLast = book.lastIncreaseByAsset.get(snapshot.asset) ?? 0;
      if (increasedAt > assetLast) book.lastIncreaseByAsset.set(snapshot.asset, increasedAt);
    }
    const previous = book.positions.get(snapshot.asset);
    if (previous !== undefined) {
      const still = new Set(open.map((p) => p.idx));
      for (const p of previous) if (!still.has(p.idx)) book.lastIncreaseByPosition.delete(p.idx);
    }
    book.setPositions(snapshot.asset, open, snapshot.takenAt);
    book.settle(snapshot.takenAt, this.#config.drawdown.pendingSettleMs, 'positions', snapshot.asset);
    this.#evaluate(book, this.#clock.now());
    this.#reconcile(book);
  }

  observeOrders(snapshot: OrdersSnapshot): void {
    const book = this.#book(snapshot.accountId);
    book.setOrders(objectsWhere(snapshot.data, (o) => o.status === 'active'));
    book.settle(snapshot.takenAt, this.#config.drawdown.pendingSettleMs, 'orders');
    this.#evaluate(book, this.#clock.now());
  }

  /** The Account record (status, type, phase, initial balance, drawdown percentages). */
  observeAccount(account: Account): void {
    const book = this.#book(account.accountId);
    book.account = account;
    book.touchRisk();
    this.#evaluate(book, this.#clock.now());
  }

  observeScalping(accountId: string, asset: string, coefficient: ScalpingCoefficient): void {
    const book = this.#book(accountId);
    if (coefficient.activeUntil !== null) book.scalpingUntil.set(asset, coefficient.activeUntil.getTime());
    else book.scalpingUntil.delete(asset);
    if (coefficient.activeSince !== null) {
      const since = coefficient.activeSince.getTime();
      if (since > (book.lastIncreaseByAsset.get(asset) ?? 0)) book.lastIncreaseByAsset.set(asset, since);
    }
  }

  /** A closed trade: losses in a row start the cooldown, anything else ends the streak. */
  recordTrade(trade: TradeRecord): void {
    const book = this.#book(trade.accountId);
    if (trade.realizedPnl.isNegative() && !trade.realizedPnl.isZero()) {
      book.lossStreak += 1;
      const cfg = this.#config.lossStreak;
      if (book.lossStreak >= cfg.losses) {
        book.cooldownUntil = Math.max(book.cooldownUntil, trade.at + cfg.cooldownMs);
        book.lossStreak = 0;
      }
    } else {
      book.lossStreak = 0;
    }
  }

  /** Subscribe to a feed's streams for one account and its markets. */
  connect(feed: MarketFeed, options: ConnectOptions): Subscription {
    const sub = new Subscription();
    const watch = (key: string): void => {
      this.#watching.set(key, (this.#watching.get(key) ?? 0) + 1);
      sub.add(() => this.#watching.set(key, this.#watching.get(key)! - 1));
    };
    for (const asset of options.assets) {
      sub.add(feed.market$(asset).subscribe((s) => this.observeMarket(s)));
      watch(`market\u0000${asset}`);
      sub.add(feed.positions$(options.accountId, asset).subscribe((s) => this.observePositions(s)));
    }
    sub.add(feed.risk$(options.accountId).subscribe((s) => this.observeRisk(s)));
    watch(`risk\u0000${options.accountId}`);
    sub.add(feed.orders$(options.accountId).subscribe((s) => this.observeOrders(s)));
    sub.add(
      feed.accountEvents$().subscribe((s) => {
        // Each event carries the account as it is now; the newest for this account is the freshest view.
        const latest = s.data.find((e) => e.accountId === options.accountId);
        if (latest !== undefined) this.observeAccount(latest.account);
      }),
    );
    return sub;
  }

  /** How many subscriptions `connect` holds now to a market's stream (by asset) or an account's risk stream. */
  observing(stream: 'market' | 'risk', key: string): number {
    return this.#watching.get(`${stream}\u0000${key}`) ?? 0;
  }

  /**
   * Whether a snapshot of `asset` at `priceFp9`, with nothing else changed (nor the risk status's base
   * figures), would leave every account where its last evaluation did: true for a book with neither
   * positions nor orders (a market snapshot evaluates none), and for one whose last evaluation found
   * nothing and whose quiet band (`quiet.ts`) holds the price. A replay may then skip publishing that
   * step (LocalSession's quiet steps) and give the guard the price alone (`quietPrice`); false, also
   * before the market's first snapshot, only costs the step its snapshots.
   */
  quietAt(asset: string, priceFp9: bigint): boolean {
    if (!this.#quietPath || this.#markets.latest(asset) === undefined) return false;
    const now = this.#clock.now();
    for (const book of this.#books.values()) {
      if (book.positions.size === 0 && book.orders.length === 0) continue;
      const mark = book.quiet;
      if (mark === undefined || !quietAtPrice(mark, book, now, asset, priceFp9, this.#markets)) return false;
    }
    return true;
  }

  /**
   * A quiet step's price: `asset` moved to `priceFp9` at the clock's time and nothing else changed
   * (see `quietAt`, which must have said so). The market book takes it as a snapshot of that price
   * would have set it; no account is evaluated.
   */
  quietPrice(asset: string, priceFp9: bigint): boolean {
    return this.#markets.quietPrice(asset, priceFp9, this.#clock.now());
  }

  // ---- state -----------------------------------------------------------------------------------

  /** Halt an account by hand, until `until` (unix ms) or until `resume`. */
  halt(accountId: string, reason: string, until?: number): void {
    const book = this.#book(accountId);
    if (until !== undefined) {
      book.haltedUntil = until;
      book.haltReason = reason;
    } else {
      book.manual = { state: 'HALTED', reason };
    }
    this.#evaluate(book, this.#clock.now());
  }

  /** Only reducing intents for an account until `resume`. */
  reduce(accountId: string, reason: string): void {
    const book = this.#book(accountId);
    book.manual = { state: 'REDUCING', reason };
    this.#evaluate(book, this.#clock.now());
  }

  /**
   * Pause a strategy: every intent it emits is denied (`strategy_paused`) until `resumeStrategy`.
   * Orders it already placed stay at the venue, so its stops and takes keep protecting its positions.
   */
  pauseStrategy(strategy: string, reason: string): void {
    if (strategy === RISK_GUARD_STRATEGY) throw new Error('the risk guard\'s own intents cannot be paused');
    this.#paused.set(strategy, reason);
    this.#logger?.info({ strategy, reason }, `risk guard: strategy ${strategy} paused: ${reason}`);
  }

  resumeStrategy(strategy: string, reason: string): boolean {
    const was = this.#paused.delete(strategy);
    if (was) this.#logger?.info({ strategy, reason }, `risk guard: strategy ${strategy} resumed: ${reason}`);
    return was;
  }

  /** Paused strategies and why. */
  pausedStrategies(): ReadonlyMap<string, string> {
    return this.#paused;
  }

  /**
   * Flatten an account by hand: the kill switch's own path (HALTED, then the `close_all` intent on
   * `intents$`), except that the halt lasts until `resume` rather than the next UTC day.
   */
  flatten(accountId: string, reason: string): CloseAllIntent {
    const book = this.#book(accountId);
    const now = this.#clock.now();
    book.manual = { state: 'HALTED', reason: `flattened by hand (${reason})` };
    this.#evaluate(book, now);
    const intent = this.#closeAll(book, now, `kill switch: flattened by hand (${reason})`);
    this.#logger?.warn({ event: 'guard_action', accountId, rule: 'kill_switch', code: 'flattened_by_hand', intentId: intent.id }, `risk guard: flattening ${accountId} by hand: ${reason}`);
    this.#intents.next(intent);
    return intent;
  }

  /** Lift manual states, a halt and the consistency latch (the kill switch may trip again at once). */
  resume(accountId: string, reason: string): void {
    const book = this.#book(accountId);
    book.manual = undefined;
    book.haltedUntil = 0;
    book.reducingUntil = 0;
    this.#setState(book, 'ACTIVE', reason, this.#clock.now());
    this.#evaluate(book, this.#clock.now());
  }

  /** Re-evaluate every account at the clock's time (day rollover ends a halt); call on clock steps. */
  tick(): void {
    const now = this.#clock.now();
    for (const book of this.#books.values()) this.#evaluate(book, now);
  }

  /** Complete the streams. */
  close(): void {
    this.#divergences.complete();
    this.#actions.complete();
    this.#decisions.complete();
    this.#states.complete();
    this.#intents.complete();
  }

  #book(accountId: string): GuardBook {
    let book = this.#books.get(accountId);
    if (book === undefined) {
      book = new GuardBook(accountId);
      this.#books.set(accountId, book);
    }
    return book;
  }

  /** Time-based part of the state: cheap, runs on every check. */
  #expire(book: GuardBook, now: number): void {
    const day = Math.floor(now / DAY_MS);
    if (book.tradesDay !== day) {
      book.tradesDay = day;
      book.tradesToday = 0;
    }
    if ((book.haltedUntil !== 0 && now >= book.haltedUntil) || (book.reducingUntil !== 0 && now >= book.reducingUntil)) {
      this.#evaluate(book, now);
    }
  }

  /** Full evaluation after a change: latches, kill switch, and the resulting state. */
  #evaluate(book: GuardBook, now: number): void {
    if (book.quiet !== undefined) {
      const answer = stillQuiet(book.quiet, book, now, this.#markets, this.#config, this.#numbers);
      if (answer === 'band') this.#banded += 1;
      if (answer !== false) return;
      book.quiet = undefined;
    }
    this.#evaluations += 1;
    if (book.haltedUntil !== 0 && now >= book.haltedUntil) book.haltedUntil = 0;
    if (book.reducingUntil !== 0 && now >= book.reducingUntil) book.reducingUntil = 0;
    const figures = book.figures(this.#markets, this.#config, this.#params);
    const c = this.#config;

    if (c.consistency.enabled && book.reducingUntil === 0) {
      const r = consistencyReached(figures, this.#numbers.consistencyBuffer);
      if (r !== undefined) {
        book.reducingUntil = nextUtcDay(now);
        book.reducingReason =
          `consistency: today's gain ${fmt(r.gain)} is above ${pct(r.threshold)} of the period profit ` +
          `${fmt(r.periodProfit)}; reducing until the next UTC day`;
      }
    }

    if (c.killSwitch.enabled && book.haltedUntil === 0 && book.manual?.state !== 'HALTED') {
      const trip = killSwitchTrip(figures, this.#numbers, c.killSwitch.onExposureBreach);
      if (trip !== undefined) {
        book.haltedUntil = nextUtcDay(now);
        book.haltReason = `kill switch (${trip.code}): ${trip.reason}; halted until ${new Date(book.haltedUntil).toISOString()}`;
        this.#setState(book, 'HALTED', book.haltReason, now);
        this.#flatten(book, now, trip, figures.equity);
        return;
      }
    }

    let state: GuardState = 'ACTIVE';
    let reason = 'no restriction in force';
    const consider = (s: GuardState, why: string): void => {
      if (SEVERITY[s] > SEVERITY[state]) {
        state = s;
        reason = why;
      }
    };
    if (book.manual !== undefined) consider(book.manual.state, `manual: ${book.manual.reason}`);
    if (book.haltedUntil !== 0) consider('HALTED', book.haltReason);
    if (c.accountStatus.enabled && book.statusStopsTrading()) consider('HALTED', `account status ${book.account?.status}`);
    if (book.reducingUntil !== 0) consider('REDUCING', book.reducingReason);
    if (c.accountStatus.enabled && book.statusLocked()) consider('REDUCING', `account status ${book.account?.status}`);
    this.#setState(book, state, reason, now);
    if (this.#quietPath) book.quiet = quietMark(book, figures, book.drift(), this.#numbers);
  }

  #reconcile(book: GuardBook): void {
    const r = book.reconcile(this.#markets);
    if (r === 'wait' || r === 'agree') return;
    const platform = fromRaw(r.platform);
    const nearer = r.platform < r.low ? r.low : r.high;
    const divergence: EquityDivergence = {
      accountId: book.accountId,
      at: book.riskTakenAt,
      platform,
      guardLow: fromRaw(r.low),
      guardHigh: fromRaw(r.high),
      difference: fromRaw(r.platform - nearer),
    };
    // An error, not a warning: every drawdown check stands on the guard's equity, and here it is not the platform's.
    const logger = this.#logger;
    (logger?.error ?? logger?.warn)?.call(
      logger,
      { event: 'guard_divergence', accountId: book.accountId, platform: platform.toString(), guardLow: divergence.guardLow.toString(), guardHigh: divergence.guardHigh.toString(), difference: divergence.difference.toString(), at: divergence.at },
      `risk guard: equity ${platform} of the risk status differs from the guard's ${divergence.guardLow}` +
        `${r.low === r.high ? '' : `…${divergence.guardHigh}`} by ${divergence.difference}`,
    );
    this.#divergences.next(divergence);
  }

  #setState(book: GuardBook, to: GuardState, reason: string, now: number): void {
    if (book.state === to) {
      book.stateReason = reason;
      return;
    }
    const change: GuardStateChange = { accountId: book.accountId, from: book.state, to, reason, at: now };
    book.state = to;
    book.stateReason = reason;
    this.#logger?.info({ ...change }, `risk guard: ${book.accountId} ${change.from} → ${to}: ${reason}`);
    this.#states.next(change);
  }

  /** The kill switch's intent: cancel every order, close every position of the account. */
  #closeAll(book: GuardBook, now: number, note: string): CloseAllIntent {
    return {
      id: this.#newId(),
      strategy: RISK_GUARD_STRATEGY,
      accountId: book.accountId,
      asset: '*',
      createdAt: now,
      kind: 'close_all',
      scope: 'account',
      cause: 'kill_switch',
      note,
    };
  }

  #flatten(book: GuardBook, now: number, trip: KillSwitchTrip, equity: bigint): CloseAllIntent {
    const intent = this.#closeAll(book, now, `kill switch: ${trip.reason}`);
    const action: GuardAction = {
      accountId: book.accountId,
      at: now,
      rule: 'kill_switch',
      code: trip.code,
      reason: trip.reason,
      intentId: intent.id,
      floorRule: trip.floor.name,
      equity: fromRaw(equity),
      floor: fromRaw(trip.floor.floor),
      threshold: fromRaw(trip.threshold),
    };
    this.#logger?.warn(
      { event: 'guard_action', accountId: book.accountId, rule: action.rule, code: action.code, intentId: intent.id, floorRule: action.floorRule, equity: action.equity.toString(), floor: action.floor.toString(), threshold: action.threshold.toString() },
      `risk guard: kill switch flattens ${book.accountId}: ${trip.reason}`,
    );
    this.#actions.next(action);
    this.#intents.next(intent);
    return intent;
  }
}
