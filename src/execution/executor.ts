/**
 * The executor: turns approved intents into calls of the `Exchange` port, and follows each intent to
 * its orders and a recorded final status (`done`, `rejected`, `dropped`, `failed`).
 *
 * - One p-queue per rate-limit bucket (`read`, `write`, from `OPERATION_BUCKET`); every task first
 *   passes a `SlidingWindowGate` holding all the bucket's windows. Priorities: cancels and protective
 *   orders, then closes, then new entries.
 * - Only `TransientFailure`s are retried (exponential backoff with jitter, a 429's `retryAt` as a
 *   floor); a `VenueRefusal` ends the intent `rejected` with the venue's code.
 * - Every write has an idempotency key derived from `${intent.id}:${step}`, stored (durably) before
 *   the request is first sent and reused by every retry and after a restart. When an answer is lost
 *   (timeout, connection dropped) the outcome is settled by the key's replay or by reading, never by
 *   guessing. Inside the venue's replay window (less `replayMarginMs`) a lost create is sent again
 *   with its key: the venue answers with the order it placed, or places it if it never acted. A read
 *   could not tell ours from an identical order placed by hand. Reading settles the rest: a create
 *   past the window or giving up, a leftover (which must not place anything), edits and cancels
 *   (which carry no key). A read is trusted only when it is unambiguous (one matching order no other
 *   intent claimed, and no other identical request unresolved inside the window).
 */
import PQueue from 'p-queue';
import { Subject, type Observable } from 'rxjs';
import type { Decimal } from 'decimal.js';
import { objectsWhere } from '../core/arrays.js';
import { OPERATION_BUCKET, type Exchange, type ExchangeOperation, type Idempotent } from '../api/exchange.js';
import { OrderNotActiveError, RateLimitError, TransientFailure, VenueRefusal } from '../api/errors.js';
import type { CreateOrderRequest, EditOrderRequest, Order, Position } from '../api/types.js';
import { WallClock, type Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import {
  isProtective,
  type CancelIntent,
  type CloseAllIntent,
  type CloseIntent,
  type IntentKind,
  type OpenIntent,
  type OrderIntent,
  type ProtectIntent,
} from '../strategy/intents.js';
import { idempotencyKey, REPLAY_WINDOW_MS } from './idempotency.js';
import {
  inDoubt,
  isFinalStatus,
  MemoryJournal,
  type ExecutionJournal,
  type IntentRecord,
  type IntentStatus,
  type RequestRecord,
} from './journal.js';
import { SlidingWindowGate, type RateWindowSpec } from './rate-gate.js';
import {
  closeRequest,
  openRequest,
  orderMatchesEdit,
  orderMatchesRequest,
  protectiveRequest,
  sameTrailing,
  trailingRequest,
  type EditedOrder,
} from './requests.js';
import { DEFAULT_RETRY_POLICY, isUnknownOutcome, retryDelay, validateRetryPolicy, type RetryPolicy } from './retry.js';
import type { IntentState, IntentUpdate, IntentUpdateKind, TrackedOrder } from './types.js';

export type Bucket = 'read' | 'write';

/**
 * Client-side budget per bucket. The venue does not publish its numbers; these defaults are
 * deliberately modest and meant to be overridden from configuration.
 */
export const DEFAULT_RATE_LIMITS: Record<Bucket, RateWindowSpec[]> = {
  read: [
    { limit: 10, windowMs: 1_000, label: '1s' },
    { limit: 300, windowMs: 60_000, label: '60s' },
  ],
  write: [
    { limit: 5, windowMs: 1_000, label: '1s' },
    { limit: 100, windowMs: 60_000, label: '60s' },
  ],
};

/** Queue priorities: higher runs first. */
export const PRIORITY = { protective: 30, close: 20, entry: 10 } as const;

export function priorityOf(intent: OrderIntent): number {
  if (isProtective(intent)) return PRIORITY.protective;
  if (intent.kind === 'close') return PRIORITY.close;
  return PRIORITY.entry;
}

export interface ExecutorOptions {
  exchange: Exchange;
  /** Where keys, intents and orders are recorded; default: in memory (nothing survives a restart). */
  journal?: ExecutionJournal;
  /** Default: the wall clock. */
  clock?: Clock;
  /** How to wait; default: `setTimeout`. Tests pass one that advances a virtual clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Source of jitter in [0, 1); default `Math.random`. Use `seededRandom(seed)` for reproducible runs. */
  random?: () => number;
  /** Rate-limit windows per bucket (all windows of a bucket apply at once). Default `DEFAULT_RATE_LIMITS`. */
  limits?: Partial<Record<Bucket, RateWindowSpec[]>>;
  /** Requests in flight at once per bucket. Default: read 4, write 2. */
  concurrency?: Partial<Record<Bucket, number>>;
  retry?: Partial<RetryPolicy>;
  /**
   * An entry whose first request waited longer than this in the queue (rate limit included) is dropped
   * with code `queue_timeout`. Protective intents are never dropped. Default 30 000.
   */
  maxQueueWaitMs?: number;
  /** At most this many droppable intents may wait in the queue; more are dropped (`queue_full`). Default unbounded. */
  maxQueuedEntries?: number;
  /** Intent kinds the queue bound applies to. Protective kinds are refused here. Default `['open']`. */
  droppableKinds?: readonly IntentKind[];
  /** Tolerance between our clock and the venue's when matching orders by creation time. Default 5 000 ms. */
  clockSkewMs?: number;
  /** Pages of order history (100 each) read at most when settling an unknown outcome. Default 3. */
  historyPages?: number;
  /**
   * A lost create is settled by its key's replay only while the replay would still reach the venue
   * inside its window: until this long before the window ends (queue wait and the HTTP timeout must
   * fit in it; a replay arriving after the window would place the order twice). Later, by reading.
   * Default 300 000 (5 minutes of the 1-hour window).
   */
  replayMarginMs?: number;
  /**
   * Orders and positions this executor must never act on (the daemon adopts what it did not place as
   * external). Read at every use, so the caller may fill the sets after construction. A close or
   * protect that resolves to an external position, or a cancel of an external order, ends `rejected`
   * with `external_position` / `external_order`.
   */
  untouchable?: { readonly orders: ReadonlySet<string>; readonly positions: ReadonlySet<string> };
  /** Market id of an asset; default: `listMarkets()` once (through the read queue), cached. */
  resolveMarketId?: (asset: string, accountId: string) => Promise<string>;
}

/** Ends an intent's plan early with a final status. */
class IntentEnd extends Error {
  constructor(
    readonly status: Exclude<IntentStatus, 'queued' | 'working' | 'done'>,
    readonly code: string,
    message: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

interface MutableTracked {
  id: string;
  step: string;
  replaces: string | null;
  replacedBy: string | null;
  order: Order;
}

interface Entry {
  intent: OrderIntent;
  status: IntentStatus;
  code: string | null;
  reason: string | null;
  orders: Map<string, MutableTracked>;
  requests: Map<string, RequestRecord>;
  /** Whether any request of this intent went out already (the queue bound only drops untouched intents). */
  sent: boolean;
  done: Promise<IntentState>;
  /**
   * When the executor received it: an entry's queue wait counts from here (lookups included). For an
   * intent a restart resumed with nothing sent, when its strategy made it: the downtime is a wait too.
   */
  submittedAt: number;
  /** Picked up by `resume()` from an earlier run's journal. */
  resumed: boolean;
  updatedAt: number;
  /** Order of submission. */
  seq: number;
}

/** Not found: `unclear` says why a read that saw candidates took none (for the reason a give-up ends with). */
type SettleResult<T> = { found: true; value: T } | { found: false; unclear?: string };

interface WriteSpec<T> {
  step: string;
  operation: 'createOrder' | 'editOrder' | 'cancelOrder' | 'closeAllAccount' | 'closeAllPositions';
  args: unknown[];
  /** An edit's order as it stands now, stored with the request (see `RequestRecord.editedOrder`). */
  editedOrder?: EditedOrder;
  /**
   * Find out whether a request whose answer was lost acted; `found:false` means send again (with the
   * same key). `last`: no send follows (retries spent, or a leftover whose plan is over), so a keyed
   * request must be settled by reading, not left to its replay.
   */
  settle?: (record: RequestRecord, last: boolean) => Promise<SettleResult<T>>;
  /** A refusal that, after a lost answer, actually proves the earlier attempt acted. */
  refusalMeansDone?: (error: VenueRefusal, hadUnknown: boolean) => Promise<SettleResult<T>>;
}

const KEYED: ReadonlySet<ExchangeOperation> = new Set(['createOrder', 'closeAllAccount', 'closeAllPositions']);

export class Executor {
  readonly #exchange: Exchange;
  readonly #journal: ExecutionJournal;
  /** The last key worked out: a step's look-up of stored arguments and its write ask for it in turn, and a hash each showed in a sweep's profile. */
  #lastKey: { readonly intentId: string; readonly step: string; readonly key: string } | undefined;
  readonly #clock: Clock;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #retry: RetryPolicy;
  readonly #maxQueueWaitMs: number;
  readonly #maxQueuedEntries: number;
  readonly #droppable: ReadonlySet<IntentKind>;
  readonly #skewMs: number;
  readonly #untouchable: ExecutorOptions['untouchable'];
  readonly #historyPages: number;
  readonly #replayMarginMs: number;
  readonly #resolveMarketId: ((asset: string, accountId: string) => Promise<string>) | undefined;
  readonly #queues: Record<Bucket, PQueue>;
  readonly #gates: Record<Bucket, SlidingWindowGate>;
  readonly #entries = new Map<string, Entry>();
  /** orderId → intent ids tracking it. */
  readonly #orderOwners = new Map<string, Set<string>>();
  /** Orders attributed to an intent: a lost answer may not adopt them for another intent. */
  readonly #claimed = new Set<string>();
  /**
   * Shapes of create requests begun and not yet resolved (queued, in flight, or in doubt): while a
   * shape has two, an order read in the book may be either's, so only a key's replay can say whose.
   */
  readonly #unresolved = new Map<string, number>();
  readonly #updates = new Subject<IntentUpdate>();
  #queuedDroppable = 0;
  #marketIds: Promise<Map<string, string>> | undefined;
  #closed = false;
  #dropCode: string | null = null;
  /** Entries numbered so far; an account's untouched entries numbered up to its flatten are dropped. */
  #seq = 0;
  readonly #flattenedAt = new Map<string, number>();

  constructor(options: ExecutorOptions) {
    this.#exchange = options.exchange;
    this.#journal = options.journal ?? new MemoryJournal();
    this.#clock = options.clock ?? new WallClock();
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#random = options.random ?? Math.random;
    this.#retry = validateRetryPolicy({ ...DEFAULT_RETRY_POLICY, ...options.retry }, 'executor.retry');
    this.#maxQueueWaitMs = nonNegative(options.maxQueueWaitMs ?? 30_000, 'executor.maxQueueWaitMs');
    this.#maxQueuedEntries = options.maxQueuedEntries ?? Number.POSITIVE_INFINITY;
    if (!(this.#maxQueuedEntries >= 1)) {
      throw new ConfigError('executor.maxQueuedEntries', `expected a number >= 1, got ${String(options.maxQueuedEntries)}`);
    }
    const droppable = options.droppableKinds ?? ['open'];
    for (const [i, kind] of droppable.entries()) {
      if (kind === 'protect' || kind === 'cancel' || kind === 'close_all') {
        throw new ConfigError(`executor.droppableKinds[${i}]`, `"${kind}" is protective and can never be dropped`);
      }
    }
    this.#droppable = new Set(droppable);
    this.#skewMs = nonNegative(options.clockSkewMs ?? 5_000, 'executor.clockSkewMs');
    this.#untouchable = options.untouchable;
    this.#historyPages = positiveInt(options.historyPages ?? 3, 'executor.historyPages');
    this.#replayMarginMs = nonNegative(options.replayMarginMs ?? 300_000, 'executor.replayMarginMs');
    const limits = { ...DEFAULT_RATE_LIMITS, ...options.limits };
    const concurrency = { read: 4, write: 2, ...options.concurrency };
    this.#gates = {
      read: new SlidingWindowGate(limits.read, this.#clock, 'executor.limits.read'),
      write: new SlidingWindowGate(limits.write, this.#clock, 'executor.limits.write'),
    };
    this.#queues = {
      read: new PQueue({ concurrency: positiveInt(concurrency.read, 'executor.concurrency.read') }),
      write: new PQueue({ concurrency: positiveInt(concurrency.write, 'executor.concurrency.write') }),
    };
    this.#resolveMarketId = options.resolveMarketId;
  }

  /** Every change of every intent: queued, working, each request outcome, each order seen, final. */
  get updates$(): Observable<IntentUpdate> {
    return this.#updates.asObservable();
  }

  /** The current state of an intent this executor knows. */
  state(intentId: string): IntentState | undefined {
    const e = this.#entries.get(intentId);
    return e ? this.#snapshot(e) : undefined;
  }

  /** Queue depth and requests in flight per bucket. */
  stats(): Record<Bucket, { queued: number; running: number }> {
    return {
      read: { queued: this.#queues.read.size, running: this.#queues.read.pending },
      write: { queued: this.#queues.write.size, running: this.#queues.write.pending },
    };
  }

  /**
   * Execute an approved intent. Resolves with its final state (never rejects). Submitting the same
   * intent id again returns the first submission's outcome.
   */
  submit(intent: OrderIntent): Promise<IntentState> {
    if (this.#closed) throw new Error('Executor.submit: the executor is closed');
    const known = this.#entries.get(intent.id);
    if (known) return known.done;
    this.#markFlatten(intent);
    return this.#start(intent, new Map(), []);
  }

  /**
   * After a restart: pick up every intent the journal holds that had not reached a final status,
   * settle its requests (same keys) and finish it; and settle the requests a final intent left in
   * doubt. Resolves once all of them are final. An open that had sent nothing is dropped
   * (`queue_timeout`) if it was made longer than `maxQueueWaitMs` ago, or (`account_flattened`) if a
   * flatten of its account was queued after it.
   */
  async resume(): Promise<IntentState[]> {
    const unfinished = await this.#journal.loadUnfinished();
    // Orders intents own must not be adopted by a settle: every claim since the oldest request in
    // doubt was stored (less the skew), however long the process was down, and the last two hours'
    // for the requests sent from now on.
    let since = this.#clock.now() - 2 * 60 * 60_000;
    for (const u of unfinished) for (const r of u.requests) if (inDoubt(r)) since = Math.min(since, r.storedAt - this.#skewMs);
    for (const id of await this.#journal.claimedOrderIds(since)) this.#claimed.add(id);
    const runs: Promise<IntentState>[] = [];
    for (const u of unfinished) {
      if (this.#entries.has(u.record.intent.id)) continue;
      const requests = new Map(u.requests.map((r) => [r.step, r]));
      const orders = u.orders.map((o) => ({ id: o.orderId, step: o.step, replaces: o.replaces, replacedBy: null, order: o.order }));
      // In submission order, as submit() does: an open queued before a flatten is not sent after it.
      if (!isFinalStatus(u.record.status)) this.#markFlatten(u.record.intent);
      runs.push(isFinalStatus(u.record.status) ? this.#settleFinal(u.record, requests, orders) : this.#start(u.record.intent, requests, orders, true));
    }
    return Promise.all(runs);
  }

  /**
   * A final intent with requests in doubt: its run ended while the reads that would settle them failed
   * (or a crash came between). Its plan is over and is not made again (a step after the one that failed
   * must not happen now); those requests alone are settled by reading, so an order one of them placed
   * is tracked as this intent's, not met later as an order nobody placed. The intent keeps its status.
   */
  #settleFinal(record: IntentRecord, requests: Map<string, RequestRecord>, orders: MutableTracked[]): Promise<IntentState> {
    const entry: Entry = {
      intent: record.intent,
      status: record.status,
      code: record.code,
      reason: record.reason,
      orders: new Map(),
      requests,
      sent: true,
      done: Promise.resolve(undefined as never),
      submittedAt: this.#clock.now(),
      resumed: true,
      updatedAt: record.updatedAt,
      seq: ++this.#seq,
    };
    for (const o of orders) this.#addTracked(entry, o);
    this.#entries.set(record.intent.id, entry);
    entry.done = this.#settleLeftovers(entry).then(() => this.#snapshot(entry));
    return entry.done;
  }

  /** Apply newer views of orders (a poll of active orders or history, engine events): fills, cancels, children. */
  applyOrders(orders: readonly Order[]): void {
    for (const order of orders) {
      const owners = this.#orderOwners.get(order.id);
      if (owners) {
        for (const intentId of owners) {
          const e = this.#entries.get(intentId);
          const t = e?.orders.get(order.id);
          if (!e || !t) continue;
          t.order = order;
          this.#journal.saveOrder({ orderId: order.id, intentId, step: t.step, replaces: t.replaces, order, seenAt: this.#clock.now() });
          this.#emit(e, 'order');
        }
        continue;
      }
      const parent = order.parentOrderId ? this.#orderOwners.get(order.parentOrderId) : undefined;
      if (parent) {
        for (const intentId of parent) {
          const e = this.#entries.get(intentId);
          if (e) this.#track(e, order, 'child', null);
        }
      }
    }
  }

  /**
   * Read the account's active orders and the first history page of each asset it tracks orders on,
   * through the read queue, and apply them (fills, cancels, spawned children). For a poller or a timer.
   */
  async reconcile(accountId: string): Promise<void> {
    try {
      await this.#reconcile(accountId);
    } catch (error) {
      // The caller gets the venue's own error (a 401 stays an UnauthorizedError), not the intent machinery's.
      throw error instanceof IntentEnd && error.cause !== undefined ? error.cause : error;
    }
  }

  async #reconcile(accountId: string): Promise<void> {
    const probe = this.#probe(accountId);
    const active = await this.#activeOrders(probe);
    this.applyOrders(active);
    const assets = new Set<string>();
    for (const e of this.#entries.values()) {
      if (e.intent.accountId === accountId && e.orders.size > 0) assets.add(e.intent.asset);
    }
    for (const asset of assets) {
      const page = await this.#read(probe, 'listOrderHistory', () =>
        this.#exchange.listOrderHistory(accountId, asset, { limit: 100, offset: 0 }),
      );
      this.applyOrders(page.data);
    }
  }

  /** A stand-in entry for reads not made for one intent (reconciliation): protective priority. */
  #probe(accountId: string): Entry {
    const intent: OrderIntent = { kind: 'cancel', id: `reconcile:${accountId}`, orderId: '', strategy: 'executor', accountId, asset: '', createdAt: 0 };
    return {
      intent,
      status: 'working',
      code: null,
      reason: null,
      orders: new Map(),
      requests: new Map(),
      sent: true,
      done: Promise.resolve(undefined as never),
      submittedAt: 0,
      resumed: false,
      updatedAt: 0,
      seq: 0,
    };
  }

  /** Resolves when both queues are empty and idle. */
  /**
   * Shutdown: every droppable entry not sent yet ends `dropped` with `code` when its turn comes,
   * instead of being sent. Protective intents, and intents with a request already out, go on.
   */
  dropQueued(code = 'shutdown'): void {
    this.#dropCode = code;
  }

  async idle(): Promise<void> {
    await Promise.all([this.#queues.read.onIdle(), this.#queues.write.onIdle()]);
  }

  /** Refuse new intents and wait for the running ones. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#entries.values()].map((e) => e.done));
    this.#updates.complete();
  }

  // ── lifecycle ──────────────────────────────────────────────────────────────────────────────────

  /**
   * Flattening an account cancels every order, and an entry still waiting here is an order not yet
   * sent: it must not open a position after the close-all has run (the kill switch's HALTED promise).
   * Called before the flatten's own entry is started, so the entries before it are the ones dropped.
   */
  #markFlatten(intent: OrderIntent): void {
    if (intent.kind === 'close_all' && intent.scope === 'account') this.#flattenedAt.set(intent.accountId, this.#seq);
  }

  #start(intent: OrderIntent, requests: Map<string, RequestRecord>, orders: MutableTracked[], resumed = false): Promise<IntentState> {
    const now = this.#clock.now();
    const entry: Entry = {
      intent,
      status: 'queued',
      code: null,
      reason: null,
      orders: new Map(),
      requests,
      // Anything stored by an earlier run may have gone out: such an intent is never dropped.
      sent: requests.size > 0,
      done: Promise.resolve(undefined as never),
      // A guard approved it against the account as it stood then: after a long downtime it must not
      // go out as if just decided. Within maxQueueWaitMs it goes out, as it would have without the crash.
      submittedAt: resumed && requests.size === 0 ? Math.min(now, intent.createdAt) : now,
      resumed,
      updatedAt: now,
      seq: ++this.#seq,
    };
    for (const o of orders) this.#addTracked(entry, o);
    this.#entries.set(intent.id, entry);
    this.#saveIntent(entry);
    this.#emit(entry, 'queued');
    entry.done = this.#run(entry);
    return entry.done;
  }

  async #run(entry: Entry): Promise<IntentState> {
    try {
      await Promise.resolve();
      this.#setStatus(entry, 'working', null, null, 'working');
      await this.#plan(entry);
      await this.#settleLeftovers(entry);
      this.#setStatus(entry, 'done', null, null, 'final');
    } catch (error) {
      await this.#settleLeftovers(entry);
      if (error instanceof IntentEnd) {
        this.#setStatus(entry, error.status, error.code, error.message, 'final');
      } else {
        const message = error instanceof Error ? error.message : String(error);
        this.#setStatus(entry, 'failed', 'executor_error', message, 'final');
      }
    }
    return this.#snapshot(entry);
  }

  /**
   * Requests of this intent still pending or unknown once its plan has ended. After a restart the plan
   * is made again from what the venue shows, and may not revisit a step an earlier run left in doubt
   * (the stop it was moving already sits at the new trigger, the order it was cancelling is gone).
   * Such a row is settled by reading: `ok` (settled by read) when the venue shows the step's effect,
   * else `failed` with `superseded` (never known to have acted, and no longer wanted). A row whose
   * reads fail too keeps its doubt, and the next start settles it (`resume` loads a final intent with a
   * request in doubt again, for that alone).
   */
  async #settleLeftovers(entry: Entry): Promise<void> {
    for (const rec of entry.requests.values()) {
      if (!inDoubt(rec)) continue;
      let settled: SettleResult<unknown>;
      try {
        settled = await this.#settleLeftover(entry, rec);
      } catch {
        continue; // the reads failed too: the row keeps its doubt until the next start
      }
      Object.assign(rec, settled.found
        ? { outcome: 'ok', result: settled.value, settledBy: 'read', finishedAt: this.#clock.now() }
        : { outcome: 'failed', errorCode: 'superseded', settledBy: 'read', finishedAt: this.#clock.now() });
      this.#journal.updateRequest({ ...rec });
      if (settled.found && rec.operation === 'createOrder') {
        this.#track(entry, (settled.value as Idempotent<Order>).value, rec.step, null);
      } else if (settled.found && rec.operation === 'editOrder') {
        this.#track(entry, settled.value as Order, rec.step, String(rec.args[0]));
      } else {
        this.#emit(entry, 'request');
      }
    }
  }

  async #settleLeftover(entry: Entry, rec: RequestRecord): Promise<SettleResult<unknown>> {
    switch (rec.operation) {
      case 'createOrder':
        return this.#createSpec(entry, rec.step, rec.args).settle!(rec, true);
      case 'cancelOrder':
        return (await this.#stillActive(entry, String(rec.args[0]))) ? { found: false } : { found: true, value: undefined };
      case 'editOrder': {
        // The replacement is an order of the original's position and type at the requested trigger.
        // The original is out of the book by now: what the request stored of it is what there is to
        // match (from step `${type}:move:${orderId}`, its id and type, for a request stored without it).
        const original = rec.editedOrder ?? { id: String(rec.args[0]), type: rec.step.split(':')[0] as Order['type'] };
        const trigger = (rec.args[1] as EditOrderRequest | undefined)?.triggerPrice;
        if (trigger === undefined) return { found: false };
        const found = await this.#replacement(entry, original, trigger, rec.storedAt);
        return found === 'active' || found === undefined ? { found: false } : { found: true, value: found };
      }
      default:
        return { found: false };
    }
  }

  #plan(entry: Entry): Promise<void> {
    const intent = entry.intent;
    switch (intent.kind) {
      case 'open':
        return this.#runOpen(entry, intent);
      case 'close':
        return this.#runClose(entry, intent);
      case 'protect':
        return this.#runProtect(entry, intent);
      case 'cancel':
        return this.#runCancel(entry, intent);
      case 'close_all':
        return this.#runCloseAll(entry, intent);
    }
  }

  // ── plans ──────────────────────────────────────────────────────────────────────────────────────

  async #runOpen(entry: Entry, intent: OpenIntent): Promise<void> {
    const step = 'create';
    const args = (await this.#storedArgs(entry, step)) ?? [openRequest(intent, await this.#marketId(entry))];
    const order = await this.#write<Idempotent<Order>>(entry, this.#createSpec(entry, step, args));
    this.#track(entry, order.value, step, null);
  }

  async #runClose(entry: Entry, intent: CloseIntent): Promise<void> {
    const step = 'close';
    // A stored close is re-sent as stored: after it acted the position is gone and can not be re-read.
    let args = await this.#storedArgs(entry, step);
    if (!args) {
      const position = await this.#findPosition(entry, intent.positionId, intent.direction);
      args = [closeRequest(intent, position)];
    }
    const order = await this.#write<Idempotent<Order>>(entry, this.#createSpec(entry, step, args));
    this.#track(entry, order.value, step, null);
  }

  async #runProtect(entry: Entry, intent: ProtectIntent): Promise<void> {
    const position = await this.#findPosition(entry, intent.positionId, intent.direction);
    const active = await this.#activeOrders(entry);
    const mine = active.filter((o) => o.positionId === position.idx && o.status === 'active');
    for (const [leg, type] of [['stopLoss', 'stop'], ['takeProfit', 'take']] as const) {
      const want = intent[leg];
      if (want === undefined) continue;
      const existing = mine.filter((o) => o.type === type);
      if (want === null) {
        for (const o of existing) await this.#cancelStep(entry, `${type}:remove:${o.id}`, o.id);
        continue;
      }
      const [first, ...extra] = existing;
      for (const o of extra) await this.#cancelStep(entry, `${type}:remove:${o.id}`, o.id);
      if (!first) {
        await this.#attach(entry, `${type}:attach`, protectiveRequest(intent.accountId, position, type, want));
      } else if (first.triggerPrice.isZero()) {
        // Created without a trigger: the venue can not edit it (order_not_updatable); replace it.
        await this.#cancelStep(entry, `${type}:replace:${first.id}`, first.id);
        await this.#attach(entry, `${type}:attach`, protectiveRequest(intent.accountId, position, type, want));
      } else if (!first.triggerPrice.eq(want) && !(first.requestedTriggerPrice?.eq(want) ?? false)) {
        await this.#move(entry, `${type}:move:${first.id}`, first, want);
      }
    }
    const trailing = intent.trailingStop;
    if (trailing !== undefined) {
      const existing = mine.filter((o) => o.type === 'trailing_stop');
      const keep = trailing === null ? undefined : existing.find((o) => sameTrailing(o, trailing));
      for (const o of existing) {
        if (o !== keep) await this.#cancelStep(entry, `trailing:remove:${o.id}`, o.id);
      }
      // The venue can not edit offsets: a different trailing stop is a cancel and a new one.
      if (trailing !== null && !keep) {
        await this.#attach(entry, 'trailing:attach', trailingRequest(intent.accountId, position, trailing));
      }
    }
  }

  async #runCancel(entry: Entry, intent: CancelIntent): Promise<void> {
    if (this.#untouchable?.orders.has(intent.orderId)) {
      throw new IntentEnd('rejected', 'external_order', `order ${intent.orderId} was not placed by propbot; it is left alone`);
    }
    await this.#cancelStep(entry, 'cancel', intent.orderId);
  }

  async #runCloseAll(entry: Entry, intent: CloseAllIntent): Promise<void> {
    const operation = intent.scope === 'account' ? 'closeAllAccount' : 'closeAllPositions';
    // No read can tell whether a lost close-all acted; re-sending the same key replays it inside the
    // venue's window, and closing what is already closed does nothing after it.
    await this.#write<Idempotent<void>>(entry, { step: 'close_all', operation, args: [intent.accountId] });
  }

  async #attach(entry: Entry, step: string, request: CreateOrderRequest): Promise<void> {
    const args = (await this.#storedArgs(entry, step)) ?? [request];
    const order = await this.#write<Idempotent<Order>>(entry, this.#createSpec(entry, step, args));
    this.#track(entry, order.value, step, null);
  }

  async #move(entry: Entry, step: string, original: Order, trigger: Decimal): Promise<void> {
    const args = (await this.#storedArgs(entry, step)) ?? [original.id, { triggerPrice: trigger } satisfies EditOrderRequest];
    const replacement = await this.#write<Order>(entry, {
      step,
      operation: 'editOrder',
      args,
      editedOrder: { id: original.id, type: original.type, trader: original.trader, market: original.market, positionId: original.positionId },
      settle: async (record) => {
        const found = await this.#replacement(entry, original, trigger, record.storedAt);
        if (found === 'active') return { found: false };
        if (found) return { found: true, value: found };
        throw new IntentEnd('failed', 'order_not_active', `order ${original.id} is no longer active and no replacement was found`);
      },
    });
    this.#track(entry, original, step, null);
    this.#track(entry, replacement, step, original.id);
  }

  async #cancelStep(entry: Entry, step: string, orderId: string): Promise<void> {
    const stillActive = () => this.#stillActive(entry, orderId);
    await this.#write<void>(entry, {
      step,
      operation: 'cancelOrder',
      args: [orderId],
      settle: async () => ((await stillActive()) ? { found: false } : { found: true, value: undefined }),
      refusalMeansDone: async (error, hadUnknown) =>
        error instanceof OrderNotActiveError && hadUnknown && !(await stillActive())
          ? { found: true, value: undefined }
          : { found: false },
    });
    for (const intentId of this.#orderOwners.get(orderId) ?? []) {
      const e = this.#entries.get(intentId);
      const t = e?.orders.get(orderId);
      if (e && t && t.order.status === 'active') {
        t.order = Object.assign({}, t.order, { status: 'canceled' as const });
        this.#emit(e, 'order');
      }
    }
  }

  #createSpec(entry: Entry, step: string, args: unknown[]): WriteSpec<Idempotent<Order>> {
    const request = args[0] as CreateOrderRequest;
    return {
      step,
      operation: 'createOrder',
      args,
      settle: async (record, last) => {
        const windowMs = REPLAY_WINDOW_MS.createOrder ?? 0;
        // The key's replay decides while it can still reach the venue inside the window.
        if (!last && this.#clock.now() + this.#replayMarginMs < record.storedAt + windowMs) return { found: false };
        const shape = shapeOf(request);
        const since = record.storedAt - this.#skewMs;
        const matches = (o: Order) => !this.#claimed.has(o.id) && orderMatchesRequest(o, request, since);
        const active = await this.#activeOrders(entry);
        const history = await this.#historyAll(entry, since, matches);
        // Matched after the last read: another settle may have claimed an order while this one read.
        // From here to the claim below nothing awaits, so two settles can never choose the same order.
        const candidates = [...active, ...history].filter(matches);
        candidates.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
        const inWindow = this.#clock.now() < record.storedAt + windowMs;
        const othersUnresolved = (this.#unresolved.get(shape) ?? 0) > 1;
        // Two candidates, or another identical request not resolved yet: only a key's replay can tell
        // whose, so inside the window a read takes none (after it, the first unclaimed is all there is).
        const ambiguous = candidates.length > 1 || othersUnresolved;
        const first = candidates[0];
        if (first && (!ambiguous || !inWindow)) {
          return { found: true, value: { value: this.#claim(first), idempotency: { key: record.key, replayed: false, storedAt: null } } };
        }
        if (!first) return { found: false };
        const ids = candidates.map((o) => o.id).join(', ');
        return {
          found: false,
          unclear:
            candidates.length > 1
              ? `the venue lists ${candidates.length} orders matching it (${ids}) and only its key's replay could tell which one it placed, if any: none is managed`
              : `the venue lists one order matching it (${ids}), but an identical request of another intent is unresolved too: it is left to that one`,
        };
      },
    };
  }

  // ── the request machinery ────────────────────────────────────────────────────────────────────────

  /** The arguments stored for a step by an earlier run (restart), if any. */
  async #storedArgs(entry: Entry, step: string): Promise<unknown[] | undefined> {
    const rec = entry.requests.get(step) ?? (await this.#journal.findRequest(this.#key(entry.intent.id, step)));
    if (rec) entry.requests.set(step, rec);
    return rec?.args;
  }

  #key(intentId: string, step: string): string {
    const last = this.#lastKey;
    if (last !== undefined && last.intentId === intentId && last.step === step) return last.key;
    const key = idempotencyKey(intentId, step);
    this.#lastKey = { intentId, step, key };
    return key;
  }

  async #write<T>(entry: Entry, spec: WriteSpec<T>): Promise<T> {
    const key = this.#key(entry.intent.id, spec.step);
    let rec = entry.requests.get(spec.step) ?? (await this.#journal.findRequest(key));
    let needSettle = false;
    if (rec) {
      if (rec.outcome === 'ok') return rec.result as T;
      if (rec.outcome === 'refused') throw new IntentEnd('rejected', rec.errorCode ?? 'refused', `${spec.step} was refused`);
      // Stored by an earlier run that never learnt the answer: it may have been sent and acted on.
      needSettle = true;
      rec = Object.assign({}, rec, { outcome: 'unknown' as const });
    } else {
      rec = {
        key,
        intentId: entry.intent.id,
        step: spec.step,
        operation: spec.operation,
        args: spec.args,
        editedOrder: spec.editedOrder ?? null,
        storedAt: this.#clock.now(),
        attempts: 0,
        outcome: 'pending',
        errorCode: null,
        settledBy: null,
        finishedAt: null,
      };
      // Durable before anything is sent: a crash after this line leaves a key to settle, never a stray order.
      await this.#journal.beginRequest(rec);
    }
    entry.requests.set(spec.step, rec);
    const request = rec;
    const args = request.args;
    const bucket = OPERATION_BUCKET[spec.operation];
    const call = () => {
      const fn = this.#exchange[spec.operation] as (...a: unknown[]) => Promise<unknown>;
      const full = KEYED.has(spec.operation) ? [...args, { idempotencyKey: key }] : args;
      return fn.apply(this.#exchange, full) as Promise<T>;
    };
    const shape = spec.operation === 'createOrder' ? shapeOf(args[0] as CreateOrderRequest) : undefined;
    let hadUnknown = needSettle;
    let retry = 0;
    const finish = (outcome: RequestRecord['outcome'], patch: Partial<RequestRecord>) => {
      Object.assign(request, { outcome, finishedAt: this.#clock.now(), ...patch });
      this.#journal.updateRequest({ ...request });
      this.#emit(entry, 'request');
    };
    const settle = async (last: boolean): Promise<SettleResult<T>> => {
      if (!spec.settle) return { found: false };
      try {
        return await spec.settle(request, last);
      } catch (error) {
        // The reads failed, not the request: it may still have acted, so it stays in doubt (unknown) for
        // the leftover settle and, failing that, the next start; 'failed' would disown an order it placed.
        Object.assign(request, { outcome: 'unknown', errorCode: error instanceof IntentEnd ? error.code : 'settlement_failed' });
        this.#journal.updateRequest({ ...request });
        this.#emit(entry, 'request');
        throw error;
      }
    };
    // Counted from here, before the request can be sent: an identical one settling meanwhile must not
    // take this one's order, in flight or in doubt, for its own.
    if (shape) this.#unresolved.set(shape, (this.#unresolved.get(shape) ?? 0) + 1);
    try {
      for (;;) {
        let unclear: string | undefined;
        if (needSettle) {
          const settled = await settle(request.attempts >= this.#retry.maxAttempts);
          if (settled.found) {
            finish('ok', { result: settled.value, settledBy: 'read' });
            return settled.value;
          }
          unclear = settled.unclear;
          needSettle = false;
        }
        if (request.attempts >= this.#retry.maxAttempts) {
          finish('failed', { errorCode: request.errorCode ?? 'retries_exhausted' });
          const why = `${spec.step}: gave up after ${request.attempts} attempts (last: ${request.errorCode ?? 'none'})`;
          throw new IntentEnd('failed', 'retries_exhausted', unclear ? `${why}; ${unclear}` : why);
        }
        try {
          const value = await this.#enqueue(entry, bucket, () => {
            request.attempts += 1;
            entry.sent = true;
            this.#journal.updateRequest({ ...request });
            return call();
          });
          const replayed = isIdempotent(value) && value.idempotency.replayed;
          finish('ok', { result: value, settledBy: replayed ? 'replay' : 'response', errorCode: null });
          return value;
        } catch (error) {
          if (error instanceof IntentEnd) {
            finish('failed', { errorCode: error.code });
            throw error;
          }
          if (error instanceof VenueRefusal) {
            if (spec.refusalMeansDone) {
              const r = await spec.refusalMeansDone(error, hadUnknown);
              if (r.found) {
                finish('ok', { result: r.value, settledBy: 'read' });
                return r.value;
              }
            }
            finish('refused', { errorCode: error.code });
            throw new IntentEnd('rejected', error.code, error.message);
          }
          if (!(error instanceof TransientFailure)) throw error;
          request.errorCode = error.code;
          if (isUnknownOutcome(error)) {
            request.outcome = 'unknown';
            needSettle = true;
            hadUnknown = true;
          }
          this.#journal.updateRequest({ ...request });
          this.#emit(entry, 'request');
          retry += 1;
          if (request.attempts >= this.#retry.maxAttempts) continue; // settle once more, then give up
          const delay = this.#delayAfter(error, retry, bucket);
          if (delay > 0) await this.#sleep(delay);
        }
      }
    } finally {
      if (shape) {
        const left = (this.#unresolved.get(shape) ?? 1) - 1;
        if (left > 0) this.#unresolved.set(shape, left);
        else this.#unresolved.delete(shape);
      }
    }
  }

  /** A read for an intent (resolution or settlement): retried on transient failures, refused → rejected. */
  async #read<T>(entry: Entry, operation: ExchangeOperation, fn: () => Promise<T>): Promise<T> {
    const bucket = OPERATION_BUCKET[operation];
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#enqueue(entry, bucket, fn, false);
      } catch (error) {
        if (error instanceof VenueRefusal) throw new IntentEnd('rejected', error.code, error.message, error);
        if (!(error instanceof TransientFailure) || attempt >= this.#retry.maxAttempts) {
          const code = error instanceof TransientFailure ? 'retries_exhausted' : 'executor_error';
          throw new IntentEnd('failed', code, `${operation}: ${error instanceof Error ? error.message : String(error)}`, error);
        }
        const delay = this.#delayAfter(error, attempt, bucket);
        if (delay > 0) await this.#sleep(delay);
      }
    }
  }

  #delayAfter(error: TransientFailure, retry: number, bucket: Bucket): number {
    this.#blockOn429(error, bucket);
    return retryDelay(this.#retry, error, retry, this.#clock.now(), this.#random) ?? 0;
  }

  #blockOn429(error: unknown, bucket: Bucket): void {
    if (error instanceof RateLimitError && error.retryAt) {
      const target: Bucket = error.bucket === 'read' || error.bucket === 'write' ? error.bucket : bucket;
      this.#gates[target].blockUntil(error.retryAt.getTime());
    }
  }

  /**
   * Run `fn` in the bucket's queue at the intent's priority, after the bucket's rate gate. An untouched
   * droppable intent that waited longer than `maxQueueWaitMs` is dropped instead of sent.
   */
  async #enqueue<T>(entry: Entry, bucket: Bucket, fn: () => Promise<T>, droppableWrite = bucket === 'write'): Promise<T> {
    const droppable = droppableWrite && !entry.sent && this.#droppable.has(entry.intent.kind) && !isProtective(entry.intent);
    const enqueuedAt = droppable ? entry.submittedAt : this.#clock.now();
    if (droppable) {
      if (this.#queuedDroppable >= this.#maxQueuedEntries) {
        throw new IntentEnd('dropped', 'queue_full', `${this.#queuedDroppable} entries already wait in the ${bucket} queue`);
      }
      this.#queuedDroppable += 1;
    }
    let counted = droppable;
    const uncount = () => {
      if (counted) {
        counted = false;
        this.#queuedDroppable -= 1;
      }
    };
    const gate = this.#gates[bucket];
    const tooLate = (at: number) => droppable && at - enqueuedAt > this.#maxQueueWaitMs;
    try {
      return await this.#queues[bucket].add(
        async () => {
          for (;;) {
            if (droppable && this.#dropCode !== null) {
              throw new IntentEnd('dropped', this.#dropCode, 'dropped before it was sent: the executor is shutting down');
            }
            if (droppable && entry.seq <= (this.#flattenedAt.get(entry.intent.accountId) ?? 0)) {
              throw new IntentEnd('dropped', 'account_flattened', 'dropped before it was sent: the account was flattened after it was queued');
            }
            if (tooLate(this.#clock.now())) break;
            const wait = gate.tryTake();
            if (wait === 0) {
              uncount();
              try {
                return await fn();
              } catch (error) {
                // Block the bucket before the queue hands the slot to the next task.
                this.#blockOn429(error, bucket);
                throw error;
              }
            }
            if (tooLate(this.#clock.now() + wait)) break;
            await this.#sleep(wait);
          }
          const waited = this.#clock.now() - enqueuedAt;
          throw new IntentEnd(
            'dropped',
            'queue_timeout',
            entry.resumed
              ? `not sent before the restart: made ${waited} ms ago, longer than maxQueueWaitMs (${this.#maxQueueWaitMs}) allows`
              : `waited ${waited} ms in the ${bucket} queue (max ${this.#maxQueueWaitMs})`,
          );
        },
        { priority: priorityOf(entry.intent) },
      );
    } finally {
      uncount();
    }
  }

  // ── reads used by plans ──────────────────────────────────────────────────────────────────────────

  async #findPosition(entry: Entry, positionId: string | undefined, direction: 'long' | 'short'): Promise<Position> {
    const { accountId, asset } = entry.intent;
    const positions = await this.#read(entry, 'listActivePositions', () => this.#exchange.listActivePositions(accountId, asset));
    const external = this.#untouchable?.positions;
    if (positionId !== undefined && external?.has(positionId)) {
      throw new IntentEnd('rejected', 'external_position', `position ${positionId} was not opened by propbot; it is left alone`);
    }
    // Without an id, only positions propbot opened are candidates.
    const open = objectsWhere(positions, (p) => p.status === 'opened' && !(positionId === undefined && external?.has(p.idx)));
    const found = positionId ? open.find((p) => p.idx === positionId) : open.find((p) => p.direction === direction);
    if (!found) {
      const what = positionId ? `position ${positionId}` : `open ${direction} position`;
      throw new IntentEnd('rejected', 'position_not_found', `${accountId} holds no ${what} on ${asset}`);
    }
    return found;
  }

  /**
   * After an edit's answer was lost: `'active'` while the venue still lists the original (the edit did
   * not act), else its replacement, claimed, if the book or the history holds one (it may have fired).
   */
  async #replacement(entry: Entry, original: EditedOrder, trigger: Decimal, storedAt: number): Promise<Order | 'active' | undefined> {
    const active = await this.#activeOrders(entry);
    if (isActiveIn(active, original.id)) return 'active';
    const since = storedAt - this.#skewMs;
    const claimable = (o: Order) => !this.#claimed.has(o.id) && orderMatchesEdit(o, original, trigger, since);
    // Claimed as it is chosen, with no await between: another settle can not choose it too. The
    // history (edits are left out of it) is asked after its reads, which another settle may have
    // claimed from meanwhile.
    const hit = active.find(claimable) ?? (await this.#historyAll(entry, since, claimable)).find(claimable);
    return hit === undefined ? undefined : this.#claim(hit);
  }

  /** The intent's account's active orders, through the read queue. */
  #activeOrders(entry: Entry): Promise<Order[]> {
    return this.#read(entry, 'listActiveOrders', () => this.#exchange.listActiveOrders(entry.intent.accountId));
  }

  /** Whether the venue still lists the order as active: a cancel in doubt acted if not. */
  async #stillActive(entry: Entry, orderId: string): Promise<boolean> {
    return isActiveIn(await this.#activeOrders(entry), orderId);
  }

  /** Orders of the intent's market history created since `since` that satisfy `pred` (newest pages first). */
  async #historyAll(entry: Entry, since: number, pred: (o: Order) => boolean): Promise<Order[]> {
    const { accountId, asset } = entry.intent;
    const out: Order[] = [];
    const pageSize = 100;
    for (let page = 0; page < this.#historyPages; page += 1) {
      const offset = page * pageSize;
      const res = await this.#read(entry, 'listOrderHistory', () =>
        this.#exchange.listOrderHistory(accountId, asset, { limit: pageSize, offset }),
      );
      out.push(...res.data.filter(pred));
      const last = res.data[res.data.length - 1];
      if (!last || last.createdAt.getTime() < since || offset + res.data.length >= res.totalCount) break;
    }
    return out;
  }

  async #marketId(entry: Entry): Promise<string> {
    try {
      const { asset, accountId } = entry.intent;
      return this.#resolveMarketId ? await this.#resolveMarketId(asset, accountId) : await this.#marketIdFromList(entry);
    } catch (error) {
      if (error instanceof IntentEnd) throw error;
      throw new IntentEnd('rejected', 'market_not_found', error instanceof Error ? error.message : String(error));
    }
  }

  async #marketIdFromList(entry: Entry): Promise<string> {
    const { asset, accountId } = entry.intent;
    const load = () => {
      const loading = this.#read(entry, 'listMarkets', () => this.#exchange.listMarkets()).then(
        (markets) => new Map(markets.map((m) => [m.config.baseAsset, m.id])),
      );
      loading.catch(() => (this.#marketIds = undefined));
      return (this.#marketIds = loading);
    };
    const cached = this.#marketIds;
    let id = (await (cached ?? load())).get(asset);
    // A market listed since the cache was filled: look once more before refusing.
    if (!id && cached) id = (await load()).get(asset);
    if (!id) throw new IntentEnd('rejected', 'market_not_found', `no market with base asset "${asset}" (account ${accountId})`);
    return id;
  }

  // ── tracking and records ─────────────────────────────────────────────────────────────────────────

  #track(entry: Entry, order: Order, step: string, replaces: string | null): void {
    const existing = entry.orders.get(order.id);
    const tracked: MutableTracked = existing
      ? Object.assign({}, existing, { order })
      : { id: order.id, step, replaces, replacedBy: null, order };
    this.#addTracked(entry, tracked);
    if (replaces) {
      for (const intentId of this.#orderOwners.get(replaces) ?? []) {
        const e = this.#entries.get(intentId);
        const old = e?.orders.get(replaces);
        if (e && old) {
          old.replacedBy = order.id;
          old.order = Object.assign({}, old.order, { status: 'canceled_by_update' as const });
          this.#journal.saveOrder({ orderId: old.id, intentId, step: old.step, replaces: old.replaces, order: old.order, seenAt: this.#clock.now() });
          if (e !== entry) this.#emit(e, 'order');
        }
      }
    }
    this.#journal.saveOrder({ orderId: order.id, intentId: entry.intent.id, step: tracked.step, replaces: tracked.replaces, order, seenAt: this.#clock.now() });
    this.#emit(entry, 'order');
  }

  /** An order a settle chose: no other settle may adopt it, even before it is tracked. */
  #claim(order: Order): Order {
    this.#claimed.add(order.id);
    return order;
  }

  #addTracked(entry: Entry, tracked: MutableTracked): void {
    entry.orders.set(tracked.id, tracked);
    this.#claimed.add(tracked.id);
    let owners = this.#orderOwners.get(tracked.id);
    if (!owners) this.#orderOwners.set(tracked.id, (owners = new Set()));
    owners.add(entry.intent.id);
  }

  #setStatus(entry: Entry, status: IntentStatus, code: string | null, reason: string | null, kind: IntentUpdateKind): void {
    if (isFinalStatus(entry.status)) return;
    entry.status = status;
    entry.code = code;
    entry.reason = reason;
    this.#saveIntent(entry);
    this.#emit(entry, kind);
  }

  #saveIntent(entry: Entry): void {
    entry.updatedAt = this.#clock.now();
    this.#journal.saveIntent({
      intent: entry.intent,
      status: entry.status,
      code: entry.code,
      reason: entry.reason,
      updatedAt: entry.updatedAt,
    });
  }

  #emit(entry: Entry, kind: IntentUpdateKind): void {
    entry.updatedAt = this.#clock.now();
    if (!this.#updates.closed) this.#updates.next({ kind, state: this.#snapshot(entry) });
  }

  #snapshot(entry: Entry): IntentState {
    return {
      intent: entry.intent,
      status: entry.status,
      code: entry.code,
      reason: entry.reason,
      orders: [...entry.orders.values()].map((t): TrackedOrder => ({ ...t })),
      requests: [...entry.requests.values()].map((r) => ({
        key: r.key,
        step: r.step,
        operation: r.operation,
        attempts: r.attempts,
        outcome: r.outcome,
        settledBy: r.settledBy ?? null,
        errorCode: r.errorCode ?? null,
      })),
      updatedAt: entry.updatedAt,
    };
  }
}

function isActiveIn(orders: readonly Order[], orderId: string): boolean {
  return orders.some((o) => o.id === orderId && o.status === 'active');
}

function isIdempotent(value: unknown): value is Idempotent<unknown> {
  return typeof value === 'object' && value !== null && 'idempotency' in value;
}

/** Identity of a create request for "is another identical request in doubt right now". */
function shapeOf(r: CreateOrderRequest): string {
  return [r.accountId, r.marketId, r.type, r.direction, r.positionId ?? '', r.amount.toString(), r.baseSize?.toString() ?? ''].join('|');
}

function nonNegative(v: number, path: string): number {
  if (!Number.isFinite(v) || v < 0) throw new ConfigError(path, `expected a number of ms >= 0, got ${String(v)}`);
  return v;
}

function positiveInt(v: number, path: string): number {
  if (!Number.isSafeInteger(v) || v < 1) throw new ConfigError(path, `expected an integer >= 1, got ${String(v)}`);
  return v;
}
