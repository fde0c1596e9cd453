/**
 * The numbers the rules read from a market snapshot, converted once to fp9 integers when the snapshot
 * arrives (the rules then never touch decimal.js on the hot path).
 */
import type { Decimal } from 'decimal.js';
import type { Direction, Market } from '../api/types.js';
import { SCHEDULE_NONE_AHEAD } from '../api/types.js';
import { divDown, divUp, minRaw, mulUp, toRaw, UNIT } from './fixed.js';

export interface MarketFigures {
  readonly id: string;
  readonly asset: string;
  readonly market: Market;
  /** When the snapshot was taken (pipeline clock), unix ms. */
  readonly takenAt: number;
  readonly stale: boolean;
  /** Index price, fp9. */
  readonly price: bigint;
  /** Fee rate, fp9. */
  readonly fee: bigint;
  /** Spread fraction assumed on a fill: min(spreadLimit, vpiSpread × multiplier), 0 on a zero-spread market. */
  readonly spread: bigint;
  readonly maxPriceImpact: bigint;
  /** The most a fill can cost as a fraction: fee + spread limit + price impact cap (see `fillCost`). */
  readonly costCeiling: bigint;
  readonly coefficientLong: bigint;
  readonly coefficientShort: bigint;
  readonly depthLong: bigint;
  readonly depthShort: bigint;
  /** floor(1 / minInitMarginRatio); null when the ratio is 0 (no cap from it). */
  readonly maxLeverageByMargin: bigint | null;
  /** `maxLeverageByAccount` in fp9 by account type. */
  readonly maxLeverageByAccount: ReadonlyMap<string, bigint>;
  /** Smallest of the per-type caps, used when the account type is unknown; null when the map is empty. */
  readonly maxLeverageAnyType: bigint | null;
  /** Open-notional caps; 0 = no cap. */
  readonly capLong: bigint;
  readonly capShort: bigint;
  readonly paused: boolean;
  /** In a break of the schedule (then `nextUnpauseAt` ends it). */
  readonly inScheduledPause: boolean;
  readonly closed: boolean;
  readonly closeOnly: boolean;
  /** Next scheduled pause, unix ms; null when none is ahead (0 or the sentinel on the wire). */
  readonly nextPauseAt: number | null;
  /** End of that pause, unix ms, or null. */
  readonly nextUnpauseAt: number | null;
}

/**
 * The figures that come from a market's settings alone. A class, not a literal, because a run makes
 * them once for each market (as the market book's `AssetSlot`). Fields declared, so each is first
 * stored with its value.
 */
class SettingsFigures {
  declare readonly fee: bigint;
  declare readonly spreadLimit: bigint;
  declare readonly maxPriceImpact: bigint;
  declare readonly costCeiling: bigint;
  declare readonly maxLeverageByMargin: bigint | null;
  declare readonly maxLeverageByAccount: ReadonlyMap<string, bigint>;
  declare readonly maxLeverageAnyType: bigint | null;
  declare readonly capLong: bigint;
  declare readonly capShort: bigint;

  constructor(
    fee: bigint,
    spreadLimit: bigint,
    maxPriceImpact: bigint,
    maxLeverageByMargin: bigint | null,
    maxLeverageByAccount: ReadonlyMap<string, bigint>,
    maxLeverageAnyType: bigint | null,
    capLong: bigint,
    capShort: bigint,
  ) {
    this.fee = fee;
    this.spreadLimit = spreadLimit;
    this.maxPriceImpact = maxPriceImpact;
    this.costCeiling = fee + spreadLimit + maxPriceImpact;
    this.maxLeverageByMargin = maxLeverageByMargin;
    this.maxLeverageByAccount = maxLeverageByAccount;
    this.maxLeverageAnyType = maxLeverageAnyType;
    this.capLong = capLong;
    this.capShort = capShort;
  }
}

/**
 * Settings change only with a market's flags, and the engine and the wire decoder hand out the same
 * frozen settings object until they do: their figures are derived once per object, not per snapshot
 * (a backtest publishes a market snapshot on every price).
 */
const SETTINGS = new WeakMap<Market['settings'], SettingsFigures>();

function settingsFigures(s: Market['settings']): SettingsFigures {
  const known = SETTINGS.get(s);
  if (known !== undefined) return known;
  const minIm = toRaw(s.minInitMarginRatio, 'ceil');
  const byType = new Map<string, bigint>();
  let anyType: bigint | null = null;
  for (const [type, lev] of Object.entries(s.maxLeverageByAccount)) {
    const raw = toRaw(lev, 'floor');
    byType.set(type, raw);
    anyType = anyType === null ? raw : minRaw(anyType, raw);
  }
  const fee = toRaw(s.fee, 'ceil');
  const spreadLimit = toRaw(s.spreadLimit, 'ceil');
  const maxPriceImpact = toRaw(s.maxPriceImpact, 'ceil');
  const figures = new SettingsFigures(
    fee,
    spreadLimit,
    maxPriceImpact,
    minIm > 0n ? divDown(UNIT, minIm) : null,
    byType,
    anyType,
    toRaw(s.maxOpenNotionalLong, 'floor'),
    toRaw(s.maxOpenNotionalShort, 'floor'),
  );
  // Only a frozen object can be trusted not to change under the same identity.
  if (Object.isFrozen(s)) SETTINGS.set(s, figures);
  return figures;
}

/** The assumed spread of a `vpiSpread` value: kept per instance, as the engine and the wire decoder reuse one while the value stands. */
const SPREAD = new WeakMap<Decimal, { limit: bigint; multiplier: bigint; spread: bigint }>();
function spreadOf(vpiSpread: Decimal, limit: bigint, multiplier: bigint): bigint {
  const known = SPREAD.get(vpiSpread);
  if (known !== undefined && known.limit === limit && known.multiplier === multiplier) return known.spread;
  const spread = minRaw(limit, mulUp(toRaw(vpiSpread, 'ceil'), multiplier));
  SPREAD.set(vpiSpread, { limit, multiplier, spread });
  return spread;
}

/** Build the figures of a market snapshot. `spreadMultiplier` is fp9 (2x = 2_000_000_000n). */
export function marketFigures(
  market: Market,
  asset: string,
  takenAt: number,
  stale: boolean,
  spreadMultiplier: bigint,
  /** The index price (fp9) when it is newer than the snapshot's (see `MarketBook.quietPrice`). */
  price: bigint = toRaw(market.state.indexPrice),
): MarketFigures {
  const s = market.settings;
  const st = market.state;
  const f = settingsFigures(s);
  const spread = s.isZeroSpread ? 0n : spreadOf(st.vpiSpread, f.spreadLimit, spreadMultiplier);
  const sched = market.schedule;
  const ahead = (ms: number | undefined): number | null =>
    ms === undefined || ms <= 0 || ms >= SCHEDULE_NONE_AHEAD ? null : ms;
  return {
    id: market.id,
    asset,
    market,
    takenAt,
    stale,
    price,
    fee: f.fee,
    spread,
    maxPriceImpact: f.maxPriceImpact,
    costCeiling: f.costCeiling,
    coefficientLong: toRaw(st.vpiCoefficientLong, 'ceil'),
    coefficientShort: toRaw(st.vpiCoefficientShort, 'ceil'),
    depthLong: toRaw(st.vpiMarketDepthLong, 'floor'),
    depthShort: toRaw(st.vpiMarketDepthShort, 'floor'),
    maxLeverageByMargin: f.maxLeverageByMargin,
    maxLeverageByAccount: f.maxLeverageByAccount,
    maxLeverageAnyType: f.maxLeverageAnyType,
    capLong: f.capLong,
    capShort: f.capShort,
    paused: s.isPaused || sched?.inPause === true,
    inScheduledPause: sched?.inPause === true,
    closed: s.isClosed,
    closeOnly: s.isCloseOnly,
    nextPauseAt: ahead(sched?.nextPauseAt),
    nextUnpauseAt: ahead(sched?.nextUnpauseAt),
  };
}

/**
 * Cost fraction of one fill of `notional` on `side` (buys are long, sells short): fee + spread + price
 * impact, as ENGINE-MODEL prices a fill. Rounded up.
 */
export function fillCost(m: MarketFigures, side: Direction, notional: bigint): bigint {
  const coef = side === 'long' ? m.coefficientLong : m.coefficientShort;
  const depth = side === 'long' ? m.depthLong : m.depthShort;
  let impact = m.maxPriceImpact;
  if (coef === 0n) impact = 0n;
  else if (depth > 0n) impact = minRaw(impact, divUp(mulUp(coef, notional), depth));
  return m.fee + m.spread + impact;
}
