/**
 * The local engine: the platform's semantics (spec + ENGINE-MODEL.md), in process, deterministic, no I/O.
 * `Engine` is the façade; `engine.exchangeFor(userId)` gives the `Exchange` port acting as that user.
 */
export { Engine } from './engine.js';
export { LocalExchange, LocalReads } from './local-exchange.js';
export type { LocalExchangeOptions } from './local-exchange.js';
export { ENGINE_PRESETS, mergePresets, validatePresets } from './presets.js';
export type {
  AccountPreset,
  EngineLimits,
  EnginePresets,
  MarketPreset,
  PhasePreset,
  PresetOverrides,
  WeeklyBreak,
} from './presets.js';
export type { AccountSpec, EngineAccountFigures, EngineConfig, EngineEvent, EngineListener, MarketFlags, MarketSpec } from './types.js';
export { ENGINE_ACCOUNT_EVENT_TYPES } from './account-events.js';
export type { EngineAccountEventType } from './account-events.js';
