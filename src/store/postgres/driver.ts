import pg from 'pg';
import { toPostgresPlaceholders, type SqlDriver } from '../sql-driver.js';

// BIGINT columns hold millisecond timestamps and unix seconds: well inside
// Number's exact range, so read them as numbers rather than strings.
pg.types.setTypeParser(20, (v) => Number(v));

/** A fixed key for the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK_KEY = 840_402_001;

export async function openPostgres(url: string, opts: { max?: number; connectTimeoutMs?: number } = {}): Promise<SqlDriver> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    // A statement that hangs must fail the request (503), not hold it forever.
    statement_timeout: 10_000,
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
  return {
    kind: 'postgres',
    async run(sql, params = []) {
      const r = await pool.query(text(sql), params as unknown[]);
      return r.rowCount ?? 0;
    },
    async all<T>(sql: string, params: unknown[] = []) {
      const r = await pool.query(text(sql), params as unknown[]);
      return r.rows as T[];
    },
    async execScript(sql) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await c.query(sql);
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        c.release();
      }
    },
    async transaction(fn) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
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
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        c.release();
      }
    },
    async withMigrationLock(fn) {
      const c = await pool.connect();
      try {
        await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        try {
          return await fn();
        } finally {
          await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        }
      } finally {
        c.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
