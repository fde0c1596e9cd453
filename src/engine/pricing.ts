/**
 * The pricing model of ENGINE-MODEL.md as pure fp9 functions: fill prices with spread and impact, quote
 * sizing of an increase, the pnl of a position marked at the index price and its liquidation price.
 */
import { S, S2, ceilDiv, divFloor, floorDiv, minB, mulCeil, mulFloor } from './fixed.js';
import type { MarketRt, PositionRt } from './state.js';

export interface FillQuote {
  price: bigint;
  /** Scalping multiplier in force for the fill. */
  multiplier: bigint;
}

/**
 * Fill price of a buy (`buy` true) or sell of `notional` quote at the market's index price I:
 * spread `s = isZeroSpread ? 0 : min(spreadLimit, vpiSpread × k)`, impact
 * `q = min(maxPriceImpact, coefficient × notional / depth)`; buys at `I(1 + s + q)` rounded up, sells at
 * `I(1 − s − q)` rounded down.
 */
export function fillQuote(m: MarketRt, multiplier: bigint, buy: boolean, notional: bigint): FillQuote {
  const s = m.isZeroSpread ? 0n : minB(m.spreadLimit, mulFloor(m.vpiSpread, multiplier));
  const depth = buy ? m.depthLong : m.depthShort;
  const coef = buy ? m.coefLong : m.coefShort;
  const q = depth > 0n ? minB(m.maxImpact, floorDiv(coef * notional, depth)) : 0n;
  const price = buy ? mulCeil(m.price, S + s + q) : mulFloor(m.price, S - s - q);
  return { price, multiplier };
}

/** Notional of a quote-mode increase: A·L / (1 + f·L), trimmed so margin + fee never exceed A. */
export function quoteSizing(amount: bigint, leverage: bigint, fee: bigint): { notional: bigint; margin: bigint; fee: bigint } {
  let n = floorDiv(amount * leverage * S, S2 + fee * leverage);
  for (;;) {
    const margin = divFloor(n, leverage);
    const f = mulCeil(n, fee);
    if (margin + f <= amount || n <= 0n) return { notional: n, margin, fee: f };
    n -= 1n;
  }
}

/**
 * Unrealised pnl of an account's holding on one market at index price `price` (ENGINE-MODEL: equity =
 * balance + Σ unrealised pnl at I): `floor(netSize × I) − netNotional`, with size and notional signed
 * (long +, short −). The engine's equity and the risk guard's both come from this one function, so
 * the two agree to the fp9 unit at the same price.
 */
export function holdingPnl(netSize: bigint, netNotional: bigint, price: bigint): bigint {
  return floorDiv(netSize * price, S) - netNotional;
}

/** Pnl of a position marked at its market's index price. */
export function markPnl(pos: PositionRt): bigint {
  const value = floorDiv(pos.size * pos.market.price, S);
  return pos.direction === 'long' ? value - pos.notional : pos.notional - value;
}

/**
 * Cache the liquidation price (margin + pnl ≤ mmr × size × price): long
 * `(entry × size − margin) / (size × (1 − mmr))` rounded down (fires at or below), short
 * `(entry × size + margin) / (size × (1 + mmr))` rounded up (fires at or above).
 */
export function refreshLiquidationPrice(pos: Pick<PositionRt, 'direction' | 'market' | 'size' | 'notional' | 'margin' | 'liqPrice'>): void {
  const mmr = pos.market.mmr;
  if (pos.size <= 0n) return;
  if (pos.direction === 'long') {
    const num = (pos.notional - pos.margin) * S2;
    pos.liqPrice = num <= 0n ? 0n : floorDiv(num, pos.size * (S - mmr));
  } else {
    pos.liqPrice = ceilDiv((pos.notional + pos.margin) * S2, pos.size * (S + mmr));
  }
}
