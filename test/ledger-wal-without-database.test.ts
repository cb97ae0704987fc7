/**
 * `ledger.sqlite` deleted (or not copied with its `-wal`) after a crash: the
 * service used to start on a new, empty ledger, every binding and stored
 * result gone, so a buyer who paid was never delivered. Start-up must refuse
 * with one line naming the file and leave the files as found; the complete
 * directory still starts with the paid delivery in its ledger, and a fresh
 * data directory still starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { startDevnet } from '../devnet/index.js';
import { spawnService } from './support/child-service.js';
import { openDatabase } from '../src/store/index.js';
import { BLACK_ON_WHITE, CONTRAST, devnetEnv, postJson, signFor, tempDir } from './support/harness.js';

/** Start the real service (src/main.ts) and expect it to refuse: exit 1, one line on stderr, no stack. */
function refusedStart(env: Record<string, string>): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1, `expected start-up to be refused (exit 1), got status ${r.status} signal ${r.signal}:\n${r.stdout}${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(r.stdout, /listening on/);
  return lines[0]!;
}

/** The data directory as a crash left it, copied so each case damages its own copy. */
function copyOf(dir: string): string {
  const to = tempDir('wal-case-');
  for (const f of readdirSync(dir)) if (f.startsWith('ledger.sqlite')) copyFileSync(join(dir, f), join(to, f));
  return to;
}

test('ledger.sqlite missing (or empty) beside its -wal/-shm: start-up refuses with one line; the complete directory starts with its delivery', { timeout: 180_000 }, async () => {
  const devnet = await startDevnet();
  const crashed = tempDir('wal-crashed-');
  const env = (dataDir: string) => devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: dataDir });
  try {
    // A real paid call, then a crash: the WAL and its index stay beside the database.
    let svc = await spawnService(env(crashed));
    const url = svc.url + CONTRAST;
    const { header } = await signFor(url, BLACK_ON_WHITE, devnet);
    const paid = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(paid.status, 200, await paid.text());
    await svc.kill('SIGKILL');
    for (const f of ['ledger.sqlite', 'ledger.sqlite-wal', 'ledger.sqlite-shm']) assert.ok(existsSync(join(crashed, f)), `${f} after the crash`);

    // The database gone, its WAL (and index) left.
    const noDb = copyOf(crashed);
    rmSync(join(noDb, 'ledger.sqlite'));
    const line = refusedStart(env(noDb));
    assert.match(line, /^start-up failed: /);
    assert.ok(line.includes(join(noDb, 'ledger.sqlite')), `names the file: ${line}`);
    assert.match(line, /ledger\.sqlite is missing but ledger\.sqlite-(wal|shm) \(\d+ bytes\) is still there/);
    assert.ok(!existsSync(join(noDb, 'ledger.sqlite')), 'nothing created in its place');
    assert.ok(existsSync(join(noDb, 'ledger.sqlite-wal')), 'the WAL is left as found');

    // Only the shared-memory index left.
    const shmOnly = copyOf(crashed);
    rmSync(join(shmOnly, 'ledger.sqlite'));
    rmSync(join(shmOnly, 'ledger.sqlite-wal'));
    assert.match(refusedStart(env(shmOnly)), /ledger\.sqlite is missing but ledger\.sqlite-shm \(\d+ bytes\) is still there/);

    // Only the WAL left (its index removed too).
    const walOnly = copyOf(crashed);
    rmSync(join(walOnly, 'ledger.sqlite'));
    rmSync(join(walOnly, 'ledger.sqlite-shm'));
    assert.match(refusedStart(env(walOnly)), /ledger\.sqlite is missing but ledger\.sqlite-wal \(\d+ bytes\) is still there/);

    // An empty database file beside a WAL holding frames (opening it would delete that WAL).
    const emptyDb = copyOf(crashed);
    truncateSync(join(emptyDb, 'ledger.sqlite'), 0);
    assert.match(refusedStart(env(emptyDb)), /ledger\.sqlite is empty but ledger\.sqlite-wal holds \d+ bytes/);

    // The crashed directory itself, complete: starts and is ready; its ledger still holds the paid delivery.
    svc = await spawnService(env(crashed));
    try {
      const ready = await fetch(svc.url + '/readyz');
      assert.equal(ready.status, 200, await ready.text());
    } finally {
      await svc.kill();
    }
    const reopened = await openDatabase({ dataDir: crashed });
    try {
      const summary = await reopened.ledger.summary();
      assert.equal(summary.paidDeliveries, 1, 'the paid delivery survived the crash');
      assert.equal(summary.settledAtomic, '1000');
    } finally {
      await reopened.close();
    }

    // A fresh data directory (even one that does not exist yet) starts normally.
    const fresh = join(tempDir('wal-fresh-'), 'data');
    svc = await spawnService(env(fresh));
    try {
      const ready = await fetch(svc.url + '/readyz');
      assert.equal(ready.status, 200, await ready.text());
    } finally {
      await svc.kill();
    }
  } finally {
    await devnet.stop();
  }
});
