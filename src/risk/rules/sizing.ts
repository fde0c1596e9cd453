/** Rules on the size of an open intent: leverage bounds, the market's notional cap, free balance. */
import type { Rule } from '../context.js';
import { fmt } from '../fixed.js';

/**
 * Leverage within [minLeverage, max], where max is the smallest of 1 / minInitMarginRatio, the market's
 * `maxLeverageByAccount` for the account type (the smallest of them while the type is unknown) and the
 * configured `leverage.maxLeverage`.
 */
export const leverageRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open' || ctx.entry === undefined || ctx.market === undefined) return undefined;
  const lev = ctx.entry.leverage;
  const min = ctx.numbers.minLeverage;
  if (lev < min) {
    return { code: 'leverage_below_min', reason: `leverage ${fmt(lev)} is below the minimum ${fmt(min)}` };
  }
  const m = ctx.market;
  let max: bigint | null = m.maxLeverageByMargin;
  let from = 'market minInitMarginRatio';
  const type = ctx.account.type;
  const byType = type === undefined ? m.maxLeverageAnyType : (m.maxLeverageByAccount.get(type) ?? null);
  if (byType !== null && (max === null || byType < max)) {
    max = byType;
    from = type === undefined ? 'market maxLeverageByAccount (smallest, account type unknown)' : `market maxLeverageByAccount.${type}`;
  }
  const own = ctx.numbers.maxLeverage;
  if (own !== null && (max === null || own < max)) {
    max = own;
    from = 'leverage.maxLeverage';
  }
  if (max !== null && lev > max) {
    return { code: 'leverage_above_max', reason: `leverage ${fmt(lev)} is above the maximum ${fmt(max)} (${from})` };
  }
  return undefined;
};

/**
 * Notional (amount − fee) × leverage = A / (1/L + f), on top of the account's open notional on that
 * market and side, within maxOpenNotionalLong/Short (0 = no cap).
 */
export const notionalCapRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open' || ctx.entry === undefined || ctx.market === undefined) return undefined;
  const cap = intent.direction === 'long' ? ctx.market.capLong : ctx.market.capShort;
  if (cap === 0n) return undefined;
  const open = ctx.account.openNotional.get(`${intent.asset}:${intent.direction}`) ?? 0n;
  if (open + ctx.entry.notional > cap) {
    return {
      code: 'max_open_notional',
      reason:
        `notional ${fmt(ctx.entry.notional)} of the ${intent.direction} open on ${intent.asset}` +
        `${open > 0n ? ` on top of the open ${fmt(open)}` : ''} is above ` +
        `the market's maxOpenNotional${intent.direction === 'long' ? 'Long' : 'Short'} ${fmt(cap)}`,
    };
  }
  return undefined;
};

/** The reserve must fit the free balance: balance − margins − reserves of active increase orders. */
export const freeBalanceRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open' || ctx.entry === undefined) return undefined;
  const a = ctx.account;
  if (!a.hasRisk) return { code: 'no_risk_status', reason: `no risk status observed for ${intent.accountId} yet` };
  const free = a.freeBalance - ctx.trackers.pendingReserve;
  if (ctx.entry.reserve > free) {
    return {
      code: 'insufficient_free_balance',
      reason:
        `amount ${fmt(ctx.entry.reserve)} is above the free balance ${fmt(free)} (balance ${fmt(a.balance)}` +
        `${ctx.trackers.pendingReserve > 0n ? `, ${fmt(ctx.trackers.pendingReserve)} held for approved opens not yet seen` : ''})`,
    };
  }
  return undefined;
};
