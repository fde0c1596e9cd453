/**
 * The engine's state machine: markets, accounts, orders, positions and the challenge rules, driven only
 * by the caller (time, prices, requests). Exact fp9 integers throughout; no I/O, no timers, no
 * randomness (ids are seeded), so the same inputs give the same outputs.
 *
 * Order of events inside one time step (ENGINE-MODEL): time advances (funding, schedules, day rollover),
 * then a new price applies (liquidations, triggered orders in creation order, rule failures), then
 * requests (requests.ts) are handled against the updated state.
 *
 * Methods without `#` are used by requests.ts and reads.ts; only the engine's own modules reach
 * EngineCore (the package exports the façade, `Engine`).
 */
import type { Decimal } from 'decimal.js';
import { UnauthorizedError } from '../api/errors.js';
import type {
  AccountStatus,
  AccountType,
  CancelReason,
  Direction,
  FailureReason,
} from '../api/types.js';
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, LOCKED_STATUSES, MARKET_CATEGORIES } from '../api/types.js';
import { objectArray } from '../core/arrays.js';
import { ConfigError } from '../core/errors.js';
import { SeededIds } from '../core/ids.js';
import { S, S2, ceilDiv, decToRaw, divFloor, floorDiv, minB, mulCeil, mulFloor, parseRaw } from './fixed.js';
import { IdempotencyStore } from './idempotency.js';
import { activeOrdersStart } from './reads.js';
import { markHolding, prepareMark } from './holding-mark.js';
import { type FillQuote, fillQuote, holdingPnl, markPnl, quoteSizing, refreshLiquidationPrice } from './pricing.js';
import { ENGINE_PRESETS, mergePresets, phaseRules, validatePhaseNumbers, validatePresets, type EnginePresets, type PhasePreset } from './presets.js';
import { AccountRt, MarketRt, type AccountEventRec, type OrderRt, type PositionRt, type PositionSnap } from './state.js';
import { fires, trailInit, updateThresholds } from './triggers.js';
import type { AccountSpec, EngineConfig, EngineListener, MarketFlags, MarketSpec } from './types.js';
import { forbidden, notFound } from './validation.js';
import { accountEventView, orderView, positionEventView } from './views.js';

export const DEFAULT_START_MS = Date.UTC(2024, 0, 1);
const STOPPED: ReadonlySet<string> = new Set(['failed', 'closed', 'frozen', 'suspended', 'pending', 'phase_transition_pending', 'transition_review']);
const HUNDRED = 100n * S;

export class EngineCore {
  readonly presets: EnginePresets;
  readonly ids: SeededIds;
  readonly idemKeys: SeededIds;
  readonly idempotency = new IdempotencyStore();
  now: number;
  minute: number;
  readonly sampleMs: number;
  readonly dayMs: number;

  readonly markets = new Map<string, MarketRt>();
  readonly marketList: MarketRt[] = [];
  readonly byAsset = new Map<string, MarketRt>();
  readonly users = new Set<string>();
  readonly accounts = new Map<string, AccountRt>();
  readonly accountList: AccountRt[] = [];
  readonly orders = new Map<string, OrderRt>();
  readonly positions = new Map<string, PositionRt>();
  readonly accountEvents: AccountEventRec[] = [];
  readonly listeners: EngineListener[] = [];

  #orderSeq = 0;
  #eventSeq = 0;
  #nextDayAt: number;
  #nextBoundary = 0;
  #step = 0;
  #dirty: AccountRt[] = objectArray();

  constructor(config: Partial<EngineConfig> = {}) {
    this.presets = mergePresets(ENGINE_PRESETS, config.presets);
    validatePresets(this.presets);
    this.now = config.startMs ?? DEFAULT_START_MS;
    if (!Number.isSafeInteger(this.now)) throw new ConfigError('startMs', `expected unix ms as an integer, got ${this.now}`);
    const seed = config.seed ?? 'propbot';
    this.ids = new SeededIds(seed);
    this.idemKeys = new SeededIds(`${seed}:idempotency`);
    this.sampleMs = this.presets.limits.equitySampleMs;
    this.dayMs = this.presets.limits.dayMs;
    this.minute = Math.floor(this.now / this.sampleMs);
    this.#nextDayAt = (Math.floor(this.now / this.dayMs) + 1) * this.dayMs;
    this.#recomputeBoundary();
  }

  // ── setup ───────────────────────────────────────────────────────────────────────────────────────
  addMarket(spec: MarketSpec): MarketRt {
    if (!spec.baseAsset) throw new ConfigError('market.baseAsset', 'required');
    if (this.byAsset.has(spec.baseAsset)) throw new ConfigError('market.baseAsset', `a market for ${spec.baseAsset} exists already`);
    if (spec.category !== undefined && !(MARKET_CATEGORIES as readonly string[]).includes(spec.category)) {
      throw new ConfigError('market.category', `expected crypto or rwa, got ${JSON.stringify(spec.category)}`);
    }
    const presetName = spec.preset ?? spec.category ?? 'crypto';
    const base = this.presets.markets[presetName];
    if (!base) throw new ConfigError('market.preset', `no market preset ${JSON.stringify(presetName)}; have ${Object.keys(this.presets.markets).join(', ')}`);
    const p = { ...base, ...spec.overrides };
    if (spec.category) p.category = spec.category;
    if (spec.schedule !== undefined) p.schedule = spec.schedule;
    const path = `markets.${presetName}`;
    const id = spec.id ?? this.ids.next();
    if (this.markets.has(id)) throw new ConfigError('market.id', `market id ${id} exists already`);
    const maxLeverageByType = {} as Record<AccountType, bigint>;
    for (const t of ACCOUNT_TYPES) maxLeverageByType[t] = parseRaw(p.maxLeverageByAccount[t], `${path}.maxLeverageByAccount.${t}`);
    const interval = p.fundingIntervalMs;
    if (!(interval > 0)) throw new ConfigError(`${path}.fundingIntervalMs`, `must be above 0, got ${interval}`);
    const quote = spec.quoteAsset ?? p.quoteAsset;
    const m = new MarketRt({
      id,
      asset: spec.baseAsset,
      presetName,
      preset: p,
      path,
      // Frozen here, with a copy of the tags: views hand this very object out (engine/views.ts), so a
      // strategy can change neither it nor the caller's array.
      config: Object.freeze({
        baseAsset: spec.baseAsset,
        quoteAsset: quote,
        settlementToken: p.settlementToken,
        type: p.type,
        name: spec.name ?? `${spec.baseAsset}/${quote}`,
        description: spec.description ?? `${spec.baseAsset} ${p.type} market of the local engine`,
        ticker: `${spec.baseAsset}${quote}`,
        imageLink: '',
        tags: Object.freeze([...(spec.tags ?? p.tags)]) as string[],
        category: p.category,
        priority: spec.priority !== undefined ? spec.priority : p.priority,
      }),
      maxLeverageByType,
      now: this.now,
    });
    if (m.schedule) {
      const s = m.schedule.at(this.now);
      m.inPause = s.inPause;
      m.scheduleChangeAt = s.nextChangeAt;
    }
    this.markets.set(id, m);
    this.marketList.push(m);
    this.byAsset.set(m.asset, m);
    if (spec.price !== undefined) this.#setPrice(m, this.#priceRaw(spec.price, 'market.price'));
    this.#recomputeBoundary();
    return m;
  }

  addUser(userId?: string): string {
    const id = userId ?? this.ids.next();
    this.users.add(id);
    return id;
  }

  openAccount(spec: AccountSpec): AccountRt {
    if (!(ACCOUNT_TYPES as readonly string[]).includes(spec.type)) {
      throw new ConfigError('account.type', `expected demo, real or tournament, got ${JSON.stringify(spec.type)}`);
    }
    const phase = spec.phase ?? this.presets.account.initialPhase[spec.type];
    const rules = this.#rules(phase, spec.rules ?? {}, 'account.phase');
    // Overrides are checked here, not first when an order reads them (maxLeverage, consistencyLimit).
    if (spec.rules !== undefined) validatePhaseNumbers(rules, 'account.rules');
    const initial = decToRaw(spec.initialBalance);
    if (initial <= 0n) throw new ConfigError('account.initialBalance', `must be above 0, got ${spec.initialBalance.toString()}`);
    if (spec.category !== undefined && !(MARKET_CATEGORIES as readonly string[]).includes(spec.category)) {
      throw new ConfigError('account.category', `expected crypto or rwa, got ${JSON.stringify(spec.category)}`);
    }
    const id = spec.accountId ?? this.ids.next();
    if (this.accounts.has(id)) throw new ConfigError('account.accountId', `account ${id} exists already`);
    this.users.add(spec.userId);
    const a = new AccountRt({
      id,
      userId: spec.userId,
      type: spec.type,
      phase,
      rules,
      ruleOverrides: spec.rules ?? {},
      category: spec.category ?? null,
      apiTrading: spec.apiTrading ?? true,
      paymentId: spec.type === 'real' ? this.ids.next() : null,
      challengeId: spec.type === 'real' ? this.ids.next() : null,
      now: this.now,
      minute: this.minute,
      initial,
    });
    this.#applyPhaseRules(a);
    if (rules.withdrawalPeriodDays !== null) {
      a.fundedAt = this.now;
      a.periodStartEquity = initial;
      a.periodStartedAt = this.now;
    }
    this.accounts.set(id, a);
    this.accountList.push(a);
    if (spec.type === 'real') {
      const price = spec.pricePaid !== undefined ? decToRaw(spec.pricePaid) : mulFloor(initial, parseRaw(this.presets.account.challengePriceRatio, 'account.challengePriceRatio'));
      this.#accountEvent(a, 'buy_challenge', { amount: price.toString(), provider: spec.provider ?? this.presets.account.provider });
    } else {
      this.#accountEvent(a, spec.type === 'demo' ? 'open_demo_account' : 'open_tournament_account', { initialBalance: initial.toString() });
    }
    return a;
  }

  #rules(phase: string, overrides: Partial<PhasePreset>, path: string): PhasePreset {
    const base = this.presets.phases[phase];
    if (!base) throw new ConfigError(path, `no phase preset ${JSON.stringify(phase)}; have ${Object.keys(this.presets.phases).join(', ')}`);
    return phaseRules(base, overrides);
  }

  /** Floors and target of the account's phase, from its initial balance and day-start / max equity. */
  #applyPhaseRules(a: AccountRt): void {
    const r = a.rules;
    const path = `phases.${a.phase}`;
    const pct = (v: string | null, k: string) => (v === null ? null : parseRaw(v, `${path}.${k}`));
    const total = pct(r.maxTotalDrawdown, 'maxTotalDrawdown');
    a.totalFloor = total === null ? null : ceilDiv(a.initial * (HUNDRED - total), HUNDRED);
    const target = pct(r.profitTarget, 'profitTarget');
    a.targetEquity = target === null ? null : ceilDiv(a.initial * (HUNDRED + target), HUNDRED);
    a.profitableDayGain = ceilDiv(a.initial * parseRaw(r.profitableDayThreshold, `${path}.profitableDayThreshold`), HUNDRED);
    this.#dailyFloor(a);
    this.#trailingFloor(a);
  }

  #dailyFloor(a: AccountRt): void {
    const d = a.rules.maxDailyDrawdown;
    a.dailyFloor = d === null ? null : ceilDiv(a.dayStartEquity * (HUNDRED - parseRaw(d, `phases.${a.phase}.maxDailyDrawdown`)), HUNDRED);
  }

  #trailingFloor(a: AccountRt): void {
    const t = a.rules.maxTrailingTotalDrawdown;
    a.trailingFloor = t === null || a.maxEquity === null ? null : ceilDiv(a.maxEquity * (HUNDRED - parseRaw(t, `phases.${a.phase}.maxTrailingTotalDrawdown`)), HUNDRED);
  }

  // ── time and prices ─────────────────────────────────────────────────────────────────────────────
  #priceRaw(price: Decimal, field: string): bigint {
    const p = decToRaw(price);
    if (p <= 0n) throw new RangeError(`${field}: an index price must be above 0, got ${price.toString()}`);
    return p;
  }

  advanceTo(ms: number): void {
    this.#advance(ms);
    this.checkDirty();
  }

  #advance(ms: number): void {
    if (ms < this.now) throw new RangeError(`engine time cannot move back from ${this.now} to ${ms}`);
    if (!Number.isSafeInteger(ms)) throw new RangeError(`engine time must be integer unix ms, got ${ms}`);
    if (ms >= this.#nextBoundary) this.#boundaries(ms);
    this.now = ms;
    this.minute = Math.floor(ms / this.sampleMs);
  }

  setIndexPrice(marketId: string, price: Decimal, ms: number): void {
    const m = this.markets.get(marketId);
    if (!m) throw new RangeError(`setIndexPrice: no market ${JSON.stringify(marketId)}`);
    this.setIndexPriceRaw(m, this.#priceRaw(price, 'price'), ms);
  }

  /** The hot path of every backtest: one index price at one time. */
  setIndexPriceRaw(m: MarketRt, p: bigint, ms: number): void {
    if (ms !== this.now) this.#advance(ms);
    this.#setPrice(m, p);
    this.checkDirty();
  }

  #setPrice(m: MarketRt, p: bigint): void {
    m.price = p;
    m.hasPrice = true;
    m.priceAt = this.now;
    const minute = this.minute;
    if (m.histMinute === minute) m.histPrice[m.histPrice.length - 1] = p;
    else {
      m.histAt.push(this.now);
      m.histPrice.push(p);
      m.histMinute = minute;
      // Every 1,024 entries rather than past 4,000: the replay's compiled loop had not yet met this
      // call when it was compiled, and threw its code away at the first prune (minute 4,000 of a
      // 1-minute run). Pruning keeps every entry a lookup can land on (see views.ts), however often.
      if ((m.histAt.length & 1023) === 0) this.#pruneHistory(m);
    }
    const step = ++this.#step;
    const hs = m.holdings;
    const pn = hs.length > 0 ? Number(p) : 0;
    for (let i = 0; i < hs.length; i++) {
      const h = hs[i]!;
      const a = h.account;
      if (a.curMinute !== minute) this.#sample(a);
      const u = pn < h.markMaxPrice ? BigInt(markHolding(h, pn)) : holdingPnl(h.netSize, h.netNotional, p);
      // a.upnl is the sum of its holdings' (exactly): with one holding it is that holding's, and
      // two bigint operations a step (each a heap object) are saved.
      a.upnl = a.holdings.size === 1 ? u : a.upnl + (u - h.upnl);
      h.upnl = u;
      if (a.dirtyStep !== step) {
        a.dirtyStep = step;
        this.#dirty.push(a);
      }
    }
    const ps = m.positions;
    if (ps.length > 0) {
      let liquidated = false;
      for (let i = 0; i < ps.length; i++) {
        const pos = ps[i]!;
        if (pos.direction === 'long' ? p <= pos.liqPrice : p >= pos.liqPrice) {
          this.#liquidate(pos);
          liquidated = true;
        }
      }
      if (liquidated) m.positions = m.positions.filter((x) => x.status === 'opened');
    }
    if (m.orders.length > 0 && !(m.isPaused || m.inPause || m.isClosed)) {
      if (m.orders !== m.thrList || m.orders.length !== m.thrLen) updateThresholds(m);
      if (m.thrAlways || p <= m.thrBelow || p >= m.thrAbove) this.#triggers(m, p);
    }
  }

  #pruneHistory(m: MarketRt): void {
    const keepFrom = this.now - 86_400_000 - 3_600_000;
    let i = 0;
    while (i < m.histAt.length - 1 && m.histAt[i + 1]! <= keepFrom) i++;
    m.histAt.splice(0, i);
    m.histPrice.splice(0, i);
  }

  #markDirty(a: AccountRt): void {
    if (a.dirtyStep !== this.#step) {
      a.dirtyStep = this.#step;
      this.#dirty.push(a);
    }
  }

  checkDirty(): void {
    const list = this.#dirty;
    if (list.length === 0) return;
    for (let i = 0; i < list.length; i++) this.#checkRules(list[i]!);
    // Mostly the one account of a backtest: a pop costs less than setting the length.
    if (list.length === 1) list.pop();
    else list.length = 0;
    // A new stamp, so accounts touched later at the same time (requests) are listed and checked again.
    this.#step++;
  }

  /** Close the minutes before the current one in the account's equity samples. */
  #sample(a: AccountRt): void {
    if (a.failedAt !== null) return;
    // Every minute since the last sample closed at this equity (a step of hourly data spans ~20).
    const minutes = this.minute - a.curMinute;
    if (minutes <= 0) return;
    const eq = a.balance + a.upnl;
    a.samples.pushRepeated(eq, a.phaseIndex, minutes);
    a.curMinute = this.minute;
  }

  #recomputeBoundary(): void {
    let t = this.#nextDayAt;
    for (const m of this.marketList) {
      if (m.nextFundingAt < t) t = m.nextFundingAt;
      if (m.scheduleChangeAt < t) t = m.scheduleChangeAt;
    }
    this.#nextBoundary = t;
  }

  /** Funding, schedule changes and day rollovers up to `ms`, in time order (funding before the day at a tie). */
  #boundaries(ms: number): void {
    for (;;) {
      let t = this.#nextDayAt;
      for (const m of this.marketList) {
        if (m.nextFundingAt < t) t = m.nextFundingAt;
        if (m.scheduleChangeAt < t) t = m.scheduleChangeAt;
      }
      if (t > ms) break;
      this.now = t;
      this.minute = Math.floor(t / this.sampleMs);
      this.#step++;
      for (const m of this.marketList) {
        if (m.nextFundingAt === t) this.#settleFunding(m);
        if (m.scheduleChangeAt === t && m.schedule) {
          const s = m.schedule.at(t);
          const entering = s.inPause && !m.inPause;
          m.inPause = s.inPause;
          m.scheduleChangeAt = s.nextChangeAt;
          if (entering && m.preset.closeOnWeeklyBreak) this.#weeklyRiskClose(m);
        }
      }
      if (this.#nextDayAt === t) {
        this.#rollDay(t);
        this.#nextDayAt = t + this.dayMs;
      }
      this.checkDirty();
    }
    this.#recomputeBoundary();
  }

  #settleFunding(m: MarketRt): void {
    m.lastFundingAt = m.nextFundingAt;
    m.nextFundingAt += m.fundingIntervalMs;
    if (!m.hasPrice || m.fundingRate === 0n) return;
    for (const pos of m.positions) {
      const a = pos.account;
      this.#sample(a);
      const amount = floorDiv(pos.size * m.price * m.fundingRate, S2);
      const signed = pos.direction === 'long' ? -amount : amount;
      a.balance += signed;
      a.margin += signed;
      pos.margin += signed;
      pos.funding += signed;
      this.#event(pos, {
        eventName: 'payFunding',
        exchangedQuote: 0n,
        exchangedBase: 0n,
        pnlInEvent: 0n,
        rawPnlInEvent: 0n,
        profitAdj: false,
        holdingTimeMs: null,
        feeInEvent: 0n,
        fundingInEvent: signed,
        closeReason: null,
        orderId: null,
        scalpingCoefficient: pos.scalpingCoefficient,
      });
      refreshLiquidationPrice(pos);
      this.#markDirty(a);
    }
  }

  #rollDay(t: number): void {
    for (const a of this.accountList) {
      if (a.failedAt !== null || STOPPED.has(a.status)) continue;
      this.#sample(a);
      const eq = a.balance + a.upnl;
      const gain = eq - a.dayStartEquity;
      if (gain > 0n && gain >= a.profitableDayGain) a.profitableDays++;
      if (a.periodStartEquity !== null && gain > 0n && (a.maxPeriodDelta === null || gain > a.maxPeriodDelta)) {
        a.maxPeriodDelta = gain;
        a.maxPeriodDeltaAt = t - this.dayMs;
      }
      a.dayStartEquity = eq;
      this.#dailyFloor(a);
      const days = a.rules.withdrawalPeriodDays;
      if (days !== null && a.periodStartedAt !== null && t >= a.periodStartedAt + days * this.dayMs) {
        this.#accountEvent(a, 'withdrawal_period_closed', {
          periodStartEquity: (a.periodStartEquity ?? a.initial).toString(),
          periodEndEquity: eq.toString(),
          profitableDays: a.profitableDays,
        });
        a.prevPeriodProfitableDays = a.profitableDays;
        a.profitableDays = 0;
        a.periodStartEquity = eq;
        a.periodStartedAt = t;
        a.maxPeriodDelta = null;
        a.maxPeriodDeltaAt = null;
      }
    }
  }

  // ── flags and statuses ─────────────────────────────────────────────────────────────────────────
  setMarketFlags(marketId: string, flags: Partial<MarketFlags>): void {
    const m = this.markets.get(marketId);
    if (!m) throw new RangeError(`setMarketFlags: no market ${JSON.stringify(marketId)}`);
    if (flags.isPaused !== undefined) m.isPaused = flags.isPaused;
    if (flags.isCloseOnly !== undefined) m.isCloseOnly = flags.isCloseOnly;
    if (flags.isClosed !== undefined) m.isClosed = flags.isClosed;
    if (flags.isZeroSpread !== undefined) m.isZeroSpread = flags.isZeroSpread;
  }

  setAccountStatus(accountId: string, status: AccountStatus): void {
    const a = this.accounts.get(accountId);
    if (!a) throw new RangeError(`setAccountStatus: no account ${JSON.stringify(accountId)}`);
    if (!(ACCOUNT_STATUSES as readonly string[]).includes(status)) throw new RangeError(`setAccountStatus: unknown status ${JSON.stringify(status)}`);
    const from = a.status;
    if (from === status) return;
    a.status = status;
    const wasLocked = LOCKED_STATUSES.includes(from);
    const isLocked = LOCKED_STATUSES.includes(status);
    if (isLocked && !wasLocked) this.#accountEvent(a, 'funded_limit_locked', { status });
    else if (wasLocked && !isLocked) {
      a.fundedLimitUnlockedAt = this.now;
      this.#accountEvent(a, 'funded_limit_unlocked', { status });
    } else this.#accountEvent(a, 'status_changed', { from, to: status });
  }

  // ── pricing ─────────────────────────────────────────────────────────────────────────────────────
  multiplier(a: AccountRt, m: MarketRt): bigint {
    const since = a.lastIncreaseAt.get(m.id);
    return since !== undefined && this.now < since + m.scalpingWindowMs ? m.scalpMult : m.regularMult;
  }

  // ── execution ───────────────────────────────────────────────────────────────────────────────────
  /** Execute an increase order at the current price; returns the execution error code, or null. */
  executeIncrease(o: OrderRt): string | null {
    const m = o.market;
    const a = o.account;
    if (m.isCloseOnly) return 'market_close_only_at_execution';
    const L = o.leverage!;
    const buy = o.direction === 'long';
    let size: bigint;
    let notional: bigint;
    let margin: bigint;
    let fee: bigint;
    let quote: FillQuote;
    if (o.sizeMode === 'base') {
      size = o.baseSize!;
      quote = fillQuote(m, this.multiplier(a, m), buy, mulFloor(size, m.price));
      notional = buy ? mulCeil(size, quote.price) : mulFloor(size, quote.price);
      margin = ceilDiv(notional * S, L);
      fee = mulCeil(notional, m.fee);
    } else {
      const sz = quoteSizing(o.reserve, L, m.fee);
      notional = sz.notional;
      margin = sz.margin;
      fee = sz.fee;
      quote = fillQuote(m, this.multiplier(a, m), buy, notional);
      size = divFloor(notional, quote.price);
    }
    if (size <= 0n || notional <= 0n) return 'order_zero_size_at_execution';
    if (notional < m.minNotional) return 'order_below_min_notional';
    const depth = buy ? m.depthLong : m.depthShort;
    if (m.rejectAboveDepth && depth > 0n && notional > depth) return 'order_exceeds_market_depth';
    const cap = buy ? m.maxOpenLong : m.maxOpenShort;
    if (cap > 0n && this.openNotional(a, m, o.direction) + notional > cap) return 'order_exceeds_max_open_notional';
    if (margin + fee > o.reserve) return 'insufficient_reserve_at_execution';
    if (o.expectedAmount > 0n && size < o.expectedAmount) return 'slippage_tolerance';

    this.#sample(a);
    a.reserved -= o.reserve;
    o.reserve = 0n;
    a.balance -= fee;
    a.margin += margin;
    let pos = a.positions.find((x) => x.market === m && x.direction === o.direction);
    const opening = pos === undefined;
    if (!pos) {
      pos = this.#newPosition(a, m, o.direction, m.fee);
    }
    pos.size += size;
    pos.notional += notional;
    pos.margin += margin;
    pos.marginPutUp += margin;
    pos.fee += fee;
    pos.lastIncreaseAt = this.now;
    this.#holding(pos, size, notional);
    pos.upnlAtIncrease = markPnl(pos);
    refreshLiquidationPrice(pos);
    o.status = 'executed';
    o.amount = margin + fee;
    o.indexPrice = m.price;
    o.finishedAt = this.now;
    this.#traded(a);
    if (a.maxEquity === null) {
      a.maxEquity = a.balance + a.upnl;
      this.#trailingFloor(a);
    }
    this.#event(pos, {
      eventName: 'increasePosition',
      exchangedQuote: notional,
      exchangedBase: size,
      pnlInEvent: 0n,
      rawPnlInEvent: 0n,
      profitAdj: false,
      holdingTimeMs: null,
      feeInEvent: fee,
      fundingInEvent: 0n,
      closeReason: null,
      orderId: o.id,
      scalpingCoefficient: quote.multiplier,
    });
    a.chart.push({ marketId: m.id, phaseIndex: a.phaseIndex, direction: o.direction, eventName: opening ? 'open' : 'increase', at: this.now, quote: notional, size });
    a.lastIncreaseAt.set(m.id, this.now);
    this.emitOrder(o);
    if (o.stopTrigger > 0n) this.#spawnProtection(o, pos, 'stop', o.stopTrigger);
    if (o.takeTrigger > 0n) this.#spawnProtection(o, pos, 'take', o.takeTrigger);
    this.#markDirty(a);
    return null;
  }

  openNotional(a: AccountRt, m: MarketRt, dir: Direction): bigint {
    const pos = a.positions.find((x) => x.market === m && x.direction === dir);
    return pos ? pos.notional : 0n;
  }

  #newPosition(a: AccountRt, m: MarketRt, direction: Direction, feeRate: bigint): PositionRt {
    const pos: PositionRt = {
      id: this.ids.next(),
      account: a,
      market: m,
      direction,
      phaseIndex: a.phaseIndex,
      openedAt: this.now,
      feeRate,
      lastIncreaseAt: this.now,
      upnlAtIncrease: 0n,
      liqPrice: 0n,
      history: [],
      version: 0,
      lastUpdatedAt: this.now,
      closedAt: null,
      status: 'opened',
      size: 0n,
      notional: 0n,
      margin: 0n,
      pnl: 0n,
      funding: 0n,
      fee: 0n,
      exchangedQuote: 0n,
      exchangedBase: 0n,
      eventName: 'increasePosition',
      pnlInEvent: 0n,
      rawPnlInEvent: 0n,
      profitAdj: false,
      holdingTimeMs: null,
      feeInEvent: 0n,
      fundingInEvent: 0n,
      marginPutUp: 0n,
      scalpingCoefficient: m.regularMult,
      closeReason: null,
      orderId: null,
    };
    a.positions.push(pos);
    m.positions.push(pos);
    this.positions.set(pos.id, pos);
    return pos;
  }

  /** Move a holding by a signed change of the position (size and notional positive = grow). */
  #holding(pos: PositionRt, dSize: bigint, dNotional: bigint): void {
    const a = pos.account;
    const m = pos.market;
    let h = a.holdings.get(m.id);
    if (!h) {
      h = { account: a, market: m, netSize: 0n, netNotional: 0n, upnl: 0n, count: 0, markSign: 1, markHi: 0, markLo: 0, markNotional: 0, markMaxPrice: 0 };
      a.holdings.set(m.id, h);
      m.holdings.push(h);
    }
    const sign = pos.direction === 'long' ? 1n : -1n;
    h.netSize += sign * dSize;
    h.netNotional += sign * dNotional;
    prepareMark(h);
    const u = holdingPnl(h.netSize, h.netNotional, m.price);
    a.upnl += u - h.upnl;
    h.upnl = u;
  }

  #dropHoldingIfFlat(a: AccountRt, m: MarketRt): void {
    if (a.positions.some((x) => x.market === m)) return;
    const h = a.holdings.get(m.id);
    if (!h) return;
    a.upnl -= h.upnl;
    a.holdings.delete(m.id);
    m.holdings = m.holdings.filter((x) => x !== h);
  }

  #traded(a: AccountRt): void {
    const day = Math.floor(this.now / this.dayMs);
    if (a.lastTradeDay !== day) {
      a.lastTradeDay = day;
      a.tradingDays++;
    }
  }

  /** Close `size` of a position at market; returns the realised pnl and fee. */
  #close(
    pos: PositionRt,
    size: bigint,
    kind: 'closePosition' | 'forceClose',
    order: OrderRt | null,
    closeReason: string | null,
  ): { realized: bigint; raw: bigint; adjusted: boolean } {
    const m = pos.market;
    const a = pos.account;
    this.#sample(a);
    const c = size >= pos.size ? pos.size : size;
    const full = c === pos.size;
    const long = pos.direction === 'long';
    const quote = fillQuote(m, this.multiplier(a, m), !long, mulFloor(c, m.price));
    const nr = full ? pos.notional : floorDiv(pos.notional * c, pos.size);
    const mr = full ? pos.margin : floorDiv(pos.margin * c, pos.size);
    const value = long ? mulFloor(c, quote.price) : mulCeil(c, quote.price);
    const raw = long ? value - nr : nr - value;
    const fee = ceilDiv(c * quote.price * m.fee, S2);
    let realized = raw;
    let adjusted = false;
    const cap = full ? pos.upnlAtIncrease : floorDiv(pos.upnlAtIncrease * c, pos.size);
    if (this.now - pos.lastIncreaseAt < m.profitAdjMs && raw > cap) {
      realized = cap;
      adjusted = true;
    }
    if (!full) pos.upnlAtIncrease -= cap;
    const holdingTimeMs = this.now - pos.lastIncreaseAt;
    a.balance += realized - fee;
    a.margin -= mr;
    pos.size -= c;
    pos.notional -= nr;
    pos.margin -= mr;
    pos.pnl += realized;
    pos.fee += fee;
    this.#holding(pos, -c, -nr);
    if (full) {
      pos.status = 'closed';
      pos.closedAt = this.now;
      this.#unlist(pos);
    } else refreshLiquidationPrice(pos);
    if (order) this.#traded(a);
    this.#event(pos, {
      eventName: kind,
      exchangedQuote: value,
      exchangedBase: c,
      pnlInEvent: realized,
      rawPnlInEvent: raw,
      profitAdj: adjusted,
      holdingTimeMs,
      feeInEvent: fee,
      fundingInEvent: 0n,
      closeReason,
      orderId: order ? order.id : null,
      scalpingCoefficient: quote.multiplier,
    });
    a.chart.push({ marketId: m.id, phaseIndex: pos.phaseIndex, direction: pos.direction, eventName: full ? 'close' : 'decrease', at: this.now, quote: value, size: c });
    if (full) this.#cancelPositionOrders(pos, order);
    this.#markDirty(a);
    return { realized, raw, adjusted };
  }

  /** Remove a finished position from the open lists. */
  #unlist(pos: PositionRt): void {
    const a = pos.account;
    const m = pos.market;
    a.positions = a.positions.filter((x) => x !== pos);
    a.closedPositions.push(pos);
    if (m.positions.includes(pos)) m.positions = m.positions.filter((x) => x !== pos);
    this.#dropHoldingIfFlat(a, m);
  }

  #liquidate(pos: PositionRt): void {
    const m = pos.market;
    const a = pos.account;
    this.#sample(a);
    const size = pos.size;
    const lost = pos.margin;
    const o = this.newOrder(a, m, {
      type: 'liquidation',
      direction: pos.direction,
      amount: size,
      positionId: pos.id,
      leverage: null,
      isIncrease: false,
    });
    o.status = 'executed';
    o.indexPrice = m.price;
    o.realizedPnl = -lost;
    o.rawRealizedPnl = -lost;
    o.finishedAt = this.now;
    a.orders.push(o);
    this.orders.set(o.id, o);
    const nr = pos.notional;
    a.balance -= lost;
    a.margin -= lost;
    pos.pnl -= lost;
    pos.size = 0n;
    pos.notional = 0n;
    pos.margin = 0n;
    this.#holding(pos, -size, -nr);
    pos.status = 'liquidated';
    pos.closedAt = this.now;
    // The caller filters the market list once; the account list and holding are updated here.
    a.positions = a.positions.filter((x) => x !== pos);
    a.closedPositions.push(pos);
    const quote = mulFloor(size, m.price);
    this.#event(pos, {
      eventName: 'liquidate',
      exchangedQuote: quote,
      exchangedBase: size,
      pnlInEvent: -lost,
      rawPnlInEvent: -lost,
      profitAdj: false,
      holdingTimeMs: this.now - pos.lastIncreaseAt,
      feeInEvent: 0n,
      fundingInEvent: 0n,
      closeReason: 'liquidation',
      orderId: o.id,
      scalpingCoefficient: pos.scalpingCoefficient,
    });
    a.chart.push({ marketId: m.id, phaseIndex: pos.phaseIndex, direction: pos.direction, eventName: 'liquidation', at: this.now, quote, size });
    this.emitOrder(o);
    this.#cancelPositionOrders(pos, null);
    if (!a.positions.some((x) => x.market === m)) {
      const h = a.holdings.get(m.id);
      if (h) {
        a.upnl -= h.upnl;
        a.holdings.delete(m.id);
        m.holdings = m.holdings.filter((x) => x !== h);
      }
    }
    this.#markDirty(a);
  }

  #cancelPositionOrders(pos: PositionRt, except: OrderRt | null): void {
    for (const o of pos.market.orders) {
      if (o.status === 'active' && o.positionId === pos.id && o !== except) this.finish(o, 'canceled_by_position', null, null);
    }
    pos.market.orders = pos.market.orders.filter((o) => o.status === 'active');
  }

  /** End an active order: release its reserve, set the final status. */
  finish(o: OrderRt, status: 'canceled' | 'canceled_by_position' | 'canceled_by_error' | 'canceled_by_update', reason: CancelReason | null, errorCode: string | null): void {
    o.account.reserved -= o.reserve;
    o.reserve = 0n;
    o.status = status;
    o.reason = reason;
    o.errorCode = errorCode;
    o.finishedAt = this.now;
    this.emitOrder(o);
  }

  #spawnProtection(parent: OrderRt, pos: PositionRt, type: 'stop' | 'take', trigger: bigint): void {
    const m = pos.market;
    const child = this.newOrder(pos.account, m, {
      type,
      direction: pos.direction,
      amount: pos.size,
      positionId: pos.id,
      leverage: null,
      isIncrease: false,
    });
    child.parentOrderId = parent.id;
    child.trigger = trigger;
    child.limitPrice = trigger;
    if (type === 'stop') this.pushOut(child, pos.direction === 'long', m);
    this.#activate(child);
  }

  /** Minimum stop distance: a stop closer to the price than the ratio is pushed out; the asked value kept. */
  pushOut(o: OrderRt, long: boolean, m: MarketRt): void {
    if (m.minStopDist === 0n || !m.hasPrice) return;
    if (long) {
      const limit = mulFloor(m.price, S - m.minStopDist);
      if (o.trigger > limit) {
        o.requestedTrigger = o.trigger;
        o.trigger = limit;
        o.limitPrice = limit;
      }
    } else {
      const limit = mulCeil(m.price, S + m.minStopDist);
      if (o.trigger < limit) {
        o.requestedTrigger = o.trigger;
        o.trigger = limit;
        o.limitPrice = limit;
      }
    }
  }

  newOrder(
    a: AccountRt,
    m: MarketRt,
    f: { type: OrderRt['type']; direction: Direction; amount: bigint; positionId: string | null; leverage: bigint | null; isIncrease: boolean },
  ): OrderRt {
    return {
      id: this.ids.next(),
      seq: ++this.#orderSeq,
      account: a,
      market: m,
      phaseIndex: a.phaseIndex,
      status: 'active',
      type: f.type,
      direction: f.direction,
      trigger: 0n,
      requestedTrigger: null,
      stopPrice: 0n,
      limitPrice: 0n,
      stopTrigger: 0n,
      takeTrigger: 0n,
      trailActivation: 0n,
      trailOffset: 0n,
      trailOffsetPct: 0n,
      leverage: f.leverage,
      positionId: f.positionId,
      parentOrderId: null,
      amount: f.amount,
      expectedAmount: 0n,
      indexPrice: null,
      createdAt: this.now,
      finishedAt: null,
      realizedPnl: null,
      rawRealizedPnl: null,
      profitAdj: false,
      sizeMode: 'quote',
      baseSize: null,
      reservedAmount: null,
      errorCode: null,
      reason: null,
      reserve: 0n,
      noTrigger: false,
      trailActive: false,
      trailExtreme: 0n,
      isIncrease: f.isIncrease,
    };
  }

  /** Register an order as active and waiting for its trigger. */
  #activate(o: OrderRt): void {
    this.orders.set(o.id, o);
    o.account.orders.push(o);
    o.market.orders.push(o);
    if (o.type === 'trailing_stop') trailInit(o);
    this.emitOrder(o);
  }

  /**
   * Fire the market's triggered orders in creation order. Firing may replace `m.orders` (cancellations)
   * or add orders (children); those added are checked in a further pass against the same price.
   */
  #triggers(m: MarketRt, p: bigint): void {
    let list = m.orders;
    let changed = false;
    let visited = 0;
    for (;;) {
      for (let i = 0; i < list.length; i++) {
        const o = list[i]!;
        if (o.seq <= visited) continue;
        if (o.status !== 'active') {
          changed = true;
          continue;
        }
        if (!fires(o, p)) continue;
        changed = true;
        this.#fire(o);
      }
      if (!changed) return;
      for (const o of list) if (o.seq > visited) visited = o.seq;
      m.orders = m.orders.filter((o) => o.status === 'active');
      list = m.orders;
      if (!list.some((o) => o.seq > visited)) return;
    }
  }

  #fire(o: OrderRt): void {
    if (o.type === 'stop_limit') {
      const child = this.newOrder(o.account, o.market, {
        type: 'limit',
        direction: o.direction,
        amount: o.amount,
        positionId: null,
        leverage: o.leverage,
        isIncrease: true,
      });
      child.parentOrderId = o.id;
      child.trigger = o.limitPrice;
      child.limitPrice = o.limitPrice;
      child.stopTrigger = o.stopTrigger;
      child.takeTrigger = o.takeTrigger;
      child.sizeMode = o.sizeMode;
      child.baseSize = o.baseSize;
      child.reservedAmount = o.reservedAmount;
      child.expectedAmount = o.expectedAmount;
      child.reserve = o.reserve;
      o.reserve = 0n;
      o.status = 'executed';
      o.indexPrice = o.market.price;
      o.finishedAt = this.now;
      this.emitOrder(o);
      this.#activate(child);
      return;
    }
    if (o.isIncrease) {
      const err = this.executeIncrease(o);
      if (err) this.finish(o, 'canceled_by_error', null, err);
      return;
    }
    this.executeCloseOrder(o);
  }

  executeCloseOrder(o: OrderRt): void {
    const pos = o.positionId ? this.positions.get(o.positionId) : undefined;
    if (!pos || pos.status !== 'opened') {
      this.finish(o, 'canceled_by_position', null, null);
      return;
    }
    o.status = 'executed';
    o.indexPrice = o.market.price;
    o.finishedAt = this.now;
    const r = this.#close(pos, o.amount, 'closePosition', o, null);
    o.realizedPnl = r.realized;
    o.rawRealizedPnl = r.raw;
    o.profitAdj = r.adjusted;
    this.emitOrder(o);
  }

  // ── challenge rules ─────────────────────────────────────────────────────────────────────────────
  #checkRules(a: AccountRt): void {
    if (a.failedAt !== null || (a.status !== 'active' && STOPPED.has(a.status))) return;
    const eq = a.balance + a.upnl;
    if (a.maxEquity !== null && eq > a.maxEquity) {
      a.maxEquity = eq;
      if (a.rules.maxTrailingTotalDrawdown !== null) this.#trailingFloor(a);
    }
    if (a.dailyFloor !== null && eq < a.dailyFloor) return this.#fail(a, 'max_daily_drawdown', eq, a.dailyFloor);
    if (a.totalFloor !== null && eq < a.totalFloor) return this.#fail(a, 'max_total_drawdown', eq, a.totalFloor);
    if (a.trailingFloor !== null && eq < a.trailingFloor) return this.#fail(a, 'max_trailing_total_drawdown', eq, a.trailingFloor);
    if (a.targetEquity !== null && eq >= a.targetEquity && a.rules.next !== null) {
      const today = eq - a.dayStartEquity;
      const days = a.profitableDays + (today > 0n && today >= a.profitableDayGain ? 1 : 0);
      if (days >= (a.rules.minTradingDays ?? 0)) this.#pass(a, eq, days);
    }
  }

  #fail(a: AccountRt, reason: FailureReason, eq: bigint, threshold: bigint): void {
    this.#sample(a);
    a.status = 'failed';
    a.failureReason = reason;
    a.failedAt = this.now;
    this.#stopTrading(a, 'stop_accounts_fail');
    // The failure minute's sample is the final equity; nothing is sampled after it.
    a.samples.pushRepeated(a.balance + a.upnl, a.phaseIndex, 1);
    a.curMinute = this.minute + 1;
    this.#accountEvent(a, 'challenge_failed', { failureReason: reason, equity: eq.toString(), threshold: threshold.toString(), phase: a.phase });
  }

  /** Cancel every active order with `reason` and force-close every open position. */
  #stopTrading(a: AccountRt, reason: CancelReason): void {
    for (let i = activeOrdersStart(a); i < a.orders.length; i += 1) {
      const o = a.orders[i]!;
      if (o.status === 'active') this.finish(o, 'canceled', reason, null);
    }
    for (const m of this.marketList) {
      if (m.orders.some((o) => o.account === a)) m.orders = m.orders.filter((o) => o.status === 'active');
    }
    for (const pos of [...a.positions]) this.#close(pos, pos.size, 'forceClose', null, reason);
  }

  /** At the start of a scheduled break: cancel the close orders of the market's positions, then close them. */
  #weeklyRiskClose(m: MarketRt): void {
    const reason: CancelReason = 'weekly_session_risk_close';
    for (const pos of [...m.positions]) {
      for (const o of m.orders) if (o.status === 'active' && o.positionId === pos.id) this.finish(o, 'canceled', reason, null);
      this.#close(pos, pos.size, 'forceClose', null, reason);
    }
    m.orders = m.orders.filter((o) => o.status === 'active');
  }

  #pass(a: AccountRt, eq: bigint, days: number): void {
    const from = a.phase;
    const to = a.rules.next!;
    this.#stopTrading(a, 'stop_accounts_promote');
    this.#sample(a);
    this.#accountEvent(a, 'phase_passed', { fromPhase: from, toPhase: to, equity: eq.toString(), profitableDays: days });
    a.phase = to;
    a.phaseIndex++;
    a.rules = this.#rules(to, a.ruleOverrides, `phases.${from}.next`);
    a.balance = a.initial;
    a.upnl = 0n;
    a.maxEquity = null;
    a.dayStartEquity = a.initial;
    a.tradingDays = 0;
    a.lastTradeDay = -1;
    a.profitableDays = 0;
    a.prevPeriodProfitableDays = 0;
    a.lastIncreaseAt.clear();
    a.phaseStarts.push({ minute: this.minute, phaseIndex: a.phaseIndex, startEquity: a.initial });
    this.#applyPhaseRules(a);
    if (a.rules.withdrawalPeriodDays !== null) {
      a.fundedAt ??= this.now;
      a.periodStartEquity = a.initial;
      a.periodStartedAt = this.now;
      a.maxPeriodDelta = null;
      a.maxPeriodDeltaAt = null;
      this.#accountEvent(a, 'account_funded', { phase: to });
    }
  }

  // ── events ──────────────────────────────────────────────────────────────────────────────────────
  #event(pos: PositionRt, e: Omit<PositionSnap, 'version' | 'lastUpdatedAt' | 'closedAt' | 'status' | 'size' | 'notional' | 'margin' | 'pnl' | 'funding' | 'fee' | 'marginPutUp'>): void {
    pos.version++;
    pos.lastUpdatedAt = this.now;
    pos.eventName = e.eventName;
    pos.exchangedQuote = e.exchangedQuote;
    pos.exchangedBase = e.exchangedBase;
    pos.pnlInEvent = e.pnlInEvent;
    pos.rawPnlInEvent = e.rawPnlInEvent;
    pos.profitAdj = e.profitAdj;
    pos.holdingTimeMs = e.holdingTimeMs;
    pos.feeInEvent = e.feeInEvent;
    pos.fundingInEvent = e.fundingInEvent;
    pos.closeReason = e.closeReason;
    pos.orderId = e.orderId;
    pos.scalpingCoefficient = e.scalpingCoefficient;
    const snap: PositionSnap = {
      version: pos.version,
      lastUpdatedAt: pos.lastUpdatedAt,
      closedAt: pos.closedAt,
      status: pos.status,
      size: pos.size,
      notional: pos.notional,
      margin: pos.margin,
      pnl: pos.pnl,
      funding: pos.funding,
      fee: pos.fee,
      exchangedQuote: pos.exchangedQuote,
      exchangedBase: pos.exchangedBase,
      eventName: pos.eventName,
      pnlInEvent: pos.pnlInEvent,
      rawPnlInEvent: pos.rawPnlInEvent,
      profitAdj: pos.profitAdj,
      holdingTimeMs: pos.holdingTimeMs,
      feeInEvent: pos.feeInEvent,
      fundingInEvent: pos.fundingInEvent,
      marginPutUp: pos.marginPutUp,
      scalpingCoefficient: pos.scalpingCoefficient,
      closeReason: pos.closeReason,
      orderId: pos.orderId,
    };
    pos.history.push(snap);
    if (this.listeners.length > 0) {
      const order = snap.orderId ? this.orders.get(snap.orderId) : undefined;
      const event = positionEventView(pos, snap, order);
      for (const l of this.listeners) l({ kind: 'position', at: this.now, event });
    }
  }

  emitOrder(o: OrderRt): void {
    if (this.listeners.length === 0) return;
    const order = orderView(o);
    for (const l of this.listeners) l({ kind: 'order', at: this.now, order });
  }

  #accountEvent(a: AccountRt, eventType: string, payload: Record<string, unknown>): void {
    const rec: AccountEventRec = { id: this.ids.next(), seq: ++this.#eventSeq, account: a, eventType, payload, createdAt: this.now };
    this.accountEvents.push(rec);
    if (this.listeners.length > 0) {
      const event = accountEventView(rec);
      for (const l of this.listeners) l({ kind: 'account', at: this.now, event });
    }
  }

  // ── access ──────────────────────────────────────────────────────────────────────────────────────
  checkUser(userId: string, request: string): void {
    if (!this.users.has(userId)) {
      throw new UnauthorizedError({ status: 401, code: 'unauthorized', message: `unknown user ${JSON.stringify(userId)}`, request });
    }
  }

  /** The common access rules: 404, `account_access_denied`, `api_trading_not_enabled`. */
  account(userId: string, viaApiKey: boolean, accountId: string, request: string): AccountRt {
    this.checkUser(userId, request);
    const a = this.accounts.get(accountId);
    if (!a) throw notFound('account', accountId, request);
    if (a.userId !== userId) throw forbidden('account_access_denied', `account ${accountId} belongs to another user`, request);
    if (viaApiKey && !a.apiTrading) throw forbidden('api_trading_not_enabled', `api_trading is disabled on account ${accountId}`, request);
    return a;
  }

  marketOf(asset: string, request: string): MarketRt {
    const m = this.byAsset.get(asset);
    if (!m) throw notFound('market for ticker', asset, request);
    return m;
  }

  /** Highest leverage for the account on the market: by account type, the margin ratio and the phase. */
  maxLeverage(a: AccountRt, m: MarketRt): bigint {
    let max = m.maxLeverageByType[a.type];
    if (m.minImr > 0n) max = minB(max, S2 / m.minImr);
    if (a.rules.maxLeverage !== null) max = minB(max, parseRaw(a.rules.maxLeverage, `phases.${a.phase}.maxLeverage`));
    return max;
  }

  /** Balance less margins and reserves. */
  free(a: AccountRt): bigint {
    return a.balance - a.margin - a.reserved;
  }
}
