/**
 * Rules on equity: drawdown headroom of an open intent, the consistency rule, and the kill-switch test
 * the guard runs on every update.
 */
import type { AccountFigures, Floor, Rule, RuleNumbers } from '../context.js';
import { fmt, mulUp, pct, UNIT } from '../fixed.js';

/**
 * equity − worst case of the open book − worst case of the intent must stay at or above every floor
 * plus its buffer (daily: day-start equity × (1 − maxDailyDrawdown), total: initial × (1 − maxTotal),
 * trailing: max equity × (1 − maxTrailing)).
 */
export const drawdownHeadroomRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open') return undefined;
  const a = ctx.account;
  if (!a.hasRisk) return { code: 'no_risk_status', reason: `no risk status observed for ${intent.accountId} yet` };
  if (a.riskStale) return { code: 'risk_data_stale', reason: `risk status of ${intent.accountId} is stale` };
  const e = ctx.entry;
  if (e === undefined) {
    return { code: 'no_market_price', reason: `no market snapshot for ${intent.asset}: the worst case can not be priced` };
  }
  if (e.price <= 0n || e.notional <= 0n || e.leverage <= 0n) {
    return {
      code: 'invalid_intent',
      reason: `entry price ${fmt(e.price)}, notional ${fmt(e.notional)} and leverage ${fmt(e.leverage)} must all be above 0`,
    };
  }
  const open = a.openWorst + ctx.trackers.pendingWorst;
  const after = a.equity - open - e.worstLoss;
  for (const f of a.floors) {
    if (after < f.buffered) {
      return {
        code: `${f.name}_drawdown_headroom`,
        reason:
          `worst case ${fmt(e.worstLoss)} of the intent (${e.stop === null ? 'no stop: adverse move ' + pct(ctx.numbers.adverse) : 'stop ' + fmt(e.stop)}) ` +
          `plus ${fmt(open)} of the open book would leave equity ${fmt(a.equity)} at ${fmt(after)}, below the ` +
          `${f.name} floor ${fmt(f.floor)} (${pct(f.limit)} of ${fmt(f.base)}) plus buffer = ${fmt(f.buffered)}`,
      };
    }
  }
  return undefined;
};

export interface ConsistencyReach {
  readonly gain: bigint;
  readonly periodProfit: bigint;
  /** consistencyRuleLimit − buffer. */
  readonly threshold: bigint;
}

/**
 * Today's gain would make today the best day of the period and push its share of the period profit
 * above `consistencyRuleLimit − buffer`; undefined while it does not (or the rule does not apply).
 */
export function consistencyReached(
  a: Pick<AccountFigures, 'hasRisk' | 'consistency' | 'equity' | 'dayStartEquity'>,
  buffer: bigint,
): ConsistencyReach | undefined {
  const c = a.consistency;
  if (!a.hasRisk || !c.applies || c.periodStartEquity === null) return undefined;
  const gain = a.equity - a.dayStartEquity;
  if (gain <= 0n) return undefined;
  if (c.maxPeriodDailyEquityDelta !== null && gain < c.maxPeriodDailyEquityDelta) return undefined;
  const periodProfit = a.equity - c.periodStartEquity;
  if (periodProfit <= 0n) return undefined;
  const threshold = c.limit - buffer;
  // gain / periodProfit > threshold, without dividing.
  if (gain * UNIT > threshold * periodProfit) return { gain, periodProfit, threshold };
  return undefined;
}

/** While the consistency limit is within reach today, only reducing intents pass. */
export const consistencyRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open') return undefined;
  const r = consistencyReached(ctx.account, ctx.numbers.consistencyBuffer);
  if (r === undefined) return undefined;
  return {
    code: 'consistency_limit',
    reason:
      `today's gain ${fmt(r.gain)} is above ${pct(r.threshold)} of the period profit ${fmt(r.periodProfit)} ` +
      `(consistency limit ${pct(ctx.account.consistency.limit)} minus buffer): only reducing intents until the next day`,
  };
};

/**
 * share × (base − floor), rounded up: the kill switch's distance above a floor. Checked on every price
 * while a position is open, and a floor stands until the figures it is made of change, so it is kept
 * with the floor object.
 */
const KILL_DISTANCE = new WeakMap<Floor, { share: bigint; near: bigint }>();
export function killDistance(f: Floor, share: bigint): bigint {
  const kept = KILL_DISTANCE.get(f);
  if (kept !== undefined && kept.share === share) return kept.near;
  const near = mulUp(f.base - f.floor, share);
  KILL_DISTANCE.set(f, { share, near });
  return near;
}

export interface KillSwitchTrip {
  readonly floor: Floor;
  readonly code: 'kill_switch_floor' | 'kill_switch_exposure';
  readonly reason: string;
  /** Equity at or below which it trips (fp9): floor + the share of the allowance, or floor + the open worst case. */
  readonly threshold: bigint;
}

/**
 * When to flatten: equity within `share` of a floor's allowance (equity − floor ≤ share × (base − floor)),
 * or, with `onExposure`, when equity minus the worst case of the open book falls below a floor.
 */
export function killSwitchTrip(a: AccountFigures, n: RuleNumbers, onExposure: boolean): KillSwitchTrip | undefined {
  if (!a.hasRisk) return undefined;
  for (const f of a.floors) {
    const near = killDistance(f, n.killShare);
    if (a.equity - f.floor <= near) {
      return {
        floor: f,
        threshold: f.floor + near,
        code: 'kill_switch_floor',
        reason:
          `equity ${fmt(a.equity)} is within ${pct(n.killShare)} of the ${f.name} allowance ` +
          `(${fmt(near)}) above its floor ${fmt(f.floor)}`,
      };
    }
    if (onExposure && a.equity - a.openWorst < f.floor) {
      return {
        floor: f,
        threshold: f.floor + a.openWorst,
        code: 'kill_switch_exposure',
        reason:
          `equity ${fmt(a.equity)} minus the open book's worst case ${fmt(a.openWorst)} is below the ` +
          `${f.name} floor ${fmt(f.floor)}`,
      };
    }
  }
  return undefined;
}
