/** Every rule, in the order the guard runs them (cheap and decisive first). */
import type { RiskGuardConfig } from '../config.js';
import type { Rule } from '../context.js';
import { consistencyRule, drawdownHeadroomRule } from './drawdown.js';
import { tradesPerDayRule, openPositionsRule, lossStreakRule } from './limits.js';
import { marketStatusRule } from './market.js';
import { freeBalanceRule, leverageRule, notionalCapRule } from './sizing.js';
import { accountStatusRule, guardStateRule } from './state.js';
import { profitWindowRule, scalpingWindowRule } from './timing.js';

export * from './drawdown.js';
export * from './limits.js';
export * from './market.js';
export * from './sizing.js';
export * from './state.js';
export * from './timing.js';

export interface RuleEntry {
  /** Name in decisions (`Denial.rule`). */
  readonly name: string;
  readonly rule: Rule;
  /** Whether the configuration enables it; the guard's own state rule is always on. */
  readonly enabled: (config: RiskGuardConfig) => boolean;
}

export const RULES: readonly RuleEntry[] = [
  { name: 'guard_state', rule: guardStateRule, enabled: () => true },
  { name: 'account_status', rule: accountStatusRule, enabled: (c) => c.accountStatus.enabled },
  { name: 'market_status', rule: marketStatusRule, enabled: (c) => c.marketStatus.enabled },
  { name: 'leverage', rule: leverageRule, enabled: (c) => c.leverage.enabled },
  { name: 'notional_cap', rule: notionalCapRule, enabled: (c) => c.notionalCap.enabled },
  { name: 'free_balance', rule: freeBalanceRule, enabled: (c) => c.freeBalance.enabled },
  { name: 'scalping_window', rule: scalpingWindowRule, enabled: (c) => c.scalping.enabled },
  { name: 'trades_per_day', rule: tradesPerDayRule, enabled: (c) => c.tradesPerDay.enabled },
  { name: 'open_positions', rule: openPositionsRule, enabled: (c) => c.openPositions.enabled },
  { name: 'loss_streak', rule: lossStreakRule, enabled: (c) => c.lossStreak.enabled },
  { name: 'consistency', rule: consistencyRule, enabled: (c) => c.consistency.enabled },
  { name: 'drawdown', rule: drawdownHeadroomRule, enabled: (c) => c.drawdown.enabled },
  { name: 'profit_window', rule: profitWindowRule, enabled: (c) => c.profitWindow.enabled },
];

