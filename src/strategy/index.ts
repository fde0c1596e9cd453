/** The strategy plugin API: what plugin files import from 'propbot'. */
export * from './intents.js';
export { defineStrategy, isStrategy, resolveAssets, STRATEGY_API_VERSION } from './define.js';
export type { Strategy, StrategyDefinition, StrategyContext, AccountFeed, CandleDecision, Warmup } from './define.js';
export { warmupMs, withinWindow } from './window.js';
export type { TradingWindow } from './window.js';
export { zDecimal, parseParams } from './params.js';
export type { DecimalParamOptions, ParamsSchema } from './params.js';
export { MemoryStrategyState, MemoryStateStore, toJsonValue } from './state.js';
export type { StrategyState, StrategyStateStore, JsonValue } from './state.js';
export { IntentBuilders, ALL_ASSETS } from './intent-builders.js';
export type {
  DecimalInput,
  SizeSpec,
  OpenSpec,
  CloseSpec,
  ProtectSpec,
  CancelSpec,
  CloseAllSpec,
  IntentEnvironment,
} from './intent-builders.js';
export { sizeByRisk, IntentError } from './sizing.js';
export type { RiskSizingInput, RiskSizing } from './sizing.js';
export { GuardedObservable, guard } from './guarded.js';
export type { GuardScope } from './guarded.js';
export { createStrategyContext } from './context.js';
export type { ContextInit } from './context.js';
export { importStrategy, loadStrategy, looksLikePath } from './loader.js';
export type { LoadedStrategy, LoadStrategyOptions } from './loader.js';
export { StrategyRunner } from './runner.js';
export type { StrategyRunnerOptions, AddStrategyOptions, StrategyRunState, StrategyStatus } from './runner.js';
export {
  ta,
  SMA,
  EMA,
  RSI,
  ATR,
  BollingerBands,
  DonchianChannels,
  MACD,
  candleNumbers,
  closeNumber,
  priceFrom,
  withIndicator,
} from './indicators.js';
export type { IndicatorLike, IndicatorValue, HighLowCloseNumbers } from './indicators.js';
// Plugins import everything from 'propbot', so they share propbot's copies of zod and RxJS.
export { z } from 'zod';
export * as rx from 'rxjs';
export type { Observable } from 'rxjs';
