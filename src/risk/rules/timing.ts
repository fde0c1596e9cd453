/** Rules on timing: the 60-second profit window of closes, and the scalping window of opens. */
import type { Rule } from '../context.js';
import { fmt } from '../fixed.js';

/**
 * A close that would realise profit within `profitWindow.windowMs` of the position's last open or
 * increase is held (the platform would cap its profit): a denial `held_profit_window` with `retryAt`.
 * A close at a loss (a stop-loss) is never held, nor is flattening.
 */
export const profitWindowRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'close') return undefined;
  const windowMs = ctx.config.profitWindow.windowMs;
  for (const p of ctx.account.positions) {
    if (intent.positionId !== undefined ? p.position.idx !== intent.positionId : p.asset !== intent.asset || p.direction !== intent.direction) {
      continue;
    }
    const until = p.lastIncreaseAt + windowMs;
    if (ctx.now < until && p.unrealisedPnl > 0n) {
      return {
        code: 'held_profit_window',
        reason:
          `closing ${p.position.idx} now would realise profit ${fmt(p.unrealisedPnl)} ${ctx.now - p.lastIncreaseAt} ms ` +
          `after its last increase (window ${windowMs} ms); held until ${new Date(until).toISOString()}`,
        retryAt: until,
      };
    }
  }
  return undefined;
};

/**
 * Opening inside the scalping window (within `scalping.windowMs` of the last increase on the market, or
 * while the venue reports a running window) is denied unless the strategy has `allowScalping`.
 */
export const scalpingWindowRule: Rule = (intent, ctx) => {
  if (intent.kind !== 'open' || ctx.strategy.allowScalping) return undefined;
  const last = ctx.trackers.lastIncreaseByAsset.get(intent.asset);
  let until = last === undefined ? 0 : last + ctx.config.scalping.windowMs;
  const reported = ctx.trackers.scalpingUntil.get(intent.asset);
  if (reported !== undefined && reported > until) until = reported;
  if (ctx.now < until) {
    return {
      code: 'scalping_window',
      reason:
        `inside the scalping window on ${intent.asset} until ${new Date(until).toISOString()}` +
        `${last === undefined ? '' : ` (last increase ${new Date(last).toISOString()})`}; strategy ${intent.strategy} does not allow scalping`,
      retryAt: until,
    };
  }
  return undefined;
};
