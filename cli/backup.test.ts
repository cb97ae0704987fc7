/**
 * `npm run backup` on its own: its refusals (each one line, exit 1, or 2 for
 * usage and configuration, and nothing changed, neither the backup directory
 * nor the data directory), what the file it writes is, and that a writer in
 * the middle of a transaction neither blocks it nor leaks into it. Backup and
 * restore against a running service are in test/backup-restore.test.ts and
 * test/sqlite-backup-under-writes.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../src/store/index.js';
import { tempDir } from '../test/support/harness.js';
import { attempt } from '../test/support/ledger-attempt.js';

const ROOT = resolve(import.meta.dirname, '..');

function backupCli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/backup.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', INIT_CWD: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** One line on stderr, no stack, the given exit status. */
function refused(r: ReturnType<typeof backupCli>, status: number, re: RegExp) {
  assert.equal(r.status, status, r.out + r.err);
  assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
  assert.match(r.err, re);
  assert.doesNotMatch(r.err, /\n\s+at /);
}

/** A data directory holding a ledger with one attempt, as the service leaves it. */
async function ledgerDir(): Promise<string> {
  const dataDir = join(tempDir('bk-cli-'), 'data');
  const { ledger, close } = await openDatabase({ dataDir, sqliteLedgerThread: false });
  await ledger.reserve({ attempt: attempt(), lease: { owner: 'x', until: 0 }, now: Date.now() });
  await close();
  return dataDir;
}

const listing = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

describe('npm run backup', () => {
  test('an existing FILE is refused unless --force, which replaces it; the backup keeps the ledger file permissions', async () => {
    const dataDir = await ledgerDir();
    chmodSync(join(dataDir, 'ledger.sqlite'), 0o600);
    const out = tempDir('bk-cli-out-');
    const file = join(out, 'ledger.sqlite');
    writeFileSync(file, 'an older backup');
    refused(backupCli([file], { DATA_DIR: dataDir }), 1, /already exists: choose another name, or pass --force/);
    assert.equal(readFileSync(file, 'utf8'), 'an older backup');

    const forced = backupCli(['--force', file], { DATA_DIR: dataDir });
    assert.equal(forced.status, 0, forced.err);
    assert.match(forced.out, /1 payment attempts \(0 settled\), 0 stored results; integrity_check ok/);
    assert.deepEqual(listing(out), ['ledger.sqlite'], 'no temporary file left, no -wal beside it');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const db = new Database(file, { readonly: true });
    assert.equal(db.prepare('SELECT count(*) FROM payment_attempts').pluck().get(), 1);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'delete', 'self-contained: opening it never needs a -wal');
    db.close();
  });

  test('a writer holding the write lock mid-transaction neither blocks the backup nor leaks into it', async () => {
    const dataDir = await ledgerDir();
    const writer = new Database(join(dataDir, 'ledger.sqlite'));
    try {
      writer.exec('BEGIN IMMEDIATE');
      writer.exec("UPDATE payment_attempts SET state = 'verified'");
      const file = join(tempDir('bk-cli-out-'), 'b.sqlite');
      const r = backupCli([file], { DATA_DIR: dataDir, LEDGER_TIMEOUT_MS: '500' });
      assert.equal(r.status, 0, r.err);
      const db = new Database(file, { readonly: true });
      assert.deepEqual(db.prepare('SELECT state FROM payment_attempts').pluck().all(), ['reserved'], 'the committed moment, not the open transaction');
      db.close();
      assert.ok(writer.inTransaction, 'the writer kept its transaction throughout');
    } finally {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      writer.close();
    }
  });

  test('a relative FILE is taken from where the command was typed (INIT_CWD), not the package directory', async () => {
    const dataDir = await ledgerDir();
    const typedIn = tempDir('bk-cli-cwd-');
    const r = backupCli(['nightly.sqlite'], { DATA_DIR: dataDir, INIT_CWD: typedIn });
    assert.equal(r.status, 0, r.err);
    assert.ok(existsSync(join(typedIn, 'nightly.sqlite')));
    assert.ok(!existsSync(join(ROOT, 'nightly.sqlite')));
  });

  test('a directory that does not exist, no ledger in DATA_DIR, or a ledger gone beside its -wal: refused, nothing created', async () => {
    const dataDir = await ledgerDir();
    refused(backupCli([join(tempDir('bk-cli-'), 'missing', 'x.sqlite')], { DATA_DIR: dataDir }), 1, /missing is not a directory: create it first/);

    // A wrong DATA_DIR must not be backed up as an empty ledger, nor get one created.
    const empty = tempDir('bk-cli-empty-');
    const out = tempDir('bk-cli-out-');
    refused(backupCli([join(out, 'x.sqlite')], { DATA_DIR: empty }), 1, /no ledger at .*ledger\.sqlite: is DATA_DIR the service's\?/);
    assert.deepEqual(listing(empty), []);
    assert.deepEqual(listing(out), []);

    const gone = tempDir('bk-cli-gone-');
    writeFileSync(join(gone, 'ledger.sqlite-wal'), Buffer.alloc(4096, 1));
    refused(backupCli([join(out, 'x.sqlite')], { DATA_DIR: gone }), 1, /ledger\.sqlite is missing but ledger\.sqlite-wal \(4096 bytes\) is still there/);
    assert.deepEqual(listing(out), []);
  });

  test('restore while a live process holds DATA_DIR is refused; so is a file that is not a sound, self-contained ledger; the data directory is left as found', async () => {
    const dataDir = await ledgerDir();
    const out = tempDir('bk-cli-out-');
    const good = join(out, 'good.sqlite');
    assert.equal(backupCli([good], { DATA_DIR: dataDir }).status, 0);
    const before = listing(dataDir);
    const ledgerBytes = readFileSync(join(dataDir, 'ledger.sqlite'));

    // This test's own process stands for the running service.
    writeFileSync(join(dataDir, 'ledger.pid'), String(process.pid));
    refused(backupCli(['--restore', good], { DATA_DIR: dataDir }), 1, new RegExp(`restore: the service \\(process ${process.pid}\\) holds .*: stop it first, then restore`));
    writeFileSync(join(dataDir, 'ledger.pid'), '999999999'); // a pid no process has: a stale file, as after a crash

    const notDb = join(out, 'notes.sqlite');
    writeFileSync(notDb, 'not a database, but long enough to have a header of its own. '.repeat(20));
    refused(backupCli(['--restore', notDb], { DATA_DIR: dataDir }), 1, /restore: .*notes\.sqlite is not a sound SQLite database \(SQLITE_NOTADB\)/);

    const truncated = join(out, 'truncated.sqlite');
    copyFileSync(good, truncated);
    truncateSync(truncated, Math.floor(statSync(good).size * 0.6));
    refused(backupCli(['--restore', truncated], { DATA_DIR: dataDir }), 1, /restore: .*truncated\.sqlite (fails PRAGMA integrity_check|is not a sound SQLite database)/);

    const other = join(out, 'other.sqlite');
    const db = new Database(other);
    db.exec('CREATE TABLE notes (t TEXT)');
    db.close();
    refused(backupCli(['--restore', other], { DATA_DIR: dataDir }), 1, /other\.sqlite is not a ledger: it has no schema_migrations table/);

    const withWal = join(out, 'copied-live.sqlite');
    copyFileSync(good, withWal);
    writeFileSync(withWal + '-wal', Buffer.alloc(8192, 1));
    refused(backupCli(['--restore', withWal], { DATA_DIR: dataDir }), 1, /copied-live\.sqlite-wal \(8192 bytes\) is beside .*: it is not a self-contained backup/);

    refused(backupCli(['--restore', join(out, 'nowhere.sqlite')], { DATA_DIR: dataDir }), 1, /nowhere\.sqlite is not a file/);

    assert.deepEqual(listing(dataDir), [...before, 'ledger.pid'].filter((f, i, a) => a.indexOf(f) === i).sort(), 'no file added, moved or left behind');
    assert.ok(readFileSync(join(dataDir, 'ledger.sqlite')).equals(ledgerBytes), 'the ledger untouched');
  });

  test('usage and configuration: exit 2 with one line; DATABASE_URL points to pg_dump', () => {
    for (const args of [[], ['a', 'b'], ['--restore', '--force', 'a'], ['--nope', 'a']]) {
      const r = backupCli(args, {});
      assert.equal(r.status, 2, `${args}: ${r.err}`);
      assert.match(r.err, /usage: npm run backup -- \[--force\] FILE\n {7}npm run backup -- --restore FILE\n$/);
    }
    refused(backupCli(['x.sqlite'], { DATABASE_URL: 'postgres://u@127.0.0.1:1/db' }), 2, /DATABASE_URL is set: the ledger is in PostgreSQL; back it up with pg_dump/);
    refused(backupCli(['x.sqlite'], { DATABASE_URL: 'mysql://x' }), 2, /^config error: DATABASE_URL: /);
  });
});
