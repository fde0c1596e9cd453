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
 */
import type { RiskGuardConfig } from './config.js';
import type { AccountFigures, ConsistencyFigures, RuleNumbers } from './context.js';
import { driftRest, driftSlack, driftSlope, type PriceDrift } from './exposure.js';
import { UNIT } from './fixed.js';
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
}

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
): boolean {
  if (
    mark.revision !== book.revision ||
    mark.account !== book.account ||
    mark.manual !== book.manual ||
    mark.haltedUntil !== book.haltedUntil ||
    mark.reducingUntil !== book.reducingUntil ||
    mark.state !== book.state ||
    mark.reason !== book.stateReason
  ) {
    return false;
  }
  if ((book.haltedUntil !== 0 && now >= book.haltedUntil) || (book.reducingUntil !== 0 && now >= book.reducingUntil)) return false;
  if (!mark.hasRisk) return true;
  const equity = book.equityNow(markets, config);
  if (mark.quietVersion === markets.version && mark.quietEquity === equity) return true;
  if (!quiet(mark, book, equity, markets, config, numbers)) return false;
  mark.quietVersion = markets.version;
  mark.quietEquity = equity;
  return true;
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
