/**
 * The guard's per-account view. Observing a snapshot only stores it and marks the book dirty (cheap);
 * the figures the rules read are derived on demand, once per change, in fp9 integers.
 */
import type { Account, Market, Order, Position, RiskStatus } from '../api/types.js';
import { INCREASE_ORDER_TYPES, LOCKED_STATUSES } from '../api/types.js';
import type { Decimal } from 'decimal.js';
import { objectArray } from '../core/arrays.js';
import type { AccountRiskConfig, DrawdownLimits, RiskGuardConfig } from './config.js';
import type {
  AccountFigures,
  ConsistencyFigures,
  Floor,
  FloorName,
  PositionView,
} from './context.js';
import {
  driftBounded,
  entryFigures,
  positionRaw,
  rawPositionWorstLoss,
  stopsByPosition,
  type EntrySpec,
  type ExposureParams,
  type PositionRaw,
  type PriceDrift,
  type StopRaw,
} from './exposure.js';
import { maxRaw, mulUp, toRaw, UNIT } from './fixed.js';
import { marketFigures, type MarketFigures } from './market-figures.js';
import { holdingPnl } from '../engine/pricing.js';
import type { GuardState } from './types.js';

const INCREASE_TYPES: ReadonlySet<string> = new Set(INCREASE_ORDER_TYPES);

/** An active increase order, read once per orders snapshot; `price` 0 means the market price. */
interface EntryRaw extends EntrySpec {
  readonly marketId: string;
}

/** What only the positions, the orders and the prices of their markets decide. */
interface BookFigures {
  readonly views: readonly PositionView[];
  readonly occupied: ReadonlySet<string>;
  readonly openNotional: ReadonlyMap<string, bigint>;
  readonly openWorst: bigint;
  readonly margins: bigint;
  readonly openCount: number;
  /**
   * The positions per market at the prices `openWorst` was worked out at, for bounding how far it can
   * have moved since (see `driftSlope` in exposure.ts); null when it cannot be bounded (pending entries counted,
   * a trailing percentage or an assumed move above 100%).
   */
  readonly drift: readonly PriceDrift[] | null;
}

interface BaseFigures {
  readonly hasRisk: boolean;
  readonly balance: bigint;
  readonly dayStartEquity: bigint;
  readonly initialBalance: bigint;
  readonly floors: readonly Floor[];
  readonly consistency: ConsistencyFigures;
}

/**
 * One market snapshot as the guard keeps it: its price and time at once, the rest of its figures when
 * first read. Written over when a quiet price replaces the one before the latest (see
 * `MarketBook.quietPrice`): what `latest` and `before` return is read at once, never kept.
 */
interface MarketEntry {
  market: Market;
  asset: string;
  takenAt: number;
  stale: boolean;
  /** Index price, fp9 (as `MarketFigures.price`). */
  price: bigint;
  figures: MarketFigures | undefined;
}

/**
 * Latest market snapshots of every asset, shared by all accounts. A backtest brings one with every
 * price, and while the quiet path holds (see quiet.ts) only its price is read: the other figures
 * are worked out when something asks for them, from the same snapshot, so they are what they were.
 */
export class MarketBook {
  /**
   * Per asset and per market id, each in one map read: a replay's quiet step tells the book a price on
   * every step where nothing else happens, and six map operations per update showed in its profile.
   */
  readonly #byAsset = new Map<string, AssetSlot>();
  readonly #byId = new Map<string, IdSlot>();
  readonly #spreadMultiplier: bigint;
  /** Bumped on every update, so account figures know when prices may have moved. */
  version = 0;

  constructor(spreadMultiplier: bigint) {
    this.#spreadMultiplier = spreadMultiplier;
  }

  update(market: Market, asset: string, takenAt: number, stale: boolean): void {
    this.#put({ market, asset, takenAt, stale, price: toRaw(market.state.indexPrice), figures: undefined });
  }

  /**
   * A new index price of `asset` at `takenAt`, the rest of its latest snapshot standing: what a replay's
   * quiet step tells the guard (LocalSession), so that a risk read of the next published step meets
   * the price it would have met had every step been published. Only for a market whose other figures
   * move with nothing but engine events (no trading schedule); false, with nothing done, before the
   * asset's first snapshot.
   */
  quietPrice(asset: string, price: bigint, takenAt: number): boolean {
    const slot = this.#byAsset.get(asset);
    if (slot === undefined) return false;
    const { market, stale } = slot.latest;
    // The market is the latest snapshot's, and so is its id slot.
    slot.byId.asset = asset;
    // The snapshot before the latest is left behind by this one: its object takes the new price (a
    // replay makes one a step, and an object each was a twelfth of a run's allocation).
    const entry = slot.previous ?? { market, asset, takenAt, stale, price, figures: undefined };
    entry.market = market;
    entry.asset = asset;
    entry.takenAt = takenAt;
    entry.stale = stale;
    entry.price = price;
    entry.figures = undefined;
    this.#move(slot, slot.byId, entry);
    return true;
  }

  #put(entry: MarketEntry): void {
    const { market, asset } = entry;
    let byId = this.#byId.get(market.id);
    if (byId === undefined) this.#byId.set(market.id, (byId = { asset, version: 0 }));
    else byId.asset = asset;
    const slot = this.#byAsset.get(asset);
    if (slot === undefined) this.#byAsset.set(asset, new AssetSlot(entry, (byId.version = ++this.version), byId));
    else {
      slot.byId = byId;
      this.#move(slot, byId, entry);
    }
  }

  #move(slot: AssetSlot, byId: IdSlot, entry: MarketEntry): void {
    slot.previous = slot.latest;
    slot.latest = entry;
    slot.version = byId.version = ++this.version;
  }

  get(asset: string): MarketFigures | undefined {
    const slot = this.#byAsset.get(asset);
    return slot === undefined ? undefined : this.#figures(slot.latest);
  }

  /** The latest snapshot of `asset`: its index price (fp9), when it was taken, and its settings object. */
  latest(asset: string): Pick<MarketEntry, 'price' | 'takenAt' | 'market'> | undefined {
    return this.#byAsset.get(asset)?.latest;
  }

  /** The snapshot of `asset` before the latest one. */
  before(asset: string): Pick<MarketEntry, 'price' | 'takenAt'> | undefined {
    return this.#byAsset.get(asset)?.previous;
  }

  #figures(entry: MarketEntry): MarketFigures {
    return (entry.figures ??= marketFigures(entry.market, entry.asset, entry.takenAt, entry.stale, this.#spreadMultiplier, entry.price));
  }

  assetOf(marketId: string): string | undefined {
    return this.#byId.get(marketId)?.asset;
  }

  /** Whether a snapshot of `asset` arrived after `version`. */
  assetChangedSince(asset: string, version: number): boolean {
    return (this.#byAsset.get(asset)?.version ?? 0) > version;
  }

  /** Whether a snapshot of market `marketId` arrived after `version`. */
  marketChangedSince(marketId: string, version: number): boolean {
    return (this.#byId.get(marketId)?.version ?? 0) > version;
  }
}

/**
 * An asset's latest snapshot, the one before it (the price a risk read may have been made at), and the
 * version of its last update. A class, not a literal, because a run makes one an asset: a literal's
 * second object would widen `latest` and throw away the guard's code compiled in a sweep's first run
 * (performance log, eighteenth round). Fields declared, so each is first stored with its value.
 */
class AssetSlot {
  declare latest: MarketEntry;
  declare previous: MarketEntry | undefined;
  declare version: number;
  /** The slot of the latest snapshot's market id. */
  declare byId: IdSlot;

  constructor(latest: MarketEntry, version: number, byId: IdSlot) {
    this.latest = latest;
    this.previous = undefined;
    this.version = version;
    this.byId = byId;
  }
}

/** The asset a market id's latest snapshot was of, and the version of that update. */
interface IdSlot {
  asset: string;
  version: number;
}

/** Fraction of a percent field of the Account record (5 = 5%). */
function percentToRaw(value: Decimal | null): bigint | undefined {
  return value === null ? undefined : toRaw(value.div(100), 'floor');
}

export class AccountBook {
  // Implements AccountTrackers together with the guard's pending-open bookkeeping (see guard.ts).
  readonly accountId: string;
  risk: RiskStatus | undefined;
  riskStale = false;
  /**
   * The latest risk read, the last risk read whose balance differed from the one before (a fill, a fee,
   * funding), each market's latest positions read and the last positions read that found them changed,
   * each as (observation number, takenAt): a change on one side is matched only by a read of the other
   * side observed after it and taken no earlier (one replay time step can hold several account states).
   */
  #reads = 0;
  #riskRead: Read = NEVER;
  #balanceChange: Read = NEVER;
  readonly #positionsRead = new Map<string, Read>();
  #positionsChange: Read = NEVER;

  /** When the latest risk snapshot was taken (unix ms); −∞ before the first. */
  get riskTakenAt(): number {
    return this.#riskRead.takenAt;
  }
  /** The latest risk snapshot still waits to be compared with the guard's own equity. */
  #unreconciled = false;
  account: Account | undefined;
  /** Open positions per asset, and their numbers read once per snapshot. */
  readonly positions = new Map<string, Position[]>();
  readonly #positionsRaw = new Map<string, PositionRaw[]>();
  /** Active orders, and what the figures need from them, read once per snapshot. */
  orders: readonly Order[] = objectArray();
  #stops = new Map<string, StopRaw[]>();
  #entries: EntryRaw[] = objectArray();
  #reserves = 0n;
  readonly lastIncreaseByPosition = new Map<string, number>();
  readonly lastIncreaseByAsset = new Map<string, number>();
  readonly scalpingUntil = new Map<string, number>();

  tradesDay = -1;
  tradesToday = 0;
  lossStreak = 0;
  cooldownUntil = 0;

  state: GuardState = 'ACTIVE';
  stateReason = 'started';
  /** Kill switch or manual halt: HALTED until this time (unix ms); 0 when none. */
  haltedUntil = 0;
  haltReason = '';
  /** Consistency latch: REDUCING until this time; 0 when none. */
  reducingUntil = 0;
  reducingReason = '';
  /** Manual override until `resume`. */
  manual: { state: GuardState; reason: string } | undefined;

  /**
   * Bumped whenever something but the prices and the risk read's equity changed: positions, orders, the
   * Account record, or what the base figures are made of. Between two bumps the figures move with the
   * prices alone.
   */
  #revision = 0;
  get revision(): number {
    return this.#revision;
  }
  /** Positions or orders changed since `#book` was derived. */
  #dirty = true;
  /** `markets.version` up to which `#book` is known to be current. */
  #marketVersion = -1;
  #book: BookFigures | undefined;
  /** The price-free part of `#book`, while the positions stand. */
  #shape: { occupied: ReadonlySet<string>; openNotional: ReadonlyMap<string, bigint>; margins: bigint } | undefined;
  #figures: AccountFigures | undefined;
  /** What only the risk status, the Account record and the configuration decide. */
  #base: BaseFigures | undefined;
  /** The last full derivation of `#base` and what it was made of (see `#baseFor`). */
  #lastBase:
    | { readonly config: RiskGuardConfig; readonly acc: AccountRiskConfig | undefined; readonly phase: string; readonly account: Account | undefined; risk: RiskStatus | undefined; readonly base: BaseFigures }
    | undefined;

  constructor(accountId: string) {
    this.accountId = accountId;
  }

  /**
   * The risk status or the Account record (or the prices the risk status is marked from) changed: the
   * positions' worst cases stay as they are, only the base and the mark to market are derived again.
   */
  touchRisk(): void {
    this.#figures = undefined;
    this.#base = undefined;
    this.#revision += 1;
  }

  /** A risk snapshot: its balance is the base of the guard's equity (see `#equity`). */
  setRisk(risk: RiskStatus, takenAt: number, stale: boolean): void {
    const read = { seq: ++this.#reads, takenAt };
    const before = this.risk;
    if (before !== undefined && risk.currentBalance !== before.currentBalance && !risk.currentBalance.eq(before.currentBalance)) this.#balanceChange = read;
    this.risk = risk;
    this.riskStale = stale;
    this.#riskRead = read;
    this.#unreconciled = true;
    this.#figures = undefined;
    this.#base = undefined;
    // A read that moved only the equity (every price while a position is open) changes no floor.
    if (before === undefined || !sameBaseInputs(before, risk)) this.#revision += 1;
  }

  setPositions(asset: string, open: Position[], takenAt: number): void {
    const read = { seq: ++this.#reads, takenAt };
    if (this.#positionsRead.has(asset) && !samePositions(this.#positionsRaw.get(asset), open)) this.#positionsChange = read;
    this.#positionsRead.set(asset, read);
    if (open.length > 0) {
      this.positions.set(asset, open);
      // Pushed into an array for objects: `map` gave these lists two kinds (packed or holey, by the
      // path V8 took), and a sweep's worker threw the loops over them away at the other ("wrong map").
      const raws = objectArray<PositionRaw>();
      for (const p of open) raws.push(positionRaw(p));
      this.#positionsRaw.set(asset, raws);
    } else {
      this.positions.delete(asset);
      this.#positionsRaw.delete(asset);
    }
    this.#shape = undefined;
    this.#holdings = undefined;
    this.#dirty = true;
    this.#revision += 1;
  }

  setOrders(active: readonly Order[]): void {
    this.orders = active;
    this.#stops = stopsByPosition(active);
    const entries: EntryRaw[] = objectArray();
    let reserves = 0n;
    for (const o of active) {
      if (!INCREASE_TYPES.has(o.type)) continue;
      const reserve = toRaw(o.reservedAmount ?? o.amount, 'ceil');
      reserves += reserve;
      entries.push({
        marketId: o.market,
        direction: o.direction,
        ...(o.sizeMode === 'base' && o.baseSize !== null
          ? { size: toRaw(o.baseSize, 'ceil') }
          : { amount: toRaw(o.amount, 'ceil') }),
        reserve,
        leverage: o.leverage === null ? UNIT : toRaw(o.leverage, 'floor'),
        price: !o.limitPrice.isZero() ? toRaw(o.limitPrice) : !o.triggerPrice.isZero() ? toRaw(o.triggerPrice) : 0n,
        stop: o.stopTriggerPrice.isZero() ? null : toRaw(o.stopTriggerPrice),
      });
    }
    this.#entries = entries;
    this.#reserves = reserves;
    this.#dirty = true;
    this.#revision += 1;
  }

  /** Whether a market a position or an active increase order reads was updated after `version`. */
  #pricesMoved(markets: MarketBook, version: number): boolean {
    for (const asset of this.#positionsRaw.keys()) if (markets.assetChangedSince(asset, version)) return true;
    for (const e of this.#entries) {
      // The id catches a market seen for the first time; the asset, a new snapshot of it under another id.
      if (markets.marketChangedSince(e.marketId, version)) return true;
      const asset = markets.assetOf(e.marketId);
      if (asset !== undefined && markets.assetChangedSince(asset, version)) return true;
    }
    return false;
  }

  figures(markets: MarketBook, config: RiskGuardConfig, params: ExposureParams): AccountFigures {
    if (
      this.#book === undefined ||
      this.#dirty ||
      (this.#marketVersion !== markets.version && this.#pricesMoved(markets, this.#marketVersion))
    ) {
      this.#book = this.#computeBook(markets, config, params);
      this.#dirty = false;
      this.#figures = undefined;
    }
    this.#marketVersion = markets.version;
    return (this.#figures ??= this.#compute(markets, config, this.#book));
  }

  /** The drift bounds of the book the latest `figures` call derived (see `BookFigures.drift`). */
  drift(): readonly PriceDrift[] | null {
    return this.#book?.drift ?? null;
  }

  #limits(config: RiskGuardConfig, acc: AccountRiskConfig | undefined, phase: string): Record<FloorName, bigint | null> {
    const preset: DrawdownLimits | undefined =
      config.drawdown.phases[phase] ?? config.drawdown.phases[config.drawdown.defaultPhase];
    const rec = this.account;
    const pick = (
      override: Decimal | null | undefined,
      record: bigint | undefined,
      fallback: Decimal | null | undefined,
    ): bigint | null => {
      if (override !== undefined) return override === null ? null : toRaw(override, 'floor');
      if (record !== undefined) return record;
      return fallback === null || fallback === undefined ? null : toRaw(fallback, 'floor');
    };
    return {
      daily: pick(acc?.limits?.daily, rec ? percentToRaw(rec.maxDailyDrawdown) : undefined, preset?.daily),
      total: pick(acc?.limits?.total, rec ? percentToRaw(rec.maxTotalDrawdown) : undefined, preset?.total),
      trailing: pick(
        acc?.limits?.trailing,
        rec ? percentToRaw(rec.maxTrailingTotalDrawdown) : undefined,
        preset?.trailing,
      ),
    };
  }

  /** Positions: worst case from the price now; pending entries: their reserves and worst cases. */
  #computeBook(markets: MarketBook, config: RiskGuardConfig, params: ExposureParams): BookFigures {
    // What the positions occupy, their notionals and margins move only with the positions; the
    // worst cases move with every price.
    const shape = (this.#shape ??= this.#positionsShape());
    const views: PositionView[] = objectArray();
    let openWorst = 0n;
    let drift: PriceDrift[] | null =
      config.drawdown.countPendingEntries && this.#entries.length > 0 ? null : driftBounded(params, this.#stops.values()) ? objectArray<PriceDrift>() : null;
    for (const [asset, list] of this.#positionsRaw) {
      const m = markets.get(asset);
      if (m === undefined) drift = null;
      let size = 0n;
      let exitNotional = 0n;
      let exitCost = 0n;
      for (const raw of list) {
        const price = m?.price ?? (raw.size > 0n ? (raw.notional * UNIT) / raw.size : 0n);
        const position = raw.position;
        const w = rawPositionWorstLoss(raw, this.#stops.get(position.idx), price, m, params);
        const lastIncreaseAt = this.lastIncreaseByPosition.get(position.idx) ?? position.openedAt.getTime();
        views.push({
          position,
          asset,
          direction: raw.direction,
          lastIncreaseAt,
          unrealisedPnl: w.unrealisedPnl,
          worstLoss: w.worstLoss,
          stop: w.stop,
        });
        openWorst += w.worstLoss;
        size += raw.size;
        exitNotional += w.exitNotional;
        exitCost += w.exitCost;
      }
      drift?.push({ asset, price: m!.price, size, exitNotional, exitCost, positions: list.length });
    }
    let occupied = shape.occupied;
    let openCount = views.length;
    if (this.#entries.length > 0) occupied = new Set(occupied);

    // Active increase orders: their worst case counts if asked (their reserves are `#reserves`).
    for (const e of this.#entries) {
      const asset = markets.assetOf(e.marketId);
      const key = `${asset ?? e.marketId}:${e.direction}`;
      if (!occupied.has(key)) {
        (occupied as Set<string>).add(key);
        openCount += 1;
      }
      const m = asset === undefined ? undefined : markets.get(asset);
      if (config.drawdown.countPendingEntries && m !== undefined) {
        openWorst += entryFigures(Object.assign({}, e, { price: e.price > 0n ? e.price : m.price }), m, params).worstLoss;
      }
    }
    return { views, occupied, openNotional: shape.openNotional, openWorst, margins: shape.margins, openCount, drift };
  }

  #positionsShape(): { occupied: ReadonlySet<string>; openNotional: ReadonlyMap<string, bigint>; margins: bigint } {
    const occupied = new Set<string>();
    const openNotional = new Map<string, bigint>();
    let margins = 0n;
    for (const [asset, list] of this.#positionsRaw) {
      for (const raw of list) {
        margins += raw.margin;
        const key = `${asset}:${raw.direction}`;
        occupied.add(key);
        openNotional.set(key, (openNotional.get(key) ?? 0n) + raw.notional);
      }
    }
    return { occupied, openNotional, margins };
  }

  #compute(markets: MarketBook, config: RiskGuardConfig, book: BookFigures): AccountFigures {
    const acc = config.accounts[this.accountId];
    const phase = this.#phase(config);
    const type = acc?.type ?? this.account?.type;

    const base = this.#currentBase(config);
    const equity = base.hasRisk ? this.#equity(markets, base) : 0n;

    return {
      accountId: this.accountId,
      hasRisk: base.hasRisk,
      riskStale: this.riskStale,
      status: this.account?.status,
      type,
      phase,
      equity,
      balance: base.balance,
      dayStartEquity: base.dayStartEquity,
      initialBalance: base.initialBalance,
      floors: base.floors,
      freeBalance: base.balance - book.margins - this.#reserves,
      openWorst: book.openWorst,
      openCount: book.openCount,
      occupied: book.occupied,
      openNotional: book.openNotional,
      positions: book.views,
      consistency: base.consistency,
    };
  }

  #phase(config: RiskGuardConfig): string {
    return config.accounts[this.accountId]?.phase ?? this.account?.currentPhase ?? config.drawdown.defaultPhase;
  }

  #currentBase(config: RiskGuardConfig): BaseFigures {
    return (this.#base ??= this.#baseFor(config, config.accounts[this.accountId], this.#phase(config)));
  }

  /**
   * `figures(…).equity` at the prices now, without deriving the rest: what the guard reads on a price
   * that moved nothing else (see `revision`).
   */
  equityNow(markets: MarketBook, config: RiskGuardConfig): bigint {
    const base = this.#currentBase(config);
    return base.hasRisk ? this.#equity(markets, base) : 0n;
  }

  /**
   * Equity the way the engine derives it (ENGINE-MODEL: balance + Σ unrealised pnl at I, one
   * `holdingPnl` for both): the balance of the risk snapshot plus each market's holding marked at the
   * latest index price. The risk snapshot's own `currentEquity` holds the price the platform had when
   * it was read, which the guard cannot know (a risk read may come before or after the market read of
   * the same moment), so marking that figure forward counts a move twice or not at all; the balance
   * moves only with fills, fees and funding, never with the price.
   *
   * The balance and the positions must describe the same account: while a balance change has not been
   * followed by a read of every market's positions, or a change of positions by a risk read, a fill is
   * half seen (its pnl in the balance and its position still open, or the reverse) and the platform's
   * own figure of its latest read is the sound one. So it is before any positions were read, and when
   * a held market has no price yet.
   */
  /** Equity as the risk status gave it: the platform's figure at the price it had when read. */
  #riskEquity(): bigint {
    return this.risk ? toRaw(this.risk.currentEquity, 'floor') : 0n;
  }

  #equity(markets: MarketBook, base: BaseFigures): bigint {
    if (!this.#settled()) return this.#riskEquity();
    // A risk read that moved only its own equity changes neither the balance nor the prices.
    if (this.#memoVersion === markets.version && this.#memoRevision === this.#revision && this.#memoBalance === base.balance) return this.#memoEquity;
    const marked = this.#marked((asset) => markets.latest(asset)?.price);
    if (marked === undefined) return this.#riskEquity();
    const equity = base.balance + marked;
    this.#memoVersion = markets.version;
    this.#memoRevision = this.#revision;
    this.#memoBalance = base.balance;
    this.#memoEquity = equity;
    return equity;
  }
  #memoVersion = -1;
  #memoRevision = -1;
  #memoBalance = 0n;
  #memoEquity = 0n;

  /** The balance and the positions describe the same account state (see `#equity`). */
  #settled(): boolean {
    if (this.#positionsRead.size === 0) return false;
    for (const read of this.#positionsRead.values()) if (!after(read, this.#balanceChange)) return false;
    return after(this.#riskRead, this.#positionsChange);
  }

  /**
   * The one market the book holds and what its equity is made of, while the balance and the positions
   * describe the same account (see `#equity`): equity = balance + holdingPnl(netSize, netNotional, price).
   * Undefined with no risk read, an unsettled book, or holdings in more than one market.
   */
  soleHolding(config: RiskGuardConfig): { readonly asset: string; readonly netSize: bigint; readonly netNotional: bigint; readonly balance: bigint } | undefined {
    const base = this.#currentBase(config);
    if (!base.hasRisk || !this.#settled()) return undefined;
    const holdings = (this.#holdings ??= this.#netHoldings());
    if (holdings.length !== 1) return undefined;
    const h = holdings[0]!;
    return { asset: h.asset, netSize: h.netSize, netNotional: h.netNotional, balance: base.balance };
  }

  /** Σ of each market's holding marked at `priceOf(asset)`; undefined when a held market has no price. */
  #marked(priceOf: (asset: string) => bigint | undefined): bigint | undefined {
    let total = 0n;
    for (const h of (this.#holdings ??= this.#netHoldings())) {
      const price = priceOf(h.asset);
      if (price === undefined) return undefined;
      total += holdingPnl(h.netSize, h.netNotional, price);
    }
    return total;
  }

  /** Each market's net size and notional (long +, short −), while the positions stand. */
  #holdings: readonly { readonly asset: string; readonly netSize: bigint; readonly netNotional: bigint }[] | undefined;
  #netHoldings(): { asset: string; netSize: bigint; netNotional: bigint }[] {
    const out: { asset: string; netSize: bigint; netNotional: bigint }[] = objectArray();
    for (const [asset, list] of this.#positionsRaw) {
      let netSize = 0n;
      let netNotional = 0n;
      for (const raw of list) {
        if (raw.direction === 'long') {
          netSize += raw.size;
          netNotional += raw.notional;
        } else {
          netSize -= raw.size;
          netNotional -= raw.notional;
        }
      }
      out.push({ asset, netSize, netNotional });
    }
    return out;
  }

  /**
   * Compare the latest risk snapshot's equity with the guard's own derivation, once the guard holds
   * what that comparison needs: positions that match the snapshot's balance, and for every held market
   * a price read at or after the risk read. The platform's price at the moment of its risk read lies
   * between the last market read before it and the first after it (the same read when they coincide,
   * as in a replay), so the guard's equity at those two prices bounds what the platform may have had;
   * a figure outside the bounds by more than one fp9 unit is a divergence. `wait`: not comparable yet.
   */
  reconcile(markets: MarketBook): 'wait' | 'agree' | { platform: bigint; low: bigint; high: bigint } {
    if (!this.#unreconciled || this.risk === undefined) return 'agree';
    if (!this.#settled()) return 'wait';
    // The risk read may already hold a position opened after the last positions read (a fill that moves
    // no balance, as at zero cost): compare only once every market's positions were read after it.
    for (const read of this.#positionsRead.values()) if (!after(read, this.#riskRead)) return 'wait';
    for (const asset of this.#positionsRaw.keys()) {
      const m = markets.latest(asset);
      if (m === undefined || m.takenAt < this.#riskRead.takenAt) return 'wait';
    }
    this.#unreconciled = false;
    const riskAt = this.#riskRead.takenAt;
    // The risk read and the latest market reads were mostly taken at the same time: one mark then.
    let split = false;
    const at = (asset: string): bigint => {
      const now = markets.latest(asset)!;
      const prev = markets.before(asset);
      if (now.takenAt > riskAt && prev !== undefined && prev.takenAt <= riskAt) {
        split = true;
        return prev.price;
      }
      return now.price;
    };
    const balance = toRaw(this.risk.currentBalance, 'floor');
    const a = balance + this.#marked(at)!;
    const b = split ? balance + this.#marked((asset) => markets.latest(asset)!.price)! : a;
    const low = a < b ? a : b;
    const high = a < b ? b : a;
    const platform = toRaw(this.risk.currentEquity, 'floor');
    return platform < low - 1n || platform > high + 1n ? { platform, low, high } : 'agree';
  }

  /**
   * The base figures again only when what they are made of changed. While a position is open a risk
   * snapshot comes with every price, and mostly only its equity moved: the floors, limits and
   * consistency figures of the previous one stand. Fields are compared by identity (the local
   * engine hands out the same Decimal while a value stands); a new instance is a full derivation.
   */
  #baseFor(config: RiskGuardConfig, acc: AccountRiskConfig | undefined, phase: string): BaseFigures {
    const risk = this.risk;
    const last = this.#lastBase;
    if (
      last !== undefined &&
      risk !== undefined &&
      last.risk !== undefined &&
      last.config === config &&
      last.acc === acc &&
      last.phase === phase &&
      last.account === this.account &&
      sameBaseInputs(last.risk, risk)
    ) {
      last.risk = risk;
      return last.base;
    }
    const base = this.#computeBase(config, acc, phase);
    this.#lastBase = { config, acc, phase, account: this.account, risk, base };
    return base;
  }

  #computeBase(config: RiskGuardConfig, acc: AccountRiskConfig | undefined, phase: string): BaseFigures {
    const risk = this.risk;
    const hasRisk = risk !== undefined;
    const balance = risk ? toRaw(risk.currentBalance, 'floor') : 0n;
    const riskEquity = risk ? toRaw(risk.currentEquity, 'floor') : 0n;
    const dayStartEquity = risk ? toRaw(risk.dayStartEquity, 'floor') : 0n;
    const initialBalance = acc?.initialBalance
      ? toRaw(acc.initialBalance, 'floor')
      : this.account
        ? toRaw(this.account.initialAccountBalance, 'floor')
        : risk
          ? toRaw(risk.payoutBaselineBalance, 'floor')
          : 0n;
    // Before the first trade there is no highest equity: the trailing base is what the account holds.
    const maxEquity = risk?.maxEquity ? toRaw(risk.maxEquity, 'floor') : maxRaw(initialBalance, riskEquity);

    const limits = this.#limits(config, acc, phase);
    const buffer = toRaw(config.drawdown.buffer, 'ceil');
    const floors: Floor[] = objectArray();
    const addFloor = (name: FloorName, base: bigint): void => {
      const limit = limits[name];
      if (limit === null) return;
      const floor = mulUp(base, UNIT - limit);
      floors.push({ name, limit, base, floor, buffered: floor + mulUp(base, buffer) });
    };
    if (hasRisk) {
      addFloor('daily', dayStartEquity);
      addFloor('total', initialBalance);
      addFloor('trailing', maxEquity);
    }
    const consistency: ConsistencyFigures = {
      applies: risk?.consistencyRuleApplies ?? false,
      periodStartEquity: risk?.periodStartEquity ? toRaw(risk.periodStartEquity, 'floor') : null,
      maxPeriodDailyEquityDelta: risk?.maxPeriodDailyEquityDelta ? toRaw(risk.maxPeriodDailyEquityDelta) : null,
      limit: risk ? toRaw(risk.consistencyRuleLimit, 'floor') : 0n,
    };
    return { hasRisk, balance, dayStartEquity, initialBalance, floors, consistency };
  }

  /** The Account record says trading stopped (not a managed-capital lock). */
  statusStopsTrading(): boolean {
    const s = this.account?.status;
    return s !== undefined && s !== 'active' && !LOCKED_STATUSES.includes(s);
  }

  statusLocked(): boolean {
    const s = this.account?.status;
    return s !== undefined && LOCKED_STATUSES.includes(s);
  }
}

/** One observed snapshot: its observation number and when it was taken. */
interface Read {
  readonly seq: number;
  readonly takenAt: number;
}

const NEVER: Read = { seq: 0, takenAt: Number.NEGATIVE_INFINITY };

/** Whether `read` was observed after `change` and taken no earlier (so it already reflects it). */
function after(read: Read, change: Read): boolean {
  return change === NEVER || (read.seq > change.seq && read.takenAt >= change.takenAt);
}

/**
 * Whether two risk reads agree on everything the base figures take from them but the equity (by
 * identity: equal values in different instances count as a change). Without a highest equity the
 * trailing base is read off the equity, so then nothing is kept.
 */
function sameBaseInputs(a: RiskStatus, b: RiskStatus): boolean {
  return (
    b.maxEquity !== null &&
    a.maxEquity === b.maxEquity &&
    a.currentBalance === b.currentBalance &&
    a.dayStartEquity === b.dayStartEquity &&
    a.payoutBaselineBalance === b.payoutBaselineBalance &&
    a.periodStartEquity === b.periodStartEquity &&
    a.maxPeriodDailyEquityDelta === b.maxPeriodDailyEquityDelta &&
    a.consistencyRuleLimit === b.consistencyRuleLimit &&
    a.consistencyRuleApplies === b.consistencyRuleApplies
  );
}

/** Whether a positions read shows the same positions (id, size, notional) as the one before. */
function samePositions(before: readonly PositionRaw[] | undefined, open: readonly Position[]): boolean {
  const n = before?.length ?? 0;
  if (n !== open.length) return false;
  for (let i = 0; i < n; i += 1) {
    const b = before![i]!;
    const p = open[i]!;
    if (b.position.idx !== p.idx || !b.position.size.eq(p.size) || !b.position.notional.eq(p.notional)) return false;
  }
  return true;
}
