/**
 * One conformance suite, run against both ledgers: the embedded SQLite and a
 * real PostgreSQL server.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlLedger } from '../src/store/sql-ledger.js';
import { openSqlite } from '../src/store/sqlite/driver.js';
import { migrate } from '../src/store/migrate.js';
import { ThreadedSqliteLedger } from '../src/store/sqlite/ledger-thread.js';
import { openDatabase } from '../src/store/index.js';
import { openPostgres } from '../src/store/postgres/driver.js';
import type { Ledger } from '../src/store/ledger.js';
import { attempt } from './support/ledger-attempt.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from './support/pg.js';

/** The SQLite ledger run on its own thread (ledger-thread.ts), every call there. */
async function openThreadedSqlite(): Promise<Ledger> {
  const file = join(mkdtempSync(join(tmpdir(), 'ledger-thread-')), 'l.sqlite');
  const setup = openSqlite(file);
  await migrate(setup);
  await setup.close();
  return (await ThreadedSqliteLedger.open(file, { timeoutMs: 3000 })).ledger;
}

/** As the service opens it (`openDatabase`): on its own thread, or in process (`sqliteLedgerThread: false`, the gate's unit tests). */
async function openServiceSqlite(sqliteLedgerThread: boolean): Promise<Ledger> {
  return (await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'ledger-service-')), sqliteLedgerThread })).ledger;
}

const suites: Array<[string, () => Promise<Ledger>, string | undefined]> = [
  ['sqlite', async () => SqlLedger.open(openSqlite(join(mkdtempSync(join(tmpdir(), 'ledger-')), 'l.sqlite'))), undefined],
  ['sqlite on its own thread', openThreadedSqlite, undefined],
  ['sqlite as the service opens it', () => openServiceSqlite(true), undefined],
  ['sqlite as the service opens it, in process', () => openServiceSqlite(false), undefined],
  ['postgres', async () => SqlLedger.open(await openPostgres(await freshPgUrl())), pgConfigured() ? undefined : PG_SKIP_REASON],
];

for (const [name, open, skip] of suites) {
  describe(`ledger conformance: ${name}`, { skip }, () => {
    let ledger: Ledger;
    before(async () => {
      ledger = await open();
    });
    after(async () => {
      await ledger?.close();
    });

    test('reserve claims a new authorization exactly once', async () => {
      const a = attempt();
      const first = await ledger.reserve(a, { owner: 'p1', until: 10_000 }, 1);
      assert.equal(first.created, true);
      assert.equal(first.attempt.state, 'reserved');
      const second = await ledger.reserve({ ...a, resource: 'other' }, { owner: 'p2', until: 10_000 }, 2);
      assert.equal(second.created, false);
      assert.equal(second.attempt?.resource, a.resource, 'the first binding wins and is returned');
    });

    test('concurrent reserves of one authorization: exactly one is created', async () => {
      const a = attempt();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.reserve(a, { owner: `p${i}`, until: 10_000 }, 1)));
      assert.equal(results.filter((r) => r.created).length, 1);
    });

    test('a payment key is unique: a second authorization with the same key returns the first row', async () => {
      const a = attempt({ paymentKey: `key-${Math.random()}` });
      await ledger.reserve(a, { owner: 'p', until: 10 }, 1);
      const b = await ledger.reserve(attempt({ paymentKey: a.paymentKey }), { owner: 'q', until: 10 }, 1);
      assert.equal(b.created, false);
      assert.equal(b.attempt?.id, a.id);
    });

    test('transitions require the lease; final states release it and cannot be left', async () => {
      const a = attempt();
      await ledger.reserve(a, { owner: 'p1', until: 1000 }, 1);
      assert.equal(await ledger.transition(a.id, 'intruder', 'verified', {}, 2), false);
      assert.equal(await ledger.transition(a.id, 'p1', 'verified', {}, 2), true);
      assert.equal(await ledger.transition(a.id, 'p1', 'executed', { response: { status: 200, contentType: 'application/json', body: '{"x":1}' } }, 3), true);
      assert.equal(await ledger.transition(a.id, 'p1', 'settling', {}, 4), true);
      assert.equal(await ledger.transition(a.id, 'p1', 'settled', { settleResponse: '{"success":true}', txHash: '0xabc' }, 5), true);
      const got = await ledger.get(a.id);
      assert.equal(got?.state, 'settled');
      assert.equal(got?.txHash, '0xabc');
      assert.deepEqual(got?.response, { status: 200, contentType: 'application/json', body: '{"x":1}' });
      assert.equal(got?.leaseOwner, null);
      assert.equal(await ledger.transition(a.id, 'p1', 'failed', {}, 6), false, 'settled is final');
      assert.equal(await ledger.acquire(a.id, { owner: 'p2', until: 99 }, 7), false, 'a settled attempt cannot be leased');
      const h = await ledger.history(a.id);
      assert.deepEqual(h.map((e) => e.state), ['reserved', 'verified', 'executed', 'settling', 'settled']);
    });

    test('the facilitator a settlement was sent to is recorded, kept when the chain settles it, and read back', async () => {
      const a = attempt();
      const reserved = await ledger.reserve(a, { owner: 'p', until: 100 }, 1);
      assert.equal(reserved.created && reserved.attempt.facilitator, null);
      await ledger.advance(a.id, 'p', [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } }, { to: 'settling', patch: {} }], 2);
      assert.equal((await ledger.get(a.id))?.facilitator, null, 'none until a settle is sent');
      assert.equal(await ledger.transition(a.id, 'p', 'unknown', { facilitator: 'https://x402.example.com/facilitator' }, 3), true);
      assert.equal((await ledger.listUnresolved(150, 1000)).find((x) => x.id === a.id)?.facilitator, 'https://x402.example.com/facilitator');
      assert.equal(await ledger.transitionUnleased(a.id, 'unknown', 'settled', { txHash: '0x1', settleResponse: '{}' }, 150), true);
      assert.equal((await ledger.get(a.id))?.facilitator, 'https://x402.example.com/facilitator');
    });

    test('a stored result is written once: a later step cannot replace it, and it is read back byte for byte', async () => {
      const a = attempt();
      await ledger.reserve(a, { owner: 'p', until: 100 }, 1);
      // Multi-byte text and a size past SQLite's overflow pages.
      const body = JSON.stringify({ s: 'é€😀'.repeat(50_000), n: 1 });
      assert.equal(await ledger.advance(a.id, 'p', [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: { status: 200, contentType: 'application/json; charset=utf-8', body } } }], 2), true);
      assert.equal(await ledger.transition(a.id, 'p', 'settling', { response: { status: 500, contentType: 'text/plain', body: 'other' } }, 3), true);
      const got = await ledger.get(a.id);
      assert.equal(got?.state, 'settling');
      assert.deepEqual(got?.response, { status: 200, contentType: 'application/json; charset=utf-8', body });
      assert.equal(await ledger.transition(a.id, 'p', 'unknown', {}, 4), true);
      assert.equal((await ledger.listUnresolved(150, 1000)).find((x) => x.id === a.id)?.response?.body, body, 'the reconciler sees it too');
    });

    test('a step refused for a lost lease stores no result', async () => {
      const a = attempt();
      await ledger.reserve(a, { owner: 'p', until: 100 }, 1);
      assert.equal(await ledger.advance(a.id, 'intruder', [{ to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } }], 2), false);
      assert.equal((await ledger.get(a.id))?.response, null);
      assert.equal(await ledger.advance(a.id, 'p', [{ to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{"mine":1}' } } }, { to: 'failed', patch: {} }, { to: 'settling', patch: {} }], 3), false, 'failed is final');
      assert.equal((await ledger.get(a.id))?.response, null, 'all steps or none: the result went with the rolled-back steps');
    });

    test('acquire takes an expired lease only, and only one contender wins', async () => {
      const a = attempt();
      await ledger.reserve(a, { owner: 'p1', until: 100 }, 1);
      assert.equal(await ledger.acquire(a.id, { owner: 'p2', until: 500 }, 50), false, 'lease still held');
      const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => ledger.acquire(a.id, { owner: `c${i}`, until: 500 }, 200)));
      assert.equal(wins.filter(Boolean).length, 1);
    });

    test('unresolved listing and reconciler transitions respect leases', async () => {
      const a = attempt();
      await ledger.reserve(a, { owner: 'p', until: 100 }, 1);
      await ledger.transition(a.id, 'p', 'verified', {}, 2);
      await ledger.transition(a.id, 'p', 'executed', { response: { status: 200, contentType: 'application/json', body: '{}' } }, 3);
      await ledger.transition(a.id, 'p', 'unknown', {}, 4);
      assert.equal((await ledger.listUnresolved(50, 1000)).some((x) => x.id === a.id), false, 'leased rows are not listed');
      assert.equal(await ledger.transitionUnleased(a.id, 'unknown', 'settled', {}, 50), false);
      assert.equal((await ledger.listUnresolved(150, 1000)).some((x) => x.id === a.id), true);
      assert.equal(await ledger.transitionUnleased(a.id, 'unknown', 'settled', { txHash: '0x1', settleResponse: '{}' }, 150), true);
      assert.equal((await ledger.get(a.id))?.state, 'settled');
    });

    test('summary counts only settled attempts with a stored response as paid deliveries', async () => {
      const before = await ledger.summary();
      const lease = { owner: 'p', until: 100 };
      const delivered = attempt({ amount: '2500' });
      await ledger.reserve(delivered, lease, 1);
      assert.equal(await ledger.transition(delivered.id, 'p', 'executed', { response: { status: 200, contentType: 'application/json', body: '{}' } }, 2), true);
      assert.equal(await ledger.transition(delivered.id, 'p', 'settled', { txHash: '0x2', settleResponse: '{}' }, 3), true);
      const settledWithoutResponse = attempt({ amount: '700' });
      await ledger.reserve(settledWithoutResponse, lease, 1);
      assert.equal(await ledger.transition(settledWithoutResponse.id, 'p', 'settled', { txHash: '0x3', settleResponse: '{}' }, 2), true);
      const failed = attempt({ amount: '900' });
      await ledger.reserve(failed, lease, 1);
      assert.equal(await ledger.transition(failed.id, 'p', 'failed', { failureCode: 'payment_invalid' }, 2), true);
      await ledger.reserve(attempt({ amount: '1100' }), lease, 1);

      const after = await ledger.summary();
      const added = Object.fromEntries(Object.entries(after.byState).map(([state, count]) => [state, count - before.byState[state as keyof typeof before.byState]]).filter(([, d]) => d !== 0));
      assert.deepEqual(added, { reserved: 1, settled: 2, failed: 1 });
      assert.equal(after.paidDeliveries - before.paidDeliveries, 1, 'only the settled attempt with a stored response is a paid delivery');
      assert.equal(BigInt(after.settledAtomic) - BigInt(before.settledAtomic), 2500n);
    });

    test('driver transactions commit together or not at all', async () => {
      const db = name.startsWith('sqlite') ? openSqlite(join(mkdtempSync(join(tmpdir(), 'tx-')), 'tx.sqlite')) : await openPostgres(await freshPgUrl());
      try {
        await db.execScript('CREATE TABLE t (k TEXT PRIMARY KEY)');
        await db.transaction(async (tx) => {
          await tx.run('INSERT INTO t (k) VALUES (?)', ['a']);
          await tx.run('INSERT INTO t (k) VALUES (?)', ['b']);
        });
        await assert.rejects(() =>
          db.transaction(async (tx) => {
            await tx.run('INSERT INTO t (k) VALUES (?)', ['c']);
            await tx.run('INSERT INTO t (k) VALUES (?)', ['a']);
          }),
        );
        if (name.startsWith('sqlite')) {
          await assert.rejects(
            () =>
              db.transaction(async (tx) => {
                await tx.run('INSERT INTO t (k) VALUES (?)', ['d']);
                await new Promise((r) => setTimeout(r, 5));
              }),
            /awaited I\/O/,
          );
        }
        const rows = await db.all<{ k: string }>('SELECT k FROM t ORDER BY k');
        assert.deepEqual(rows.map((r) => r.k), ['a', 'b']);
      } finally {
        await db.close();
      }
    });

    test('after close every call fails as LedgerUnavailableError', async () => {
      const l = await open();
      await l.close();
      await assert.rejects(() => l.ping(), { name: 'LedgerUnavailableError' });
      await assert.rejects(() => l.reserve(attempt(), { owner: 'p', until: 1 }, 1), { name: 'LedgerUnavailableError' });
    });
  });
}
