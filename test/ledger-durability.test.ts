/**
 * Which ledger writes wait for the disk. A paid call makes one flushed write
 * before settle is sent (`settling`, with the stored response); the claim
 * (`reserve`) and the `settled` record are not flushed on their own. What
 * keeps that safe: the flushed write comes after the claim on the same
 * database, and each database flushes its log in order, so once the
 * `settling` commit returns, the claim is on disk too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlLedger } from '../src/store/sql-ledger.js';
import { openSqlite } from '../src/store/sqlite/driver.js';
import type { SqlDriver, TransactionOptions } from '../src/store/sql-driver.js';

/** The real SQLite driver, recording whether each transaction asked to be flushed and what it wrote. */
function recording(db: SqlDriver): { db: SqlDriver; commits: Array<{ durable: boolean; sql: string[] }> } {
  const commits: Array<{ durable: boolean; sql: string[] }> = [];
  return {
    commits,
    db: {
      ...db,
      kind: db.kind,
      async transaction(fn, opts?: TransactionOptions) {
        const sql: string[] = [];
        const out = await db.transaction(
          (tx) =>
            fn({
              kind: tx.kind,
              run: (s, p) => (sql.push(s), tx.run(s, p)),
              all: (s, p) => tx.all(s, p),
            }),
          opts,
        );
        commits.push({ durable: opts?.durable !== false, sql });
        return out;
      },
    },
  };
}

test('a paid call flushes once before settle: the claim is not flushed alone, the settling write (with the response) is', async () => {
  const { db, commits } = recording(openSqlite(join(mkdtempSync(join(tmpdir(), 'durability-')), 'l.sqlite')));
  const ledger = await SqlLedger.open(db);
  try {
    commits.length = 0;
    const lease = { owner: 'me', until: 10_000 };
    const r = await ledger.reserve({
      attempt: { id: 'a1', network: 'n', asset: 'x', payer: 'p', nonce: '0x1', payTo: 't', amount: '1', resource: 'r', requestFingerprint: 'f', paymentKey: null, validBefore: 2e9, payload: '{}', requirements: '{}' },
      lease,
      now: 1,
    });
    assert.equal(r.created, true);
    const settling = await ledger.advance({
      id: 'a1',
      owner: 'me',
      steps: [
        { to: 'verified', patch: {} },
        { to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } },
        { to: 'settling', patch: {} },
      ],
      now: 2,
    });
    assert.equal(settling, true);
    assert.deepEqual(
      commits.map((c) => c.durable),
      [false, true],
      'the claim commits without a flush; the write before settle is flushed (and with it everything before it)',
    );
    assert.match(commits[0]!.sql[0]!, /INSERT INTO payment_attempts/);
    assert.ok(commits[1]!.sql.some((s) => /INSERT INTO payment_responses/.test(s)), 'the flushed write carries the stored response');
  } finally {
    await ledger.close();
  }
});
