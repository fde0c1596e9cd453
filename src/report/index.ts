export type {
  BacktestResult,
  ChallengeInfo,
  DailyPnl,
  DenialRecord,
  EquitySample,
  FillRecord,
  FloorPoint,
  FundingRecord,
  GuardActionRecord,
  PerfInfo,
  PriceCandle,
  PriceSeries,
  StrategyFailure,
  TradeRecord,
  DataFileReport,
} from './types.js';
export {
  computeMetrics,
  dailyPnlFromEquity,
  dailyReturns,
  floorsFromEquity,
  maxDrawdown,
  sharpeRatio,
  sortinoRatio,
  tradeStats,
  stopStats,
  utcDay,
  DAYS_PER_YEAR,
  type Drawdown,
  type ReportMetrics,
  type TradeStats,
  type StopStats,
} from './metrics.js';
export { fillOrigin, ORIGIN_KINDS, type Origin, type OriginKind, type IntentRef, type FillOrderRef } from './origin.js';
export { computeChallenge, type ChallengeOutcome } from './challenge.js';
export { computePropOdds, type PropOdds } from './prop-odds.js';
export { buildReportJson, REPORT_FORMAT, REPORT_VERSION, type ReportJson } from './report-json.js';
export { renderReportHtml, escapeHtml, type HtmlReportOptions } from './html.js';
export { writeReport, type ReportSummaryJson } from './write.js';
export { encodeResult, decodeResult } from './result-codec.js';
