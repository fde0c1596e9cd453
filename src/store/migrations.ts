/**
 * The schema, as an ordered list of migrations. A database records the versions it has applied in
 * `schema_version`; opening applies the missing ones, each in its own transaction, so a crash during
 * a migration leaves the previous version intact. Never edit a released migration: append one.
 * Money and sizes are TEXT decimal strings (≤ 9 places); times are INTEGER unix ms.
 */
import type { SqliteRaw } from './sqlite.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
CREATE TABLE intents (
  id TEXT PRIMARY KEY,
  strategy TEXT NOT NULL,
  account_id TEXT NOT NULL,
  asset TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  code TEXT,
  reason TEXT,
  updated_at INTEGER NOT NULL
);
CREATE INDEX intents_status ON intents(status);

CREATE TABLE decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  intent_id TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('approved', 'denied')),
  code TEXT,
  reason TEXT,
  rule TEXT,
  at INTEGER NOT NULL
);
CREATE INDEX decisions_intent ON decisions(intent_id);

CREATE TABLE guard_states (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id TEXT NOT NULL,
  from_state TEXT NOT NULL,
  to_state TEXT NOT NULL,
  reason TEXT NOT NULL,
  at INTEGER NOT NULL
);

CREATE TABLE requests (
  idempotency_key TEXT PRIMARY KEY,
  intent_id TEXT NOT NULL,
  step TEXT NOT NULL,
  operation TEXT NOT NULL,
  args TEXT NOT NULL,
  stored_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  result TEXT,
  error_code TEXT,
  settled_by TEXT,
  finished_at INTEGER
);
CREATE INDEX requests_intent ON requests(intent_id);

CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  intent_id TEXT,
  step TEXT,
  replaces TEXT,
  parent_order_id TEXT,
  account_id TEXT NOT NULL,
  market_id TEXT NOT NULL,
  type TEXT NOT NULL,
  direction TEXT NOT NULL,
  status TEXT NOT NULL,
  amount TEXT NOT NULL,
  base_size TEXT,
  trigger_price TEXT NOT NULL,
  index_price TEXT,
  realized_pnl TEXT,
  error_code TEXT,
  created_at INTEGER NOT NULL,
  seen_at INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX orders_intent ON orders(intent_id);
CREATE INDEX orders_created ON orders(created_at);

CREATE TABLE position_events (
  position_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  account_id TEXT NOT NULL,
  market_id TEXT NOT NULL,
  event_name TEXT NOT NULL,
  direction TEXT NOT NULL,
  status TEXT NOT NULL,
  size TEXT NOT NULL,
  pnl_in_event TEXT NOT NULL,
  fee_in_event TEXT NOT NULL,
  funding_in_event TEXT NOT NULL,
  order_id TEXT,
  at INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (position_id, version)
);

CREATE TABLE equity_samples (
  account_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  equity TEXT NOT NULL,
  balance TEXT,
  PRIMARY KEY (account_id, at)
);

CREATE TABLE strategy_state (
  strategy TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (strategy, key)
);

CREATE TABLE market_snapshots (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  asset TEXT NOT NULL,
  market_id TEXT NOT NULL,
  taken_at INTEGER NOT NULL,
  index_price TEXT NOT NULL,
  funding_rate TEXT NOT NULL,
  vpi_spread TEXT NOT NULL,
  is_paused INTEGER NOT NULL,
  is_close_only INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX market_snapshots_asset_time ON market_snapshots(asset, taken_at);
`,
  },
  {
    version: 2,
    name: 'decisions keep the intent',
    // A denied intent never reaches the intents table; its decision row now keeps what was asked
    // (size, stop, leverage) so an audit can see why the guard said no. Older rows keep NULL.
    sql: `ALTER TABLE decisions ADD COLUMN intent TEXT;`,
  },
  {
    version: 3,
    name: 'fills name their origin; guard actions',
    // Every position event says who or what made it (strategy intent, stop loss, take profit, trailing
    // stop, liquidation, kill switch, force close with the platform's reason, funding); rows written
    // before keep NULL. The guard's own actions keep the figures that tripped them.
    sql: `
ALTER TABLE position_events ADD COLUMN origin TEXT;
ALTER TABLE position_events ADD COLUMN origin_intent_id TEXT;
ALTER TABLE position_events ADD COLUMN origin_reason TEXT;
CREATE TABLE guard_actions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  rule TEXT NOT NULL,
  code TEXT NOT NULL,
  reason TEXT NOT NULL,
  intent_id TEXT NOT NULL,
  floor_rule TEXT NOT NULL,
  equity TEXT NOT NULL,
  floor TEXT NOT NULL,
  threshold TEXT NOT NULL
);
CREATE INDEX guard_actions_account_time ON guard_actions(account_id, at);
`,
  },
  {
    version: 4,
    name: 'control actions',
    // What a person did from the cockpit (pause, resume, flatten, cancel): who, when, on what, and the
    // intent it produced, so the intent's decision and orders can be followed from the action.
    sql: `CREATE TABLE control_actions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  wall_at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  origin TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  reason TEXT NOT NULL,
  intent_id TEXT,
  outcome TEXT NOT NULL
);
CREATE INDEX control_actions_at ON control_actions(at);`,
  },
  {
    version: 5,
    name: 'edits keep their order',
    // An edit's order as it stood when the edit was stored (JSON: id, type, account, market,
    // position). After a restart the order is out of the book and the history, and this is what tells
    // its replacement from another position's order at the same trigger. Older rows keep NULL.
    sql: `ALTER TABLE requests ADD COLUMN edited_order TEXT;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Apply every migration the database lacks; returns the versions applied now. */
export async function migrate(db: SqliteRaw, migrations: readonly Migration[] = MIGRATIONS, now = Date.now()): Promise<number[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const rows = await db.all<{ version: number }>('SELECT version FROM schema_version');
  const have = new Set(rows.map((r) => r.version));
  const newest = Math.max(0, ...have);
  const known = Math.max(0, ...migrations.map((m) => m.version));
  if (newest > known) {
    throw new Error(`store: database schema version ${newest} is newer than this propbot knows (${known}); upgrade propbot`);
  }
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (have.has(m.version)) continue;
    await db.transaction(async () => {
      await db.exec(m.sql);
      await db.run('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, now]);
    });
    applied.push(m.version);
  }
  return applied;
}
