/**
 * The SQLite driver when another connection holds the write lock: it must
 * give up within its timeout without blocking the event loop, never stay
 * wedged afterwards, and simply work again once the lock is released.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from '../migrate.js';
import { openSqlite } from './driver.js';

const TIMEOUT_MS = 300;

async function fixture() {
  const file = join(mkdtempSync(join(tmpdir(), 'sqlite-driver-')), 'd.sqlite');
  const db = openSqlite(file, { timeoutMs: TIMEOUT_MS });
  // The schema the write probe writes to (readiness_probe).
  await migrate(db);
  await db.execScript('CREATE TABLE t (k TEXT PRIMARY KEY)');
  // A second connection stands in for another process (SQLite locks the file the same way).
  const other = new Database(file);
  return { db, other };
}

/** Fails the test instead of hanging it when a promise never settles. */
function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms (wedged)`)), ms))),
  ]);
}

/**
 * Which of `marks` (ms after start) had their timers run before `start()`
 * settled. A driver that blocked the event loop while it waits for a lock
 * would hold every timer back until it gave up; timers always run in order
 * of expiry, so marks well inside the driver's own timeout must come first.
 */
async function timersRunDuring<T>(start: () => Promise<T>, marks: readonly number[]): Promise<{ fired: number[]; result: PromiseSettledResult<T> }> {
  const fired: number[] = [];
  const timers = marks.map((m) => setTimeout(() => fired.push(m), m));
  const [result] = await Promise.allSettled([start()]);
  for (const t of timers) clearTimeout(t);
  return { fired, result };
}

describe('sqlite driver with the write lock held by another connection', () => {
  test('a transaction whose BEGIN IMMEDIATE is BUSY fails in bounded time and leaves the driver usable', async () => {
    const { db, other } = await fixture();
    try {
      other.exec('BEGIN IMMEDIATE');
      const t0 = Date.now();
      await assert.rejects(
        within(5000, db.transaction(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', ['a'])), 'transaction while locked'),
        /locked/,
      );
      const took = Date.now() - t0;
      // The failed BEGIN must not leave the in-process lock taken: a read answers at once.
      assert.deepEqual(await within(1000, db.all('SELECT k FROM t'), 'read after failed BEGIN'), []);
      assert.ok(took >= TIMEOUT_MS - 20 && took < TIMEOUT_MS + 1000, `gave up after ${took} ms`);
      await assert.rejects(within(5000, db.run('INSERT INTO t (k) VALUES (?)', ['b']), 'write while locked'), /locked/);
      await assert.rejects(within(5000, db.execScript('CREATE TABLE u (x)'), 'script while locked'), /locked/);
      await assert.rejects(within(5000, db.probeWrite(), 'probe while locked'), /locked/);
      other.exec('COMMIT');
      // Released: everything works again, nothing was half-written.
      await within(2000, db.transaction(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', ['c'])), 'transaction after release');
      await within(2000, db.run('INSERT INTO t (k) VALUES (?)', ['d']), 'write after release');
      await within(2000, db.probeWrite(), 'probe after release');
      assert.deepEqual((await db.all<{ k: string }>('SELECT k FROM t ORDER BY k')).map((r) => r.k), ['c', 'd']);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await db.close();
    }
  });

  test('waiting for the lock does not block the event loop', async () => {
    const { db, other } = await fixture();
    try {
      other.exec('BEGIN IMMEDIATE');
      // busy_timeout blocks inside each attempt; between attempts the loop must run other work.
      const marks = [TIMEOUT_MS / 10, TIMEOUT_MS / 4, TIMEOUT_MS / 2];
      const { fired, result } = await timersRunDuring(() => db.transaction(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', ['a'])), marks);
      assert.equal(result.status, 'rejected');
      assert.deepEqual(fired, marks, 'timers due while the driver waited for the lock ran before it gave up');
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await db.close();
    }
  });

  test('a write waiting for the lock succeeds when it is released before the timeout', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sqlite-driver-')), 'd.sqlite');
    const db = openSqlite(file, { timeoutMs: 3000 });
    const other = new Database(file);
    try {
      await db.execScript('CREATE TABLE t (k TEXT PRIMARY KEY)');
      other.exec('BEGIN IMMEDIATE');
      const pending = db.transaction(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', ['a']));
      const write = db.run('INSERT INTO t (k) VALUES (?)', ['b']);
      // Reads are not held up by a transaction waiting for the lock.
      assert.deepEqual(await within(1000, db.all('SELECT k FROM t'), 'read while a transaction waits'), []);
      setTimeout(() => other.exec('COMMIT'), 200);
      assert.equal(await within(5000, pending, 'transaction'), 1);
      assert.equal(await within(5000, write, 'write'), 1);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await db.close();
    }
  });

  test('a statement queued behind a transaction never lands inside the next one', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sqlite-driver-')), 'd.sqlite');
    const db = openSqlite(file);
    try {
      await db.execScript('CREATE TABLE t (k TEXT PRIMARY KEY)');
      // First holds the in-process lock; the write and the second transaction queue behind it.
      const first = db.transaction(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', ['first']));
      const write = db.run('INSERT INTO t (k) VALUES (?)', ['queued']);
      const second = db.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k) VALUES (?)', ['second']);
        throw new Error('second rolls back');
      });
      await first;
      assert.equal(await write, 1);
      await assert.rejects(second, /second rolls back/);
      // Had the queued write run inside the second transaction, its rollback would have erased it.
      assert.deepEqual((await db.all<{ k: string }>('SELECT k FROM t ORDER BY k')).map((r) => r.k), ['first', 'queued']);
    } finally {
      await db.close();
    }
  });
});

describe('commitVersion', () => {
  test('changes with a commit by this connection or another, and only then', async () => {
    const { db, other } = await fixture();
    const v0 = db.commitVersion();
    assert.ok(v0 !== undefined);
    await db.all('SELECT k FROM t');
    assert.equal(db.commitVersion(), v0, 'a read commits nothing');
    other.prepare("INSERT INTO t VALUES ('from another connection')").run();
    const v1 = db.commitVersion();
    assert.notEqual(v1, v0, "another connection's commit");
    await db.run("INSERT INTO t VALUES ('own')");
    const v2 = db.commitVersion();
    assert.notEqual(v2, v1, "this connection's own commit (data_version does not count it)");
    await db.transaction(async (tx) => void (await tx.run("INSERT INTO t VALUES ('own, in a transaction')")), { durable: false });
    assert.notEqual(db.commitVersion(), v2, 'a transaction of its own');
    other.close();
    await db.close();
    assert.equal(db.commitVersion(), undefined, 'closed: unknown, so callers read');
  });
});
