/**
 * Backing up the SQLite ledger while the service runs, and putting a backup
 * back in place while it is stopped.
 *
 * Why not a file copy: in WAL mode a committed transaction can live in
 * `ledger.sqlite-wal` alone until a checkpoint copies it into the database
 * file, so a copy of the database file misses it (a paid call's binding or
 * stored result), and copies of both taken while the service writes can pair a
 * database file and a WAL from different moments. SQLite's backup API reads
 * the database through a connection (WAL included) and, asked for every page
 * in one step, inside one read transaction: the copy is the ledger as it stood
 * at one moment, whatever commits meanwhile.
 *
 * Why the running service is not held up: the reader is another process's
 * read-only connection, and in WAL mode a reader never waits for the writer
 * nor the writer for a reader. The service's checkpoints are PASSIVE (they
 * skip the frames this reader still reads), so the WAL only grows a little
 * while the copy runs. The data directory's pid file is not taken: it says
 * who writes, and the backup writes nothing there.
 *
 * Why restore moves files aside: a `-wal` left by the ledger being replaced
 * (a crash leaves one) holds pages of that ledger; SQLite cannot tell they
 * belong to another database and would lay them over the restored file on
 * open. The old database and its companions are renamed, never deleted, so a
 * wrong restore can be undone.
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkCompanionFiles, checkProblems, COMPANIONS, MAX_REPORTED } from './integrity.js';

/** better-sqlite3 copies this many pages per step when asked: more than any database has, so one step, one read transaction. */
const ALL_PAGES = 0x7fffffff;

/** A refusal or failure, one line for the operator. */
export class SqliteBackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqliteBackupError';
  }
}

/** What a backup (or the backup being restored) holds. */
export interface LedgerCounts {
  /** Rows of `payment_attempts`, every state. */
  attempts: number;
  settled: number;
  /** Stored paid results (`payment_responses`). */
  results: number;
}

export interface BackupReport {
  file: string;
  bytes: number;
  counts: LedgerCounts;
}

export interface RestoreReport {
  file: string;
  counts: LedgerCounts;
  /** The files that were in the way, each renamed to the name beside it. */
  movedAside: Array<{ from: string; to: string }>;
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function removeWithCompanions(file: string): void {
  for (const suffix of ['', ...COMPANIONS]) rmSync(file + suffix, { force: true });
}

/**
 * Make `file` (a copy just written) a self-contained rollback-journal
 * database, check it whole (`integrity_check`, index cross-checks included)
 * and count what it holds. Rollback-journal mode: opening the backup later
 * (to check it, to restore it) never leaves a `-wal` beside it; the service
 * switches the restored file back to WAL when it opens it.
 */
function sealCopy(file: string, what: string, timeoutMs: number): LedgerCounts {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true, timeout: timeoutMs });
    db.pragma('journal_mode = DELETE');
    const problems = checkProblems(db, 'integrity_check');
    if (problems.length > 0) {
      const more = problems.length > MAX_REPORTED ? ` (and ${problems.length - MAX_REPORTED} more)` : '';
      throw new SqliteBackupError(`${what} fails PRAGMA integrity_check: ${problems.slice(0, MAX_REPORTED).join('; ')}${more}`);
    }
    const has = (table: string) => db!.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) !== undefined;
    for (const table of ['schema_migrations', 'payment_attempts', 'payment_responses']) {
      if (!has(table)) throw new SqliteBackupError(`${what} is not a ledger: it has no ${table} table`);
    }
    const count = (sql: string) => db!.prepare(sql).pluck().get() as number;
    return {
      attempts: count('SELECT count(*) FROM payment_attempts'),
      settled: count("SELECT count(*) FROM payment_attempts WHERE state = 'settled'"),
      results: count('SELECT count(*) FROM payment_responses'),
    };
  } catch (e) {
    if (e instanceof SqliteBackupError) throw e;
    const code = String((e as { code?: unknown }).code ?? '');
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) throw new SqliteBackupError(`${what} is not a sound SQLite database (${code})`);
    throw e;
  } finally {
    db?.close();
  }
}

/**
 * Put `from` at `to` atomically. Without `replace`, an existing `to` is
 * refused at the moment of the move (a hard link fails on an existing name;
 * a rename would silently replace it), not just checked before.
 */
function placeAtomically(from: string, to: string, replace: boolean): void {
  if (replace) return renameSync(from, to);
  try {
    linkSync(from, to);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new SqliteBackupError(`${to} already exists: choose another name, or pass --force to replace it`);
    // A filesystem without hard links: check, then rename (a name created in between would be replaced).
    if (existsSync(to)) throw new SqliteBackupError(`${to} already exists: choose another name, or pass --force to replace it`);
    return renameSync(from, to);
  }
  rmSync(from);
}

/**
 * Copy the live ledger `source` to `dest`: written beside `dest` under a
 * temporary name, checked, flushed, then given its name (no half-written
 * backup ever carries it). `dest`'s directory must exist.
 */
export async function backupSqliteFile(source: string, dest: string, opts: { replace?: boolean; timeoutMs?: number } = {}): Promise<BackupReport> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const dir = dirname(dest);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new SqliteBackupError(`${dir} is not a directory: create it first`);
  if (!opts.replace && existsSync(dest)) throw new SqliteBackupError(`${dest} already exists: choose another name, or pass --force to replace it`);
  // A database gone while its WAL stayed is refused as at start-up; and none at all is never "backed up" as an empty ledger.
  checkCompanionFiles(source);
  if (!sizeOf(source)) throw new SqliteBackupError(`no ledger at ${source}: is DATA_DIR the service's?`);

  const tmp = `${dest}.${process.pid}.partial`;
  removeWithCompanions(tmp);
  try {
    const db = new Database(source, { readonly: true, fileMustExist: true, timeout: timeoutMs });
    try {
      // A step that finds the database locked (a WAL recovery, rare) copies nothing and is tried again; not forever.
      const deadline = Date.now() + timeoutMs;
      await db.backup(tmp, {
        progress: () => {
          if (Date.now() > deadline) throw new SqliteBackupError(`${source} stayed locked for ${timeoutMs} ms (LEDGER_TIMEOUT_MS): nothing was written`);
          return ALL_PAGES;
        },
      });
    } finally {
      db.close();
    }
    const counts = sealCopy(tmp, `the copy of ${source}`, timeoutMs);
    // Every stored result and each buyer's payment-identifier (a redelivery proof) is in it: as private as the ledger.
    chmodSync(tmp, statSync(source).mode & 0o777);
    fsyncPath(tmp);
    placeAtomically(tmp, dest, opts.replace === true);
    fsyncPath(dir);
    return { file: dest, bytes: sizeOf(dest) ?? 0, counts };
  } finally {
    removeWithCompanions(tmp);
  }
}

/**
 * Put the backup `backup` in place as the ledger `file` (the service must be
 * stopped: the caller checks). The backup is copied beside `file`, checked
 * whole, flushed; then whatever is in the way is renamed to
 * `<file>.replaced-<stamp>` (with its `-wal`, `-shm`, `-journal`, so the pair
 * still opens together), and the copy takes the name.
 *
 * Order, for a crash in the middle: the old database is first hard-linked
 * aside (it stays in place too), then its companions move, then the copy is
 * renamed over it, so no moment leaves a new database beside an old `-wal`
 * nor a directory without a database (which would start an empty ledger).
 */
export function restoreSqliteFile(backup: string, file: string, opts: { now: Date; timeoutMs?: number }): RestoreReport {
  const timeoutMs = opts.timeoutMs ?? 3000;
  if (!statSync(backup, { throwIfNoEntry: false })?.isFile()) throw new SqliteBackupError(`${backup} is not a file`);
  // Such a file's latest commits may be in that -wal, which is not copied: not a self-contained backup.
  const wal = sizeOf(backup + '-wal');
  if (wal) throw new SqliteBackupError(`${backup}-wal (${wal} bytes) is beside ${backup}: it is not a self-contained backup (npm run backup writes one)`);

  // Into a fresh data directory too.
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.restoring`;
  removeWithCompanions(tmp);
  try {
    copyFileSync(backup, tmp);
    const counts = sealCopy(tmp, backup, timeoutMs);
    fsyncPath(tmp);

    const stamp = opts.now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    const aside = `${file}.replaced-${stamp}`;
    const movedAside: RestoreReport['movedAside'] = [];
    if (existsSync(file)) {
      try {
        linkSync(file, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new SqliteBackupError(`${aside} already exists: try again in a second`);
        copyFileSync(file, aside);
      }
      movedAside.push({ from: file, to: aside });
    }
    for (const suffix of COMPANIONS) {
      if (!existsSync(file + suffix)) continue;
      renameSync(file + suffix, aside + suffix);
      movedAside.push({ from: file + suffix, to: aside + suffix });
    }
    renameSync(tmp, file);
    fsyncPath(dirname(file));
    return { file, counts, movedAside };
  } finally {
    removeWithCompanions(tmp);
  }
}
