import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SqlDriver } from '../sql-driver.js';

/**
 * better-sqlite3 in WAL mode with `synchronous = FULL`: a commit is on disk
 * before the call returns, which is what "recorded durably before the
 * facilitator is asked" needs. Calls are synchronous; they are wrapped in
 * promises only to share the driver interface with PostgreSQL.
 */
export function openSqlite(file: string): SqlDriver {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  const cache = new Map<string, Database.Statement>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  let closed = false;
  const guard = () => {
    if (closed) throw new Error('sqlite ledger is closed');
  };
  return {
    kind: 'sqlite',
    async run(sql, params = []) {
      guard();
      return stmt(sql).run(...(params as unknown[])).changes;
    },
    async all<T>(sql: string, params: unknown[] = []) {
      guard();
      return stmt(sql).all(...(params as unknown[])) as T[];
    },
    async execScript(sql) {
      guard();
      db.exec('BEGIN IMMEDIATE');
      try {
        db.exec(sql);
        db.exec('COMMIT');
      } catch (e) {
        db.exec('ROLLBACK');
        throw e;
      }
    },
    async transaction(fn) {
      guard();
      db.exec('BEGIN IMMEDIATE');
      let crossedTurn = false;
      const probe = setImmediate(() => (crossedTurn = true));
      try {
        const out = await fn(this);
        if (crossedTurn) throw new Error('sqlite transaction awaited I/O: it must complete within one event-loop turn');
        db.exec('COMMIT');
        return out;
      } catch (e) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw e;
      } finally {
        clearImmediate(probe);
      }
    },
    async withMigrationLock(fn) {
      guard();
      return fn();
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
