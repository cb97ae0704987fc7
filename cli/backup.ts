/**
 * npm run backup -- [--force] FILE
 * npm run backup -- --restore FILE
 *
 * Backs up the SQLite ledger (`DATA_DIR/ledger.sqlite`, from the same
 * environment `npm start` reads) to FILE while the service runs: SQLite's
 * backup API, one consistent moment, written under a temporary name, checked
 * (`PRAGMA integrity_check`) and flushed before it takes FILE's name. An
 * existing FILE is refused unless `--force`.
 *
 * `--restore FILE` puts such a backup back as the ledger; the service must be
 * stopped. What was there (the database and its `-wal`, `-shm`) is renamed to
 * `ledger.sqlite.replaced-<time>…`, never deleted.
 *
 * A relative FILE is taken from the directory the command was typed in (npm
 * runs scripts in the package directory and says where it was called from in
 * INIT_CWD).
 *
 * With DATABASE_URL set the ledger is in PostgreSQL: pg_dump and pg_restore
 * (README, Backups and restore) back it up; this command refuses.
 *
 * Exit status: 0 done, 1 the backup or restore failed or was refused (one
 * line says why; nothing was changed), 2 a usage or configuration error.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.js';
import { backupSqliteLedger, restoreSqliteLedger, SqliteBackupError, sqliteLedgerFile, type LedgerCounts } from '../src/store/index.js';
import { SqliteIntegrityError } from '../src/store/sqlite/integrity.js';

const USAGE = `usage: npm run backup -- [--force] FILE
       npm run backup -- --restore FILE`;

function die(msg: string, code: number): never {
  process.stderr.write(msg + '\n');
  process.exit(code);
}

const holds = (c: LedgerCounts) => `${c.attempts} payment attempts (${c.settled} settled), ${c.results} stored results`;

/** Which of the two the failure line names. */
let doing = 'backup';

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      strict: true,
      options: { help: { type: 'boolean', short: 'h' }, force: { type: 'boolean' }, restore: { type: 'boolean' } },
    });
  } catch (e) {
    die(`${(e as Error).message}\n${USAGE}`, 2);
  }
  if (args.values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const [given, ...extra] = args.positionals;
  if (given === undefined || extra.length > 0 || (args.values.restore && args.values.force)) die(USAGE, 2);
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), given);

  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) die(`config error: ${e.message}`, 2);
    throw e;
  }
  if (config.databaseUrl) {
    die('DATABASE_URL is set: the ledger is in PostgreSQL; back it up with pg_dump --format=custom and restore it with pg_restore (README: Backups and restore)', 2);
  }
  const timeoutMs = config.ledgerTimeoutMs;
  const ledger = sqliteLedgerFile(config.dataDir);

  if (args.values.restore) {
    doing = 'restore';
    const r = restoreSqliteLedger(config.dataDir, file, { now: new Date(), timeoutMs });
    for (const m of r.movedAside) process.stdout.write(`moved aside: ${m.from} -> ${m.to}\n`);
    process.stdout.write(`restored ${file} as ${r.file}: ${holds(r.counts)}; integrity_check ok. Start the service.\n`);
    return;
  }
  const r = await backupSqliteLedger(config.dataDir, file, { replace: args.values.force === true, timeoutMs });
  process.stdout.write(`backed up ${ledger} to ${r.file}: ${r.bytes} bytes, ${holds(r.counts)}; integrity_check ok\n`);
}

main().catch((e) => {
  if (e instanceof SqliteBackupError || e instanceof SqliteIntegrityError) die(`${doing}: ${e.message}`, 1);
  die(`${doing} failed: ${e instanceof Error ? e.message : String(e)}`, 1);
});
