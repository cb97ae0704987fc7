/**
 * The README's "Several instances on one devnet." recipe, run as written:
 * its shell blocks are read from README.md (so they cannot drift) and run
 * in a scratch checkout (the repository's entries linked into a temporary
 * directory, so `data/` is the test's own): `npm run devnet`, two instances
 * on one PostgreSQL ledger (a schema of this test's, at TEST_DATABASE_URL)
 * and one Redis (TEST_REDIS_URL), then the README's `npm run buy`.
 * A call paid through A is settled on the devnet's one chain, both
 * instances' ledger (one PostgreSQL) say so and B serves it again, and the
 * buyer pays through B too; restarting an instance on the same devnet
 * changes nothing (payments/devnet-chain.ts). Without PostgreSQL or Redis
 * it skips, saying so.
 *
 * Besides, without either: `npm run devnet` writes devnet.env and
 * devnet.json, and removes them when it stops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, decodePaymentResponseHeader, postJson, signFor, tempDir, transferLogs, type Devnet } from './support/harness.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from './support/pg.js';
import { REDIS_URL, redisReachable } from './support/redis.js';
import { spawnShell, type ShellGroup } from './support/shell.js';

const ROOT = resolve(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);
const PARAGRAPH = '**Several instances on one devnet.**';

/** The recipe's ```sh blocks, in order, each as its lines. */
function recipe(): string[][] {
  const at = README.indexOf(PARAGRAPH);
  assert.ok(at >= 0, `README has "${PARAGRAPH}"`);
  const end = README.indexOf('\n**', at + PARAGRAPH.length);
  return [...README.slice(at, end).matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!.trim().split('\n'));
}

/** A directory where the README's relative paths (`data/…`) are the test's own, and `npm` finds the repository. */
function scratchCheckout(): string {
  const dir = tempDir('recipe-');
  for (const name of readdirSync(ROOT)) if (name !== 'data' && name !== '.git') symlinkSync(join(ROOT, name), join(dir, name));
  return dir;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once('error', () => done(false));
    s.listen(port, '127.0.0.1', () => s.close(() => done(true)));
  });
}

/** The environment of the test's shell, without anything the recipe sets itself. */
function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^(PORT|DATA_DIR|DATABASE_URL|REDIS_URL|PUBLIC_BASE_URL|LOG_LEVEL|DEVNET_SVM|X402_\w+|MPP_SECRET_KEY|BUY_URL|BUYER_\w+)$/.test(k))) as Record<string, string>;
  return { ...env, ...extra };
}

/** Starts `npm run devnet` in `cwd` and waits for its devnet.env. */
async function startDevnetAsWritten(line: string, cwd: string): Promise<ShellGroup> {
  const devnet = spawnShell(line, shellEnv(), cwd);
  // The environment is printed once both files are written.
  await devnet.waitFor(/^MPP_SECRET_KEY='/m, 120_000);
  return devnet;
}

test('npm run devnet writes devnet.env (an environment the configuration takes whole) and devnet.json, and removes both when it stops', { timeout: 180_000 }, async () => {
  const [[line]] = recipe();
  assert.equal(line, 'npm run devnet');
  const cwd = scratchCheckout();
  const devnet = await startDevnetAsWritten(line!, cwd);
  try {
    const envText = readFileSync(join(cwd, 'data/devnet.env'), 'utf8');
    assert.ok(devnet.out().includes(envText), 'it prints exactly the file');
    const env = Object.fromEntries([...envText.matchAll(/^([A-Z0-9_]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
    const facts = JSON.parse(readFileSync(join(cwd, 'data/devnet.json'), 'utf8'));
    const config = loadConfig(env);
    assert.deepEqual([config.payment!.network, config.payment!.facilitatorUrls, config.payment!.rpcUrl, config.payment!.asset.address], [facts.network, [facts.facilitatorUrl], facts.rpcUrl, facts.asset]);
    assert.equal(config.payment!.solana?.rpcUrl, facts.solana.rpcUrl);
    assert.ok(config.signingKey && config.mppSecretKey);
    assert.match(facts.chainInstance, /^0x[0-9a-f]{64}$/);
  } finally {
    await devnet.stop();
  }
  assert.deepEqual([existsSync(join(cwd, 'data/devnet.env')), existsSync(join(cwd, 'data/devnet.json'))], [false, false], 'a stopped devnet leaves no file pointing at it');
});

const REDIS_UP = await redisReachable();
const SKIP = !pgConfigured() ? PG_SKIP_REASON : !REDIS_UP ? `Redis is not reachable at ${REDIS_URL}: the several-instances recipe needs it (CI provides Redis)` : undefined;
if (SKIP) console.log(`# SKIP: ${SKIP}`);

test('the README recipe as written: one devnet, two instances on one PostgreSQL and Redis; paid through A, settled on the one chain, both ledgers agree; the buyer pays through B', { skip: SKIP, timeout: 420_000 }, async (t) => {
  const [devnetBlock, instances, buyBlock, ...more] = recipe();
  assert.equal(more.length, 0, 'three blocks: the devnet, the instances, a buyer');
  assert.deepEqual(devnetBlock, ['npm run devnet']);
  assert.equal(instances!.length, 2, 'two instances');
  const ports = instances!.map((l) => Number(/\bPORT=(\d+) /.exec(l)?.[1]));
  assert.notEqual(ports[0], ports[1], 'each its own PORT');
  assert.notEqual(/\bDATA_DIR=(\S+) /.exec(instances![0]!)?.[1], /\bDATA_DIR=(\S+) /.exec(instances![1]!)?.[1], 'each its own DATA_DIR');
  assert.equal(instances![0]!.replace(/PORT=\d+ DATA_DIR=\S+ /, ''), instances![1]!.replace(/PORT=\d+ DATA_DIR=\S+ /, ''), 'otherwise the same command');
  const busy = (await Promise.all(ports.map(portFree))).flatMap((free, i) => (free ? [] : [ports[i]]));
  if (busy.length) {
    const why = `port ${busy.join(' and ')} is in use here: the recipe listens there as written`;
    if (process.env.CI === 'true') assert.fail(why);
    t.skip(why);
    return;
  }

  const cwd = scratchCheckout();
  const databaseUrl = await freshPgUrl();
  const env = shellEnv({ DATABASE_URL: databaseUrl, REDIS_URL });
  const started: ShellGroup[] = [];
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    const devnetShell = await startDevnetAsWritten(devnetBlock![0]!, cwd);
    started.push(devnetShell);
    const facts = JSON.parse(readFileSync(join(cwd, 'data/devnet.json'), 'utf8')) as Devnet;
    const startInstance = async (line: string) => {
      const shell = spawnShell(line, env, cwd);
      started.push(shell);
      const url = (await shell.waitFor(/listening on (http:\/\/[\d.]+:\d+)/, 120_000))[1]!;
      return { shell, url };
    };
    const [a, b] = await Promise.all(instances!.map(startInstance));
    assert.deepEqual([new URL(a!.url).port, new URL(b!.url).port], ports.map(String));
    await db.connect();
    const ledger = async () => (await db.query<{ state: string; tx_hash: string | null }>('SELECT state, tx_hash FROM payment_attempts ORDER BY created_at')).rows;

    const payeeBefore = await balanceOf(facts, facts.payTo);
    // Paid through A, by the official client as the devnet's buyer.
    const { header } = await signFor(a!.url + CONTRAST, BLACK_ON_WHITE, facts);
    const paid = await postJson(a!.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(paid.status, 200, await paid.clone().text());
    const body = await paid.text();
    const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
    // On the one chain: the transfer to the payee in that transaction.
    const transfers = await transferLogs(facts, { from: facts.buyer.address, to: facts.payTo });
    assert.ok(transfers.some((l) => l.txHash === receipt.transaction), `${receipt.transaction} on the devnet's chain`);
    assert.equal((await balanceOf(facts, facts.payTo)) - payeeBefore, 1000n);
    // One ledger: settled with that transaction; B serves the same result again (the payment-identifier is the proof), charging nothing.
    assert.deepEqual(await ledger(), [{ state: 'settled', tx_hash: receipt.transaction }]);
    const again = await postJson(b!.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.deepEqual([again.status, again.headers.get('x-payment-replayed')], [200, 'true']);
    assert.equal(await again.text(), body);
    assert.equal(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction, receipt.transaction);

    // The buyer pays through B: the README's command, as written.
    const [buyLine, ...moreBuys] = buyBlock!;
    assert.equal(moreBuys.length, 0);
    assert.equal(/^PORT=(\d+) /.exec(buyLine!)?.[1], String(ports[1]), 'the buyer pays through B');
    const bought = await run('sh', ['-c', buyLine!], { cwd, env: shellEnv() });
    assert.match(bought.stdout, /^HTTP 200$/m);
    const tx = /transaction: (0x[0-9a-f]{64})/.exec(bought.stdout)?.[1];
    assert.ok(tx, bought.stdout);
    assert.ok((await transferLogs(facts, { to: facts.payTo })).some((l) => l.txHash === tx), `${tx} on the same chain`);
    assert.equal((await balanceOf(facts, facts.payTo)) - payeeBefore, 2000n);
    assert.deepEqual(await ledger(), [{ state: 'settled', tx_hash: receipt.transaction }, { state: 'settled', tx_hash: tx }]);

    // Restarting an instance on the same devnet is no new chain: nothing is said or closed, and A serves the first call again.
    await a!.shell.stop();
    const a2 = await startInstance(instances![0]!);
    assert.doesNotMatch(a2.shell.out(), /devnet restarted|cannot tell which devnet chain/);
    const fromA = await postJson(a2.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.deepEqual([fromA.status, await fromA.text()], [200, body]);
    assert.deepEqual((await ledger()).map((r) => r.state), ['settled', 'settled']);
    for (const s of [b!.shell, a2.shell]) assert.doesNotMatch(s.out(), /"level":(50|60)/, 'no error line');
  } finally {
    await db.end().catch(() => {});
    // Instances first, then the devnet they use.
    for (const s of started.reverse()) await s.stop();
  }
});
