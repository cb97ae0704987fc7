/**
 * The service's SQLite ledger on its own thread (ledger-thread.ts), as
 * `openDatabase` opens it: what a buyer depends on when the database is
 * slow to give its lock, and when a large result must survive a restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { openDatabase } from '../src/store/index.js';
import { CHECKPOINT_AFTER_MS } from '../src/store/sqlite/ledger-thread.js';
import type { Ledger } from '../src/store/ledger.js';
import { attempt } from './support/ledger-attempt.js';

const lease = { owner: 'me', until: Number.MAX_SAFE_INTEGER };
const response = (body: string) => ({ status: 200, contentType: 'application/json', body });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

test('a lock held by another connection: the ledger waits for it off the event loop, keeps the calls in order, and writes them all once it is free', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-lock-'));
  const { ledger, close } = await openDatabase({ dataDir, ledgerTimeoutMs: 5000 });
  const other = new Database(join(dataDir, 'ledger.sqlite'));
  try {
    const a = attempt();
    await ledger.reserve({ attempt: a, lease, now: 1 });
    other.exec('BEGIN IMMEDIATE');
    const settling = ledger.advance({ id: a.id, owner: 'me', steps: [{ to: 'executed', patch: { response: response('{"r":1}') } }, { to: 'settling', patch: {} }], now: 2 });
    const settled = ledger.advance({ id: a.id, owner: 'me', steps: [{ to: 'settled', patch: { txHash: '0x1', settleResponse: '{}' } }], now: 3, durable: false });
    const b = attempt();
    const claim = ledger.reserve({ attempt: b, lease, now: 3 });
    // The event loop is free while the thread waits: a timer fires, and nothing was written yet.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((other.prepare('SELECT state FROM payment_attempts WHERE id = ?').get(a.id) as { state: string }).state, 'reserved');
    other.exec('COMMIT');
    assert.equal(await settling, true);
    assert.equal(await settled, true, 'settled after settling: the order they were made in');
    assert.equal((await claim).created, true);
    const got = await ledger.get({ id: a.id });
    assert.equal(got?.state, 'settled');
    assert.equal(got?.response?.body, '{"r":1}');
    assert.equal((await ledger.get({ id: b.id }))?.state, 'reserved');
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await close();
  }
});

test('a lock held past the bound: the write fails closed (LedgerUnavailableError, nothing written), and the next one succeeds once the lock is free', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-lock-bound-'));
  const { ledger, close } = await openDatabase({ dataDir, ledgerTimeoutMs: 300 });
  const other = new Database(join(dataDir, 'ledger.sqlite'));
  try {
    const a = attempt();
    await ledger.reserve({ attempt: a, lease, now: 1 });
    other.exec('BEGIN IMMEDIATE');
    const steps = [{ to: 'executed' as const, patch: { response: response('{}') } }, { to: 'settling' as const, patch: {} }];
    await assert.rejects(ledger.advance({ id: a.id, owner: 'me', steps, now: 2 }), { name: 'LedgerUnavailableError' });
    await assert.rejects(ledger.ping(), { name: 'LedgerUnavailableError' }, 'readiness follows the failed write');
    other.exec('COMMIT');
    const got = await ledger.get({ id: a.id });
    assert.equal(got?.state, 'reserved', 'nothing was written');
    assert.equal(got?.response, null);
    assert.equal(await ledger.advance({ id: a.id, owner: 'me', steps, now: 3 }), true);
    await ledger.ping();
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await close();
  }
});

test('a 7 MiB result is stored once, outside the attempt row, and read back byte-identical after a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-large-'));
  const body = JSON.stringify({ text: 'é€😀 '.repeat(7 * 1024 * 1024 / 12) });
  const a = attempt();
  {
    const { ledger, close } = await openDatabase({ dataDir });
    await ledger.reserve({ attempt: a, lease, now: 1 });
    assert.equal(await ledger.advance({ id: a.id, owner: 'me', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: response(body) } }, { to: 'settling', patch: {} }], now: 2 }), true);
    assert.equal(await ledger.advance({ id: a.id, owner: 'me', steps: [{ to: 'settled', patch: { txHash: '0x7', settleResponse: '{"success":true}' } }], now: 3, durable: false }), true);
    await close();
  }
  const { ledger, db, close } = await openDatabase({ dataDir });
  try {
    const got = await ledger.get({ id: a.id });
    assert.equal(got?.state, 'settled');
    assert.equal(got?.response?.body.length, body.length);
    assert.equal(sha(got!.response!.body), sha(body));
    assert.equal((await ledger.summary()).paidDeliveries, 1);
    // What every later write of the attempt rewrites stays small: the attempts table, overflow pages included, is a few pages.
    const [{ bytes }] = (await db.all<{ bytes: number }>("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = 'payment_attempts'")) as [{ bytes: number }];
    assert.ok(bytes < 64 * 1024, `the attempts table takes ${bytes} bytes`);
  } finally {
    await close();
  }
});

test("every ledger call is answered on the ledger's thread, reads and the claim included: the event loop's connection runs none of them", async () => {
  // better-sqlite3's statements and execs as this thread (the event loop) makes them; the ledger's thread loads its own copy.
  const probe = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const databaseProto = Object.getPrototypeOf(probe) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  const onEventLoop: string[] = [];
  const restore: Array<() => void> = [];
  for (const [proto, names] of [[statementProto, ['run', 'get', 'all', 'iterate']], [databaseProto, ['exec']]] as const) {
    for (const name of names) {
      const original = proto[name]!;
      proto[name] = function (this: unknown, ...args: unknown[]) {
        onEventLoop.push(name);
        return original.apply(this, args);
      };
      restore.push(() => (proto[name] = original));
    }
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-all-on-thread-'));
  const { db, ledger, close } = await openDatabase({ dataDir });
  try {
    onEventLoop.length = 0;
    const a = attempt({ paymentKey: `key-${Math.random()}` });
    assert.equal((await ledger.reserve({ attempt: a, lease, now: 1 })).created, true);
    assert.equal((await ledger.get({ id: a.id }))?.state, 'reserved');
    assert.equal(await ledger.advance({ id: a.id, owner: 'me', steps: [{ to: 'verified', patch: {} }], now: 2, durable: false }), true);
    assert.equal((await ledger.getByPaymentKey({ key: a.paymentKey! }))?.id, a.id);
    await ledger.summary();
    const d = await ledger.dashboard({ from: 0, to: 10, bucketMs: 1, excludePayers: [], latencyBoundsMs: [], recentLimit: 5, unresolvedLimit: 5, buyersLimit: 5, now: 2 });
    assert.deepEqual(d.unresolved.map((u) => u.id), [a.id]);
    assert.deepEqual(onEventLoop, [], 'no ledger statement ran on the event loop');
    // The spy sees what the event loop's connection does run (the content stores share it).
    await db.all('SELECT 1 AS one');
    assert.ok(onEventLoop.length > 0, 'the event loop connection\'s own statement is seen');
  } finally {
    for (const r of restore) r();
    await close();
  }
});

test('reads leave nothing to checkpoint: a ledger only read from sends its thread no checkpoint, one written to sends one once writes pause', async () => {
  const checkpoints: number[] = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, m: unknown, ...rest: unknown[]) {
    if ((m as { method?: string } | null)?.method === 'checkpoint') checkpoints.push(Date.now());
    return (post as (...a: unknown[]) => void).call(this, m, ...rest);
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-reads-no-checkpoint-'));
  const { ledger, close } = await openDatabase({ dataDir });
  try {
    const pause = () => new Promise((r) => setTimeout(r, CHECKPOINT_AFTER_MS + 500));
    // Whatever start-up wrote has been checkpointed by now.
    await pause();
    checkpoints.length = 0;
    for (let i = 0; i < 5; i++) {
      await ledger.settlementWatermark();
      await ledger.summary();
      await ledger.get({ id: 'none' });
    }
    await pause();
    assert.deepEqual(checkpoints, [], 'reads alone: no checkpoint');
    await ledger.reserve({ attempt: attempt(), lease, now: 1 });
    await pause();
    assert.equal(checkpoints.length, 1, 'a write: one checkpoint once writes pause');
  } finally {
    Worker.prototype.postMessage = post;
    await close();
  }
});
