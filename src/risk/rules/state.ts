/** Rules on the account as a whole: the guard's own state and the platform's account status. */
import { LOCKED_STATUSES } from '../../api/types.js';
import { isReducing } from '../../strategy/intents.js';
import type { Rule } from '../context.js';

/** HALTED lets only cancels and flattening through; REDUCING only intents that cannot grow exposure. */
export const guardStateRule: Rule = (intent, ctx) => {
  if (ctx.state === 'HALTED') {
    if (intent.kind === 'cancel' || intent.kind === 'close_all') return undefined;
    return {
      code: 'guard_halted',
      reason: `account ${intent.accountId} is HALTED (${ctx.stateReason}); only cancel and close_all pass, got ${intent.kind}`,
    };
  }
  if (ctx.state === 'REDUCING' && !isReducing(intent)) {
    return {
      code: 'guard_reducing',
      reason: `account ${intent.accountId} is REDUCING (${ctx.stateReason}); only reducing intents pass, got ${intent.kind}`,
    };
  }
  return undefined;
};

/**
 * Trading needs the `active` status; a managed-capital lock (`trading_locked_*`) still lets reducing
 * intents through; every other status stops trading.
 */
export const accountStatusRule: Rule = (intent, ctx) => {
  const status = ctx.account.status;
  if (status === undefined) {
    if (ctx.config.accountStatus.requireAccountRecord && intent.kind === 'open') {
      return {
        code: 'account_unknown',
        reason: `no Account record observed for ${intent.accountId}; opens wait for one (accountStatus.requireAccountRecord)`,
      };
    }
    return undefined;
  }
  if (status === 'active') return undefined;
  if (LOCKED_STATUSES.includes(status)) {
    if (isReducing(intent)) return undefined;
    return {
      code: 'account_locked',
      reason: `account ${intent.accountId} is ${status} (managed-capital limit): only reducing intents pass`,
    };
  }
  return { code: 'account_not_trading', reason: `account ${intent.accountId} is ${status}, not a trading status` };
};
