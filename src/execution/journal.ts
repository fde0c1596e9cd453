/**
 * What the executor must remember to survive a restart: intents, every request with its idempotency
 * key (durable BEFORE the request is sent), and the orders each intent produced. The sqlite `Store`
 * implements it; `MemoryJournal` is for runs that need no file (tests of other parts, quick backtests).
 */
import type { ExchangeOperation } from '../api/exchange.js';
import type { Order } from '../api/types.js';
import type { OrderIntent } from '../strategy/intents.js';
import type { EditedOrder } from './requests.js';

export const INTENT_STATUSES = ['queued', 'working', 'done', 'rejected', 'dropped', 'failed'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];
export const FINAL_INTENT_STATUSES: readonly IntentStatus[] = ['done', 'rejected', 'dropped', 'failed'];
export function isFinalStatus(s: IntentStatus): boolean {
  return FINAL_INTENT_STATUSES.includes(s);
}

/**
 * `pending`: stored, not answered yet (a crash here means unknown); `unknown`: sent, no answer
 * (timeout or connection lost); `ok`: answered or settled; `refused`: the venue said no; `failed`:
 * given up after retries, never known to have acted.
 */
export type RequestOutcome = 'pending' | 'unknown' | 'ok' | 'refused' | 'failed';

/** A request that may or may not have acted: stored before it went out, its answer never known. */
export function inDoubt(record: Pick<RequestRecord, 'outcome'>): boolean {
  return record.outcome === 'pending' || record.outcome === 'unknown';
}

export interface RequestRecord {
  key: string;
  intentId: string;
  /** Step of the intent's plan (`create`, `close`, `stop:attach`, …); unique per intent. */
  step: string;
  operation: ExchangeOperation;
  /** Arguments of the port call, exactly as sent (a retry or a restart re-sends these). */
  args: unknown[];
  /**
   * An edit's order as it stood when the edit was stored: after a restart the order is gone from the
   * book and the history, and only this tells its replacement from another position's order of the
   * same type at the same trigger. Null for other operations, and on an edit stored by a propbot
   * older than the store's version 5.
   */
  editedOrder?: EditedOrder | null;
  /** When the key was stored, unix ms (clock of the executor): orders older than this are not ours. */
  storedAt: number;
  attempts: number;
  outcome: RequestOutcome;
  /** What the call returned (an Order for creations and edits), once known. */
  result?: unknown;
  errorCode?: string | null;
  /** How the outcome became known. */
  settledBy?: 'response' | 'replay' | 'read' | null;
  finishedAt?: number | null;
}

export interface IntentRecord {
  intent: OrderIntent;
  status: IntentStatus;
  code: string | null;
  reason: string | null;
  updatedAt: number;
}

export interface OrderLink {
  orderId: string;
  intentId: string;
  step: string;
  /** The order this one replaced (edits answer with a new id). */
  replaces: string | null;
  order: Order;
  seenAt: number;
}

export interface UnfinishedIntent {
  record: IntentRecord;
  requests: RequestRecord[];
  orders: OrderLink[];
}

export interface ExecutionJournal {
  /** Record an intent or a change of its status (may be batched). */
  saveIntent(record: IntentRecord): void;
  /** Record a request before it is sent; resolves only once it is durable. */
  beginRequest(record: RequestRecord): Promise<void>;
  /** Record progress or the outcome of a request (may be batched). */
  updateRequest(record: RequestRecord): void;
  /** Record an order produced by an intent, or a newer view of it (may be batched). */
  saveOrder(link: OrderLink): void;
  /** The stored request of a key, if any. */
  findRequest(key: string): Promise<RequestRecord | undefined>;
  /**
   * Intents not in a final status, and final intents with a request still pending or unknown (a
   * crash, or reads that failed while it ended), with their requests and orders, oldest first.
   */
  loadUnfinished(): Promise<UnfinishedIntent[]>;
  /** Ids of orders already attributed to an intent whose order was created at or after `sinceMs`. */
  claimedOrderIds(sinceMs: number): Promise<string[]>;
}

/** A journal in memory: same semantics, nothing survives the process. */
export class MemoryJournal implements ExecutionJournal {
  readonly #intents = new Map<string, IntentRecord>();
  readonly #requests = new Map<string, RequestRecord>();
  readonly #orders = new Map<string, OrderLink>();

  saveIntent(record: IntentRecord): void {
    this.#intents.set(record.intent.id, { ...record });
  }
  async beginRequest(record: RequestRecord): Promise<void> {
    this.#requests.set(record.key, { ...record });
  }
  updateRequest(record: RequestRecord): void {
    this.#requests.set(record.key, { ...record });
  }
  saveOrder(link: OrderLink): void {
    this.#orders.set(link.orderId, { ...link });
  }
  async findRequest(key: string): Promise<RequestRecord | undefined> {
    const r = this.#requests.get(key);
    return r ? { ...r } : undefined;
  }
  async loadUnfinished(): Promise<UnfinishedIntent[]> {
    const out: UnfinishedIntent[] = [];
    for (const record of this.#intents.values()) {
      const id = record.intent.id;
      const requests = [...this.#requests.values()].filter((r) => r.intentId === id);
      if (isFinalStatus(record.status) && !requests.some(inDoubt)) continue;
      out.push({
        record: { ...record },
        requests: requests.map((r) => ({ ...r })),
        orders: [...this.#orders.values()].filter((o) => o.intentId === id).map((o) => ({ ...o })),
      });
    }
    return out.sort((a, b) => a.record.intent.createdAt - b.record.intent.createdAt);
  }
  async claimedOrderIds(sinceMs: number): Promise<string[]> {
    return [...this.#orders.values()].filter((o) => o.order.createdAt.getTime() >= sinceMs).map((o) => o.orderId);
  }
}
