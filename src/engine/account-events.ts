/**
 * Account lifecycle event types the engine raises. The spec shows only `buy_challenge`; the others are
 * the engine's own (documented in src/engine/README.md), each with the payload named here.
 */
export const ENGINE_ACCOUNT_EVENT_TYPES = {
  /** A `real` account was opened for a bought challenge. Payload: `amount` (fp9 raw string), `provider`. */
  buy_challenge: 'buy_challenge',
  /** A `demo` account was opened. Payload: `initialBalance` (fp9 raw). */
  open_demo_account: 'open_demo_account',
  /** A `tournament` account was opened. Payload: `initialBalance` (fp9 raw). */
  open_tournament_account: 'open_tournament_account',
  /** A drawdown rule failed the account. Payload: `failureReason`, `equity`, `threshold` (fp9 raw), `phase`. */
  challenge_failed: 'challenge_failed',
  /** The phase target was reached. Payload: `fromPhase`, `toPhase`, `equity` (fp9 raw), `profitableDays`. */
  phase_passed: 'phase_passed',
  /** The account reached a funded phase. Payload: `phase`. */
  account_funded: 'account_funded',
  /** A withdrawal period closed. Payload: `periodStartEquity`, `periodEndEquity` (fp9 raw), `profitableDays`. */
  withdrawal_period_closed: 'withdrawal_period_closed',
  /** The status changed by `setAccountStatus`. Payload: `from`, `to`. */
  status_changed: 'status_changed',
  /** Locked by the managed-capital limit. Payload: `status`. */
  funded_limit_locked: 'funded_limit_locked',
  /** Left a managed-capital lock. Payload: `status`. */
  funded_limit_unlocked: 'funded_limit_unlocked',
} as const;
export type EngineAccountEventType = keyof typeof ENGINE_ACCOUNT_EVENT_TYPES;
