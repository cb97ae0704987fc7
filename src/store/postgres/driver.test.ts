/**
 * The PostgreSQL driver behind a stalled network (no reset): every call
 * rejects within its timeout, a connection that timed out is destroyed
 * rather than pooled (it may never answer again), ROLLBACK does not add a
 * wait of its own, and a healthy connection is kept.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from '../../../test/support/pg.js';
import { startTcpStallProxy } from '../../../test/support/tcp-stall-proxy.js';
import { openPostgres } from './driver.js';

const TIMEOUT_MS = 500;
/** One timeout plus slack, but well under two: a ROLLBACK queued behind the stuck query would take a second one. */
const ONE_TIMEOUT = TIMEOUT_MS * 1.7;

async function fixture() {
  const direct = new URL(await freshPgUrl());
  const proxy = await startTcpStallProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const viaProxy = new URL(direct);
  viaProxy.hostname = proxy.host;
  viaProxy.port = String(proxy.port);
  const db = await openPostgres(viaProxy.toString(), { timeoutMs: TIMEOUT_MS });
  await db.execScript('CREATE TABLE t (k TEXT PRIMARY KEY)');
  return {
    db,
    proxy,
    url: viaProxy.toString(),
    async close() {
      proxy.resume();
      await db.close();
      await proxy.close();
    },
  };
}

async function elapsed(p: Promise<unknown>): Promise<{ ms: number; error?: Error }> {
  const t0 = Date.now();
  try {
    await p;
    return { ms: Date.now() - t0 };
  } catch (e) {
    return { ms: Date.now() - t0, error: e as Error };
  }
}

const insert = (k: string) => async (tx: { run(sql: string, params?: unknown[]): Promise<number> }) => tx.run('INSERT INTO t (k) VALUES (?)', [k]);

describe('postgres driver on a stalled network', { skip: pgConfigured() ? undefined : PG_SKIP_REASON, timeout: 30_000 }, () => {
  test('a transaction rejects within one timeout, and its connection is never reused', async () => {
    const f = await fixture();
    try {
      f.proxy.stall();
      const r = await elapsed(f.db.transaction(insert('a')));
      assert.ok(r.error, 'rejected');
      assert.ok(r.ms < ONE_TIMEOUT, `rejected after ${r.ms} ms`);
      // The old connections stay silent for good: only a new one can answer.
      f.proxy.resume({ abandon: true });
      const accepted = f.proxy.accepted;
      const ok = await elapsed(f.db.transaction(insert('b')));
      assert.equal(ok.error, undefined, ok.error ? ok.error.message : '');
      assert.ok(f.proxy.accepted > accepted, 'a new connection was opened');
      assert.deepEqual((await f.db.all<{ k: string }>('SELECT k FROM t')).map((x) => x.k), ['b']);
    } finally {
      await f.close();
    }
  });

  test('run and all reject within one timeout; the pool replaces what timed out', async () => {
    const f = await fixture();
    try {
      f.proxy.stall();
      const w = await elapsed(f.db.run('INSERT INTO t (k) VALUES (?)', ['a']));
      assert.ok(w.error && w.ms < ONE_TIMEOUT, `run: ${w.error?.message} after ${w.ms} ms`);
      const r = await elapsed(f.db.all('SELECT 1 AS ok'));
      assert.ok(r.error && r.ms < ONE_TIMEOUT, `all: ${r.error?.message} after ${r.ms} ms`);
      f.proxy.resume({ abandon: true });
      assert.deepEqual(await f.db.all('SELECT 1 AS ok'), [{ ok: 1 }]);
    } finally {
      await f.close();
    }
  });

  test('connecting during a stall fails within one timeout', async () => {
    const f = await fixture();
    try {
      f.proxy.stall();
      const r = await elapsed(openPostgres(f.url, { timeoutMs: TIMEOUT_MS }));
      assert.ok(r.error, 'rejected');
      assert.ok(r.ms < ONE_TIMEOUT, `rejected after ${r.ms} ms`);
    } finally {
      await f.close();
    }
  });

  test("fn's own error rolls back on the same, healthy connection", async () => {
    const f = await fixture();
    try {
      const accepted = f.proxy.accepted;
      await assert.rejects(
        f.db.transaction(async (tx) => {
          await insert('x')(tx);
          throw new Error('lease lost');
        }),
        /lease lost/,
      );
      // A server error (duplicate key) is not a broken connection either.
      await f.db.transaction(insert('y'));
      await assert.rejects(f.db.transaction(insert('y')), { code: '23505' });
      assert.deepEqual((await f.db.all<{ k: string }>('SELECT k FROM t')).map((x) => x.k), ['y']);
      assert.equal(f.proxy.accepted, accepted, 'no connection was replaced');
    } finally {
      await f.close();
    }
  });
});
