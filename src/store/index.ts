import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.js';
import type { Ledger } from './ledger.js';
import { openPostgres } from './postgres/driver.js';
import { openSqlite } from './sqlite/driver.js';
import { checkSqliteFiles, SqliteIntegrityError } from './sqlite/integrity.js';
import { backupSqliteFile, restoreSqliteFile, SqliteBackupError, type BackupReport, type RestoreReport } from './sqlite/backup.js';
import { SqlLedger } from './sql-ledger.js';
import { migrate } from './migrate.js';
import { ThreadedSqliteLedger } from './sqlite/ledger-thread.js';
import type { SqlDriver } from './sql-driver.js';
import { watchWrites } from './write-outcomes.js';
import { writeProbe } from './write-probe.js';

export type { Ledger } from './ledger.js';
export type { SqlDriver } from './sql-driver.js';
export { SqliteBackupError, type BackupReport, type LedgerCounts, type RestoreReport } from './sqlite/backup.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded SQLite ledger belongs to one process: a second service on the
 * same DATA_DIR would share leases it cannot see. A pid file makes that a
 * start-up error; with it held, leases left by a crashed predecessor are
 * released at once, so a buyer's retry after a crash is served immediately.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const pid = dataDirHolder(dataDir);
  if (pid !== undefined) {
    throw new ConfigError('DATA_DIR', `the SQLite ledger in ${dataDir} is in use by process ${pid}; use another DATA_DIR or DATABASE_URL for several instances`);
  }
  const file = join(dataDir, 'ledger.pid');
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

/** The live process (not this one) whose pid file holds `dataDir`'s SQLite ledger, if any. */
export function dataDirHolder(dataDir: string): number | undefined {
  const file = join(dataDir, 'ledger.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : undefined;
}

/** The SQLite ledger's file in a data directory. */
export function sqliteLedgerFile(dataDir: string): string {
  return join(dataDir, 'ledger.sqlite');
}

/** An online backup of `dataDir`'s ledger to `dest`, while the service runs or not (sqlite/backup.ts). */
export function backupSqliteLedger(dataDir: string, dest: string, opts: { replace?: boolean; timeoutMs?: number } = {}): Promise<BackupReport> {
  return backupSqliteFile(sqliteLedgerFile(dataDir), dest, opts);
}

/** Put `backup` in place as `dataDir`'s ledger; refused while a service holds the directory (sqlite/backup.ts). */
export function restoreSqliteLedger(dataDir: string, backup: string, opts: { now: Date; timeoutMs?: number }): RestoreReport {
  const pid = dataDirHolder(dataDir);
  if (pid !== undefined) throw new SqliteBackupError(`the service (process ${pid}) holds ${dataDir}: stop it first, then restore`);
  return restoreSqliteFile(backup, sqliteLedgerFile(dataDir), opts);
}

export interface Database {
  /** The same database the ledger lives in, for other stores (content). Migrations are already applied. */
  db: SqlDriver;
  ledger: Ledger;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  dataDir: string;
  databaseUrl?: string;
  /**
   * Bound on one database operation (PostgreSQL: connect and each query,
   * client side; SQLite: waiting for a lock another process holds). Past it
   * the operation fails, and the gate answers 503. Default 3000.
   */
  ledgerTimeoutMs?: number;
  /**
   * SQLite only. true (default): the ledger runs on its own thread and
   * connection (ledger-thread.ts), so its fsyncs never hold up requests.
   * false: on the event loop's connection, in this thread: same SQL, same
   * transactions and durability, no thread to start (unit tests).
   */
  sqliteLedgerThread?: boolean;
}

export async function openLedger(opts: OpenDatabaseOptions): Promise<Ledger> {
  return (await openDatabase(opts)).ledger;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const timeoutMs = opts.ledgerTimeoutMs ?? 3000;
  if (opts.databaseUrl) {
    let driver;
    try {
      driver = await openPostgres(opts.databaseUrl, { timeoutMs });
    } catch (e) {
      throw new ConfigError('DATABASE_URL', `cannot connect to PostgreSQL: ${(e as Error).message || String(e)}`);
    }
    // Readiness writes a row (write-probe.ts): a server that answers but cannot write (disk full, read-only) is not ready.
    const pg = driver;
    const ledger = watchWrites(await SqlLedger.open({ ...pg, probeWrite: () => writeProbe(pg) }));
    return { db: driver, ledger, close: () => ledger.close() };
  }
  const unlock = lockDataDir(opts.dataDir);
  const file = sqliteLedgerFile(opts.dataDir);
  const threaded = opts.sqliteLedgerThread !== false;
  let driver;
  // Set once the ledger's thread is up: it checkpoints what this connection writes.
  let afterWrite = () => {};
  try {
    // Before anything opens it for writing: a database missing next to its WAL, or one that fails
    // quick_check, stops start-up with one line (integrity.ts); the content stores share this file.
    checkSqliteFiles(file, timeoutMs);
    // With the ledger on its thread, no automatic checkpoints on this, the event loop's, connection: the thread checkpoints the file (ledger-worker.ts).
    driver = openSqlite(file, { timeoutMs, autoCheckpoint: !threaded, onWrite: () => afterWrite() });
  } catch (e) {
    unlock();
    if (e instanceof SqliteIntegrityError) throw e;
    throw new ConfigError('DATA_DIR', `cannot open the SQLite ledger: ${(e as Error).message}`);
  }
  let ledger: Ledger;
  try {
    // Migrations and the lease reset on this connection, which the content stores keep using.
    await migrate(driver);
    await driver.run('UPDATE payment_attempts SET lease_owner = NULL, lease_until = 0 WHERE lease_owner IS NOT NULL');
    if (threaded) {
      // Its own thread and connection, which answers every ledger call (ledger-thread.ts).
      const thread = await ThreadedSqliteLedger.open(file, { timeoutMs });
      ledger = thread.ledger;
      afterWrite = thread.checkpointSoon;
    } else ledger = new SqlLedger(driver);
  } catch (e) {
    // E.g. another process held the write lock past the timeout: let go of the data directory.
    await driver.close();
    unlock();
    throw e;
  }
  const closeLedger = ledger.close.bind(ledger);
  let closing: Promise<void> | undefined;
  ledger.close = () =>
    (closing ??= (async () => {
      await closeLedger();
      await driver.close();
      unlock();
    })());
  const watched = watchWrites(ledger);
  return { db: driver, ledger: watched, close: () => watched.close() };
}
