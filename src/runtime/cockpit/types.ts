/** What the cockpit (dashboard, controls, notifications) shows and sends. */
import type { Decimal } from 'decimal.js';
import type { Direction } from '../../api/types.js';
import type { Clock } from '../../core/clock.js';
import type { Executor } from '../../execution/executor.js';
import type { MarketFeed } from '../../feed/types.js';
import type { OriginKind } from '../../report/origin.js';
import type { RiskGuard } from '../../risk/guard.js';
import type { StrategyRunner } from '../../strategy/runner.js';
import type { Pipeline } from '../pipeline.js';

/** The running pipeline the cockpit watches and acts on: its parts, accounts and markets. */
export interface CockpitVenue {
  readonly clock: Clock;
  readonly feed: MarketFeed;
  readonly guard: RiskGuard;
  readonly executor: Executor;
  readonly runner: StrategyRunner;
  readonly pipeline: Pipeline;
  readonly accounts: readonly string[];
  readonly assets: readonly string[];
}

/** One point of an account's equity chart, with the drawdown floors at that time (chart numbers). */
export interface EquityPoint {
  /** Rises with every point recorded, across accounts: the live stream sends points after the last one a page has. */
  readonly seq: number;
  /** Unix seconds. */
  readonly t: number;
  readonly equity: number;
  readonly daily: number | null;
  readonly total: number | null;
  readonly trailing: number | null;
}

export interface DecisionView {
  readonly at: number;
  readonly intentId: string;
  readonly strategy: string;
  readonly accountId: string;
  readonly kind: string;
  readonly asset: string;
  /** The intent in one line (`open long BTC market, quote 5000 x2, stop 58000`). */
  readonly summary: string;
  readonly verdict: 'approved' | 'denied';
  readonly code: string | null;
  readonly rule: string | null;
  /** A denial's reason, with the figures that decided it. */
  readonly reason: string | null;
}

/**
 * Who caused a fill: the daemon's attribution (`report/origin.ts`: strategy, stop loss, take profit,
 * trailing stop, liquidation, kill switch, force close, funding, external), or, where none was given,
 * the cockpit's own reading (`control`, `unknown`).
 */
export type FillOrigin = OriginKind | 'control' | 'unknown';

export interface FillView {
  /** `positionId:version`. */
  readonly id: string;
  readonly at: number;
  readonly accountId: string;
  readonly asset: string;
  readonly positionId: string;
  readonly direction: Direction;
  readonly action: 'open' | 'increase' | 'decrease' | 'close' | 'liquidation';
  readonly size: Decimal;
  readonly price: Decimal;
  readonly realisedPnl: Decimal | null;
  readonly fee: Decimal;
  readonly orderId: string | null;
  readonly origin: FillOrigin;
  readonly strategy: string | null;
}

/** An account's UTC day, sent when the day has ended. */
export interface DaySummary {
  readonly accountId: string;
  /** `YYYY-MM-DD`. */
  readonly day: string;
  readonly startEquity: Decimal;
  readonly endEquity: Decimal;
  readonly pnl: Decimal;
  readonly fills: number;
  readonly trades: number;
  readonly totalTrades: number;
}
