/**
 * Where the SQLite WAL is checkpointed: never inside a commit on the event
 * loop's connection (the page copies and fsync would hold every request),
 * but by the ledger's thread, on its timer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/store/index.js';

test('writes on the event loop\'s connection grow the WAL past 1,000 pages without checkpointing; the ledger thread checkpoints them', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkpoints-'));
  const file = join(dataDir, 'ledger.sqlite');
  const { db, close } = await openDatabase({ dataDir });
  try {
    await db.execScript('CREATE TABLE bulk (v TEXT)');
    // Let any checkpoint of the set-up land first, then take the file's size.
    await new Promise((r) => setTimeout(r, 1500));
    const before = statSync(file).size;
    // ~6 MiB in 4 KiB rows, one commit: SQLite's automatic checkpoint would run inside it (past 1,000 pages),
    // before the call returns. (The thread's timer may run any time, but not between this commit and the next line.)
    const row = 'x'.repeat(4000);
    await db.transaction(async (tx) => {
      for (let i = 0; i < 1500; i++) await tx.run('INSERT INTO bulk (v) VALUES (?)', [row]);
    });
    assert.equal(statSync(file).size, before, 'no checkpoint ran inside a commit on the event loop');
    assert.ok(statSync(file + '-wal').size > 4 * 1024 * 1024, 'the rows are in the WAL');
    // The thread's timer copies them into the database file.
    const deadline = Date.now() + 5000;
    while (statSync(file).size < before + 5 * 1024 * 1024 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(statSync(file).size >= before + 5 * 1024 * 1024, `the ledger thread checkpointed the WAL (file ${statSync(file).size} bytes)`);
    const [{ n }] = await db.all<{ n: number }>('SELECT count(*) AS n FROM bulk');
    assert.equal(n, 1500);
  } finally {
    await close();
  }
});
