/**
 * What a rule sees: the guard's view of one account and one market at the time of a check, already
 * reduced to fp9 integers. Rules are pure functions of (intent, RuleContext).
 */
import type { AccountStatus, AccountType, Direction, Position } from '../api/types.js';
import type { OrderIntent } from '../strategy/intents.js';
import type { RiskGuardConfig, StrategyRiskConfig } from './config.js';
import type { EntryFigures } from './exposure.js';
import type { MarketFigures } from './market-figures.js';
import type { GuardState, RuleVerdict } from './types.js';

export type FloorName = 'daily' | 'total' | 'trailing';

/** One drawdown floor: failing equity level of a challenge rule, fp9. */
export interface Floor {
  readonly name: FloorName;
  /** The rule's fraction (0.05 = 5%). */
  readonly limit: bigint;
  /** What the fraction applies to: day-start equity, initial balance or highest equity. */
  readonly base: bigint;
  /** base × (1 − limit): equity below this fails the account. */
  readonly floor: bigint;
  /** floor + base × buffer: what the guard keeps equity above after the worst case. */
  readonly buffered: bigint;
}

export interface PositionView {
  readonly position: Position;
  readonly asset: string;
  readonly direction: Direction;
  /** Last open or increase, unix ms. */
  readonly lastIncreaseAt: number;
  /** At the latest index price known, fp9. */
  readonly unrealisedPnl: bigint;
  readonly worstLoss: bigint;
  readonly stop: bigint | null;
}

export interface ConsistencyFigures {
  readonly applies: boolean;
  readonly periodStartEquity: bigint | null;
  readonly maxPeriodDailyEquityDelta: bigint | null;
  /** consistencyRuleLimit, fp9 fraction. */
  readonly limit: bigint;
}

/** Derived from the latest snapshots; recomputed only when one of them changed. */
export interface AccountFigures {
  readonly accountId: string;
  /** False until a RiskStatus has been observed. */
  readonly hasRisk: boolean;
  readonly riskStale: boolean;
  /** From the Account record, when one was observed. */
  readonly status: AccountStatus | undefined;
  readonly type: AccountType | undefined;
  readonly phase: string;
  /** Equity marked to the latest index prices, fp9. */
  readonly equity: bigint;
  readonly balance: bigint;
  readonly dayStartEquity: bigint;
  readonly initialBalance: bigint;
  readonly floors: readonly Floor[];
  /** balance − margins of open positions − reserves of active increase orders. */
  readonly freeBalance: bigint;
  /** Σ worst case of open positions (and of pending entries when counted). */
  readonly openWorst: bigint;
  /** Open positions plus pending entries on a market and direction without a position. */
  readonly openCount: number;
  /** `${asset}:${direction}` of every position and pending entry. */
  readonly occupied: ReadonlySet<string>;
  /** Open notional of the positions per `${asset}:${direction}`, fp9. */
  readonly openNotional: ReadonlyMap<string, bigint>;
  readonly positions: readonly PositionView[];
  readonly consistency: ConsistencyFigures;
}

/** Counters the guard keeps itself (not from snapshots). */
export interface AccountTrackers {
  /** Approved opens today (UTC). */
  readonly tradesToday: number;
  /** No opens before this time after a losing streak, unix ms; 0 when none. */
  readonly cooldownUntil: number;
  readonly lossStreak: number;
  /** Last increase per asset (from positions and scalping coefficients), unix ms. */
  readonly lastIncreaseByAsset: ReadonlyMap<string, number>;
  /** End of a running scalping window per asset reported by the venue, unix ms. */
  readonly scalpingUntil: ReadonlyMap<string, number>;
  /**
   * Opens approved but not yet visible in snapshots (counted until an orders snapshot and a positions
   * snapshot of their market, both taken `pendingSettleMs` after the approval, have arrived).
   */
  readonly pendingWorst: bigint;
  readonly pendingReserve: bigint;
  /** `${asset}:${direction}` of those opens. */
  readonly pendingKeys: ReadonlySet<string>;
}

/** Configuration numbers the rules compare against, converted once to fp9. */
export interface RuleNumbers {
  readonly minLeverage: bigint;
  /** Own leverage cap; null: the market's bounds only. */
  readonly maxLeverage: bigint | null;
  readonly adverse: bigint;
  readonly stopSlippage: bigint;
  readonly consistencyBuffer: bigint;
  readonly killShare: bigint;
}

export interface RuleContext {
  readonly now: number;
  readonly config: RiskGuardConfig;
  readonly numbers: RuleNumbers;
  readonly strategy: StrategyRiskConfig;
  readonly state: GuardState;
  readonly stateReason: string;
  readonly account: AccountFigures;
  readonly trackers: AccountTrackers;
  /** The intent's market; undefined for `close_all` or when no snapshot arrived yet. */
  readonly market: MarketFigures | undefined;
  /** Worst-case figures of an `open` intent (needs its market). */
  readonly entry: EntryFigures | undefined;
}

/** A pre-trade check: a verdict against the intent, or undefined to let it pass. */
export type Rule = (intent: OrderIntent, ctx: RuleContext) => RuleVerdict | undefined;

export const DAY_MS = 86_400_000;
/** Start of the next UTC day after `ms`. */
export function nextUtcDay(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}
