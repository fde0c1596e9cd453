/**
 * When a deferred order fires (the ENGINE-MODEL trigger table), trailing-stop state, and the per-market
 * band of prices that fires nothing (so the hot path can skip the order loop).
 */
import { mulFloor } from './fixed.js';
import type { MarketRt, OrderRt } from './state.js';

/** Does the order fire at price p? Moves a trailing stop's activation, extreme and level as it goes. */
export function fires(o: OrderRt, p: bigint): boolean {
  const long = o.direction === 'long';
  switch (o.type) {
    case 'limit':
      return long ? p <= o.trigger : p >= o.trigger;
    case 'stop_market':
    case 'stop_limit':
      return long ? p >= o.trigger : p <= o.trigger;
    case 'stop':
      return long ? p <= o.trigger : p >= o.trigger;
    case 'take':
      return long ? p >= o.trigger : p <= o.trigger;
    case 'trailing_stop': {
      if (!o.trailActive) {
        if (long ? p < o.trailActivation : p > o.trailActivation) return false;
        o.trailActive = true;
        o.trailExtreme = p;
        o.trigger = trailLevel(o);
        return false;
      }
      if (long ? p > o.trailExtreme : p < o.trailExtreme) {
        o.trailExtreme = p;
        o.trigger = trailLevel(o);
        return false;
      }
      return long ? p <= o.trigger : p >= o.trigger;
    }
    default:
      return false;
  }
}

/** Start trailing at creation when there is no activation price or it is reached already. */
export function trailInit(o: OrderRt): void {
  const m = o.market;
  const long = o.direction === 'long';
  if (o.trailActivation === 0n || (m.hasPrice && (long ? m.price >= o.trailActivation : m.price <= o.trailActivation))) {
    o.trailActive = true;
    o.trailExtreme = m.price;
    o.trigger = trailLevel(o);
  }
}

/** Peak − offset for a long (trough + offset for a short); a percent offset is taken of the extreme. */
function trailLevel(o: OrderRt): bigint {
  const x = o.trailExtreme;
  const off = o.trailOffsetPct > 0n ? mulFloor(x, o.trailOffsetPct) : o.trailOffset;
  return o.direction === 'long' ? x - off : x + off;
}

/**
 * The highest trigger among orders firing at or below it and the lowest among those firing at or above:
 * a price strictly between the two fires nothing, so the loop is skipped. Cached per list identity and
 * length (every change to the list replaces it or pushes); trailing stops move, so they always loop.
 */
export function updateThresholds(m: MarketRt): void {
  let below = -1n;
  let above = -1n;
  let always = false;
  for (const o of m.orders) {
    if (o.status !== 'active') continue;
    if (o.type === 'trailing_stop') {
      always = true;
      continue;
    }
    const long = o.direction === 'long';
    const firesBelow = o.type === 'limit' || o.type === 'stop' ? long : !long;
    if (firesBelow) {
      if (o.trigger > below) below = o.trigger;
    } else if (above < 0n || o.trigger < above) above = o.trigger;
  }
  m.thrList = m.orders;
  m.thrLen = m.orders.length;
  m.thrBelow = below;
  m.thrAbove = above < 0n ? 1n << 120n : above;
  m.thrAlways = always;
}
