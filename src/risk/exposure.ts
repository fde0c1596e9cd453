/**
 * Worst-case arithmetic: how much equity an entry or an open position can lose, priced as the
 * ENGINE-MODEL prices fills (fee + spread + impact on both legs), with a stop if it has one (filled
 * `stopSlippage` beyond its trigger), else after the configured maximum adverse move, and never more
 * than liquidation can take (the margin, plus what was already paid to get in). All fp9 integers,
 * every rounding towards a larger loss.
 */
import type { Direction, Order, Position } from '../api/types.js';
import type { OpenIntent } from '../strategy/intents.js';
import { ceilDiv, maxRaw, minRaw, mulDown, mulUp, toRaw, UNIT } from './fixed.js';
import { fillCost, type MarketFigures } from './market-figures.js';

export interface ExposureParams {
  /** Adverse move assumed without a stop, fp9 fraction. */
  readonly adverse: bigint;
  /** Fill beyond a stop trigger, fp9 fraction. */
  readonly stopSlippage: bigint;
}

export interface EntrySpec {
  readonly direction: Direction;
  /** Quote reserve (quote sizing), or the base size (base sizing), fp9. */
  readonly amount?: bigint;
  readonly size?: bigint;
  readonly leverage: bigint;
  /** Reference entry price, fp9. */
  readonly price: bigint;
  /** Stop-loss trigger, fp9; null when none. */
  readonly stop: bigint | null;
  /** Quote reserve; defaults to `amount` (for base sizing pass the `maxAmount`). */
  readonly reserve?: bigint;
}

export interface EntryFigures {
  /** Quote reserve the entry takes from free balance (quote amount, or `maxAmount` of base sizing), fp9. */
  readonly reserve: bigint;
  readonly leverage: bigint;
  /** Reference entry price, fp9. */
  readonly price: bigint;
  readonly stop: bigint | null;
  /** Notional the entry would open, fp9, rounded up. */
  readonly notional: bigint;
  /** Margin N / L, rounded up. */
  readonly margin: bigint;
  /** Exit price assumed by the worst case. */
  readonly exit: bigint;
  /** Loss of equity in the worst case, fees included. */
  readonly worstLoss: bigint;
}

const opposite = (d: Direction): Direction => (d === 'long' ? 'short' : 'long');

/**
 * Notional of a quote-sized entry: N = A / (1/L + f) = A·L / (1 + f·L) (the validation rule's
 * `(amount − fee) × leverage`), rounded up.
 */
export function quoteNotional(amount: bigint, leverage: bigint, fee: bigint): bigint {
  return ceilDiv(amount * leverage * UNIT, UNIT * UNIT + fee * leverage);
}

/** Worst case of an entry that has not filled yet. */
export function entryFigures(spec: EntrySpec, m: MarketFigures, p: ExposureParams): EntryFigures {
  const { direction, leverage, price } = spec;
  const notional =
    spec.size !== undefined ? mulUp(spec.size, price) : quoteNotional(spec.amount ?? 0n, leverage, m.fee);
  const long = direction === 'long';
  let exit: bigint;
  if (spec.stop !== null && spec.stop > 0n) {
    exit = long ? mulDown(spec.stop, UNIT - p.stopSlippage) : mulUp(spec.stop, UNIT + p.stopSlippage);
  } else {
    exit = long ? mulDown(price, UNIT - p.adverse) : mulUp(price, UNIT + p.adverse);
  }
  const move = long ? price - exit : exit - price;
  const priceLoss = move > 0n && price > 0n ? ceilDiv(notional * move, price) : 0n;
  const entryCost = mulUp(notional, fillCost(m, direction, notional));
  const exitNotional = price > 0n ? ceilDiv(notional * exit, price) : 0n;
  const exitCost = mulUp(exitNotional, fillCost(m, opposite(direction), exitNotional));
  const margin = leverage > 0n ? ceilDiv(notional * UNIT, leverage) : notional;
  const worstLoss = entryCost + minRaw(priceLoss + exitCost, margin);
  return {
    reserve: spec.reserve ?? spec.amount ?? 0n,
    leverage,
    price,
    stop: spec.stop,
    notional,
    margin,
    exit,
    worstLoss,
  };
}

/** Reference price of an open intent's entry: the index for market orders, else its own price. */
export function entryPrice(intent: OpenIntent, m: MarketFigures): bigint {
  const e = intent.entry;
  switch (e.type) {
    case 'market':
      return m.price;
    case 'limit':
      return toRaw(e.price);
    case 'stop_market':
      return toRaw(e.trigger);
    case 'stop_limit':
      return toRaw(e.limit);
  }
}

/** Worst-case figures of an open intent on its market. */
export function intentEntryFigures(intent: OpenIntent, m: MarketFigures, p: ExposureParams): EntryFigures {
  const price = entryPrice(intent, m);
  const sizing = intent.sizing;
  return entryFigures(
    {
      direction: intent.direction,
      ...(sizing.kind === 'quote'
        ? { amount: toRaw(sizing.amount, 'ceil') }
        : { size: toRaw(sizing.size, 'ceil'), reserve: toRaw(sizing.maxAmount, 'ceil') }),
      leverage: toRaw(intent.leverage, 'ceil'),
      price,
      stop: intent.stopLoss === undefined ? null : toRaw(intent.stopLoss),
    },
    m,
    p,
  );
}

/** A position's numbers in fp9, read once per positions snapshot. */
export interface PositionRaw {
  readonly position: Position;
  readonly direction: Direction;
  readonly size: bigint;
  readonly notional: bigint;
  readonly margin: bigint;
  readonly feeRate: bigint;
}

export function positionRaw(position: Position): PositionRaw {
  return {
    position,
    direction: position.direction,
    size: toRaw(position.size, 'ceil'),
    notional: toRaw(position.notional),
    margin: toRaw(position.margin, 'floor'),
    feeRate: toRaw(position.feeRate, 'ceil'),
  };
}

/** A protective close order in fp9, read once per orders snapshot. */
export interface StopRaw {
  /** Base size it closes. */
  readonly amount: bigint;
  /** Fixed trigger of a `stop`; null for a trailing stop. */
  readonly trigger: bigint | null;
  /** Trailing distance: absolute offset or fraction (one of them is 0). */
  readonly offset: bigint;
  readonly percent: bigint;
}

/** The stops of an orders snapshot by position id: `stop` with a trigger, and trailing stops trailing from creation. */
export function stopsByPosition(orders: readonly Order[]): Map<string, StopRaw[]> {
  const out = new Map<string, StopRaw[]>();
  for (const o of orders) {
    if (o.positionId === null || o.status !== 'active') continue;
    let stop: StopRaw | undefined;
    if (o.type === 'stop' && !o.triggerPrice.isZero()) {
      stop = { amount: toRaw(o.amount, 'floor'), trigger: toRaw(o.triggerPrice), offset: 0n, percent: 0n };
    } else if (o.type === 'trailing_stop' && o.trailingStopActivationPrice.isZero()) {
      stop = {
        amount: toRaw(o.amount, 'floor'),
        trigger: null,
        offset: toRaw(o.trailingStopOffset, 'ceil'),
        percent: toRaw(o.trailingStopOffsetPercent, 'ceil'),
      };
    }
    if (stop === undefined) continue;
    const list = out.get(o.positionId);
    if (list === undefined) out.set(o.positionId, [stop]);
    else list.push(stop);
  }
  return out;
}

/** The tightest full-size stop among `stops` for a position of `direction` and `size`, at the price now. */
export function tightestStop(direction: Direction, size: bigint, stops: readonly StopRaw[] | undefined, price: bigint): bigint | null {
  if (stops === undefined) return null;
  const long = direction === 'long';
  let best: bigint | null = null;
  for (const s of stops) {
    // A stop for part of the position leaves the rest unprotected: only full-size stops count.
    if (s.amount < size) continue;
    const trigger =
      s.trigger ??
      (s.offset > 0n
        ? long ? price - s.offset : price + s.offset
        : long ? mulDown(price, UNIT - s.percent) : mulUp(price, UNIT + s.percent));
    if (best === null || (long ? trigger > best : trigger < best)) best = trigger;
  }
  return best;
}

/** The tightest full-size stop of a position among active orders (trailing stops trailing from creation count). */
export function protectiveStop(position: Position, orders: readonly Order[], price: bigint, size: bigint): bigint | null {
  return tightestStop(position.direction, size, stopsByPosition(orders).get(position.idx), price);
}

/**
 * Loss of equity, from the price `price` now, if the position runs to its stop (or the adverse move
 * without one) and is closed; at most its margin plus unrealised pnl, which liquidation takes.
 */
export function positionWorstLoss(
  position: Position,
  orders: readonly Order[],
  price: bigint,
  m: MarketFigures | undefined,
  p: ExposureParams,
): PositionWorstLoss {
  const raw = positionRaw(position);
  return rawPositionWorstLoss(raw, stopsByPosition(orders).get(position.idx), price, m, p);
}

export interface PositionWorstLoss {
  readonly worstLoss: bigint;
  readonly unrealisedPnl: bigint;
  readonly stop: bigint | null;
  /** Notional of the assumed exit, fp9 (what its cost is charged on), and that cost. */
  readonly exitNotional: bigint;
  readonly exitCost: bigint;
}

/** As `positionWorstLoss`, on numbers already read. */
export function rawPositionWorstLoss(
  pos: PositionRaw,
  stops: readonly StopRaw[] | undefined,
  price: bigint,
  m: MarketFigures | undefined,
  p: ExposureParams,
): PositionWorstLoss {
  const { size, notional, margin } = pos;
  const long = pos.direction === 'long';
  const value = mulDown(size, price);
  const unrealisedPnl = long ? value - notional : notional - value;
  const stop = tightestStop(pos.direction, size, stops, price);
  let exit: bigint;
  if (stop !== null) {
    exit = long ? mulDown(stop, UNIT - p.stopSlippage) : mulUp(stop, UNIT + p.stopSlippage);
    // A stop already crossed is about to fill at the price now.
    if (long ? exit > price : exit < price) exit = price;
  } else {
    exit = long ? mulDown(price, UNIT - p.adverse) : mulUp(price, UNIT + p.adverse);
  }
  const priceLoss = mulUp(size, long ? price - exit : exit - price);
  const exitNotional = mulUp(size, exit);
  const exitCost = mulUp(exitNotional, m ? fillCost(m, long ? 'short' : 'long', exitNotional) : pos.feeRate);
  const cap = maxRaw(0n, margin + unrealisedPnl);
  return { worstLoss: minRaw(maxRaw(0n, priceLoss) + exitCost, cap), unrealisedPnl, stop, exitNotional, exitCost };
}

/**
 * The drift bound: how far the worst case of positions can have risen since it was computed at
 * `d.price`, now that their market's index has moved: an upper bound, never the figure itself, and scaled by 10^9 (so that
 * checking it costs multiplications, no division). The assumed exit follows the price with a slope of
 * at most 4 (a short's trailing stop with its slippage, both at most 100%, see `driftBounded`), so
 * the price loss moves by at most 5 × size × the move; the exit's cost was `exitCost` and is at most
 * its notional (grown by at most 4 × size × the move) times `costCeiling` (fee + spread limit + price
 * impact cap, between 0 and 100%); what liquidation can take moves with the unrealised pnl, 1 × size ×
 * the move. Every rounding of those is covered by `driftSlack` fp9 units.
 *   worst case now ≤ worst case then + (driftSlope × |move| + driftRest) / 10^9 + driftSlack(positions)
 * The bound's slope: 10 × size per unit of price.
 */
export function driftSlope(d: PriceDrift): bigint {
  return 10n * d.size;
}

/** The part of the drift bound that does not depend on the move (only on the cost ceiling), × 10^9. */
export function driftRest(d: PriceDrift, costCeiling: bigint): bigint {
  return d.size * 18n + d.exitNotional * costCeiling - d.exitCost * UNIT;
}

/** The fp9 units the drift bound leaves to its roundings, for `positions` positions. */
export function driftSlack(positions: number): bigint {
  return 10n * BigInt(positions) + 5n;
}

/** The positions of one market as the drift bound needs them: summed at the price they were worked out at. */
export interface PriceDrift {
  readonly asset: string;
  readonly price: bigint;
  /** Σ size, fp9. */
  readonly size: bigint;
  /** Σ notional of the assumed exits and Σ their costs, fp9. */
  readonly exitNotional: bigint;
  readonly exitCost: bigint;
  readonly positions: number;
}

/** Whether the slopes the drift bound assumes hold: fractions of at most 100%. */
export function driftBounded(p: ExposureParams, stops: Iterable<readonly StopRaw[]>): boolean {
  if (p.adverse > UNIT || p.stopSlippage > UNIT) return false;
  for (const list of stops) for (const s of list) if (s.percent > UNIT) return false;
  return true;
}
