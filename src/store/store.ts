/**
 * The sqlite3 store of a run: intents and their requests (idempotency keys), guard decisions, orders,
 * position events, equity samples, strategy state and recorded market snapshots.
 *
 * The hot path never waits on the disk for long: writes go to a queue flushed in ONE transaction
 * every `flushIntervalMs` or `maxBatchRows` rows, whichever comes first. The one write that is awaited
 * is `beginRequest` (the idempotency key row), which flushes the queue with it: the key is durable
 * before the request leaves. WAL mode, and a batch is all or nothing, so a crash at any point leaves a
 * consistent database holding whole batches only.
 */
import path from 'node:path';
import type { Decimal } from 'decimal.js';
import type { Market, Order, PositionEvent } from '../api/types.js';
import type { ExchangeOperation } from '../api/exchange.js';
import { DirectoryError, ensureDirectory } from '../core/directories.js';
import { ConfigError } from '../core/errors.js';
import type {
  ExecutionJournal,
  IntentRecord,
  IntentStatus,
  OrderLink,
  RequestRecord,
  UnfinishedIntent,
} from '../execution/journal.js';
import type { EditedOrder } from '../execution/requests.js';
import type { MarketSnapshot } from '../feed/types.js';
import type { Decision, GuardAction, GuardStateChange } from '../risk/types.js';
import type { Origin } from '../report/origin.js';
import type { OrderIntent } from '../strategy/intents.js';
import { decodeJson, encodeJson, moneyOrNull, moneyText, parseMoney } from './codec.js';
import { migrate, type Migration, MIGRATIONS } from './migrations.js';
import { SqliteConnection, type SqlParam } from './sqlite.js';

export interface StoreOptions {
  /** Path of the database file (created with its folder when missing). */
  file: string;
  /** Flush queued writes at the latest this long after the first one was queued. Default 50 ms. */
  flushIntervalMs?: number;
  /** Flush as soon as this many rows wait. Default 500. */
  maxBatchRows?: number;
  /**
   * sqlite `synchronous`: `FULL` (default) makes every commit survive power loss; `NORMAL` in WAL mode
   * survives a crash of the process, not of the machine.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Migrations to apply (tests); default the project's. */
  migrations?: readonly Migration[];
}

interface Statement {
  sql: string;
  params: SqlParam[];
}

export interface RecordedSnapshot {
  asset: string;
  marketId: string;
  takenAt: number;
  indexPrice: Decimal;
  market: Market;
}

export interface EquitySample {
  accountId: string;
  at: number;
  equity: Decimal;
  balance: Decimal | null;
}

export interface StoredDecision {
  intentId: string;
  /** The intent as judged (null on rows written before schema version 2). */
  intent: OrderIntent | null;
  verdict: 'approved' | 'denied';
  code: string | null;
  reason: string | null;
  rule: string | null;
  at: number;
}

/** Something a person did from the cockpit, as recorded. */
export interface ControlRecord {
  /** Pipeline clock time of the action (virtual on paper), unix ms: where it sits among decisions. */
  at: number;
  /** Wall-clock time the person acted, unix ms. */
  wallAt: number;
  /** Who: the name the client gave (default `dashboard`). */
  actor: string;
  /** Where from: the peer address of the request. */
  origin: string;
  action: 'pause' | 'resume' | 'flatten' | 'resume_account' | 'cancel';
  /** Strategy name, account id or order id. */
  target: string;
  reason: string;
  /** The intent the action produced (flatten, cancel). */
  intentId: string | null;
  /** `applied`, `denied:<code>`, `unchanged`… */
  outcome: string;
}

/** Key-value state of one strategy: reads from memory, writes go through the store's batch. */
export interface StrategyStateStore {
  get<T = unknown>(key: string): T | undefined;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  keys(): string[];
}

export class Store implements ExecutionJournal {
  readonly file: string;
  readonly #conn: SqliteConnection;
  readonly #flushIntervalMs: number;
  readonly #maxBatchRows: number;
  #pending: Statement[] = [];
  #timer: NodeJS.Timeout | undefined;
  #failure: Error | undefined;
  #closed = false;

  private constructor(file: string, conn: SqliteConnection, flushIntervalMs: number, maxBatchRows: number) {
    this.file = file;
    this.#conn = conn;
    this.#flushIntervalMs = flushIntervalMs;
    this.#maxBatchRows = maxBatchRows;
  }

  /** Open (or create) the database, set WAL mode and apply missing migrations. */
  static async open(options: StoreOptions): Promise<Store> {
    if (typeof options.file !== 'string' || options.file.length === 0) {
      throw new ConfigError('store.file', `expected a path to the database file, got ${JSON.stringify(options.file)}`);
    }
    const flushIntervalMs = options.flushIntervalMs ?? 50;
    const maxBatchRows = options.maxBatchRows ?? 500;
    if (!Number.isFinite(flushIntervalMs) || flushIntervalMs < 0) {
      throw new ConfigError('store.flushIntervalMs', `expected ms >= 0, got ${String(flushIntervalMs)}`);
    }
    if (!Number.isSafeInteger(maxBatchRows) || maxBatchRows < 1) {
      throw new ConfigError('store.maxBatchRows', `expected an integer >= 1, got ${String(maxBatchRows)}`);
    }
    const synchronous = options.synchronous ?? 'FULL';
    if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
      throw new ConfigError('store.synchronous', `expected "FULL" or "NORMAL", got ${JSON.stringify(synchronous)}`);
    }
    if (options.file !== ':memory:') {
      try {
        ensureDirectory(path.dirname(path.resolve(options.file)));
      } catch (err) {
        if (err instanceof DirectoryError) throw new ConfigError('store.file', `cannot keep the store at ${options.file}: ${err.reason}`);
        throw err;
      }
    }
    const conn = await SqliteConnection.open(options.file).catch((err: unknown) => {
      throw new ConfigError('store.file', `cannot open the store ${options.file}: ${(err as Error).message}`, { cause: err });
    });
    try {
      await conn.exclusive(async (db) => {
        await db.get('PRAGMA journal_mode = WAL');
        await db.exec(`PRAGMA synchronous = ${synchronous}`);
        await db.exec('PRAGMA busy_timeout = 5000');
        await db.exec('PRAGMA foreign_keys = ON');
        await migrate(db, options.migrations ?? MIGRATIONS);
      });
    } catch (error) {
      await conn.close().catch(() => undefined);
      throw error;
    }
    return new Store(options.file, conn, flushIntervalMs, maxBatchRows);
  }

  // ── the write queue ──────────────────────────────────────────────────────────────────────────────

  /** Rows waiting for the next flush. */
  get queued(): number {
    return this.#pending.length;
  }

  #enqueue(...statements: Statement[]): void {
    if (this.#closed) throw new Error(`store ${this.file}: write after close()`);
    this.#pending.push(...statements);
    if (this.#pending.length >= this.#maxBatchRows) {
      this.#flushInBackground();
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => this.#flushInBackground(), this.#flushIntervalMs);
      // A forgotten store must not keep the process alive; close() drains it.
      this.#timer.unref();
    }
  }

  /** Nobody awaits a background flush: its failure is kept and thrown by the next flush() or close(). */
  #flushInBackground(): void {
    this.flush().catch((error: unknown) => {
      this.#failure ??= error as Error;
    });
  }

  /**
   * Write everything queued so far in one transaction; resolves once it is committed. Rejects when this
   * batch (or an earlier background one) was rolled back.
   */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#pending;
    this.#pending = [];
    return this.#conn.exclusive(async (db) => {
      if (this.#failure) {
        const failure = this.#failure;
        this.#failure = undefined;
        throw failure;
      }
      if (batch.length === 0) return;
      try {
        await db.transaction(async () => {
          for (const s of batch) await db.run(s.sql, s.params);
        });
      } catch (error) {
        throw new Error(`store ${this.file}: a batch of ${batch.length} writes was rolled back: ${(error as Error).message}`, {
          cause: error,
        });
      }
    });
  }

  /** Flush what is queued and close the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.flush();
    } finally {
      this.#closed = true;
      await this.#conn.close();
    }
  }

  /** Read access for reports and tests (waits for queued writes first). */
  async query<T = Record<string, unknown>>(sql: string, params: SqlParam[] = []): Promise<T[]> {
    await this.flush();
    return this.#conn.exclusive((db) => db.all<T>(sql, params));
  }

  // ── ExecutionJournal ─────────────────────────────────────────────────────────────────────────────

  saveIntent(record: IntentRecord): void {
    const i = record.intent;
    this.#enqueue({
      sql: `INSERT INTO intents (id, strategy, account_id, asset, kind, body, created_at, status, code, reason, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET status = excluded.status, code = excluded.code,
              reason = excluded.reason, updated_at = excluded.updated_at`,
      params: [i.id, i.strategy, i.accountId, i.asset, i.kind, encodeJson(i), i.createdAt, record.status, record.code, record.reason, record.updatedAt],
    });
  }

  /** The idempotency key row, flushed together with everything queued before it; durable on resolve. */
  async beginRequest(record: RequestRecord): Promise<void> {
    this.#enqueue(requestStatement(record));
    await this.flush();
  }

  updateRequest(record: RequestRecord): void {
    this.#enqueue(requestStatement(record));
  }

  saveOrder(link: OrderLink): void {
    this.#enqueue(orderStatement(link.order, link.intentId, link.step, link.replaces, link.seenAt));
  }

  async findRequest(key: string): Promise<RequestRecord | undefined> {
    const rows = await this.query<RequestRow>('SELECT * FROM requests WHERE idempotency_key = ?', [key]);
    return rows[0] ? requestFromRow(rows[0]) : undefined;
  }

  async loadUnfinished(): Promise<UnfinishedIntent[]> {
    const intents = await this.query<IntentRow>(
      `SELECT * FROM intents WHERE status NOT IN ('done', 'rejected', 'dropped', 'failed')
         OR id IN (SELECT intent_id FROM requests WHERE outcome IN ('pending', 'unknown'))
       ORDER BY created_at, rowid`,
    );
    const out: UnfinishedIntent[] = [];
    for (const row of intents) {
      const requests = await this.query<RequestRow>('SELECT * FROM requests WHERE intent_id = ? ORDER BY stored_at', [row.id]);
      const orders = await this.query<OrderRow>('SELECT * FROM orders WHERE intent_id = ? ORDER BY created_at', [row.id]);
      out.push({
        record: intentFromRow(row),
        requests: requests.map(requestFromRow),
        orders: orders.map((o) => ({
          orderId: o.id,
          intentId: row.id,
          step: o.step ?? '',
          replaces: o.replaces,
          order: decodeJson<Order>(o.body),
          seenAt: o.seen_at,
        })),
      });
    }
    return out;
  }

  async claimedOrderIds(sinceMs: number): Promise<string[]> {
    const rows = await this.query<{ id: string }>('SELECT id FROM orders WHERE intent_id IS NOT NULL AND created_at >= ?', [sinceMs]);
    return rows.map((r) => r.id);
  }

  // ── other records ────────────────────────────────────────────────────────────────────────────────

  recordDecision(decision: Decision): void {
    const denied = decision.verdict === 'denied' ? decision : undefined;
    this.#enqueue({
      sql: 'INSERT INTO decisions (intent_id, verdict, code, reason, rule, at, intent) VALUES (?, ?, ?, ?, ?, ?, ?)',
      params: [decision.intent.id, decision.verdict, denied?.code ?? null, denied?.reason ?? null, denied?.rule ?? null, decision.at, encodeJson(decision.intent)],
    });
  }

  recordControl(action: ControlRecord): void {
    this.#enqueue({
      sql: 'INSERT INTO control_actions (at, wall_at, actor, origin, action, target, reason, intent_id, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      params: [action.at, action.wallAt, action.actor, action.origin, action.action, action.target, action.reason, action.intentId, action.outcome],
    });
  }

  async controlActions(): Promise<ControlRecord[]> {
    const rows = await this.query<{ at: number; wall_at: number; actor: string; origin: string; action: ControlRecord['action']; target: string; reason: string; intent_id: string | null; outcome: string }>(
      'SELECT * FROM control_actions ORDER BY id',
    );
    return rows.map((r) => ({ at: r.at, wallAt: r.wall_at, actor: r.actor, origin: r.origin, action: r.action, target: r.target, reason: r.reason, intentId: r.intent_id, outcome: r.outcome }));
  }

  recordGuardState(change: GuardStateChange): void {
    this.#enqueue({
      sql: 'INSERT INTO guard_states (account_id, from_state, to_state, reason, at) VALUES (?, ?, ?, ?, ?)',
      params: [change.accountId, change.from, change.to, change.reason, change.at],
    });
  }

  /** An order seen outside the executor (a poll, an engine event); keeps the intent link if one exists. */
  recordOrder(order: Order, seenAt: number): void {
    this.#enqueue(orderStatement(order, null, null, null, seenAt));
  }

  /** A position event, with its origin when known (see `report/origin.ts`). */
  recordPositionEvent(event: PositionEvent, origin?: Origin): void {
    this.#enqueue({
      sql: `INSERT OR REPLACE INTO position_events (position_id, version, account_id, market_id, event_name, direction,
              status, size, pnl_in_event, fee_in_event, funding_in_event, order_id, at, body, origin, origin_intent_id, origin_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        event.idx,
        event.version,
        event.trader,
        event.market,
        event.eventName,
        event.direction,
        event.status,
        moneyText(event.size, 'positionEvent.size'),
        moneyText(event.pnlInEvent, 'positionEvent.pnlInEvent'),
        moneyText(event.feeInEvent, 'positionEvent.feeInEvent'),
        moneyText(event.fundingInEvent, 'positionEvent.fundingInEvent'),
        event.order?.id ?? null,
        event.timestamp.getTime(),
        encodeJson(event),
        origin?.kind ?? null,
        origin?.intentId ?? null,
        origin?.reason ?? null,
      ],
    });
  }

  /** Something the risk guard did on its own (the kill switch), with the figures that tripped it. */
  recordGuardAction(action: GuardAction): void {
    this.#enqueue({
      sql: `INSERT INTO guard_actions (account_id, at, rule, code, reason, intent_id, floor_rule, equity, floor, threshold)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        action.accountId,
        action.at,
        action.rule,
        action.code,
        action.reason,
        action.intentId,
        action.floorRule,
        moneyText(action.equity, 'guardAction.equity'),
        moneyText(action.floor, 'guardAction.floor'),
        moneyText(action.threshold, 'guardAction.threshold'),
      ],
    });
  }

  recordEquity(sample: EquitySample): void {
    this.#enqueue({
      sql: 'INSERT OR REPLACE INTO equity_samples (account_id, at, equity, balance) VALUES (?, ?, ?, ?)',
      params: [sample.accountId, sample.at, moneyText(sample.equity, 'equity'), moneyOrNull(sample.balance, 'balance')],
    });
  }

  async equity(accountId: string): Promise<EquitySample[]> {
    const rows = await this.query<{ account_id: string; at: number; equity: string; balance: string | null }>(
      'SELECT * FROM equity_samples WHERE account_id = ? ORDER BY at',
      [accountId],
    );
    return rows.map((r) => ({
      accountId: r.account_id,
      at: r.at,
      equity: parseMoney(r.equity),
      balance: r.balance === null ? null : parseMoney(r.balance),
    }));
  }

  /** Record a market snapshot whole, so a backtest can replay the session later. */
  recordSnapshot(snapshot: MarketSnapshot): void {
    const m = snapshot.data;
    this.#enqueue({
      sql: `INSERT INTO market_snapshots (asset, market_id, taken_at, index_price, funding_rate, vpi_spread, is_paused, is_close_only, body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        snapshot.asset,
        snapshot.marketId,
        snapshot.takenAt,
        moneyText(m.state.indexPrice, 'market.state.indexPrice'),
        m.state.fundingRate.toFixed(),
        m.state.vpiSpread.toFixed(),
        m.settings.isPaused ? 1 : 0,
        m.settings.isCloseOnly ? 1 : 0,
        encodeJson(m),
      ],
    });
  }

  /** Recorded snapshots of an asset in time order, `from` and `to` inclusive (unix ms). */
  async snapshots(asset: string, range: { from?: number; to?: number } = {}): Promise<RecordedSnapshot[]> {
    const rows = await this.query<{ asset: string; market_id: string; taken_at: number; index_price: string; body: string }>(
      'SELECT asset, market_id, taken_at, index_price, body FROM market_snapshots WHERE asset = ? AND taken_at >= ? AND taken_at <= ? ORDER BY taken_at, id',
      [asset, range.from ?? 0, range.to ?? Number.MAX_SAFE_INTEGER],
    );
    return rows.map((r) => ({
      asset: r.asset,
      marketId: r.market_id,
      takenAt: r.taken_at,
      indexPrice: parseMoney(r.index_price),
      market: decodeJson<Market>(r.body),
    }));
  }

  /** The key-value state of a strategy, loaded once; `set` writes through the batch. */
  async strategyState(strategy: string, clock: () => number = Date.now): Promise<StrategyStateStore> {
    const rows = await this.query<{ key: string; value: string }>('SELECT key, value FROM strategy_state WHERE strategy = ?', [strategy]);
    const cache = new Map<string, unknown>(rows.map((r) => [r.key, decodeJson(r.value)]));
    return {
      get: <T>(key: string) => cache.get(key) as T | undefined,
      set: (key, value) => {
        if (value === undefined) throw new TypeError(`strategyState(${strategy}).set(${key}): undefined is not storable; use delete()`);
        const text = encodeJson(value);
        cache.set(key, decodeJson(text));
        this.#enqueue({
          sql: `INSERT INTO strategy_state (strategy, key, value, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(strategy, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
          params: [strategy, key, text, clock()],
        });
      },
      delete: (key) => {
        cache.delete(key);
        this.#enqueue({ sql: 'DELETE FROM strategy_state WHERE strategy = ? AND key = ?', params: [strategy, key] });
      },
      keys: () => [...cache.keys()],
    };
  }

  async decisions(intentId: string): Promise<StoredDecision[]> {
    const rows = await this.query<{ intent_id: string; verdict: 'approved' | 'denied'; code: string | null; reason: string | null; rule: string | null; at: number; intent: string | null }>(
      'SELECT * FROM decisions WHERE intent_id = ? ORDER BY id',
      [intentId],
    );
    return rows.map((r) => ({
      intentId: r.intent_id,
      verdict: r.verdict,
      code: r.code,
      reason: r.reason,
      rule: r.rule,
      at: r.at,
      intent: r.intent === null ? null : decodeJson<OrderIntent>(r.intent),
    }));
  }

  async intent(id: string): Promise<IntentRecord | undefined> {
    const rows = await this.query<IntentRow>('SELECT * FROM intents WHERE id = ?', [id]);
    return rows[0] ? intentFromRow(rows[0]) : undefined;
  }

  async schemaVersion(): Promise<number> {
    const rows = await this.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_version');
    return rows[0]?.v ?? 0;
  }
}

interface IntentRow {
  id: string;
  body: string;
  status: string;
  code: string | null;
  reason: string | null;
  updated_at: number;
}

interface RequestRow {
  idempotency_key: string;
  intent_id: string;
  step: string;
  operation: string;
  args: string;
  stored_at: number;
  attempts: number;
  outcome: string;
  result: string | null;
  error_code: string | null;
  settled_by: string | null;
  finished_at: number | null;
  edited_order: string | null;
}

interface OrderRow {
  id: string;
  step: string | null;
  replaces: string | null;
  seen_at: number;
  body: string;
}

function intentFromRow(row: IntentRow): IntentRecord {
  return {
    intent: decodeJson<OrderIntent>(row.body),
    status: row.status as IntentStatus,
    code: row.code,
    reason: row.reason,
    updatedAt: row.updated_at,
  };
}

function requestStatement(r: RequestRecord): Statement {
  return {
    sql: `INSERT INTO requests (idempotency_key, intent_id, step, operation, args, stored_at, attempts, outcome, result, error_code, settled_by, finished_at, edited_order)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT(idempotency_key) DO UPDATE SET attempts = excluded.attempts, outcome = excluded.outcome,
            result = excluded.result, error_code = excluded.error_code, settled_by = excluded.settled_by,
            finished_at = excluded.finished_at`,
    params: [
      r.key,
      r.intentId,
      r.step,
      r.operation,
      encodeJson(r.args),
      r.storedAt,
      r.attempts,
      r.outcome,
      r.result === undefined ? null : encodeJson(r.result),
      r.errorCode ?? null,
      r.settledBy ?? null,
      r.finishedAt ?? null,
      r.editedOrder == null ? null : encodeJson(r.editedOrder),
    ],
  };
}

function requestFromRow(row: RequestRow): RequestRecord {
  return {
    key: row.idempotency_key,
    intentId: row.intent_id,
    step: row.step,
    operation: row.operation as ExchangeOperation,
    args: decodeJson<unknown[]>(row.args),
    editedOrder: row.edited_order === null ? null : decodeJson<EditedOrder>(row.edited_order),
    storedAt: row.stored_at,
    attempts: row.attempts,
    outcome: row.outcome as RequestRecord['outcome'],
    ...(row.result === null ? {} : { result: decodeJson(row.result) }),
    errorCode: row.error_code,
    settledBy: row.settled_by as RequestRecord['settledBy'],
    finishedAt: row.finished_at,
  };
}

function orderStatement(o: Order, intentId: string | null, step: string | null, replaces: string | null, seenAt: number): Statement {
  return {
    sql: `INSERT INTO orders (id, intent_id, step, replaces, parent_order_id, account_id, market_id, type, direction, status,
            amount, base_size, trigger_price, index_price, realized_pnl, error_code, created_at, seen_at, body)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT(id) DO UPDATE SET
            intent_id = COALESCE(excluded.intent_id, orders.intent_id),
            step = COALESCE(excluded.step, orders.step),
            replaces = COALESCE(excluded.replaces, orders.replaces),
            status = excluded.status, amount = excluded.amount, index_price = excluded.index_price,
            realized_pnl = excluded.realized_pnl, error_code = excluded.error_code,
            seen_at = excluded.seen_at, body = excluded.body`,
    params: [
      o.id,
      intentId,
      step,
      replaces,
      o.parentOrderId,
      o.trader,
      o.market,
      o.type,
      o.direction,
      o.status,
      moneyText(o.amount, 'order.amount'),
      moneyOrNull(o.baseSize, 'order.baseSize'),
      moneyText(o.triggerPrice, 'order.triggerPrice'),
      moneyOrNull(o.indexPrice, 'order.indexPrice'),
      moneyOrNull(o.realizedPnl, 'order.realizedPnl'),
      o.errorCode,
      o.createdAt.getTime(),
      seenAt,
      encodeJson(o),
    ],
  };
}
