/**
 * The write readiness makes: one row rewritten and committed durably, the
 * way a paid call's stored result is committed. Why a write: a database
 * that answers `SELECT 1` may still refuse every write (a full disk, a file
 * or a server turned read-only), and then every paid call fails 503 while a
 * read-only probe says ready.
 */
import type { SqlDriver } from './sql-driver.js';

const PROBE_SQL = 'INSERT INTO readiness_probe (id, probed_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET probed_at = EXCLUDED.probed_at';

export async function writeProbe(db: Pick<SqlDriver, 'transaction'>, now = Date.now()): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(PROBE_SQL, [now]);
  });
}
