/** The executor's view of an intent as it goes from queued to a final status. */
import type { Order } from '../api/types.js';
import type { OrderIntent } from '../strategy/intents.js';
import type { IntentStatus, RequestRecord } from './journal.js';

export interface TrackedOrder {
  readonly id: string;
  /** Plan step that produced it (`create`, `close`, `stop:attach`, …; `child` for a spawned stop/take). */
  readonly step: string;
  /** The order this one replaced (an edit answers with a new id). */
  readonly replaces: string | null;
  /** The order that replaced this one, once edited. */
  readonly replacedBy: string | null;
  /** The latest view of the order (status, fill price, realised pnl). */
  readonly order: Order;
}

export type RequestSummary = Pick<
  RequestRecord,
  'key' | 'step' | 'operation' | 'attempts' | 'outcome' | 'settledBy' | 'errorCode'
>;

export interface IntentState {
  readonly intent: OrderIntent;
  readonly status: IntentStatus;
  /** Machine-readable reason of a final status other than `done` (the venue's code when rejected). */
  readonly code: string | null;
  readonly reason: string | null;
  readonly orders: readonly TrackedOrder[];
  readonly requests: readonly RequestSummary[];
  /** Executor clock, unix ms. */
  readonly updatedAt: number;
}

export type IntentUpdateKind = 'queued' | 'working' | 'request' | 'order' | 'final';

export interface IntentUpdate {
  readonly kind: IntentUpdateKind;
  readonly state: IntentState;
}
