/**
 * Migration 0012 moves stored results out of `payment_attempts` into
 * `payment_responses`: a ledger written before it (rows in every state, with
 * and without a result) reads back the same attempts, results byte for byte,
 * and the same paid deliveries after it, on both databases.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../src/store/migrate.js';
import { SqlLedger } from '../src/store/sql-ledger.js';
import { openSqlite } from '../src/store/sqlite/driver.js';
import { openPostgres } from '../src/store/postgres/driver.js';
import type { SqlDriver } from '../src/store/sql-driver.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from './support/pg.js';

const MIGRATIONS = join(import.meta.dirname, '../src/store/migrations');

/** The schema as it was before migration 0012, recorded as applied the way `migrate` records it. */
async function migrateBefore0012(db: SqlDriver): Promise<void> {
  await db.execScript('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
  for (const name of readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort()) {
    if (name >= '0012') break;
    await db.execScript(readFileSync(join(MIGRATIONS, name), 'utf8'));
    await db.run('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)', [name, 1]);
  }
}

const BIG = JSON.stringify({ text: 'ü'.repeat(400_000), emoji: '🧾' });

/** Rows as the ledger before 0012 wrote them: id, state, stored result (status, type, body) or none. */
const OLD_ROWS: Array<[string, string, [number, string | null, string] | null]> = [
  ['settled-big', 'settled', [200, 'application/json', BIG]],
  ['settled-small', 'settled', [200, 'application/json; charset=utf-8', '{"ok":true}']],
  ['settled-untyped', 'settled', [200, null, '{}']],
  ['settling', 'settling', [200, 'application/json', '{"n":2}']],
  ['unknown', 'unknown', [200, 'application/json', '{"n":3}']],
  ['reserved', 'reserved', null],
  ['failed', 'failed', null],
];

async function insertOld(db: SqlDriver): Promise<void> {
  for (const [id, state, r] of OLD_ROWS) {
    await db.run(
      `INSERT INTO payment_attempts (id, network, asset, payer, nonce, pay_to, amount, resource, request_fingerprint, payment_key, state, valid_before,
         payload, requirements, response_status, response_type, response_body, lease_until, created_at, updated_at)
       VALUES (?, 'eip155:31337', '0xasset', '0xPayer', ?, '0xpayto', '1000', 'r', 'fp', NULL, ?, 2000000000, '{}', '{}', ?, ?, ?, 0, 1, 2)`,
      [id, '0x' + id, state, r?.[0] ?? null, r?.[1] ?? null, r?.[2] ?? null],
    );
  }
}

const databases: Array<[string, () => Promise<SqlDriver>, string | undefined]> = [
  ['sqlite', async () => openSqlite(join(mkdtempSync(join(tmpdir(), 'ledger-0012-')), 'l.sqlite')), undefined],
  ['postgres', async () => openPostgres(await freshPgUrl()), pgConfigured() ? undefined : PG_SKIP_REASON],
];

for (const [name, open, skip] of databases) {
  describe(`migration 0012 (${name})`, { skip }, () => {
    test('stored results move to payment_responses; every attempt, result and paid delivery reads back as before', async () => {
      const db = await open();
      try {
        await migrateBefore0012(db);
        await insertOld(db);
        // 0012, then whatever later migrations there are.
        const applied = await migrate(db);
        assert.equal(applied[0], '0012_ledger_responses_table.sql');
        assert.ok(applied.every((m) => m >= '0012_'), applied.join(', '));
        const ledger = new SqlLedger(db);
        for (const [id, state, r] of OLD_ROWS) {
          const a = await ledger.get({ id });
          assert.equal(a?.state, state, id);
          assert.deepEqual(a?.response, r ? { status: r[0], contentType: r[1] ?? 'application/json', body: r[2] } : null, id);
        }
        const summary = await ledger.summary();
        assert.equal(summary.paidDeliveries, 3);
        assert.equal(summary.settledAtomic, '3000');
        assert.deepEqual(await ledger.paidDeliveriesByPayer(), [{ payer: '0xpayer', atomic: '3000', deliveries: 3, lastSettledAt: 2 }]);
        assert.deepEqual((await ledger.listUnresolved({ now: 10, limit: 100 })).map((a) => [a.id, a.response?.body]).sort(), [['settling', '{"n":2}'], ['unknown', '{"n":3}']]);
        // The attempt row no longer carries the result.
        const cols = name === 'sqlite'
          ? (await db.all<{ name: string }>("SELECT name FROM pragma_table_info('payment_attempts')")).map((c) => c.name)
          : (await db.all<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'payment_attempts' AND table_schema = current_schema()")).map((c) => c.name);
        assert.ok(cols.length > 10 && !cols.some((c) => c.startsWith('response_')), cols.join(','));
        assert.deepEqual(await migrate(db), [], 'applied once');
      } finally {
        await db.close();
      }
    });
  });
}
