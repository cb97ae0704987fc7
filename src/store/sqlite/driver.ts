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
  // One connection serves every request. Async callers interleave at each
  // await, so a transaction holds this lock and every other statement waits
  // for it: nothing from another request can land inside (or be rolled back
  // with) someone else's transaction.
  let active: Promise<void> | null = null;
  const idle = async () => {
    while (active) await active;
  };
  const direct = {
    kind: 'sqlite' as const,
    async run(sql: string, params: unknown[] = []) {
      return stmt(sql).run(...params).changes;
    },
    async all<T>(sql: string, params: unknown[] = []) {
      return stmt(sql).all(...params) as T[];
    },
  };
  return {
    kind: 'sqlite',
    async run(sql, params = []) {
      if (active) await idle();
      guard();
      return direct.run(sql, params);
    },
    async all<T>(sql: string, params: unknown[] = []) {
      if (active) await idle();
      guard();
      return direct.all<T>(sql, params);
    },
    async execScript(sql) {
      while (active) await active;
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
      // No await between the last check and taking the lock.
      while (active) await active;
      guard();
      let release!: () => void;
      active = new Promise<void>((r) => (release = r));
      db.exec('BEGIN IMMEDIATE');
      let crossedTurn = false;
      const probe = setImmediate(() => (crossedTurn = true));
      try {
        const out = await fn(direct);
        // Holding the write lock across real I/O would stall every request.
        if (crossedTurn) throw new Error('sqlite transaction awaited I/O: it must complete within one event-loop turn');
        db.exec('COMMIT');
        return out;
      } catch (e) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw e;
      } finally {
        clearImmediate(probe);
        active = null;
        release();
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
