/**
 * What the risk guard says about an intent. A denial is an event with a machine-readable code, never
 * an exception; the executor only ever sees approved intents.
 */
import type { Decimal } from 'decimal.js';
import type { GuardActionRecord } from '../report/types.js';
import type { OrderIntent } from '../strategy/intents.js';

export type GuardState = 'ACTIVE' | 'REDUCING' | 'HALTED';

export interface Approval {
  readonly verdict: 'approved';
  readonly intent: OrderIntent;
  /** Clock time of the decision, unix ms. */
  readonly at: number;
}

export interface Denial {
  readonly verdict: 'denied';
  readonly intent: OrderIntent;
  readonly at: number;
  /** Machine-readable, stable: e.g. `daily_drawdown_headroom`, `market_paused`. */
  readonly code: string;
  /** For a human, with the numbers that decided it. */
  readonly reason: string;
  /** The rule that denied it. */
  readonly rule: string;
  /**
   * Set when the denial is a hold rather than a refusal: the same intent would pass from this time on
   * (unix ms), e.g. `held_profit_window`, a cooldown or a scheduled pause. Nothing re-submits it by itself.
   */
  readonly retryAt?: number;
}

export type Decision = Approval | Denial;

export interface GuardStateChange {
  readonly accountId: string;
  readonly from: GuardState;
  readonly to: GuardState;
  readonly reason: string;
  readonly at: number;
}

/** What one rule says against an intent; the guard turns it into a Denial. */
export interface RuleVerdict {
  readonly code: string;
  readonly reason: string;
  readonly retryAt?: number;
}

/**
 * The platform's equity in a risk snapshot differs from the guard's own derivation (balance + the
 * positions marked at the index prices read around that snapshot) by more than one fp9 unit: the guard
 * judges on a figure the platform does not have. Published on `RiskGuard.divergence$`.
 */
export interface EquityDivergence {
  readonly accountId: string;
  /** When the risk snapshot was taken, unix ms. */
  readonly at: number;
  /** `currentEquity` of the risk snapshot. */
  readonly platform: Decimal;
  /** The guard's equity at the index prices read just before and just after the risk read (low ≤ high). */
  readonly guardLow: Decimal;
  readonly guardHigh: Decimal;
  /** platform − the nearer of the guard's figures. */
  readonly difference: Decimal;
}

/**
 * An action the guard took on its own (the kill switch flattening an account): a decision like any
 * other, with the rule, the code and the figures that tripped it (the report's record of it, plus the
 * account). Published on `RiskGuard.actions$`.
 */
export interface GuardAction extends GuardActionRecord {
  readonly accountId: string;
  /** `kill_switch` (the guard's flatten-and-halt), or `guard_flatten`. */
  readonly rule: 'kill_switch' | 'guard_flatten';
}
