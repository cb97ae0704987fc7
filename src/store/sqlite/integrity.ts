/**
 * Start-up checks of the SQLite files before the service trusts them.
 *
 * Why: SQLite opens whatever it finds. A `ledger.sqlite` that was deleted or
 * not copied while its `-wal` stayed behind opens as a new, empty database
 * (a zero-length one even deletes the WAL), so every binding, stored result
 * and attempt left `settling` is silently gone: a buyer who paid is never
 * delivered, and a replayed authorization is bound afresh. A file with a
 * damaged page opens too, and fails only when a request reaches that page.
 * Both are refused here, with one line naming the file and the fault, so the
 * operator restores it instead of the service running on a ledger that lost
 * money's records.
 *
 * The content stores live in the same file, so this covers them too.
 */
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';

/** Files SQLite keeps next to the database: the WAL, its shared-memory index, a rollback journal. */
export const COMPANIONS = ['-wal', '-shm', '-journal'] as const;

/** quick_check (and a backup's integrity_check) reports at most this many problems in the refusal line. */
export const MAX_REPORTED = 3;

export class SqliteIntegrityError extends Error {
  constructor(readonly file: string, message: string) {
    super(message);
    this.name = 'SqliteIntegrityError';
  }
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * The database and its companion files must belong together: refuses a
 * missing (or empty) database next to a WAL, shared-memory index or journal
 * that survived it. A data directory with none of them is a fresh start.
 */
export function checkCompanionFiles(file: string): void {
  const dbSize = sizeOf(file);
  const name = basename(file);
  for (const suffix of COMPANIONS) {
    const other = file + suffix;
    const size = sizeOf(other);
    if (size === undefined) continue;
    if (dbSize === undefined) {
      throw new SqliteIntegrityError(
        file,
        `${file} is missing but ${name}${suffix} (${size} bytes) is still there: the database was deleted or not copied with it, and starting would begin an empty ledger (every payment binding and stored result lost). Restore ${name} from its backup, or move ${name}${suffix} away to start empty on purpose.`,
      );
    }
    // SQLite writes the header into the database file when it enters WAL mode, so an empty file
    // next to a WAL holding frames is not one of its states; opening it would delete that WAL.
    if (dbSize === 0 && suffix === '-wal' && size > 0) {
      throw new SqliteIntegrityError(
        file,
        `${file} is empty but ${name}-wal holds ${size} bytes: opening it would discard them (every payment binding and stored result they hold). Restore ${name} from its backup, or move ${name}-wal away to start empty on purpose.`,
      );
    }
  }
}

/** What `PRAGMA quick_check` or `integrity_check` finds wrong in `db`, one problem an entry; none when it is sound. */
export function checkProblems(db: Database.Database, check: 'quick_check' | 'integrity_check'): string[] {
  const rows = db.pragma(check) as Array<Record<string, string>>;
  // One row may hold several problems, one a line, under a "*** in database main ***" heading.
  return rows
    .flatMap((r) => String(r[check]).split('\n'))
    .map((m) => m.trim())
    .filter((m) => m !== '' && m !== 'ok' && !/^\*\*\* in database .* \*\*\*$/.test(m));
}

/**
 * Open the database (which replays its WAL) and run `PRAGMA quick_check`:
 * every page's structure and every record's format, in time linear in the
 * file's size, without the index cross-checks of `integrity_check`.
 * Refuses a file that is not a database or any quick_check problem.
 */
export function quickCheck(file: string, timeoutMs: number): void {
  if (!existsSync(file) || sizeOf(file) === 0) return;
  let db: Database.Database | undefined;
  try {
    // Read-only: the WAL is read, never checkpointed into a file that may be damaged (kept as found for its restore).
    db = new Database(file, { readonly: true, timeout: timeoutMs, fileMustExist: true });
    const problems = checkProblems(db, 'quick_check');
    if (problems.length > 0) {
      const shown = problems.slice(0, MAX_REPORTED).join('; ');
      const more = problems.length > MAX_REPORTED ? ` (and ${problems.length - MAX_REPORTED} more)` : '';
      throw new SqliteIntegrityError(file, `${file} fails PRAGMA quick_check: ${shown}${more}. Restore it from its backup; the service does not start on a damaged ledger.`);
    }
  } catch (e) {
    if (e instanceof SqliteIntegrityError) throw e;
    const code = String((e as { code?: unknown }).code ?? '');
    const message = e instanceof Error ? e.message : String(e);
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) {
      throw new SqliteIntegrityError(file, `${file} fails PRAGMA quick_check: ${message} (${code}). Restore it from its backup; the service does not start on a damaged ledger.`);
    }
    // Anything else (a lock held past the timeout, a permission, an I/O error) is not a verdict on the file's contents.
    throw e;
  } finally {
    db?.close();
  }
}

/** Both checks, before the service opens the database for real. */
export function checkSqliteFiles(file: string, timeoutMs: number): void {
  checkCompanionFiles(file);
  quickCheck(file, timeoutMs);
}
