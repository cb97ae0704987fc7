/**
 * The ledger against a restarted devnet (devnet-chain.ts), on both databases:
 * the chain is recorded on first use; on another chain the devnet's attempts
 * that are not final are closed (never driven again: not listed for the
 * reconciler, not acquirable by a retry), settled ones are counted and kept,
 * other networks' attempts are untouched, and one warning line says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { openDatabase, type Database } from '../store/index.js';
import { attempt } from '../../test/support/ledger-attempt.js';
import { tempDir } from '../../test/support/harness.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from '../../test/support/pg.js';
import { anvilInstanceId, checkDevnetChain, DEVNET_CHAIN_GONE } from './devnet-chain.js';
import type { AttemptState } from '../store/ledger.js';

function capturingLog() {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, out), lines };
}

const CHAIN_A = '0x' + 'a'.repeat(64);
const CHAIN_B = '0x' + 'b'.repeat(64);
const DEVNET = { network: 'eip155:31337', rpcUrl: 'http://127.0.0.1:1' };
const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/** An attempt driven to `state` by the ledger's own methods (as the gate would). */
async function attemptIn(ledger: Database['ledger'], state: AttemptState, network = 'eip155:31337'): Promise<string> {
  const a = attempt({ network });
  const owner = 'test';
  await ledger.reserve({ attempt: a, lease: { owner, until: Date.now() + 60_000 }, now: Date.now() });
  const path: Record<AttemptState, AttemptState[]> = {
    reserved: [],
    verified: ['verified'],
    executed: ['verified', 'executed'],
    settling: ['verified', 'executed', 'settling'],
    unknown: ['verified', 'executed', 'settling', 'unknown'],
    settled: ['verified', 'executed', 'settling', 'settled'],
    failed: ['failed'],
  };
  for (const to of path[state]) {
    const patch = to === 'executed' ? { response: { status: 200, contentType: 'application/json', body: '{}' } } : to === 'settled' ? { txHash: '0x' + '1'.repeat(64) } : {};
    assert.ok(await ledger.transition({ id: a.id, owner, to, patch, now: Date.now() }));
  }
  // Left as a crash leaves it: leased by a holder that is gone only where the state is final.
  if (state !== 'settled' && state !== 'failed') await ledger.release({ id: a.id, owner });
  return a.id;
}

async function exercise(open: () => Promise<Database>) {
  const database = await open();
  const { ledger, db } = database;
  try {
    const { log, lines } = capturingLog();
    const read = (chain: string) => () => Promise.resolve(chain);
    const check = (chain: string) => checkDevnetChain({ db, payment: DEVNET, log, now: Date.now, readChain: read(chain) });

    // First use: recorded, nothing to say.
    assert.deepEqual(await check(CHAIN_A), { previous: null, settled: 0, closed: 0 });
    const settled = [await attemptIn(ledger, 'settled'), await attemptIn(ledger, 'settled', SOLANA_DEVNET)];
    const open = { reserved: await attemptIn(ledger, 'reserved'), executed: await attemptIn(ledger, 'executed'), unknown: await attemptIn(ledger, 'unknown'), svmSettling: await attemptIn(ledger, 'settling', SOLANA_DEVNET) };
    const failed = await attemptIn(ledger, 'failed');
    const elsewhere = await attemptIn(ledger, 'unknown', 'eip155:8453');
    // The same chain again (a restart of the service, not of the devnet): nothing changes.
    assert.equal(await check(CHAIN_A), undefined);
    assert.equal((await ledger.get({ id: open.unknown }))!.state, 'unknown');
    assert.equal(lines.filter((l) => l.level === 40).length, 0);

    // A new chain: the devnet's unfinished attempts are closed, settled ones counted and kept.
    assert.deepEqual(await check(CHAIN_B), { previous: CHAIN_A, settled: 2, closed: 4 });
    for (const id of Object.values(open)) {
      const a = (await ledger.get({ id }))!;
      assert.deepEqual([a.state, a.failureCode], ['failed', DEVNET_CHAIN_GONE], id);
      assert.match(a.failureDetail!, /devnet chain that no longer exists/);
      assert.equal((await ledger.history({ id })).at(-1)!.note, DEVNET_CHAIN_GONE);
      assert.equal(await ledger.acquire({ id, lease: { owner: 'retry', until: Date.now() + 60_000 }, now: Date.now() }), false, 'a retry cannot take it up');
    }
    for (const id of settled) assert.equal((await ledger.get({ id }))!.state, 'settled');
    assert.equal((await ledger.get({ id: failed }))!.failureCode, null);
    assert.equal((await ledger.get({ id: elsewhere }))!.state, 'unknown', 'another network is not the devnet');
    // The reconciler sees only what is not the devnet's.
    assert.deepEqual((await ledger.listUnresolved({ now: Date.now() + 3_600_000, limit: 100 })).map((a) => a.id), [elsewhere]);
    const warnings = lines.filter((l) => l.level === 40);
    assert.equal(warnings.length, 1);
    assert.deepEqual([warnings[0]!.settled, warnings[0]!.closed, warnings[0]!.chain, warnings[0]!.previousChain], [2, 4, CHAIN_B, CHAIN_A]);
    assert.match(String(warnings[0]!.msg), /^devnet restarted: the ledger holds payments made on an earlier devnet chain that no longer exists .*: 2 settled attempt\(s\) name transactions this chain does not have; 4 unfinished attempt\(s\) .* closed as failed \(devnet_chain_gone\) .*start on an empty DATA_DIR/);

    // Recorded: once only.
    assert.equal(await check(CHAIN_B), undefined);
    // A further chain: the settled ones are still counted (every one is from a chain that is gone), nothing left to close.
    assert.deepEqual(await check(CHAIN_A), { previous: CHAIN_B, settled: 2, closed: 0 });

    // A chain that cannot be read: said, nothing recorded or closed.
    const unfinished = await attemptIn(ledger, 'unknown');
    assert.equal(await checkDevnetChain({ db, payment: DEVNET, log, now: Date.now, readChain: () => Promise.reject(new Error('connection refused')) }), undefined);
    assert.match(String(lines.at(-1)!.msg), /^cannot tell which devnet chain http:\/\/127\.0\.0\.1:1 is/);
    assert.equal((await ledger.get({ id: unfinished }))!.state, 'unknown');
    // Off the devnet the chain is never asked.
    assert.equal(await checkDevnetChain({ db, payment: { network: 'eip155:8453', rpcUrl: 'http://127.0.0.1:1' }, log, now: Date.now, readChain: () => assert.fail('asked') }), undefined);
  } finally {
    await database.close();
  }
}

test('devnet chain on SQLite: recorded once, an earlier chain\'s unfinished attempts closed, settled ones counted, one line', () =>
  exercise(() => openDatabase({ dataDir: tempDir('devnet-chain-'), sqliteLedgerThread: false })));

test('devnet chain on PostgreSQL: the same', { skip: pgConfigured() ? undefined : PG_SKIP_REASON }, async () => {
  const databaseUrl = await freshPgUrl();
  await exercise(() => openDatabase({ dataDir: tempDir('devnet-chain-pg-'), databaseUrl }));
});

test("anvil's instanceId is the chain's identity; a node that does not say, or serves another chain, is refused", async () => {
  let answer: unknown;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    answer = { jsonrpc: '2.0', id: 1, result: { chainId: 31337, instanceId: '0x' + 'AB'.repeat(32) } };
    assert.equal(await anvilInstanceId(url), '0x' + 'ab'.repeat(32));
    answer = { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'the method anvil_metadata does not exist' } };
    await assert.rejects(anvilInstanceId(url), /anvil_metadata: the method anvil_metadata does not exist/);
    answer = { jsonrpc: '2.0', id: 1, result: { chainId: 8453, instanceId: '0x' + 'ab'.repeat(32) } };
    await assert.rejects(anvilInstanceId(url), /chain id 8453, not eip155:31337's/);
    answer = { jsonrpc: '2.0', id: 1, result: { chainId: 31337 } };
    await assert.rejects(anvilInstanceId(url), /no instanceId/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
