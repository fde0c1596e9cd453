export { Executor, DEFAULT_RATE_LIMITS, PRIORITY, priorityOf } from './executor.js';
export type { ExecutorOptions, Bucket } from './executor.js';
export { SlidingWindowGate } from './rate-gate.js';
export type { RateWindowSpec } from './rate-gate.js';
export { DEFAULT_RETRY_POLICY, backoffDelay, retryDelay, isUnknownOutcome, seededRandom } from './retry.js';
export type { RetryPolicy } from './retry.js';
export { idempotencyKey, IDEMPOTENCY_KEY_PREFIX, REPLAY_WINDOW_MS } from './idempotency.js';
export { MemoryJournal, INTENT_STATUSES, FINAL_INTENT_STATUSES, isFinalStatus } from './journal.js';
export type {
  ExecutionJournal,
  IntentRecord,
  IntentStatus,
  OrderLink,
  RequestOutcome,
  RequestRecord,
  UnfinishedIntent,
} from './journal.js';
export {
  openRequest,
  closeRequest,
  protectiveRequest,
  trailingRequest,
  orderMatchesRequest,
  orderMatchesEdit,
} from './requests.js';
export type { EditedOrder } from './requests.js';
export type { IntentState, IntentUpdate, IntentUpdateKind, TrackedOrder, RequestSummary } from './types.js';
