/**
 * The guard on a price that changes nothing. While a position is open every price step brings a risk
 * read and a market snapshot, and a full evaluation derives the whole book again (worst case of every
 * position, every figure) to find, nearly always, that no rule trips. After a full evaluation that
 * ended without a trip, the guard keeps what it found (`QuietMark`); on a later price it asks only
 * whether a trip is now possible: equity at the new prices, exactly as the full evaluation derives it,
 * against each floor; the open book's worst case bounded from above by how far the prices moved
 * (`driftSlope` × move + `driftRest`, the latter fixed while the cost ceiling stands); the consistency threshold on that equity. When none can trip, the full
 * evaluation would end exactly where the last one did, and is skipped; when one might, it runs. A
 * change of anything but the prices (positions, orders, the base figures of the risk read, the
 * Account record, the guard's own latches and states, a latch running out) makes it run too.
 *
 * A book that holds one market has a cheaper test still: its equity is the balance plus one holding
 * marked at that market's price, so each trip test above is a condition on that price alone. The
 * first quiet update works out the band of prices where none of them can hold (`quietBand`); while
 * the price stays inside it, an update costs two comparisons. This is the guard working from the
 * price at which a rule would trip, as ENGINE-MODEL's rules are written in equity.
 */
import type { RiskGuardConfig } from './config.js';
import type { Market } from '../api/types.js';
import type { AccountFigures, ConsistencyFigures, RuleNumbers } from './context.js';
import { driftRest, driftSlack, driftSlope, type PriceDrift } from './exposure.js';
import { ceilDiv, floorDiv, UNIT } from './fixed.js';
import type { AccountBook, MarketBook } from './account-book.js';
import { consistencyReached, killDistance } from './rules/drawdown.js';
import type { GuardState } from './types.js';

/** What a full evaluation without a trip found, and the state it left. */
export interface QuietMark {
  readonly revision: number;
  readonly account: AccountBook['account'];
  readonly manual: AccountBook['manual'];
  readonly haltedUntil: number;
  readonly reducingUntil: number;
  readonly state: GuardState;
  readonly reason: string;
  readonly hasRisk: boolean;
  readonly dayStartEquity: bigint;
  readonly consistency: ConsistencyFigures;
  /** The kill switch trips on a floor at an equity at or below this: max(floor + kill distance); null without floors. */
  readonly killLine: bigint | null;
  /** Highest floor: the exposure trip is equity − worst case below it. */
  readonly exposureLine: bigint | null;
  /** The open book's worst case then, plus the fp9 units its bound leaves to roundings. */
  readonly openWorst: bigint;
  readonly drift: readonly PriceDrift[];
  /** The prices (`MarketBook.version`) and the equity of the last update found quiet: a risk read between two prices repeats them. */
  quietVersion: number;
  quietEquity: bigint;
  /** Per market of `drift`: its bound's slope (`driftSlope`), and the cost ceiling `exposureK` was worked out at. */
  readonly slopes: readonly bigint[];
  readonly ceilings: bigint[];
  /**
   * (worst case + highest floor) × 10^9 + the move-free part of each market's drift bound: the
   * exposure test is then equity × 10^9 − Σ slope × move ≥ exposureK. Undefined until first needed.
   */
  exposureK: bigint | undefined;
  /** The quiet prices of a book holding one market; null when it has none, undefined until first asked. */
  band: QuietBand | null | undefined;
}

/**
 * Prices of one market (fp9, both ends in) at which no trip test of `quiet` can hold, for as long as
 * nothing but that market's price moves and its cost ceiling stands.
 */
export interface QuietBand {
  readonly asset: string;
  readonly settings: Market['settings'];
  readonly costCeiling: bigint;
  readonly lo: bigint;
  readonly hi: bigint;
}

/** How `stillQuiet` found an update: not quiet, quiet inside the band, or quiet by the equity tests. */
export type QuietAnswer = false | 'band' | 'tests';

/** The mark of a full evaluation of `book` that ended without a trip; undefined when its book cannot be bounded. */
export function quietMark(book: AccountBook, figures: AccountFigures, drift: readonly PriceDrift[] | null, numbers: RuleNumbers): QuietMark | undefined {
  if (drift === null) return undefined;
  let killLine: bigint | null = null;
  let exposureLine: bigint | null = null;
  for (const f of figures.floors) {
    const line = f.floor + killDistance(f, numbers.killShare);
    if (killLine === null || line > killLine) killLine = line;
    if (exposureLine === null || f.floor > exposureLine) exposureLine = f.floor;
  }
  let slack = 0n;
  for (const d of drift) slack += driftSlack(d.positions);
  return {
    revision: book.revision,
    account: book.account,
    manual: book.manual,
    haltedUntil: book.haltedUntil,
    reducingUntil: book.reducingUntil,
    state: book.state,
    reason: book.stateReason,
    hasRisk: figures.hasRisk,
    dayStartEquity: figures.dayStartEquity,
    consistency: figures.consistency,
    killLine,
    exposureLine,
    openWorst: figures.openWorst + slack,
    drift,
    quietVersion: -1,
    quietEquity: 0n,
    slopes: drift.map(driftSlope),
    ceilings: drift.map(() => -1n),
    exposureK: undefined,
    band: undefined,
  };
}

/**
 * Whether a full evaluation of `book` now would find what `mark` found: nothing changed but prices,
 * no latch ran out, and at the prices now neither the kill switch nor the consistency rule can trip.
 */
export function stillQuiet(
  mark: QuietMark,
  book: AccountBook,
  now: number,
  markets: MarketBook,
  config: RiskGuardConfig,
  numbers: RuleNumbers,
): QuietAnswer {
  if (!markStands(mark, book, now)) return false;
  if (!mark.hasRisk) return 'tests';
  const band = bandOf(mark, book, markets, config, numbers);
  if (band !== null) {
    const m = markets.latest(band.asset);
    if (m !== undefined && inBand(band, m.price, m.market.settings, markets)) return 'band';
  }
  const equity = book.equityNow(markets, config);
  if (mark.quietVersion === markets.version && mark.quietEquity === equity) return 'tests';
  if (!quiet(mark, book, equity, markets, config, numbers)) return false;
  mark.quietVersion = markets.version;
  mark.quietEquity = equity;
  return 'tests';
}

/**
 * Whether `stillQuiet` would answer without a full evaluation were `asset`'s price `price` and
 * nothing else changed, the guard's market book not told yet: its answer for a price inside the band
 * it worked out (or for a book without risk figures). False where only its equity tests could tell,
 * and before it has worked the band out.
 */
export function quietAtPrice(
  mark: QuietMark,
  book: AccountBook,
  now: number,
  asset: string,
  price: bigint,
  markets: MarketBook,
): boolean {
  if (!markStands(mark, book, now)) return false;
  if (!mark.hasRisk) return true;
  // Only a band `stillQuiet` worked out: before it does, the book may still wait for the read that
  // settles it (a risk status after a positions change), and a band missed then would stay missed.
  const band = mark.band;
  if (band === undefined || band === null || band.asset !== asset) return false;
  const m = markets.latest(asset);
  return m !== undefined && inBand(band, price, m.market.settings, markets);
}

/** Nothing but prices changed since the mark, and no latch ran out. */
function markStands(mark: QuietMark, book: AccountBook, now: number): boolean {
  return (
    mark.revision === book.revision &&
    mark.account === book.account &&
    mark.manual === book.manual &&
    mark.haltedUntil === book.haltedUntil &&
    mark.reducingUntil === book.reducingUntil &&
    mark.state === book.state &&
    mark.reason === book.stateReason &&
    !((book.haltedUntil !== 0 && now >= book.haltedUntil) || (book.reducingUntil !== 0 && now >= book.reducingUntil))
  );
}

/** The mark's band, worked out on first use. */
function bandOf(mark: QuietMark, book: AccountBook, markets: MarketBook, config: RiskGuardConfig, numbers: RuleNumbers): QuietBand | null {
  if (mark.band === undefined) mark.band = quietBand(mark, book, markets, config, numbers) ?? null;
  return mark.band;
}

/** `price` inside the band, at a cost ceiling the band was worked out at. */
function inBand(band: QuietBand, price: bigint, settings: Market['settings'], markets: MarketBook): boolean {
  // The same settings object (the engine's, and the wire decoder's, while they stand) has the same
  // cost ceiling; another one is asked for its own.
  return price >= band.lo && price <= band.hi && (settings === band.settings || markets.get(band.asset)!.costCeiling === band.costCeiling);
}

/**
 * The band of `QuietBand` for a book that holds one market, from the same figures `quiet` tests:
 * equity(p) = c + ⌊size × p / 10^9⌋ with c = balance − net notional, so
 * - the consistency rule cannot trip while equity ≤ its reach (`consistencyReach`);
 * - the kill switch's floors cannot while equity > the kill line;
 * - the exposure test `equity × 10^9 − slope × |p − p₀| ≥ K` holds where its lower bound
 *   c × 10^9 + size × p − (10^9 − 1) − slope × |p − p₀| does, a line on each side of p₀
 *   (slope = 10 × Σ size > |net size|: it falls above p₀ and rises below).
 * Each is solved for p exactly in integers (the first two without slack: ⌊x / 10^9⌋ ≥ q ⟺ x ≥ q × 10^9).
 * Undefined when the book holds more than one market, its bound has more than one market, the cost
 * ceiling is outside [0, 1], or the band misses the price it was worked out at.
 */
export function quietBand(mark: QuietMark, book: AccountBook, markets: MarketBook, config: RiskGuardConfig, numbers: RuleNumbers): QuietBand | undefined {
  const holding = book.soleHolding(config);
  if (holding === undefined || mark.drift.length > 1) return undefined;
  const latest = markets.latest(holding.asset);
  const figures = markets.get(holding.asset);
  if (latest === undefined || figures === undefined) return undefined;
  const n = holding.netSize;
  const c = holding.balance - holding.netNotional;
  let lo = 0n;
  let hi = PRICE_MAX;
  const within = (range: readonly [bigint, bigint]): void => {
    if (range[0] > lo) lo = range[0];
    if (range[1] < hi) hi = range[1];
  };
  if (config.consistency.enabled && book.reducingUntil === 0 && mark.consistency.applies) {
    const reach = consistencyReach(mark.consistency, mark.dayStartEquity, numbers.consistencyBuffer);
    if (reach === undefined) return undefined;
    if (reach !== null) within(equityAtMost(n, c, reach));
  }
  if (config.killSwitch.enabled && book.haltedUntil === 0 && book.manual?.state !== 'HALTED') {
    if (mark.killLine !== null) within(equityAtLeast(n, c, mark.killLine + 1n));
    if (config.killSwitch.onExposureBreach && mark.exposureLine !== null) {
      const d = mark.drift[0];
      if (d === undefined || d.asset !== holding.asset || figures.costCeiling < 0n || figures.costCeiling > UNIT) return undefined;
      const slope = mark.slopes[0]!;
      if (n + slope <= 0n || n - slope >= 0n) return undefined;
      const k = (mark.openWorst + mark.exposureLine) * UNIT + driftRest(d, figures.costCeiling);
      const r = k - c * UNIT + UNIT - 1n;
      const below = ceilDiv(r + slope * d.price, n + slope);
      const above = floorDiv(r - slope * d.price, n - slope);
      if (below > d.price || above < d.price) return undefined;
      within([below, above]);
    }
  }
  if (lo > hi || latest.price < lo || latest.price > hi) return undefined;
  return { asset: holding.asset, settings: latest.market.settings, costCeiling: figures.costCeiling, lo, hi };
}

/** Above any fp9 price a market can have (they fit a signed 64-bit integer). */
const PRICE_MAX = (1n << 63n) - 1n;

/**
 * The highest equity at which `consistencyReached` finds nothing (null: none is too high), or
 * undefined when its threshold is 100% or more (then a higher equity can stop a trip: no band).
 * It trips when gain = e − day start > 0, gain ≥ the period's best day (if any), profit = e − period
 * start > 0 and gain × 10^9 > threshold × profit, i.e. e × (10^9 − threshold) > day start × 10^9 −
 * threshold × period start: every one a lower bound on e, so it trips exactly above the largest.
 */
function consistencyReach(c: ConsistencyFigures, dayStart: bigint, buffer: bigint): bigint | null | undefined {
  if (c.periodStartEquity === null) return null;
  const threshold = c.limit - buffer;
  if (threshold >= UNIT) return undefined;
  let reach = dayStart;
  if (c.maxPeriodDailyEquityDelta !== null && dayStart + c.maxPeriodDailyEquityDelta - 1n > reach) reach = dayStart + c.maxPeriodDailyEquityDelta - 1n;
  if (c.periodStartEquity > reach) reach = c.periodStartEquity;
  const ratio = floorDiv(dayStart * UNIT - threshold * c.periodStartEquity, UNIT - threshold);
  return ratio > reach ? ratio : reach;
}

/** Prices p with c + ⌊n × p / 10^9⌋ ≥ least. */
function equityAtLeast(n: bigint, c: bigint, least: bigint): readonly [bigint, bigint] {
  const r = (least - c) * UNIT;
  if (n > 0n) return [ceilDiv(r, n), PRICE_MAX];
  if (n < 0n) return [0n, floorDiv(r, n)];
  return r <= 0n ? [0n, PRICE_MAX] : [1n, 0n];
}

/** Prices p with c + ⌊n × p / 10^9⌋ ≤ most. */
function equityAtMost(n: bigint, c: bigint, most: bigint): readonly [bigint, bigint] {
  const r = (most - c + 1n) * UNIT - 1n;
  if (n > 0n) return [0n, floorDiv(r, n)];
  if (n < 0n) return [ceilDiv(r, n), PRICE_MAX];
  return r >= 0n ? [0n, PRICE_MAX] : [1n, 0n];
}

/** The trip tests of `stillQuiet` at `equity`. */
function quiet(mark: QuietMark, book: AccountBook, equity: bigint, markets: MarketBook, config: RiskGuardConfig, numbers: RuleNumbers): boolean {
  if (
    config.consistency.enabled &&
    book.reducingUntil === 0 &&
    mark.consistency.applies &&
    consistencyReached({ hasRisk: true, consistency: mark.consistency, equity, dayStartEquity: mark.dayStartEquity }, numbers.consistencyBuffer) !== undefined
  ) {
    return false;
  }
  if (!config.killSwitch.enabled || book.haltedUntil !== 0 || book.manual?.state === 'HALTED') return true;
  if (mark.killLine !== null && equity <= mark.killLine) return false;
  if (!config.killSwitch.onExposureBreach || mark.exposureLine === null) return true;
  // equity − (worst case then + drift) ≥ highest floor, all × 10^9 (see driftSlope), with what does
  // not move with the price summed once into exposureK.
  let moved = 0n;
  for (let i = 0; i < mark.drift.length; i += 1) {
    const d = mark.drift[i]!;
    const m = markets.get(d.asset);
    if (m === undefined || m.costCeiling < 0n || m.costCeiling > UNIT) return false;
    if (mark.ceilings[i] !== m.costCeiling) {
      mark.ceilings[i] = m.costCeiling;
      mark.exposureK = undefined;
    }
    moved += mark.slopes[i]! * (d.price > m.price ? d.price - m.price : m.price - d.price);
  }
  mark.exposureK ??= exposureK(mark);
  return equity * UNIT - moved >= mark.exposureK;
}

function exposureK(mark: QuietMark): bigint {
  let k = (mark.openWorst + mark.exposureLine!) * UNIT;
  for (let i = 0; i < mark.drift.length; i += 1) k += driftRest(mark.drift[i]!, mark.ceilings[i]!);
  return k;
}
