/**
 * The public API of propbot. Plugin files import from 'propbot'; everything they may use is named here.
 */
export { Dec, dec, ZERO, ONE } from './core/decimal.js';
export {
  FP9_PATTERN,
  FP9_SCALE,
  decodeFp9,
  encodeFp9,
  parseFp9Raw,
  roundFp9,
  toFp9Raw,
  fromFp9Raw,
} from './core/fp9.js';
export type { Fp9Rounding } from './core/fp9.js';
export { PropbotError, Fp9FormatError, Fp9PrecisionError, ConfigError } from './core/errors.js';
export { ensureDirectory, DirectoryError } from './core/directories.js';
export { WallClock, VirtualClock } from './core/clock.js';
export type { Clock } from './core/clock.js';
export { newId, SeededIds, uuidFromString } from './core/ids.js';
export { holdYoungGeneration, youngGenerationBytes, YOUNG_GENERATION_MB } from './core/young-generation.js';

export * from './api/types.js';
export type { Exchange, ExchangeOperation, WriteOptions, Idempotent, IdempotencyInfo } from './api/exchange.js';
export { OPERATION_BUCKET, paginate } from './api/exchange.js';
export * from './api/errors.js';

export * from './feed/index.js';
export * from './strategy/index.js';

export { HttpExchange, parseRetryAfter } from './api/client.js';
export type { HttpExchangeOptions, ClientLogger } from './api/client.js';
export { ResponseShapeError } from './api/wire.js';
export { CREATE_ORDER_FIELDS, EDIT_ORDER_FIELDS, misplacedCreateFields, misplacedEditFields } from './api/order-fields.js';
/** Wire codecs (decode responses, encode domain objects and request bodies) for tools and servers. */
export * as wire from './api/wire.js';
export { loadConfigFile, parseConfigText, configKeyLine, locateConfigError } from './core/config-file.js';
export type { LoadConfigOptions } from './core/config-file.js';
export { createLogger, silentLogger, REDACT_PATHS, registerSecret, redactText } from './core/logger.js';
export type { Logger, LoggerConfig } from './core/logger.js';

export {
  Executor,
  DEFAULT_RATE_LIMITS,
  PRIORITY,
  priorityOf,
  SlidingWindowGate,
  DEFAULT_RETRY_POLICY,
  seededRandom,
  idempotencyKey,
  MemoryJournal,
  INTENT_STATUSES,
  isFinalStatus,
} from './execution/index.js';
export type {
  ExecutorOptions,
  Bucket,
  RateWindowSpec,
  RetryPolicy,
  ExecutionJournal,
  IntentRecord,
  IntentStatus,
  RequestRecord,
  OrderLink,
  IntentState,
  IntentUpdate,
  TrackedOrder,
} from './execution/index.js';
export { Store, SCHEMA_VERSION, MIGRATIONS } from './store/index.js';
export type { StoreOptions, RecordedSnapshot, EquitySample, StoredDecision, ControlRecord } from './store/index.js';

// The daemon's cockpit: notifications (usable on their own) and what the dashboard shows.
export { Notifier } from './runtime/notify/notifier.js';
export type { NotifierOptions, NotifySources } from './runtime/notify/notifier.js';
export { NotifyConfigSchema, NOTIFY_EVENTS } from './runtime/notify/config.js';
export type { NotifyConfig, NotifyChannelConfig, NotifyEvent } from './runtime/notify/config.js';
export type { OutboxMessage, Transport } from './runtime/notify/outbox.js';
export type { CockpitVenue, DaySummary, DecisionView, EquityPoint, FillOrigin, FillView } from './runtime/cockpit/types.js';

export { startSandbox, parseSandboxConfig, loadSandboxConfig, defaultSandboxConfig } from './sandbox/index.js';
export type { SandboxOptions, SandboxHandle, SandboxDescription, SandboxConfig } from './sandbox/index.js';

export {
  readCandleFile,
  CandleFileReader,
  DataFileError,
  mergeByTime,
  SnapshotRecorder,
  readSnapshotFile,
  formatSnapshotLine,
  rowToCandle,
  candlePeriodOf,
  detectLayout,
  FILE_LAYOUTS,
  fetchDataFile,
  dataCacheDir,
  isDataUrl,
  DataFetchError,
} from './feed/files/index.js';
export type {
  CandleRow,
  SnapshotRow,
  Diagnostic,
  BadRow,
  Gap,
  ReadSummary,
  CandleFileOptions,
  FileLayout,
  MergeSource,
  MergedRow,
  FetchDataOptions,
  FetchedData,
} from './feed/files/index.js';
export { buildReportJson, renderReportHtml, writeReport, computeMetrics, computeChallenge, computePropOdds, ORIGIN_KINDS, encodeResult, decodeResult } from './report/index.js';
export type {
  BacktestResult,
  FillRecord,
  GuardActionRecord,
  Origin,
  OriginKind,
  DenialRecord,
  FundingRecord,
  PerfInfo,
  ChallengeInfo,
  DailyPnl,
  FloorPoint,
  PriceSeries,
  PriceCandle,
  StrategyFailure,
  ReportJson,
  ReportSummaryJson,
  ReportMetrics,
  ChallengeOutcome,
  HtmlReportOptions,
  PropOdds,
} from './report/index.js';

// Research (the Redis queue is left out: it loads BullMQ, which a plugin importing 'propbot' never needs).
export * from './research/index.js';

export * from './risk/index.js';

export { Engine, LocalExchange, LocalReads, ENGINE_PRESETS, mergePresets, validatePresets, ENGINE_ACCOUNT_EVENT_TYPES } from './engine/index.js';
export type {
  AccountSpec,
  EngineConfig,
  EngineEvent,
  EngineListener,
  MarketFlags,
  MarketSpec,
  LocalExchangeOptions,
  AccountPreset,
  EngineLimits,
  EnginePresets,
  MarketPreset,
  PhasePreset,
  PresetOverrides,
  WeeklyBreak,
  EngineAccountEventType,
} from './engine/index.js';
