/**
 * A damaged ledger.sqlite at start-up: a page overwritten with garbage, a
 * truncated file, a header that is not SQLite's. Before, the service opened
 * it and started (a damaged page fails only when a request reaches it: a
 * buyer's stored result, mid-payment). Start-up must refuse with one line
 * naming the file and what `PRAGMA quick_check` found, and leave the file as
 * it was; the intact database still starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../src/store/index.js';
import { attempt } from './support/ledger-attempt.js';
import { spawnService } from './support/child-service.js';
import { tempDir } from './support/harness.js';

/** An external network with an unreachable facilitator: start-up needs nothing else (paid routes wait for it). */
const ENV = {
  X402_NETWORK: 'eip155:84532',
  X402_PAY_TO: '0x' + '1'.repeat(40),
  X402_FACILITATOR_URL: 'http://127.0.0.1:1',
  X402_RPC_URL: 'http://127.0.0.1:1',
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
};

function refusedStart(dataDir: string): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, ...ENV, DATA_DIR: dataDir }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1, `expected start-up to be refused (exit 1), got status ${r.status} signal ${r.signal}:\n${r.stdout}${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  return lines[0]!;
}

/** A copy of the intact ledger to damage. */
function copyOf(file: string): string {
  const dir = tempDir('corrupt-case-');
  copyFileSync(file, join(dir, 'ledger.sqlite'));
  return dir;
}

test('a ledger.sqlite that fails quick_check stops start-up with one line naming the file; the intact one starts', { timeout: 180_000 }, async (t) => {
  // A real ledger with enough attempts to span many pages, closed cleanly (no WAL left).
  const built = tempDir('corrupt-src-');
  const database = await openDatabase({ dataDir: built });
  for (let i = 0; i < 400; i++) await database.ledger.reserve({ attempt: attempt({ payload: JSON.stringify({ i, pad: 'p'.repeat(300) }) }), lease: { owner: 'o', until: 0 }, now: Date.now() });
  await database.close();
  const file = join(built, 'ledger.sqlite');
  const pageSize = 4096;
  const pages = statSync(file).size / pageSize;
  const inspect = new Database(file, { readonly: true });
  const rootOf = (name: string) => (inspect.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(name) as { rootpage: number }).rootpage;
  const indexRoot = (inspect.prepare("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'payment_attempts' ORDER BY rootpage DESC LIMIT 1").get() as { rootpage: number }).rootpage;
  const tableRoot = rootOf('payment_attempts');
  inspect.close();
  t.diagnostic(`ledger of ${pages} pages; payment_attempts root page ${tableRoot}, an index root page ${indexRoot}`);

  const garbage = (dir: string, page: number) => {
    const f = join(dir, 'ledger.sqlite');
    const bytes = readFileSync(f);
    let x = 0x9e3779b9;
    for (let i = (page - 1) * pageSize; i < page * pageSize; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      bytes[i] = x >>> 24;
    }
    writeFileSync(f, bytes);
  };
  const cases: Array<[string, (dir: string) => void, RegExp]> = [
    ['a page of the attempts table overwritten with garbage', (d) => garbage(d, tableRoot), /fails PRAGMA quick_check: /],
    ['an index page overwritten with garbage', (d) => garbage(d, indexRoot), /fails PRAGMA quick_check: /],
    ['the last page overwritten with garbage', (d) => garbage(d, pages), /fails PRAGMA quick_check: /],
    ['truncated to 60 %', (d) => truncateSync(join(d, 'ledger.sqlite'), Math.floor(pages * 0.6) * pageSize), /fails PRAGMA quick_check: /],
    ['truncated in the middle of a page', (d) => truncateSync(join(d, 'ledger.sqlite'), (pages - 2) * pageSize + 100), /fails PRAGMA quick_check: /],
    ['its header overwritten (not a database)', (d) => garbage(d, 1), /fails PRAGMA quick_check: file is not a database/],
  ];
  for (const [what, damage, expected] of cases) {
    const dir = copyOf(file);
    damage(dir);
    const damaged = readFileSync(join(dir, 'ledger.sqlite'));
    const line = refusedStart(dir);
    assert.match(line, /^start-up failed: /, what);
    assert.ok(line.includes(join(dir, 'ledger.sqlite')), `${what}: names the file: ${line}`);
    assert.match(line, expected, what);
    assert.ok(readFileSync(join(dir, 'ledger.sqlite')).equals(damaged), `${what}: the file is left as found`);
    t.diagnostic(`${what}: ${line}`);
  }

  // The intact ledger starts and answers.
  const svc = await spawnService({ ...ENV, DATA_DIR: copyOf(file) });
  try {
    assert.equal((await fetch(svc.url + '/healthz')).status, 200);
  } finally {
    await svc.kill();
  }
});
