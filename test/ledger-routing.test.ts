/**
 * The service's SQLite ledger answers small unflushed calls on the event
 * loop's connection and everything else on its thread (ledger-thread.ts):
 * which call goes where, and that order and fail-closed behaviour hold when
 * the thread is busy or stalled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqlLedger } from '../src/store/sql-ledger.js';
import { openSqlite } from '../src/store/sqlite/driver.js';
import { migrate } from '../src/store/migrate.js';
import { ThreadedSqliteLedger } from '../src/store/sqlite/ledger-thread.js';
import { attempt } from './support/ledger-attempt.js';

async function open(timeoutMs = 3000) {
  const file = join(mkdtempSync(join(tmpdir(), 'ledger-routing-')), 'l.sqlite');
  const main = openSqlite(file, { timeoutMs });
  await migrate(main);
  const ledger = await ThreadedSqliteLedger.open(file, { timeoutMs, inline: new SqlLedger(main) });
  return {
    file,
    ledger,
    async close() {
      await ledger.close();
      await main.close();
    },
  };
}

const lease = { owner: 'me', until: Number.MAX_SAFE_INTEGER };
const response = (body: string) => ({ status: 200, contentType: 'application/json', body });

test('a paid call: the claim, the reads and the unflushed `settled` on the event loop; the flushed `settling` on the thread', async () => {
  const { ledger, close } = await open();
  try {
    const a = attempt();
    assert.equal((await ledger.reserve(a, lease, 1)).created, true);
    assert.deepEqual({ ...ledger.routing }, { inline: 1, thread: 0 });
    assert.equal(await ledger.advance(a.id, 'me', [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: response('{"ok":1}') } }, { to: 'settling', patch: {} }], 2), true);
    assert.deepEqual({ ...ledger.routing }, { inline: 1, thread: 1 });
    assert.equal(await ledger.advance(a.id, 'me', [{ to: 'settled', patch: { txHash: '0x1', settleResponse: '{}' } }], 3, { durable: false }), true);
    assert.deepEqual({ ...ledger.routing }, { inline: 2, thread: 1 });
    // What either connection wrote, the other reads.
    const got = await ledger.get(a.id);
    assert.equal(got?.state, 'settled');
    assert.equal(got?.response?.body, '{"ok":1}');
    assert.equal((await ledger.summary()).paidDeliveries, 1);
    assert.deepEqual({ ...ledger.routing }, { inline: 4, thread: 1 });
  } finally {
    await close();
  }
});

test('a large text goes to the thread even on an unflushed write', async () => {
  const { ledger, close } = await open();
  try {
    const a = attempt();
    await ledger.reserve(a, lease, 1);
    const big = `"${'x'.repeat(200_000)}"`;
    assert.equal(await ledger.advance(a.id, 'me', [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: response(big) } }], 2, { durable: false }), true);
    assert.deepEqual({ ...ledger.routing }, { inline: 1, thread: 1 });
    assert.equal((await ledger.get(a.id))?.response?.body, big);
  } finally {
    await close();
  }
});

test('an attempt holding a large stored response: its small unflushed write goes to the thread too (SQLite rewrites the whole row)', async () => {
  const { ledger, close } = await open();
  try {
    const a = attempt();
    await ledger.reserve(a, lease, 1);
    const big = `"${'y'.repeat(300_000)}"`;
    assert.equal(await ledger.advance(a.id, 'me', [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: response(big) } }, { to: 'settling', patch: {} }], 2), true);
    assert.equal(await ledger.advance(a.id, 'me', [{ to: 'settled', patch: { txHash: '0x3', settleResponse: '{}' } }], 3, { durable: false }), true);
    assert.deepEqual({ ...ledger.routing }, { inline: 1, thread: 2 });
    // Another attempt with a small response is not affected.
    const b = attempt();
    await ledger.reserve(b, lease, 1);
    await ledger.advance(b.id, 'me', [{ to: 'executed', patch: { response: response('{}') } }, { to: 'settling', patch: {} }], 2);
    await ledger.advance(b.id, 'me', [{ to: 'settled', patch: { txHash: '0x4', settleResponse: '{}' } }], 3, { durable: false });
    assert.deepEqual({ ...ledger.routing }, { inline: 3, thread: 3 });
    assert.equal((await ledger.get(a.id))?.response?.body, big);
  } finally {
    await close();
  }
});

test('while the thread has a call outstanding, every call goes there, and a stalled write stays off the event loop', async () => {
  const { file, ledger, close } = await open(1500);
  // Another connection holds the write lock: the thread's flushed write waits for it (on timers, in the thread).
  const other = new Database(file);
  try {
    const a = attempt();
    await ledger.reserve(a, lease, 1);
    other.exec('BEGIN IMMEDIATE');
    const settling = ledger.advance(a.id, 'me', [{ to: 'executed', patch: { response: response('{}') } }, { to: 'settling', patch: {} }], 2);
    // Issued while it waits: calls that would otherwise be answered inline go to the thread as well
    // (as with the thread alone, so a disk or lock stall can only fail them closed, never hold the event loop).
    const b = attempt();
    const claim = ledger.reserve(b, lease, 2);
    const read = ledger.get(a.id);
    assert.deepEqual({ ...ledger.routing }, { inline: 1, thread: 3 });
    // The event loop is free meanwhile: a timer fires while the thread waits for the lock.
    await new Promise((r) => setTimeout(r, 100));
    other.exec('COMMIT');
    assert.equal(await settling, true);
    assert.equal((await claim).created, true);
    assert.ok(await read);
    // Nothing outstanding any more: small calls are inline again, and see what the thread wrote.
    assert.equal((await ledger.get(a.id))?.state, 'settling');
    assert.equal((await ledger.get(b.id))?.state, 'reserved');
    assert.deepEqual({ ...ledger.routing }, { inline: 3, thread: 3 });
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await close();
  }
});

test('a flushed write that cannot get the lock fails closed on the thread; once it has answered, small calls are inline again', async () => {
  const { file, ledger, close } = await open(200);
  const other = new Database(file);
  try {
    const a = attempt();
    await ledger.reserve(a, lease, 1);
    other.exec('BEGIN IMMEDIATE');
    // The driver gives up on the lock after 200 ms: the call fails with the ledger's fail-closed error.
    await assert.rejects(ledger.advance(a.id, 'me', [{ to: 'executed', patch: { response: response('{}') } }, { to: 'settling', patch: {} }], 2), /locked|unavailable/i);
    other.exec('COMMIT');
    const before = { ...ledger.routing };
    assert.equal((await ledger.get(a.id))?.state, 'reserved', 'nothing was written');
    assert.equal(ledger.routing.inline, before.inline + 1, 'answered: back to inline');
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await close();
  }
});
