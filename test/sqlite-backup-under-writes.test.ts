/**
 * `npm run backup` while another process writes the ledger as hard as its
 * disk allows (test/support/ledger-writer.ts: the service's own openDatabase,
 * ledger thread and ledger methods, storing results of 64 KiB). Each backup
 * must be the ledger at one moment: `PRAGMA integrity_check` ok, every call
 * acknowledged before the backup began in it, and every attempt whole, its
 * state, its history and its stored result from the same moment (each of the
 * writer's writes moves all three in one transaction, so a copy mixing
 * moments shows an attempt whose history or result does not match its
 * state). And the writer is never held up past its bound: no write fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from './support/harness.js';

const ROOT = resolve(import.meta.dirname, '..');

/** The writer's history rows for each state it leaves an attempt in between its transactions. */
const EVENTS_AT = { reserved: 1, settling: 4, settled: 5 } as Record<string, number>;

function startWriter(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/ledger-writer.ts'), dataDir], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let settled = 0;
  child.stdout.on('data', (d: Buffer) => {
    out += d;
    for (const m of out.matchAll(/settled (\d+)\n/g)) settled = Math.max(settled, Number(m[1]));
    // Only the tail is kept: a partial line, and the last lines for a failure message.
    if (out.length > 1 << 14) out = out.slice(-1024);
  });
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    settled: () => settled,
    output: () => out,
    exited,
    async waitFor(n: number, ms: number) {
      for (const until = Date.now() + ms; settled < n; ) {
        if (child.exitCode !== null || Date.now() > until) throw new Error(`writer at ${settled} of ${n} (exit ${child.exitCode}):\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      child.stdin.end();
      return exited;
    },
    kill: () => child.exitCode === null && child.kill('SIGKILL'),
  };
}

/** The backup command, awaited without blocking this process (the writer's output is read meanwhile). */
function backup(dataDir: string, file: string) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/backup.ts'), file], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    timeout: 120_000,
  });
}

test('backups taken while another process writes the ledger flat out are each one consistent moment, and hold up no write', { timeout: 240_000 }, async (t) => {
  const dataDir = tempDir('bk-writes-');
  const backups = tempDir('bk-writes-out-');
  const writer = startWriter(dataDir);
  try {
    // A ledger of some size first, so each copy takes a while and many commits land during it.
    await writer.waitFor(1500, 120_000);
    for (let i = 0; i < 3; i++) {
      const file = join(backups, `ledger-${i}.sqlite`);
      const acknowledged = writer.settled();
      const r = await backup(dataDir, file);
      const during = writer.settled() - acknowledged;
      assert.match(r.stdout, /integrity_check ok/);

      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        const rows = db
          .prepare(
            `SELECT a.id, a.state,
               (SELECT count(*) FROM payment_attempt_events e WHERE e.attempt_id = a.id) AS events,
               (SELECT count(*) FROM payment_responses r WHERE r.attempt_id = a.id) AS results
             FROM payment_attempts a`,
          )
          .all() as Array<{ id: string; state: string; events: number; results: number }>;
        for (const a of rows) {
          assert.equal(a.events, EVENTS_AT[a.state], `attempt ${a.id} in ${a.state}: its history is from the same moment (${a.events} events)`);
          assert.equal(a.results, a.state === 'reserved' ? 0 : 1, `attempt ${a.id} in ${a.state}: its stored result is from the same moment`);
        }
        const settled = rows.filter((a) => a.state === 'settled').length;
        assert.ok(settled >= acknowledged, `every call acknowledged before the backup began is in it: ${settled} of ${acknowledged}`);
        // Nothing from another table contradicts the attempts: no orphan history or result.
        assert.equal(db.prepare('SELECT count(*) FROM payment_attempt_events WHERE attempt_id NOT IN (SELECT id FROM payment_attempts)').pluck().get(), 0);
        assert.equal(db.prepare('SELECT count(*) FROM payment_responses WHERE attempt_id NOT IN (SELECT id FROM payment_attempts)').pluck().get(), 0);
        t.diagnostic(`backup ${i}: ${statSync(file).size} bytes, ${rows.length} attempts (${settled} settled; ${acknowledged} acknowledged before it began), ${during} calls settled while it ran`);
        assert.ok(during > 0, 'the writer kept committing while the backup ran');
      } finally {
        db.close();
      }
    }
    assert.equal(await writer.stop(), 0, `the writer never failed a write:\n${writer.output()}`);
  } finally {
    writer.kill();
    await writer.exited;
    // Several hundred megabytes between them.
    for (const dir of [dataDir, backups]) rmSync(dir, { recursive: true, force: true });
  }
});
