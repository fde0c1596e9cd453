export { Store } from './store.js';
export type { StoreOptions, RecordedSnapshot, EquitySample, StoredDecision, StrategyStateStore, ControlRecord } from './store.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate } from './migrations.js';
export type { Migration } from './migrations.js';
export { encodeJson, decodeJson, moneyText } from './codec.js';
export { SqliteConnection } from './sqlite.js';
