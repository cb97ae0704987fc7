/**
 * The smallest surface both databases share. SQL is written once with `?`
 * placeholders; the PostgreSQL driver rewrites them to `$1, $2, …`.
 *
 * Calls are bounded by the driver's timeout (PostgreSQL: client-side connect
 * and query timeouts; SQLite: waiting for a lock another process holds):
 * past it a call rejects rather than hangs, and later calls work again once
 * the database does.
 */
export interface SqlDriver {
  readonly kind: 'sqlite' | 'postgres';
  /** Run a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Run several statements (migrations), atomically where the database allows. */
  execScript(sql: string): Promise<void>;
  /**
   * Run fn atomically. fn may only await calls on the driver it is given:
   * with SQLite (one connection) the transaction must finish within one turn
   * of the event loop so no other request's statement can land inside it;
   * the driver rolls back and throws if fn awaited anything else.
   */
  transaction<T>(fn: (tx: Pick<SqlDriver, 'run' | 'all' | 'kind'>) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /** Run fn while holding a cross-process lock (PostgreSQL advisory lock; SQLite: a write transaction). */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Prove a write can be made now (readiness): a durable write of one row of
   * `readiness_probe` (write-probe.ts); SQLite first checks free space on its
   * filesystem. Without it, a trivial read is the probe.
   */
  probeWrite?(): Promise<void>;
  /**
   * A value that two calls return alike only if no commit reached the
   * database in between, by any connection or process; undefined when that
   * cannot be told now. A read taken after one call is still current at a
   * later call that returns the same value. Without it (PostgreSQL, where
   * no such cheap signal exists), every read goes to the database.
   */
  commitVersion?(): string | undefined;
  close(): Promise<void>;
}

export interface TransactionOptions {
  /**
   * false: the commit is atomic and visible at once and survives a crash of
   * this process, but is not flushed to disk before it returns (SQLite WAL
   * with `synchronous = NORMAL`; PostgreSQL `synchronous_commit = off`). An
   * OS crash or power loss (PostgreSQL: a server crash) can lose it, never
   * corrupt anything; the next durable commit flushes it too. Default true.
   */
  durable?: boolean;
}

export function toPostgresPlaceholders(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}
