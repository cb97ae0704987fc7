/**
 * A facilitator broadcasts the transfer and answers `success:false,
 * errorReason:"settlement_pending"` before the block is mined (the SDK's own
 * facilitator does this when its receipt wait times out). The block is mined
 * afterwards. The buyer must never be charged without getting the result:
 * until the chain decides, retries get 503 + Retry-After; once mined, the
 * result; and only an authorization that is unused at a block past its
 * validBefore is ever declared failed.
 *
 * Real devnet: anvil with automine switched off, the SDK facilitator with a
 * 1 s receipt wait.
 */
import { describe, test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { anvilRpc, balanceOf, decodePaymentResponseHeader, postJson, signFor, startRig, transferLogs, CONTRAST, type Rig } from './support/harness.js';
import { reconcileOnce } from '../src/payments/reconciler.js';

describe('settlement pending at the facilitator, mined later', () => {
  let rig: Rig;
  let url: string;
  before(async () => {
    rig = await startRig({ devnet: { confirmationTimeoutMs: 1000 }, env: { X402_FACILITATOR_TIMEOUT_MS: '8000', RECONCILE_INTERVAL_MS: '3600000' } });
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());
  afterEach(async () => {
    await anvilRpc(rig.devnet, 'evm_setAutomine', [true]);
  });

  const paid = () => balanceOf(rig.devnet, rig.devnet.payTo);
  let seq = 0;
  const freshBody = () => ({ foreground: '#' + (0x200000 + ++seq * 104729).toString(16).slice(-6), background: '#ffffff', large_text: false });

  test('settlement_pending, then mined: the retry gets the result and the mined transaction; one transfer', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    await anvilRpc(rig.devnet, 'evm_setAutomine', [false]);
    rig.proxy.resetCalls();

    const first = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    const [answer] = await rig.proxy.waitForUpstream('settle', 1, 10_000);
    assert.equal((answer!.body as { errorReason: string }).errorReason, 'settlement_pending', 'the facilitator answered before the block was mined');
    const pendingTx = (answer!.body as { transaction: string }).transaction;
    assert.equal(first.status, 503, 'not a 402: the transfer may still happen');
    assert.equal((await first.json()).error.code, 'settlement_unknown');
    assert.equal(first.headers.get('retry-after'), '5', 'come back when the next block may be in');
    assert.equal(await paid(), before, 'not mined yet');

    // A retry while it is still pending: still 503, never a 402 or a result.
    const early = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(early.status, 503);

    await anvilRpc(rig.devnet, 'evm_mine');
    assert.equal((await paid()) - before, 1000n, 'the buyer was charged once the block was mined');

    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200, await retry.clone().text());
    assert.equal((await retry.json()).contrast_ratio !== undefined, true);
    const receipt = decodePaymentResponseHeader(retry.headers.get('payment-response')!);
    assert.equal(receipt.success, true);
    assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/);
    const toPayee = (await transferLogs(rig.devnet, { to: rig.devnet.payTo })).filter((l) => l.txHash === receipt.transaction);
    assert.equal(toPayee.length, 1, 'the receipt names the transfer that was mined');
    assert.ok(receipt.transaction === pendingTx || rig.proxy.upstream.some((u) => (u.body as { transaction?: string }).transaction === receipt.transaction));
    assert.equal((await paid()) - before, 1000n, 'exactly one transfer');
    const again = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('payment-response'), retry.headers.get('payment-response'));
  });

  test('settlement_pending, then mined, buyer never returns: the reconciler records the settlement with its transaction', async () => {
    const body = freshBody();
    const { header, payload } = await signFor(url, body, rig.devnet);
    await anvilRpc(rig.devnet, 'evm_setAutomine', [false]);
    assert.equal((await postJson(url, body, { 'PAYMENT-SIGNATURE': header })).status, 503);
    await anvilRpc(rig.devnet, 'evm_mine');
    const report = await reconcileOnce(rig.service.ledger, (n) => rig.service.rail.chainFor(n), Date.now);
    assert.deepEqual(report, { examined: 1, settled: 1, expired: 0, stillUnknown: 0 }, 'this attempt is the only unresolved one, and the chain settles it');
    const auth = (payload.payload as { authorization: { from: string; nonce: string } }).authorization;
    const { sha256Hex } = await import('../src/foundation/canonical-json.js');
    const id = sha256Hex([rig.devnet.network, rig.devnet.asset.toLowerCase(), auth.from.toLowerCase(), auth.nonce.toLowerCase()].join('|'));
    const attempt = await rig.service.ledger.get({ id });
    assert.equal(attempt?.state, 'settled');
    assert.match(attempt!.txHash ?? '', /^0x[0-9a-f]{64}$/, 'a receipt recovered from the chain carries its transaction');
    assert.match(JSON.parse(attempt!.settleResponse!).transaction, /^0x[0-9a-f]{64}$/);
  });

  test('settlement_pending, then the transaction is dropped and validBefore passes: only then is it failed, and nothing was charged', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    await anvilRpc(rig.devnet, 'evm_setAutomine', [false]);
    rig.proxy.resetCalls();
    assert.equal((await postJson(url, body, { 'PAYMENT-SIGNATURE': header })).status, 503);
    const [answer] = await rig.proxy.waitForUpstream('settle', 1, 10_000);
    await anvilRpc(rig.devnet, 'anvil_dropTransaction', [(answer!.body as { transaction: string }).transaction]);
    // Chain time moves past validBefore (the client signs maxTimeoutSeconds ahead).
    await anvilRpc(rig.devnet, 'evm_increaseTime', [3600]);
    await anvilRpc(rig.devnet, 'evm_mine');
    await anvilRpc(rig.devnet, 'evm_setAutomine', [true]);
    const report = await reconcileOnce(rig.service.ledger, (n) => rig.service.rail.chainFor(n), Date.now);
    assert.deepEqual(report, { examined: 1, settled: 0, expired: 1, stillUnknown: 0 }, 'this attempt is the only unresolved one, and it expired unused');
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 402);
    assert.match((await retry.json()).problem.code, /^(settlement_failed|payment_expired)$/);
    assert.equal(await paid(), before, 'nothing was charged');
  });
});
