import Database from 'better-sqlite3';
import { mkdirSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SqlDriver, TransactionOptions } from '../sql-driver.js';
import { writeProbe } from '../write-probe.js';

/**
 * How long one statement may wait, synchronously, for a lock held by another
 * process. better-sqlite3 waits inside the call, freezing every request, and
 * each waiting request would add its own wait; so none at all: the waiting
 * happens in `retrying`, on timers, between event-loop turns.
 */
const BUSY_WAIT_MS = 0;
const MAX_BACKOFF_MS = 100;

function isBusy(e: unknown): boolean {
  // Extended codes too: SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, …
  return /^SQLITE_(BUSY|LOCKED)/.test(String((e as { code?: unknown } | null)?.code ?? ''));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Below this much free space on the database's filesystem the write probe
 * fails. Why not the write alone: on a full disk SQLite still writes into
 * WAL space it allocated earlier, so a one-row probe succeeds while a paid
 * call, whose rows must grow the database file (at the checkpoint) or the
 * WAL, fails. 1 MiB holds a paid call's rows and a typical stored result.
 */
export const MIN_FREE_BYTES = 1024 * 1024;

/** Bytes this process may still write on the filesystem holding `dir` (root may use the blocks reserved for it). */
function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return (process.getuid?.() === 0 ? s.bfree : s.bavail) * s.bsize;
}

export interface SqliteDriver extends SqlDriver {
  /**
   * Prove a write can be made now: at least MIN_FREE_BYTES free on the
   * filesystem, then one row of `readiness_probe` (migration 0010) rewritten
   * in a durable transaction, which takes the write lock (a read proves
   * little in WAL mode, where readers never wait for the writer) and flushes
   * the WAL like a paid call's stored result.
   */
  probeWrite(): Promise<void>;
  checkpoint(): void;
  commitVersion(): string | undefined;
}

/**
 * better-sqlite3 in WAL mode with `synchronous = FULL`: a commit is on disk
 * before the call returns, which is what "recorded durably before the
 * facilitator is asked" needs. Calls are synchronous; they are wrapped in
 * promises only to share the driver interface with PostgreSQL.
 *
 * When another process holds the write lock, a statement is retried with a
 * short backoff until `timeoutMs` has passed, then fails (the ledger answers
 * 503): bounded, without blocking the event loop, and the next call after
 * the lock is released simply succeeds.
 */
export interface SqliteOptions {
  timeoutMs?: number;
  /**
   * false: this connection's commits never checkpoint the WAL into the
   * database file (SQLite's default is to do it inside the commit that grows
   * the WAL past 1,000 pages: page copies and an fsync). For a connection on
   * the event loop whose file another connection checkpoints
   * (`checkpoint()`, from the ledger's thread). Default true.
   */
  autoCheckpoint?: boolean;
  /** Called after each write this connection commits (whoever checkpoints the file learns there is something to copy). */
  onWrite?: () => void;
}

export function openSqlite(file: string, opts: SqliteOptions = {}): SqliteDriver {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const onWrite = opts.onWrite ?? (() => {});
  // This connection's own commits: `PRAGMA data_version` counts only other connections'.
  let ownCommits = 0;
  const wrote = () => {
    ownCommits++;
    onWrite();
  };
  mkdirSync(dirname(file), { recursive: true });
  // Opening may wait for another process's lock like any start-up step; requests may not.
  const db = new Database(file, { timeout: timeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
  db.pragma('foreign_keys = ON');
  if (opts.autoCheckpoint === false) db.pragma('wal_autocheckpoint = 0');
  // Switched around every unflushed commit: prepared once (db.pragma prepares its statement on each call).
  const syncNormal = db.prepare('PRAGMA synchronous = NORMAL');
  const syncFull = db.prepare('PRAGMA synchronous = FULL');
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
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
  // with) someone else's transaction. Callers re-check it in their own
  // continuation (`while (active) await active`) and then run their statement
  // synchronously, so nobody can take the lock in between.
  let active: Promise<void> | null = null;

  /**
   * Run `op` (synchronous, in one turn, after the in-process lock is free)
   * until it does not fail with BUSY/LOCKED or the deadline passes. The
   * waits are timers, so other requests keep being served meanwhile.
   */
  const retrying = async <T>(what: string, op: () => T): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (let backoff = 2; ; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
      while (active) await active;
      guard();
      try {
        return op();
      } catch (e) {
        if (!isBusy(e)) throw e;
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(`sqlite: database is locked by another connection; gave up on ${what} after ${timeoutMs} ms`, { cause: e });
        }
        await sleep(Math.min(backoff, left));
      }
    }
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
  const driver: SqliteDriver = {
    kind: 'sqlite',
    async run(sql, params = []) {
      const changes = await retrying('a write', () => stmt(sql).run(...params).changes);
      wrote();
      return changes;
    },
    async all<T>(sql: string, params: unknown[] = []) {
      // Readers do not wait for the writer in WAL mode; BUSY here is rare (recovery, checkpoints).
      return retrying('a read', () => stmt(sql).all(...params) as T[]);
    },
    async execScript(sql) {
      // BEGIN, the script and COMMIT run in one synchronous stretch, so the in-process lock is not needed.
      await retrying('a script', () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          db.exec(sql);
          db.exec('COMMIT');
        } catch (e) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw e;
        }
      });
      wrote();
    },
    async transaction(fn, opts: TransactionOptions = {}) {
      // The write lock (BEGIN IMMEDIATE) and the in-process lock are taken
      // in the same synchronous stretch: no await between. While BEGIN is
      // being retried the in-process lock stays free, so other requests go on.
      let release!: () => void;
      const lock = new Promise<void>((r) => (release = r));
      // Not durable: this one commit skips the WAL fsync (synchronous = NORMAL);
      // FULL is restored in the same stretch as COMMIT, before the lock is let go.
      const relaxed = opts.durable === false;
      await retrying('a transaction', () => {
        if (relaxed) syncNormal.run();
        try {
          db.exec('BEGIN IMMEDIATE');
        } catch (e) {
          if (relaxed) syncFull.run();
          throw e;
        }
        active = lock;
      });
      // Either probe firing means fn let the event loop turn. Which one comes
      // first depends on the loop phase this started in (and on libuv: Node 22
      // runs timers after the poll phase): begun in the check phase, an await
      // on a timer can resume before the next immediate, never before an
      // earlier, shorter timer.
      let crossedTurn = false;
      const probe = setImmediate(() => (crossedTurn = true));
      const timerProbe = setTimeout(() => (crossedTurn = true), 0);
      try {
        const out = await fn(direct);
        // Holding the write lock across real I/O would stall every request.
        if (crossedTurn) throw new Error('sqlite transaction awaited I/O: it must complete within one event-loop turn');
        db.exec('COMMIT');
        wrote();
        return out;
      } catch (e) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw e;
      } finally {
        if (relaxed) syncFull.run();
        clearImmediate(probe);
        clearTimeout(timerProbe);
        active = null;
        release();
      }
    },
    async withMigrationLock(fn) {
      guard();
      return fn();
    },
    /** Copy what the WAL holds into the database file without waiting for anyone (PASSIVE): frames still read or written wait for the next one. */
    checkpoint() {
      guard();
      db.pragma('wal_checkpoint(PASSIVE)');
    },
    /**
     * `PRAGMA data_version` changes when another connection (the ledger's
     * thread, another process) commits; with this connection's own commits
     * beside it, the pair changes with every commit to the file. It reads
     * only the WAL index (shared memory), no page. Busy or closed: unknown.
     */
    commitVersion() {
      if (closed) return undefined;
      try {
        return `${dataVersion.get() as number}:${ownCommits}`;
      } catch {
        return undefined;
      }
    },
    async probeWrite() {
      guard();
      const free = freeBytes(dirname(file));
      if (free < MIN_FREE_BYTES) {
        throw new Error(`the filesystem holding ${file} has ${free} bytes free (readiness asks for at least ${MIN_FREE_BYTES}): the ledger cannot be counted on to write`);
      }
      await writeProbe(driver);
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
  return driver;
}
