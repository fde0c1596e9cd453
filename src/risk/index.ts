/** The risk guard: pre-trade rules, per-account guard state, kill switch. */
export * from './types.js';
export * from './config.js';
export type {
  AccountFigures,
  AccountTrackers,
  ConsistencyFigures,
  Floor,
  FloorName,
  PositionView,
  Rule,
  RuleContext,
  RuleNumbers,
} from './context.js';
export { nextUtcDay, DAY_MS } from './context.js';
export * from './rules/index.js';
export {
  entryFigures,
  intentEntryFigures,
  entryPrice,
  positionWorstLoss,
  protectiveStop,
  quoteNotional,
} from './exposure.js';
export type { EntryFigures, EntrySpec, ExposureParams } from './exposure.js';
export { marketFigures, fillCost } from './market-figures.js';
export type { MarketFigures } from './market-figures.js';
export { RiskGuard } from './guard.js';
export type { RiskGuardOptions, GuardLogger, TradeRecord, ConnectOptions, GuardAccountView } from './guard.js';
