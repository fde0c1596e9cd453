/**
 * Promise helpers over the `sqlite3` callback API, with one rule: every use of the connection goes
 * through `exclusive()`, one at a time. A connection is one transaction context, so a batch's
 * BEGIN…COMMIT must never interleave with another caller's statement.
 */
import type sqlite3 from 'sqlite3';

export type SqlParam = string | number | bigint | null | Buffer;

export class SqliteConnection {
  readonly #db: sqlite3.Database;
  #tail: Promise<unknown> = Promise.resolve();

  private constructor(db: sqlite3.Database) {
    this.#db = db;
  }

  static async open(file: string): Promise<SqliteConnection> {
    // The native binding is loaded with the first connection, not by every process that imports propbot.
    const { default: sqlite } = await import('sqlite3');
    return new Promise((resolve, reject) => {
      const db = new sqlite.Database(file, sqlite.OPEN_READWRITE | sqlite.OPEN_CREATE, (err) => {
        if (err) reject(new Error(`sqlite: cannot open ${file}: ${err.message}`, { cause: err }));
        else resolve(new SqliteConnection(db));
      });
    });
  }

  /** Run `fn` alone on the connection (callers queue in order). */
  exclusive<T>(fn: (db: SqliteRaw) => Promise<T>): Promise<T> {
    const run = this.#tail.then(() => fn(this.raw));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Unguarded access; only inside `exclusive()`. */
  get raw(): SqliteRaw {
    return new SqliteRaw(this.#db);
  }

  close(): Promise<void> {
    return this.exclusive(
      () =>
        new Promise<void>((resolve, reject) => {
          this.#db.close((err) => (err ? reject(err) : resolve()));
        }),
    );
  }
}

export class SqliteRaw {
  readonly #db: sqlite3.Database;
  constructor(db: sqlite3.Database) {
    this.#db = db;
  }
  run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number; lastID: number }> {
    return new Promise((resolve, reject) => {
      this.#db.run(sql, params, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(wrap(err, sql));
        else resolve({ changes: this.changes, lastID: this.lastID });
      });
    });
  }
  all<T = Record<string, unknown>>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.#db.all(sql, params, (err: Error | null, rows: T[]) => (err ? reject(wrap(err, sql)) : resolve(rows)));
    });
  }
  get<T = Record<string, unknown>>(sql: string, params: readonly SqlParam[] = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.#db.get(sql, params, (err: Error | null, row: T | undefined) => (err ? reject(wrap(err, sql)) : resolve(row)));
    });
  }
  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#db.exec(sql, (err) => (err ? reject(wrap(err, sql)) : resolve()));
    });
  }
  /** Run `fn` inside BEGIN IMMEDIATE … COMMIT; roll back on any error. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    await this.exec('BEGIN IMMEDIATE');
    try {
      const out = await fn();
      await this.exec('COMMIT');
      return out;
    } catch (error) {
      await this.exec('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}

function wrap(err: Error, sql: string): Error {
  const head = sql.replace(/\s+/g, ' ').trim().slice(0, 80);
  return new Error(`sqlite: ${err.message} (in: ${head})`, { cause: err });
}
