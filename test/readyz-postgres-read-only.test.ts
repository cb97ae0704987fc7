/**
 * The PostgreSQL ledger's server turns read-only (a failover to a standby, an
 * operator's default_transaction_read_only): `SELECT 1` still answers, so
 * readiness said 200 while every paid call's claim failed. The readiness
 * probe is now a write, and recovers by itself once the server takes writes.
 * A database of its own, so the fault touches no other suite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../src/store/index.js';
import { LedgerUnavailableError } from '../src/store/ledger.js';
import { attempt } from './support/ledger-attempt.js';
import { PG_SKIP_REASON, pgConfigured } from './support/pg.js';

test('PostgreSQL turned read-only: the ledger ping (readiness) fails, and passes again once writes are allowed', { timeout: 60_000 }, async (t) => {
  if (!pgConfigured()) {
    t.skip(PG_SKIP_REASON);
    return;
  }
  const name = 'ro_' + randomBytes(6).toString('hex');
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = '/' + name;
  // Existing sessions keep their setting: end them so the pool reconnects under the new one.
  const setReadOnly = async (on: boolean) => {
    await admin.query(on ? `ALTER DATABASE ${name} SET default_transaction_read_only = on` : `ALTER DATABASE ${name} RESET default_transaction_read_only`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  };
  const database = await openDatabase({ dataDir: '/nonexistent-not-used', databaseUrl: url.toString(), ledgerTimeoutMs: 2000 });
  try {
    await database.ledger.ping();
    await setReadOnly(true);
    // A call right after the sessions ended may meet a dead pooled connection; the next ones reconnect read-only.
    let refusal: unknown;
    for (let i = 0; i < 5 && !/read-only transaction/.test(String(refusal)); i++) refusal = await database.ledger.ping().then(() => 'ping passed', (e: unknown) => e);
    assert.ok(refusal instanceof LedgerUnavailableError, String(refusal));
    assert.match(refusal.message, /read-only transaction/);
    assert.deepEqual(await database.db.all('SELECT 1 AS ok'), [{ ok: 1 }], 'reads still answer: a read probe would say ready');
    await assert.rejects(database.ledger.reserve({ attempt: attempt(), lease: { owner: 'o', until: 0 }, now: Date.now() }), LedgerUnavailableError);

    await setReadOnly(false);
    let recovered = false;
    for (let i = 0; i < 20 && !recovered; i++) {
      recovered = await database.ledger.ping().then(
        () => true,
        () => false,
      );
      if (!recovered) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(recovered, 'the ping passes again once the server takes writes');
  } finally {
    await database.close();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]).catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => {});
    await admin.end();
  }
});
