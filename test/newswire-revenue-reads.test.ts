/**
 * The newswire's revenue figure over the SQLite ledger on its thread: every
 * request must see a settlement as soon as it is recorded, but a request
 * when nothing was committed must not send the ledger's thread a message
 * (a message per request cost the newswire about a quarter of its CPU:
 * docs/decisions/0037).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createIntelRuntime } from '../src/intel/runtime.js';
import { openDatabase } from '../src/store/index.js';
import { attempt } from './support/ledger-attempt.js';

const lease = { owner: 'me', until: Number.MAX_SAFE_INTEGER };

test('revenue reads: none reach the ledger thread while nothing is committed; a settlement on the thread, or a write on the event loop connection, is seen by the next request', async () => {
  const sent: string[] = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, m: unknown, ...rest: unknown[]) {
    const method = (m as { method?: string } | null)?.method;
    if (method) sent.push(method);
    return (post as (...a: unknown[]) => void).call(this, m, ...rest);
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'newswire-revenue-reads-'));
  const { db, ledger, close } = await openDatabase({ dataDir });
  try {
    const { revenue } = createIntelRuntime({ db, ledger, now: Date.now });
    const read = async () => (await revenue.paidRevenue([])).atomic;
    const watermarkReads = () => sent.filter((m) => m === 'settlementWatermark').length;

    assert.equal(await read(), 0n);
    const first = watermarkReads();
    assert.equal(first, 1);
    // Separate turns, each its own request: nothing committed in between.
    for (let i = 0; i < 20; i++) assert.equal(await read(), 0n);
    assert.equal(watermarkReads(), first, 'no commit since the last read: the thread is not asked again');

    // A settled, delivered payment recorded on the ledger's thread.
    const a = attempt({ amount: '2500' });
    await ledger.reserve({ attempt: a, lease, now: 1 });
    await ledger.advance({ id: a.id, owner: 'me', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } }, { to: 'settling', patch: {} }], now: 2 });
    await ledger.advance({ id: a.id, owner: 'me', steps: [{ to: 'settled', patch: { txHash: '0x1', settleResponse: '{}' } }], now: 3, durable: false });
    assert.equal(await read(), 2500n, 'the settlement is seen by the next request');
    const afterSettle = watermarkReads();
    for (let i = 0; i < 5; i++) assert.equal(await read(), 2500n);
    assert.equal(watermarkReads(), afterSettle);

    // A write on the event loop's own connection (the content stores', or an operator's tool in tests).
    await db.run(
      `INSERT INTO payment_attempts (id, network, asset, payer, nonce, pay_to, amount, resource, request_fingerprint, state, valid_before, payload, requirements, created_at, updated_at)
       VALUES ('own', 'eip155:31337', '0xasset', '0xother', '0x01', '0xpayto', '500', 'r', 'fp', 'settled', 0, '{}', '{}', 9, 9)`,
    );
    await db.run(`INSERT INTO payment_responses (attempt_id, status, content_type, body) VALUES ('own', 200, 'application/json', '{}')`);
    assert.equal(await read(), 3000n, "the event loop connection's own commit is seen too");
  } finally {
    Worker.prototype.postMessage = post;
    await close();
  }
});
