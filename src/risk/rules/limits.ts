/** Count limits: opens per day, open positions, and the cooldown after a losing streak. */
import { nextUtcDay, type Rule } from '../context.js';

/** At most `tradesPerDay.max` approved opens per account and UTC day. */
export const tradesPerDayRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open') return undefined;
  const max = ctx.config.tradesPerDay.max;
  if (ctx.trackers.tradesToday >= max) {
    return {
      code: 'trades_per_day',
      reason: `${ctx.trackers.tradesToday} opens approved today, the limit is ${max}`,
      retryAt: nextUtcDay(ctx.now),
    };
  }
  return undefined;
};

/** An open that starts a new position (no position or pending entry on that market and direction) needs room. */
export const openPositionsRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open') return undefined;
  const max = ctx.config.openPositions.max;
  const key = `${intent.asset}:${intent.direction}`;
  if (ctx.account.occupied.has(key) || ctx.trackers.pendingKeys.has(key)) return undefined;
  let count = ctx.account.openCount;
  for (const k of ctx.trackers.pendingKeys) if (!ctx.account.occupied.has(k)) count += 1;
  if (count >= max) {
    return {
      code: 'open_positions',
      reason: `${count} positions and pending entries are open, the limit is ${max}`,
    };
  }
  return undefined;
};

/** After `lossStreak.losses` losing trades in a row, no opens until `cooldownMs` after the last one. */
export const lossStreakRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open') return undefined;
  if (ctx.now < ctx.trackers.cooldownUntil) {
    return {
      code: 'loss_streak_cooldown',
      reason:
        `cooling down after ${ctx.config.lossStreak.losses} losing trades in a row, ` +
        `until ${new Date(ctx.trackers.cooldownUntil).toISOString()}`,
      retryAt: ctx.trackers.cooldownUntil,
    };
  }
  return undefined;
};
