import pg from 'pg';
import { toPostgresPlaceholders, type SqlDriver, type TransactionOptions } from '../sql-driver.js';

// BIGINT columns hold millisecond timestamps and unix seconds: well inside
// Number's exact range, so read them as numbers rather than strings.
pg.types.setTypeParser(20, (v) => Number(v));

/** A fixed key for the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK_KEY = 840_402_001;
/** Migrations (and waiting for another instance's) may take longer than one request's query; start-up only. */
const MIGRATION_TIMEOUT_MS = 60_000;

/**
 * True when the server answered with an error: the connection is in a known
 * state and can roll back and be reused. Anything else (client-side query
 * timeout, reset, closed socket) leaves it in an unknown state.
 */
function serverError(e: unknown): boolean {
  return e instanceof pg.DatabaseError;
}

/** A query with its own client-side bound (start-up work that may legitimately take longer). */
type SlowQuery = pg.QueryConfig & { query_timeout: number };

export interface PostgresOptions {
  max?: number;
  /**
   * Bound on connecting, on waiting for a pooled connection and on each
   * query, measured by this process: a stalled network (no reset) then fails
   * the request (503) instead of hanging it. Default 3000.
   */
  timeoutMs?: number;
  /** Connect bound alone (defaults to timeoutMs). */
  connectTimeoutMs?: number;
}

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<SqlDriver> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? timeoutMs,
    // Client side: fires even when the server cannot be heard from.
    query_timeout: timeoutMs,
    // Server side: cancels a slow statement cleanly while the network is fine.
    statement_timeout: timeoutMs,
    // A transaction whose client vanished (its socket stalled, then destroyed
    // here) must not keep row locks until the server notices the dead peer.
    idle_in_transaction_session_timeout: Math.max(2 * timeoutMs, 5000),
    // Lets the OS find dead peers on idle connections.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle client erroring (server restart) must not crash the process.
  pool.on('error', () => {});
  const client = await pool.connect();
  client.release();
  const texts = new Map<string, string>();
  const text = (sql: string) => {
    let t = texts.get(sql);
    if (!t) {
      t = toPostgresPlaceholders(sql);
      texts.set(sql, t);
    }
    return t;
  };

  /**
   * A checked-out client. Any failure that is not a server error (the query
   * timed out, the socket broke) marks it broken: its pending query may never
   * finish, so it is destroyed on release (`release(err)` ends it, and pg
   * destroys the socket of a client with a query still active) and never
   * asked to ROLLBACK, which would wait behind that query.
   */
  async function checkout() {
    const c = await pool.connect();
    let broken: Error | undefined;
    // Between queries a dying socket emits 'error' on the client; unhandled, that would crash the process.
    const onError = (e: Error) => (broken ??= e);
    c.on('error', onError);
    let released = false;
    return {
      async query(q: string | SlowQuery, params?: unknown[]) {
        if (broken) throw broken;
        try {
          // pg reads a per-query query_timeout from the config object; its types do not declare it.
          return await (typeof q === 'string' ? c.query(q, params) : c.query(q));
        } catch (e) {
          if (!serverError(e)) broken ??= e as Error;
          throw e;
        }
      },
      /** Roll back if the connection can still be trusted to answer. */
      async rollback() {
        if (broken) return;
        await this.query('ROLLBACK').catch((e: Error) => (broken ??= e));
      },
      /** With a reason (or once broken) the client is destroyed, not pooled. */
      release(reason?: Error) {
        if (released) return;
        released = true;
        c.removeListener('error', onError);
        const err = broken ?? reason;
        if (err) c.release(err);
        else c.release();
      },
    };
  }

  return {
    kind: 'postgres',
    // pool.query releases its client with the error, so a timed-out one is destroyed.
    async run(sql, params = []) {
      const r = await pool.query(text(sql), params as unknown[]);
      return r.rowCount ?? 0;
    },
    async all<T>(sql: string, params: unknown[] = []) {
      const r = await pool.query(text(sql), params as unknown[]);
      return r.rows as T[];
    },
    async execScript(sql) {
      const c = await checkout();
      try {
        await c.query('BEGIN');
        await c.query(`SET LOCAL statement_timeout = ${MIGRATION_TIMEOUT_MS}`);
        await c.query({ text: sql, query_timeout: MIGRATION_TIMEOUT_MS });
        await c.query('COMMIT');
      } catch (e) {
        await c.rollback();
        throw e;
      } finally {
        c.release();
      }
    },
    async transaction(fn, opts: TransactionOptions = {}) {
      const c = await checkout();
      try {
        await c.query('BEGIN');
        // Not durable: this transaction's commit does not wait for its WAL flush (SET LOCAL ends with it).
        if (opts.durable === false) await c.query('SET LOCAL synchronous_commit = off');
        const tx = {
          kind: 'postgres' as const,
          async run(sql: string, params: unknown[] = []) {
            return (await c.query(text(sql), params)).rowCount ?? 0;
          },
          async all<T>(sql: string, params: unknown[] = []) {
            return (await c.query(text(sql), params)).rows as T[];
          },
        };
        const out = await fn(tx);
        await c.query('COMMIT');
        return out;
      } catch (e) {
        // fn's own errors (a lost lease) leave the connection healthy: roll back and reuse it.
        await c.rollback();
        throw e;
      } finally {
        c.release();
      }
    },
    async withMigrationLock(fn) {
      const c = await checkout();
      let clean = false;
      try {
        // Waiting for another instance's migrations is expected at start-up: allow them time.
        await c.query(`SET statement_timeout = ${MIGRATION_TIMEOUT_MS}`);
        await c.query({ text: 'SELECT pg_advisory_lock($1)', values: [MIGRATION_LOCK_KEY], query_timeout: MIGRATION_TIMEOUT_MS });
        try {
          return await fn();
        } finally {
          await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
          await c.query('RESET statement_timeout');
          clean = true;
        }
      } finally {
        // Short of a clean unlock, destroy the session: that drops its advisory lock and its settings.
        c.release(clean ? undefined : new Error('migration lock session not cleaned up'));
      }
    },
    async close() {
      // Waits only for checked-out clients, whose queries are bounded by query_timeout.
      await pool.end();
    },
  };
}
