/**
 * What a backtest hands to the report builders. The backtester fills a `BacktestResult`; the report
 * code only reads it. Money and prices are Decimals; times are unix ms.
 */
import type { Decimal } from 'decimal.js';
import type { Direction, Phase } from '../api/types.js';
import type { Origin } from './origin.js';

/** One equity sample (the engine samples once a minute). */
export interface EquitySample {
  readonly time: number;
  /** An fp9 figure (at most 9 decimals), as the engine's equity always is. */
  readonly equity: Decimal;
}

/**
 * A run's equity samples, oldest first: an array, or the columns a backtest keeps them in
 * (`Fp9EquitySeries`: a sample a minute for as long as the run, so not an array of objects).
 */
export interface EquitySeries extends Iterable<EquitySample> {
  readonly length: number;
  /** As `Array.prototype.at`: a negative index counts from the end. */
  at(index: number): EquitySample | undefined;
}

/** One executed order. */
export interface FillRecord {
  readonly time: number;
  /** Market asset (e.g. `BTC`), as the price series name it. */
  readonly market: string;
  readonly direction: Direction;
  /** Order type (`market`, `stop`, `take`, `liquidation`, …). */
  readonly type: string;
  /** What the fill did to the position: `open`, `increase`, `decrease`, `close`, `liquidation`. */
  readonly action?: string;
  readonly price: Decimal;
  /** Base size. */
  readonly size: Decimal;
  readonly fee: Decimal;
  /** Realised pnl of a reducing fill (before fees); null for an increase. */
  readonly realizedPnl: Decimal | null;
  /** The strategy intent that led to it; null for fills the platform raised (liquidation, force close). */
  readonly intentId: string | null;
  readonly orderId?: string;
  readonly positionId?: string;
  /** Who or what made the fill: the strategy (with its intent), a protective order, the platform, the guard. */
  readonly origin?: Origin;
  /** Trigger of the protective order that filled (stop, take, trailing stop); null for other fills. */
  readonly trigger?: Decimal | null;
  /** Index price the order executed at (before spread and impact). */
  readonly indexPrice?: Decimal | null;
}

/** One position from open to close (or still open at the end of the run). */
export interface TradeRecord {
  readonly positionId: string;
  readonly market: string;
  readonly direction: Direction;
  readonly openedAt: number;
  /** null while still open at the end of the run. */
  readonly closedAt: number | null;
  readonly entryPrice: Decimal;
  readonly exitPrice: Decimal | null;
  /** Largest base size the position had. */
  readonly size: Decimal;
  /** Realised pnl before fees and funding. */
  readonly realizedPnl: Decimal;
  readonly fees: Decimal;
  /** Funding received (positive) or paid (negative). */
  readonly funding: Decimal;
  /** `closed`, `liquidated`, `force_closed`, `open`… */
  readonly status: string;
  /** Why it ended: the origin kind of the closing fill, or the platform's reason of a force close. */
  readonly closeReason?: string | null;
  /** Origin of the fill that closed it; absent while open. */
  readonly closeOrigin?: Origin;
}

/** Something the risk guard did on its own (the kill switch), with the figures that tripped it. */
export interface GuardActionRecord {
  readonly at: number;
  readonly rule: string;
  readonly code: string;
  readonly reason: string;
  readonly intentId: string;
  /** The drawdown floor approached: `daily`, `total`, `trailing`. */
  readonly floorRule: string;
  readonly equity: Decimal;
  readonly floor: Decimal;
  readonly threshold: Decimal;
}

/** One funding settlement. */
export interface FundingRecord {
  readonly time: number;
  readonly market: string;
  /** Received (positive) or paid (negative). */
  readonly amount: Decimal;
}

/** An intent the risk guard refused. */
export interface DenialRecord {
  readonly at: number;
  readonly intentId: string;
  readonly code: string;
  readonly reason: string;
  readonly rule: string;
}

export interface PerfInfo {
  /** Market snapshots replayed: the price steps. */
  readonly snapshots: number;
  /** Of those, the steps nothing needed published (see `LocalSessionOptions.quietSteps`). */
  readonly quietSteps?: number;
  /** Candles emitted to strategies. */
  readonly candles: number;
  /** Wall-clock duration of the run, ms. */
  readonly wallMs: number;
}

/** The account's challenge rules for the run (percent values: 5 = 5%), and the engine's verdict. */
export interface ChallengeInfo {
  readonly phase: Phase;
  readonly profitTargetPct: Decimal | null;
  readonly maxDailyDrawdownPct: Decimal | null;
  readonly maxTotalDrawdownPct: Decimal | null;
  readonly maxTrailingDrawdownPct: Decimal | null;
  readonly minProfitableDays: number | null;
  /** Consistency limit: the best day may make at most this percent of the profit (funded). */
  readonly consistencyLimitPct: Decimal | null;
  /** A profitable day gains at least this percent of the initial balance (engine default 0.5). */
  readonly profitableDayPct: Decimal;
  /** The engine's failure, if the account failed: the rule (`max_daily_drawdown`, …) and when. */
  readonly failure: { readonly rule: string; readonly at: number } | null;
  /**
   * Phase changes the engine made during the run (`phase` is the one the run started in). A change
   * out of `phase` is the engine's verdict that the phase was passed, at that moment.
   */
  readonly transitions?: ReadonlyArray<{ readonly at: number; readonly from: string; readonly to: string }>;
}

/** Pnl of one UTC day. */
export interface DailyPnl {
  /** `YYYY-MM-DD` (UTC). */
  readonly day: string;
  readonly startEquity: Decimal;
  readonly endEquity: Decimal;
  readonly pnl: Decimal;
}

/** The challenge floors in force at `time` (equity below a floor fails the account). */
export interface FloorPoint {
  readonly time: number;
  readonly daily: Decimal | null;
  readonly total: Decimal | null;
  readonly trailing: Decimal | null;
}

/** Price candles of one market, for the chart (as replayed). */
export interface PriceCandle {
  readonly time: number;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
}

export interface PriceSeries {
  readonly market: string;
  readonly candles: readonly PriceCandle[];
}

/** What reading one market's data file found: the report shows it so a bad file is never a silent result. */
export interface DataFileReport {
  readonly market: string;
  readonly file: string;
  readonly layout: string;
  /** Candle period of the file, ms. */
  readonly periodMs: number | null;
  /** How its timestamps were read: `s`, `ms`, `us` (epoch) or `date` (UTC text). */
  readonly timeUnit: string | null;
  readonly rows: number;
  readonly badRows: number;
  /** The first bad rows: line (1-based) and reason. */
  readonly badRowSamples: ReadonlyArray<{ readonly line: number; readonly reason: string; readonly message: string }>;
  readonly gaps: number;
  readonly missingPeriods: number;
  /** The first gaps: open time of the row before and after, and the line after. */
  readonly gapSamples: ReadonlyArray<{ readonly afterTime: number; readonly nextTime: number; readonly missingPeriods: number; readonly line: number }>;
  /** Weekend closes of a market that does not trade on weekends. */
  readonly sessionBreaks: number;
  /** Rows with prices finer than 9 decimals, rounded half-even, and the first one's line. */
  readonly roundedRows: number;
  readonly firstRoundedLine: number | null;
}

export interface BacktestResult {
  /** Run name (scenario), shown as the title. */
  readonly name: string;
  readonly strategy?: string;
  /** First and last replayed time, unix ms. */
  readonly startTime: number;
  readonly endTime: number;
  readonly initialBalance: Decimal;
  readonly equity: EquitySeries;
  readonly fills: readonly FillRecord[];
  readonly trades: readonly TradeRecord[];
  readonly denials: readonly DenialRecord[];
  /** The guard's own actions (kill switch); none when it never acted. */
  readonly guardActions?: readonly GuardActionRecord[];
  readonly funding?: readonly FundingRecord[];
  readonly perf: PerfInfo;
  readonly challenge?: ChallengeInfo;
  /** Daily pnl; computed from `equity` when absent. */
  readonly dailyPnl?: readonly DailyPnl[];
  /** Floors over time; computed from `equity` and `challenge` when absent. */
  readonly floors?: readonly FloorPoint[];
  /** `off`: run without the challenge rules and the risk guard (the report says so at the top). */
  readonly rules?: 'on' | 'off';
  /** Candles for the price charts; none → no price chart. */
  readonly prices?: readonly PriceSeries[];
  /** Strategies that threw and were stopped during the run; none → every strategy ran to the end. */
  readonly failures?: readonly StrategyFailure[];
  /** What reading each market's data file found. */
  readonly data?: readonly DataFileReport[];
}

/** A strategy stopped by a throw of its own code (the run went on without it). */
export interface StrategyFailure {
  /** Instance name. */
  readonly strategy: string;
  /** Market time it was stopped, unix ms. */
  readonly at: number;
  /** `in setup`, `in its stream`, or `emitted an invalid intent`. */
  readonly failedIn: string;
  readonly message: string;
  /** `file:line:column` in the strategy's code, when known. */
  readonly location: string | null;
}
