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
      const first = await ledger.reserve({ attempt: a, lease: { owner: 'p1', until: 10_000 }, now: 1 });
      assert.equal(first.created, true);
      assert.equal(first.attempt.state, 'reserved');
      const second = await ledger.reserve({ attempt: { ...a, resource: 'other' }, lease: { owner: 'p2', until: 10_000 }, now: 2 });
      assert.equal(second.created, false);
      assert.equal(second.attempt?.resource, a.resource, 'the first binding wins and is returned');
    });

    test('concurrent reserves of one authorization: exactly one is created', async () => {
      const a = attempt();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.reserve({ attempt: a, lease: { owner: `p${i}`, until: 10_000 }, now: 1 })));
      assert.equal(results.filter((r) => r.created).length, 1);
    });

    test('a payment key is unique: a second authorization with the same key returns the first row', async () => {
      const a = attempt({ paymentKey: `key-${Math.random()}` });
      await ledger.reserve({ attempt: a, lease: { owner: 'p', until: 10 }, now: 1 });
      const b = await ledger.reserve({ attempt: attempt({ paymentKey: a.paymentKey }), lease: { owner: 'q', until: 10 }, now: 1 });
      assert.equal(b.created, false);
      assert.equal(b.attempt?.id, a.id);
    });

    test('transitions require the lease; final states release it and cannot be left', async () => {
      const a = attempt();
      await ledger.reserve({ attempt: a, lease: { owner: 'p1', until: 1000 }, now: 1 });
      assert.equal(await ledger.transition({ id: a.id, owner: 'intruder', to: 'verified', patch: {}, now: 2 }), false);
      assert.equal(await ledger.transition({ id: a.id, owner: 'p1', to: 'verified', patch: {}, now: 2 }), true);
      assert.equal(await ledger.transition({ id: a.id, owner: 'p1', to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{"x":1}' } }, now: 3 }), true);
      assert.equal(await ledger.transition({ id: a.id, owner: 'p1', to: 'settling', patch: {}, now: 4 }), true);
      assert.equal(await ledger.transition({ id: a.id, owner: 'p1', to: 'settled', patch: { settleResponse: '{"success":true}', txHash: '0xabc' }, now: 5 }), true);
      const got = await ledger.get({ id: a.id });
      assert.equal(got?.state, 'settled');
      assert.equal(got?.txHash, '0xabc');
      assert.deepEqual(got?.response, { status: 200, contentType: 'application/json', body: '{"x":1}' });
      assert.equal(got?.leaseOwner, null);
      assert.equal(await ledger.transition({ id: a.id, owner: 'p1', to: 'failed', patch: {}, now: 6 }), false, 'settled is final');
      assert.equal(await ledger.acquire({ id: a.id, lease: { owner: 'p2', until: 99 }, now: 7 }), false, 'a settled attempt cannot be leased');
      const h = await ledger.history({ id: a.id });
      assert.deepEqual(h.map((e) => e.state), ['reserved', 'verified', 'executed', 'settling', 'settled']);
    });

    test('the facilitator a settlement was sent to is recorded, kept when the chain settles it, and read back', async () => {
      const a = attempt();
      const reserved = await ledger.reserve({ attempt: a, lease: { owner: 'p', until: 100 }, now: 1 });
      assert.equal(reserved.created && reserved.attempt.facilitator, null);
      await ledger.advance({ id: a.id, owner: 'p', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } }, { to: 'settling', patch: {} }], now: 2 });
      assert.equal((await ledger.get({ id: a.id }))?.facilitator, null, 'none until a settle is sent');
      assert.equal(await ledger.transition({ id: a.id, owner: 'p', to: 'unknown', patch: { facilitator: 'https://x402.example.com/facilitator' }, now: 3 }), true);
      assert.equal((await ledger.listUnresolved({ now: 150, limit: 1000 })).find((x) => x.id === a.id)?.facilitator, 'https://x402.example.com/facilitator');
      assert.equal(await ledger.transitionUnleased({ id: a.id, from: 'unknown', to: 'settled', patch: { txHash: '0x1', settleResponse: '{}' }, now: 150 }), true);
      assert.equal((await ledger.get({ id: a.id }))?.facilitator, 'https://x402.example.com/facilitator');
    });

    test('paidFor finds what one payer paid for one request on one chain, a settled attempt first; a sign-in is spent once, with the redelivery in the history', async () => {
      const fp = `fp-${Math.random()}`;
      const settle = async (a: ReturnType<typeof attempt>, at: number) => {
        await ledger.reserve({ attempt: a, lease: { owner: 'p1', until: 1000 }, now: at });
        await ledger.transition({ id: a.id, owner: 'p1', to: 'verified', patch: {}, now: at + 1 });
        await ledger.transition({ id: a.id, owner: 'p1', to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{"x":1}' } }, now: at + 2 });
        await ledger.transition({ id: a.id, owner: 'p1', to: 'settling', patch: {}, now: at + 3 });
        await ledger.transition({ id: a.id, owner: 'p1', to: 'settled', patch: { settleResponse: '{"success":true}', txHash: '0xabc' }, now: at + 4 });
      };
      const paid = attempt({ requestFingerprint: fp, payer: '0xbuyer' });
      await settle(paid, 10);
      const later = attempt({ requestFingerprint: fp, payer: '0xbuyer' });
      await ledger.reserve({ attempt: later, lease: { owner: 'p1', until: 1000 }, now: 20 });
      assert.equal((await ledger.paidFor({ payer: '0xbuyer', network: paid.network, requestFingerprint: fp }))?.id, paid.id, 'the settled one, though older');
      assert.equal(await ledger.paidFor({ payer: '0xother', network: paid.network, requestFingerprint: fp }), undefined);
      assert.equal(await ledger.paidFor({ payer: '0xbuyer', network: 'solana:x', requestFingerprint: fp }), undefined);
      assert.equal(await ledger.paidFor({ payer: '0xbuyer', network: paid.network, requestFingerprint: 'fp-other' }), undefined);
      const nonce = `n-${Math.random()}`;
      const spend = () => ledger.spendSignIn({ nonce, attemptId: paid.id, signer: '0xbuyer', network: paid.network, now: 30, expiresAt: 300 });
      const both = await Promise.all([spend(), spend()]);
      assert.deepEqual(both.sort(), [false, true], 'once, whoever asks at the same time');
      assert.equal(await spend(), false);
      const h = await ledger.history({ id: paid.id });
      assert.deepEqual(h.map((e) => e.state), ['reserved', 'verified', 'executed', 'settling', 'settled', 'settled']);
      assert.match(h.at(-1)!.note!, /redelivered to a sign-in by 0xbuyer/);
    });

    test('a stored result is written once: a later step cannot replace it, and it is read back byte for byte', async () => {
      const a = attempt();
      await ledger.reserve({ attempt: a, lease: { owner: 'p', until: 100 }, now: 1 });
      // Multi-byte text and a size past SQLite's overflow pages.
      const body = JSON.stringify({ s: 'é€😀'.repeat(50_000), n: 1 });
      assert.equal(await ledger.advance({ id: a.id, owner: 'p', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: { status: 200, contentType: 'application/json; charset=utf-8', body } } }], now: 2 }), true);
      assert.equal(await ledger.transition({ id: a.id, owner: 'p', to: 'settling', patch: { response: { status: 500, contentType: 'text/plain', body: 'other' } }, now: 3 }), true);
      const got = await ledger.get({ id: a.id });
      assert.equal(got?.state, 'settling');
      assert.deepEqual(got?.response, { status: 200, contentType: 'application/json; charset=utf-8', body });
      assert.equal(await ledger.transition({ id: a.id, owner: 'p', to: 'unknown', patch: {}, now: 4 }), true);
      assert.equal((await ledger.listUnresolved({ now: 150, limit: 1000 })).find((x) => x.id === a.id)?.response?.body, body, 'the reconciler sees it too');
    });

    test('a step refused for a lost lease stores no result', async () => {
      const a = attempt();
      await ledger.reserve({ attempt: a, lease: { owner: 'p', until: 100 }, now: 1 });
      assert.equal(await ledger.advance({ id: a.id, owner: 'intruder', steps: [{ to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } }], now: 2 }), false);
      assert.equal((await ledger.get({ id: a.id }))?.response, null);
      assert.equal(await ledger.advance({ id: a.id, owner: 'p', steps: [{ to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{"mine":1}' } } }, { to: 'failed', patch: {} }, { to: 'settling', patch: {} }], now: 3 }), false, 'failed is final');
      assert.equal((await ledger.get({ id: a.id }))?.response, null, 'all steps or none: the result went with the rolled-back steps');
    });

    test('acquire takes an expired lease only, and only one contender wins', async () => {
      const a = attempt();
      await ledger.reserve({ attempt: a, lease: { owner: 'p1', until: 100 }, now: 1 });
      assert.equal(await ledger.acquire({ id: a.id, lease: { owner: 'p2', until: 500 }, now: 50 }), false, 'lease still held');
      const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => ledger.acquire({ id: a.id, lease: { owner: `c${i}`, until: 500 }, now: 200 })));
      assert.equal(wins.filter(Boolean).length, 1);
    });

    test('unresolved listing and reconciler transitions respect leases', async () => {
      const a = attempt();
      await ledger.reserve({ attempt: a, lease: { owner: 'p', until: 100 }, now: 1 });
      await ledger.transition({ id: a.id, owner: 'p', to: 'verified', patch: {}, now: 2 });
      await ledger.transition({ id: a.id, owner: 'p', to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } }, now: 3 });
      await ledger.transition({ id: a.id, owner: 'p', to: 'unknown', patch: {}, now: 4 });
      assert.equal((await ledger.listUnresolved({ now: 50, limit: 1000 })).some((x) => x.id === a.id), false, 'leased rows are not listed');
      assert.equal(await ledger.transitionUnleased({ id: a.id, from: 'unknown', to: 'settled', patch: {}, now: 50 }), false);
      assert.equal((await ledger.listUnresolved({ now: 150, limit: 1000 })).some((x) => x.id === a.id), true);
      assert.equal(await ledger.transitionUnleased({ id: a.id, from: 'unknown', to: 'settled', patch: { txHash: '0x1', settleResponse: '{}' }, now: 150 }), true);
      assert.equal((await ledger.get({ id: a.id }))?.state, 'settled');
    });

    test('summary counts only settled attempts with a stored response as paid deliveries', async () => {
      const before = await ledger.summary();
      const lease = { owner: 'p', until: 100 };
      const delivered = attempt({ amount: '2500' });
      await ledger.reserve({ attempt: delivered, lease, now: 1 });
      assert.equal(await ledger.transition({ id: delivered.id, owner: 'p', to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } }, now: 2 }), true);
      assert.equal(await ledger.transition({ id: delivered.id, owner: 'p', to: 'settled', patch: { txHash: '0x2', settleResponse: '{}' }, now: 3 }), true);
      const settledWithoutResponse = attempt({ amount: '700' });
      await ledger.reserve({ attempt: settledWithoutResponse, lease, now: 1 });
      assert.equal(await ledger.transition({ id: settledWithoutResponse.id, owner: 'p', to: 'settled', patch: { txHash: '0x3', settleResponse: '{}' }, now: 2 }), true);
      const failed = attempt({ amount: '900' });
      await ledger.reserve({ attempt: failed, lease, now: 1 });
      assert.equal(await ledger.transition({ id: failed.id, owner: 'p', to: 'failed', patch: { failureCode: 'payment_invalid' }, now: 2 }), true);
      await ledger.reserve({ attempt: attempt({ amount: '1100' }), lease, now: 1 });

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

    test("the operator's dashboard: deliveries per bucket and resource, states, unresolved attempts, settlement time, buyers, last deliveries", async () => {
      // A ledger of its own: the unresolved list and the last deliveries are not bounded by the window.
      const l = await open();
      try {
        const HOUR = 3_600_000;
        const H0 = 100 * HOUR;
        const ok = { status: 200, contentType: 'application/json', body: '{}' };
        /** reserve at `created`, deliver (result stored), settle at `settled`. */
        const deliver = async (payer: string, resource: string, amount: string, created: number, settled: number, txHash: string) => {
          const a = attempt({ payer, resource, amount });
          await l.reserve({ attempt: a, lease: { owner: 'p', until: settled + 1 }, now: created });
          assert.equal(await l.advance({ id: a.id, owner: 'p', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: ok } }, { to: 'settling', patch: {} }], now: created }), true);
          assert.equal(await l.transition({ id: a.id, owner: 'p', to: 'settled', patch: { txHash, settleResponse: '{}' }, now: settled }), true);
          return a.id;
        };
        const a1 = await deliver('0xAAAA00000000000000000000000000000000aaaa', 'r1', '1000', H0 + 10, H0 + 1010, '0xt1');
        const a2 = await deliver('0xaaaa00000000000000000000000000000000aaaa', 'r1', '2500', H0 + HOUR + 5, H0 + HOUR + 255, '0xt2');
        await deliver('0xBBBB00000000000000000000000000000000bbbb', 'r2', '700', H0 + 100, H0 + 200, '0xt3');
        const a4 = await deliver('0xcccc00000000000000000000000000000000cccc', 'r2', '300', H0 + 2 * HOUR, H0 + 2 * HOUR + 5000, '0xt4');
        // Settled without a stored result: not a delivery.
        const a5 = attempt({ payer: '0xdddd00000000000000000000000000000000dddd' });
        await l.reserve({ attempt: a5, lease: { owner: 'p', until: H0 + 400 }, now: H0 + 300 });
        await l.transition({ id: a5.id, owner: 'p', to: 'settled', patch: { txHash: '0xt5' }, now: H0 + 310 });
        // Unknown, its holder gone; reserved, held now; failed.
        const a6 = attempt();
        await l.reserve({ attempt: a6, lease: { owner: 'p', until: H0 + 500 }, now: H0 + 400 });
        await l.advance({ id: a6.id, owner: 'p', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: ok } }, { to: 'settling', patch: {} }, { to: 'unknown', patch: { facilitator: 'https://f.example/facilitator', failureCode: 'settlement_failed' } }], now: H0 + 450 });
        const a7 = attempt();
        await l.reserve({ attempt: a7, lease: { owner: 'q', until: 1e15 }, now: H0 + 600 });
        const a8 = attempt();
        await l.reserve({ attempt: a8, lease: { owner: 'p', until: H0 + 800 }, now: H0 + 700 });
        await l.transition({ id: a8.id, owner: 'p', to: 'failed', patch: { failureCode: 'invalid_payment' }, now: H0 + 700 });
        // Before the window: one settled (still among the last deliveries), one unknown long left alone (listed first).
        const a9 = await deliver('0xcccc00000000000000000000000000000000cccc', 'r1', '5000', H0 - 1000, H0 - 500, '0xt9');
        const a11 = attempt({ resource: 'r2' });
        await l.reserve({ attempt: a11, lease: { owner: 'p', until: H0 - 1000 }, now: H0 - 2000 });
        await l.transition({ id: a11.id, owner: 'p', to: 'unknown', patch: {}, now: H0 - 1500 });
        await l.release({ id: a11.id, owner: 'p' });
        // After the window: counted nowhere.
        await deliver('0xcccc00000000000000000000000000000000cccc', 'r1', '9000', H0 + 3 * HOUR + 10, H0 + 3 * HOUR + 20, '0xt10');

        const query = {
          from: H0,
          to: H0 + 3 * HOUR,
          bucketMs: HOUR,
          excludePayers: ['0xbbbb00000000000000000000000000000000bbbb'],
          latencyBoundsMs: [100, 1000, 4000],
          recentLimit: 3,
          unresolvedLimit: 10,
          buyersLimit: 10,
          now: H0 + 10 * HOUR,
        };
        const d = await l.dashboard(query);
        assert.deepEqual(d.deliveries, [
          { start: H0, resource: 'r1', deliveries: 1, atomic: '1000', independentDeliveries: 1, independentAtomic: '1000' },
          { start: H0, resource: 'r2', deliveries: 1, atomic: '700', independentDeliveries: 0, independentAtomic: '0' },
          { start: H0 + HOUR, resource: 'r1', deliveries: 1, atomic: '2500', independentDeliveries: 1, independentAtomic: '2500' },
          { start: H0 + 2 * HOUR, resource: 'r2', deliveries: 1, atomic: '300', independentDeliveries: 1, independentAtomic: '300' },
        ]);
        assert.deepEqual(d.attemptsByState, { reserved: 1, verified: 0, executed: 0, settling: 0, settled: 5, failed: 1, unknown: 1 });
        assert.deepEqual(
          d.unresolved.map((u) => [u.id, u.state, u.lease]),
          [
            [a11.id, 'unknown', 'free'],
            [a6.id, 'unknown', 'expired'],
            [a7.id, 'reserved', 'held'],
          ],
        );
        assert.equal(d.unresolvedTotal, 3);
        const six = d.unresolved[1]!;
        assert.deepEqual([six.facilitator, six.failureCode, six.createdAt, six.updatedAt, six.amount, six.resource], ['https://f.example/facilitator', 'settlement_failed', H0 + 400, H0 + 450, '1000', a6.resource]);
        assert.deepEqual(d.settlementMs, { cumulative: [1, 3, 3], count: 4, meanMs: (1000 + 250 + 100 + 5000) / 4, maxMs: 5000 });
        assert.deepEqual(d.buyers, {
          count: 2,
          repeat: 1,
          top: [
            { payer: '0xaaaa00000000000000000000000000000000aaaa', deliveries: 2, atomic: '3500', firstSettledAt: H0 + 1010, lastSettledAt: H0 + HOUR + 255 },
            { payer: '0xcccc00000000000000000000000000000000cccc', deliveries: 1, atomic: '300', firstSettledAt: H0 + 2 * HOUR + 5000, lastSettledAt: H0 + 2 * HOUR + 5000 },
          ],
          excluded: { payers: 1, deliveries: 1, atomic: '700' },
        });
        assert.deepEqual(
          d.recent.map((r) => [r.id, r.txHash, r.amount, r.settledAt]),
          [
            [a4, '0xt4', '300', H0 + 2 * HOUR + 5000],
            [a2, '0xt2', '2500', H0 + HOUR + 255],
            [a1, '0xt1', '1000', H0 + 1010],
          ],
        );
        assert.equal(d.recent[0]!.network, 'eip155:31337');

        // Short lists stay short and still count everything; nobody excluded: every payer is a buyer.
        const short = await l.dashboard({ ...query, excludePayers: [], unresolvedLimit: 1, recentLimit: 10, buyersLimit: 1 });
        assert.deepEqual(short.unresolved.map((u) => u.id), [a11.id]);
        assert.equal(short.unresolvedTotal, 3);
        assert.deepEqual([short.buyers.count, short.buyers.repeat, short.buyers.top.length, short.buyers.excluded], [3, 1, 1, { payers: 0, deliveries: 0, atomic: '0' }]);
        assert.ok(short.recent.some((r) => r.id === a9), 'a delivery before the window is still among the last ones');
        assert.ok(!short.recent.some((r) => r.id === a5.id), 'settled without a stored result is no delivery');
        assert.equal(short.deliveries.reduce((n, b) => n + b.independentDeliveries, 0), 4);

        // An empty window answers zeros, not nulls.
        const empty = await l.dashboard({ ...query, from: 1, to: 2, bucketMs: 1 });
        assert.deepEqual([empty.deliveries, empty.settlementMs, empty.buyers.count, empty.buyers.excluded.atomic], [[], { cumulative: [0, 0, 0], count: 0, meanMs: null, maxMs: null }, 0, '0']);

        // Past its bounds a query is refused before the database is asked.
        await assert.rejects(() => l.dashboard({ ...query, bucketMs: 1 }), /at most 1000 buckets/);
        await assert.rejects(() => l.dashboard({ ...query, latencyBoundsMs: [10, 5] }), /ascending latency bounds/);
        await assert.rejects(() => l.dashboard({ ...query, recentLimit: 5000 }), /list limits/);
      } finally {
        await l.close();
      }
    });

    test('after close every call fails as LedgerUnavailableError', async () => {
      const l = await open();
      await l.close();
      await assert.rejects(() => l.ping(), { name: 'LedgerUnavailableError' });
      await assert.rejects(() => l.reserve({ attempt: attempt(), lease: { owner: 'p', until: 1 }, now: 1 }), { name: 'LedgerUnavailableError' });
    });
  });
}
