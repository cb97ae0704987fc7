/**
 * The ledger's indexes on `payment_attempts`: none is redundant (its columns
 * a leading part of another index's, so the other answers every query it
 * could), since every index an attempt's state or times are in is written
 * again at each of the five state changes of a paid call; and every query
 * the ledger makes by state still reads through an index once the redundant
 * one is gone (migration 0014, docs/decisions/0036).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../src/store/migrate.js';
import { SqlLedger } from '../src/store/sql-ledger.js';
import { openSqlite } from '../src/store/sqlite/driver.js';
import { openPostgres } from '../src/store/postgres/driver.js';
import type { SqlDriver } from '../src/store/sql-driver.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from './support/pg.js';
import { attempt } from './support/ledger-attempt.js';

interface Index {
  name: string;
  unique: boolean;
  columns: string[];
}

async function sqliteIndexes(db: SqlDriver): Promise<Index[]> {
  const list = await db.all<{ name: string; unique: number }>("SELECT name, \"unique\" FROM pragma_index_list('payment_attempts')");
  const out: Index[] = [];
  for (const { name, unique } of list) {
    const cols = await db.all<{ name: string }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno', [name]);
    out.push({ name, unique: unique === 1, columns: cols.map((c) => c.name) });
  }
  return out;
}

async function postgresIndexes(db: SqlDriver): Promise<Index[]> {
  const rows = await db.all<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'payment_attempts' AND schemaname = current_schema()",
  );
  return rows.map(({ indexname, indexdef }) => ({
    name: indexname,
    unique: /^CREATE UNIQUE INDEX/.test(indexdef),
    columns: /\(([^)]*)\)\s*$/.exec(indexdef)![1]!.split(',').map((c) => c.trim()),
  }));
}

/** Indexes whose columns lead another index's: every query they could answer, the other answers. A unique index is kept for its constraint. */
function redundant(indexes: Index[]): string[] {
  return indexes
    .filter((i) => !i.unique && indexes.some((o) => o !== i && o.columns.length >= i.columns.length && i.columns.every((c, k) => o.columns[k] === c)))
    .map((i) => `${i.name} (${i.columns.join(', ')})`);
}

const databases: Array<[string, () => Promise<SqlDriver>, (db: SqlDriver) => Promise<Index[]>, string | undefined]> = [
  ['sqlite', async () => openSqlite(join(mkdtempSync(join(tmpdir(), 'ledger-indexes-')), 'l.sqlite')), sqliteIndexes, undefined],
  ['postgres', async () => openPostgres(await freshPgUrl()), postgresIndexes, pgConfigured() ? undefined : PG_SKIP_REASON],
];

for (const [name, open, indexesOf, skip] of databases) {
  describe(`ledger indexes (${name})`, { skip }, () => {
    test('no index on payment_attempts leads another (each one is written at every state change)', async () => {
      const db = await open();
      try {
        await migrate(db);
        const indexes = await indexesOf(db);
        assert.ok(indexes.some((i) => i.columns.join() === 'state,updated_at'), JSON.stringify(indexes));
        assert.deepEqual(redundant(indexes), []);
      } finally {
        await db.close();
      }
    });
  });
}

describe('ledger queries by state (sqlite)', () => {
  test('each reads payment_attempts through an index, never a whole-table scan', async () => {
    const inner = openSqlite(join(mkdtempSync(join(tmpdir(), 'ledger-plans-')), 'l.sqlite'));
    await migrate(inner);
    const seen: Array<[string, unknown[]]> = [];
    const recording: SqlDriver = {
      ...inner,
      all: (sql, params = []) => (seen.push([sql, params]), inner.all(sql, params)),
    };
    const ledger = new SqlLedger(recording);
    try {
      // Attempts in every state. No ANALYZE, as the service runs: the planner goes by the schema.
      const now = 1_700_000_000_000;
      for (let i = 0; i < 40; i++) {
        const a = attempt({ payer: `0xpayer${i % 3}` });
        await ledger.reserve({ attempt: a, lease: { owner: 'o', until: now + 60_000 }, now: now + i });
        const to = (['settled', 'settling', 'failed', 'unknown', 'executed'] as const)[i % 5];
        await ledger.advance({ id: a.id, owner: 'o', steps: [{ to, patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } }], now: now + i });
      }
      seen.length = 0;
      await ledger.listUnresolved({ now, limit: 10 });
      await ledger.summary();
      await ledger.settlementWatermark();
      await ledger.paidDeliveriesByPayer();
      await ledger.dashboard({
        from: now - 3_600_000, to: now + 3_600_000, now, bucketMs: 600_000, excludePayers: ['0xpayer0'], latencyBoundsMs: [100, 1000],
        recentLimit: 5, unresolvedLimit: 5, buyersLimit: 5,
      });
      assert.ok(seen.length >= 5, `${seen.length} statements recorded`);
      for (const [sql, params] of seen) {
        const plan = await inner.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
        const scans = plan.map((p) => p.detail).filter((d) => /^SCAN (a|payment_attempts)\b/.test(d) && !/USING (COVERING )?INDEX/.test(d));
        assert.deepEqual(scans, [], `${sql.replace(/\s+/g, ' ')}\n${plan.map((p) => p.detail).join('\n')}`);
      }
    } finally {
      await inner.close();
    }
  });
});
