/**
 * Backups and restore exactly as the README writes them: the shell blocks of
 * its "Backups and restore." paragraph are read from README.md and run as
 * written (bash -e, in the package directory, with the service's environment
 * plus BACKUP_DIR), so the README and this test cannot drift apart.
 *
 * Against the real service on the devnet: paid calls before the backup, paid
 * calls in flight while it runs, paid calls after it. The backup must hold
 * every call settled before it began, be consistent (one moment: no attempt
 * half-moved, no stored result without its attempt's state), and, restored
 * into a fresh data directory or database and started with the README's own
 * `npm start`, give every buyer their paid result again without charging
 * anyone. SQLite also: the restore refuses while the service holds DATA_DIR,
 * and restoring onto the directory a crash left (its -wal still holding the
 * old ledger's pages) yields the backup, not a mix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startDevnet, type Devnet } from '../devnet/index.js';
import { spawnService, spawnServiceByShell, type ChildService } from './support/child-service.js';
import { balanceOf, CONTRAST, decodePaymentResponseHeader, devnetEnv, postJson, signFor, tempDir } from './support/harness.js';
import { pgConfigured, PG_SKIP_REASON } from './support/pg.js';

const ROOT = resolve(import.meta.dirname, '..');
const run = promisify(execFile);

/** The four shell blocks of the README's "Backups and restore." paragraph, by what they do. */
function readmeBlocks() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('**Backups and restore.**');
  assert.ok(start >= 0, 'README has a "Backups and restore." paragraph');
  // The paragraph runs to the next bold paragraph heading.
  const end = readme.indexOf('\n**', start + 2);
  const blocks = [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  assert.equal(blocks.length, 4, 'two SQLite blocks (backup, restore) and two PostgreSQL blocks');
  const one = (what: string, is: (b: string) => boolean) => {
    const found = blocks.filter(is);
    assert.equal(found.length, 1, `one README block ${what}`);
    return found[0]!;
  };
  return {
    sqliteBackup: one('backs up SQLite', (b) => b.includes('npm run backup') && !b.includes('--restore')),
    sqliteRestore: one('restores SQLite', (b) => b.includes('npm run backup -- --restore')),
    pgBackup: one('runs pg_dump', (b) => b.includes('pg_dump')),
    pgRestore: one('runs pg_restore', (b) => b.includes('pg_restore')),
  };
}

/** Run a block as written; its output, or a failure carrying it. */
async function runBlock(block: string, env: Record<string, string>) {
  return run('bash', ['-euo', 'pipefail', '-c', block], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 });
}

interface Call {
  body: unknown;
  header: string;
  nonce: string;
  status: number;
  text: string;
  transaction: string | undefined;
  startedAt: number;
  endedAt: number;
}

/** One paid call by the devnet buyer, with a payment-identifier (its proof to get the result again). */
async function pay(base: string, devnet: Devnet, i: number): Promise<Call> {
  const body = { foreground: '#' + (0x100000 + i * 7919).toString(16).slice(-6), background: '#ffffff', large_text: false };
  const startedAt = Date.now();
  const { header, payload } = await signFor(base + CONTRAST, body, devnet);
  const res = await postJson(base + CONTRAST, body, { 'PAYMENT-SIGNATURE': header });
  const text = await res.text();
  const pr = res.headers.get('payment-response');
  const nonce = (payload.payload as { authorization: { nonce: string } }).authorization.nonce;
  return { body, header, nonce, status: res.status, text, transaction: pr ? decodePaymentResponseHeader(pr).transaction : undefined, startedAt, endedAt: Date.now() };
}

async function payMany(base: string, devnet: Devnet, from: number, n: number): Promise<Call[]> {
  const calls: Call[] = [];
  for (let i = 0; i < n; i++) calls.push(await pay(base, devnet, from + i));
  for (const c of calls) assert.equal(c.status, 200, c.text);
  return calls;
}

/** `task` while two buyers keep paying (bounded in count), so calls are in flight throughout it. */
async function payDuring<T>(base: string, devnet: Devnet, from: number, task: () => Promise<T>) {
  let done = false;
  let next = from;
  const calls: Call[] = [];
  const buyer = async () => {
    while (!done && next < from + 60) calls.push(await pay(base, devnet, next++));
  };
  const buyers = [buyer(), buyer()];
  const startedAt = Date.now();
  try {
    const result = await task();
    return { result, startedAt, endedAt: Date.now(), calls };
  } finally {
    done = true;
    await Promise.all(buyers);
  }
}

/** Send the original payment again (its payment-identifier is the proof): the stored result, byte for byte. */
async function fetchAgain(base: string, c: Call) {
  for (const until = Date.now() + 30_000; ; ) {
    const res = await postJson(base + CONTRAST, c.body, { 'PAYMENT-SIGNATURE': c.header });
    const text = await res.text();
    // An attempt in flight at the backup comes back leased (PostgreSQL keeps leases): it lapses, as after a crash.
    if (res.status === 409 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    const pr = res.headers.get('payment-response');
    return { status: res.status, text, transaction: pr ? decodePaymentResponseHeader(pr).transaction : undefined };
  }
}

interface AttemptRow {
  nonce: string;
  state: string;
  tx_hash: string | null;
  has_response: number | boolean;
  has_event: number | boolean;
}

const ATTEMPTS_SQL = `SELECT a.nonce, a.state, a.tx_hash,
    EXISTS (SELECT 1 FROM payment_responses r WHERE r.attempt_id = a.id) AS has_response,
    EXISTS (SELECT 1 FROM payment_attempt_events e WHERE e.attempt_id = a.id AND e.state = a.state) AS has_event
  FROM payment_attempts a`;

/**
 * The ledger at one moment: each attempt's state, its history and its stored
 * result were written in one transaction, so a copy that mixed moments would
 * show an attempt without the event of its state, or a result-bearing state
 * without its result. Returns the attempts by nonce.
 */
function consistentAttempts(rows: AttemptRow[]): Map<string, AttemptRow> {
  for (const r of rows) {
    assert.ok(r.has_event, `attempt ${r.nonce} in ${r.state} has that state's event`);
    if (['executed', 'settling', 'settled'].includes(r.state)) assert.ok(r.has_response, `attempt ${r.nonce} in ${r.state} has its stored result`);
    if (['reserved', 'verified'].includes(r.state)) assert.ok(!r.has_response, `attempt ${r.nonce} in ${r.state} has no stored result yet`);
    if (r.state === 'settled') assert.ok(r.tx_hash, `settled attempt ${r.nonce} has its transaction`);
  }
  return new Map(rows.map((r) => [r.nonce, r]));
}

/**
 * What the backup must hold: every call answered before it began, settled with
 * its result and transaction; nothing begun after it ended. Returns the paid
 * calls whose result it holds (a buyer gets those again once it is restored)
 * and those whose result it lacks: bound after it, or caught before their
 * result was stored (their authorization was settled after the backup, and
 * the restored ledger cannot know).
 */
function heldBy(attempts: Map<string, AttemptRow>, before: Call[], during: { startedAt: number; endedAt: number; calls: Call[] }, after: Call[]) {
  const settledBefore = [...before, ...during.calls.filter((c) => c.status === 200 && c.endedAt < during.startedAt)];
  for (const c of settledBefore) {
    const a = attempts.get(c.nonce);
    assert.ok(a, `a call settled before the backup began is in it (${c.nonce})`);
    assert.equal(a.state, 'settled');
    assert.equal(a.tx_hash, c.transaction);
  }
  for (const c of [...after, ...during.calls.filter((c) => c.startedAt > during.endedAt)]) assert.ok(!attempts.has(c.nonce), `a call begun after the backup is not in it (${c.nonce})`);
  const paid = [...before, ...during.calls, ...after].filter((c) => c.status === 200);
  const stored = (c: Call) => !!attempts.get(c.nonce)?.has_response;
  return { held: paid.filter(stored), lost: paid.filter((c) => !stored(c)) };
}

/** Every buyer of `held` gets their result again, and nobody of `lost` does; nothing is charged meanwhile. */
async function deliversAgain(base: string, devnet: Devnet, held: Call[], lost: Call[]) {
  const paid = await balanceOf(devnet, devnet.payTo);
  for (const c of held) {
    const again = await fetchAgain(base, c);
    assert.equal(again.status, 200, `paid result of ${c.nonce} again after the restore: ${again.status} ${again.text}`);
    assert.equal(again.text, c.text, 'the stored result, byte for byte');
    assert.equal(again.transaction, c.transaction, 'with the original transaction');
  }
  for (const c of lost) {
    // As the README says: its authorization is used on chain, which the facilitator's verify refuses.
    const again = await fetchAgain(base, c);
    assert.equal(again.status, 402, `a paid result not in the restored ledger cannot be had again (${c.nonce}): ${again.text}`);
    assert.equal((JSON.parse(again.text) as { problem?: { code?: string } }).problem?.code, 'payment_invalid', again.text);
  }
  assert.equal(await balanceOf(devnet, devnet.payTo), paid, 'nothing charged again');
}

const byState = (attempts: Map<string, AttemptRow>) => {
  const n: Record<string, number> = {};
  for (const a of attempts.values()) n[a.state] = (n[a.state] ?? 0) + 1;
  return JSON.stringify(n);
};

function attemptsInSqlite(file: string): Map<string, AttemptRow> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    return consistentAttempts(db.prepare(ATTEMPTS_SQL).all() as AttemptRow[]);
  } finally {
    db.close();
  }
}

const sizeOf = (f: string) => (existsSync(f) ? statSync(f).size : 0);

test('SQLite: the README backup while paid calls are in flight, then its restore into a fresh DATA_DIR and onto the directory a crash left; every paid result again', { timeout: 300_000 }, async (t) => {
  const blocks = readmeBlocks();
  const devnet = await startDevnet();
  const running: ChildService[] = [];
  try {
    const backupDir = join(tempDir('backups-'), 'ledger backups'); // a space: the README quotes its paths
    const live = tempDir('bk-live-');
    const env = (dataDir: string) => devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: dataDir, BACKUP_DIR: backupDir, DATABASE_URL: '', LOG_LEVEL: 'info' });
    const svc = await spawnService(env(live));
    running.push(svc);

    const before = await payMany(svc.url, devnet, 0, 3);
    const during = await payDuring(svc.url, devnet, 100, () => runBlock(blocks.sqliteBackup, env(live)));
    assert.match(during.result.stdout, /backed up .*ledger\.sqlite to .*: \d+ bytes, \d+ payment attempts \(\d+ settled\), \d+ stored results; integrity_check ok/);
    const overlapping = during.calls.filter((c) => c.startedAt < during.endedAt && c.endedAt > during.startedAt);
    assert.ok(overlapping.length > 0, 'paid calls were in flight during the backup');
    for (const c of during.calls) assert.equal(c.status, 200, `a paid call beside the backup: ${c.text}`);
    const after = await payMany(svc.url, devnet, 200, 2);

    const files = readdirSync(backupDir);
    assert.equal(files.length, 1, `one backup, no temporary file left: ${files}`);
    assert.match(files[0]!, /^ledger-\d{8}T\d{6}Z\.sqlite$/);
    const backup = join(backupDir, files[0]!);
    const inBackup = attemptsInSqlite(backup);
    const { held, lost } = heldBy(inBackup, before, during, after);
    t.diagnostic(`${during.calls.length} calls beside the backup (${overlapping.length} overlapping it); the backup holds ${held.length} paid results, attempts by state ${byState(inBackup)}`);

    // Refused while the service holds DATA_DIR, before anything is touched: the block stops there, npm start never runs.
    const liveFiles = readdirSync(live).sort();
    const refused = await runBlock(blocks.sqliteRestore, env(live)).then(
      () => assert.fail('restore ran while the service held DATA_DIR'),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /restore: the service \(process \d+\) holds .*: stop it first/);
    assert.deepEqual(readdirSync(live).sort(), liveFiles);

    // A crash: the WAL stays beside the database, holding pages of the ledger after the backup.
    await svc.kill('SIGKILL');
    const wal = sizeOf(join(live, 'ledger.sqlite-wal'));
    assert.ok(wal > 0, 'the crash left a -wal');

    // Why the README says not to copy the backup over ledger.sqlite: SQLite lays the old -wal's pages over it.
    const naive = tempDir('bk-naive-');
    for (const f of readdirSync(live)) if (f.startsWith('ledger.sqlite')) copyFileSync(join(live, f), join(naive, f));
    copyFileSync(backup, join(naive, 'ledger.sqlite'));
    const mixed = (() => {
      const db = new Database(join(naive, 'ledger.sqlite'), { readonly: true });
      try {
        if (db.pragma('quick_check', { simple: true }) !== 'ok') return 'damaged';
        const nonces = new Set((db.prepare('SELECT nonce FROM payment_attempts').pluck().all() as string[]));
        return after.some((c) => nonces.has(c.nonce)) ? 'holds calls made after the backup' : undefined;
      } catch (e) {
        return `unreadable (${(e as Error).message})`;
      } finally {
        db.close();
      }
    })();
    assert.ok(mixed, 'a backup copied over ledger.sqlite beside the old -wal is not the backup');
    t.diagnostic(`backup copied beside the crash's -wal: ${mixed}`);

    // The README's restore into a fresh data directory, then its npm start.
    const fresh = join(tempDir('bk-fresh-'), 'data');
    let restored = await spawnServiceByShell(blocks.sqliteRestore, env(fresh));
    running.push(restored);
    assert.match(restored.output(), /restored .* as .*ledger\.sqlite: \d+ payment attempts/);
    await deliversAgain(restored.url, devnet, held, lost);
    await restored.kill('SIGTERM');

    // The README's restore onto the crashed directory: the old database and its -wal are moved aside, not laid over the backup.
    restored = await spawnServiceByShell(blocks.sqliteRestore, env(live));
    running.push(restored);
    const aside = readdirSync(live).filter((f) => f.startsWith('ledger.sqlite.replaced-'));
    assert.equal(aside.filter((f) => f.endsWith('-wal')).length, 1, `the old -wal moved aside: ${aside}`);
    assert.equal(sizeOf(join(live, aside.find((f) => f.endsWith('-wal'))!)), wal, 'kept as it was');
    assert.equal(aside.filter((f) => /replaced-\d{8}T\d{6}Z$/.test(f)).length, 1, 'the old database kept beside it');
    await deliversAgain(restored.url, devnet, held, lost);
    await restored.kill('SIGTERM');
  } finally {
    for (const s of running) await s.kill('SIGKILL').catch(() => {});
    await devnet.stop();
  }
});

function pgDumpMissing(): string | undefined {
  try {
    execFileSync('bash', ['-c', 'command -v pg_dump && command -v pg_restore'], { stdio: 'ignore' });
    return undefined;
  } catch {
    const why = 'pg_dump/pg_restore not installed (Debian: apt-get install postgresql-client): the PostgreSQL backup test skipped';
    if (process.env.CI === 'true') throw new Error(`CI=true but ${why}`);
    return why;
  }
}

test('PostgreSQL: the README pg_dump while paid calls are in flight, pg_restore into a new database, npm start finds every paid result and applies no migration again', { timeout: 300_000 }, async (t) => {
  if (!pgConfigured()) return t.skip(PG_SKIP_REASON);
  const missing = pgDumpMissing();
  if (missing) return t.skip(missing);
  const blocks = readmeBlocks();
  const base = process.env.TEST_DATABASE_URL!;
  const suffix = randomBytes(5).toString('hex');
  const names = { source: `bk_src_${suffix}`, target: `bk_dst_${suffix}` };
  const urlOf = (db: string) => {
    const u = new URL(base);
    u.pathname = '/' + db;
    return u.toString();
  };
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const devnet = await startDevnet();
  const running: ChildService[] = [];
  const query = async <T extends pg.QueryResultRow>(db: string, sql: string) => {
    const c = new pg.Client({ connectionString: urlOf(db) });
    await c.connect();
    try {
      return (await c.query<T>(sql)).rows;
    } finally {
      await c.end();
    }
  };
  try {
    await admin.query(`CREATE DATABASE ${names.source}`);
    const backupDir = tempDir('pg-backups-');
    const env = (db: string) =>
      devnetEnv(devnet, devnet.facilitatorUrl, {
        DATABASE_URL: urlOf(db),
        DATA_DIR: tempDir('pg-data-'),
        BACKUP_DIR: backupDir,
        LOG_LEVEL: 'info',
        // The shortest lease allowed, so attempts in flight at the dump lapse soon after the restore.
        X402_ATTEMPT_LEASE_MS: '8000',
      });
    const svc = await spawnService(env(names.source));
    running.push(svc);
    const before = await payMany(svc.url, devnet, 0, 3);
    const during = await payDuring(svc.url, devnet, 100, () => runBlock(blocks.pgBackup, env(names.source)));
    for (const c of during.calls) assert.equal(c.status, 200, `a paid call beside pg_dump: ${c.text}`);
    const after = await payMany(svc.url, devnet, 200, 2);
    const dumps = readdirSync(backupDir);
    assert.equal(dumps.length, 1, `one dump, no partial file left: ${dumps}`);
    assert.match(dumps[0]!, /^ledger-\d{8}T\d{6}Z\.dump$/);
    // Stop the instances.
    await svc.kill('SIGTERM');
    const migrations = await query<{ name: string; applied_at: number }>(names.source, 'SELECT name, applied_at::text AS applied_at FROM schema_migrations ORDER BY name');

    // A new, empty database; the README's pg_restore into it and its npm start.
    await admin.query(`CREATE DATABASE ${names.target}`);
    const restored = await spawnServiceByShell(blocks.pgRestore, env(names.target));
    running.push(restored);
    assert.deepEqual(
      await query(names.target, 'SELECT name, applied_at::text AS applied_at FROM schema_migrations ORDER BY name'),
      migrations,
      'the migrations table came back as it was: start-up applied nothing again',
    );
    const inDump = consistentAttempts(await query<AttemptRow>(names.target, ATTEMPTS_SQL));
    const { held, lost } = heldBy(inDump, before, during, after);
    t.diagnostic(`${during.calls.length} calls beside pg_dump; the dump holds ${held.length} paid results, attempts by state ${byState(inDump)}`);
    await deliversAgain(restored.url, devnet, held, lost);
    await restored.kill('SIGTERM');
  } finally {
    for (const s of running) await s.kill('SIGKILL').catch(() => {});
    await devnet.stop();
    for (const db of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
});
