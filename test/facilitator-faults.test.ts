/**
 * Fault injection between the service and a real facilitator: each fault
 * must end in "nothing delivered, nothing charged" or "delivered and charged
 * once", never in between.
 */
import { describe, test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, decodePaymentResponseHeader, postJson, signFor, startRig, type Rig } from './support/harness.js';
import type { Ledger, LedgerArgs } from '../src/store/ledger.js';
import { faultyLedger } from './support/faulty-ledger.js';

describe('facilitator and ledger faults', () => {
  let rig: Rig;
  let url: string;
  /** When set, the ledger throws as if the database were gone for calls matching it. */
  let ledgerFault: ((method: string, args: unknown) => boolean) | undefined;
  before(async () => {
    rig = await startRig({
      env: { X402_FACILITATOR_TIMEOUT_MS: '1500', RECONCILE_INTERVAL_MS: '3600000' },
      service: {
        wrapLedger: (inner: Ledger) => faultyLedger(inner, (method, args) => ledgerFault?.(method, args) ?? false),
      },
    });
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());
  beforeEach(() => {
    rig.proxy.setMode('pass');
    ledgerFault = undefined;
  });

  const paid = () => balanceOf(rig.devnet, rig.devnet.payTo);
  let seq = 0;
  const freshBody = () => ({ foreground: '#' + (0x100000 + ++seq * 7919).toString(16).slice(-6), background: '#ffffff', large_text: false });

  test('facilitator down at verify → 503, nothing delivered or charged; the same payment works once it is back', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    rig.proxy.setMode({ verify: 'down' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal((await res.json()).error.code, 'facilitator_unavailable');
    assert.ok(res.headers.get('retry-after'));
    assert.equal(await paid(), before);
    rig.proxy.setMode('pass');
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200);
    assert.equal((await paid()) - before, 1000n);
  });

  test('facilitator slower than the timeout at verify → 503, nothing charged', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    rig.proxy.setMode({ verify: 'slow' }, { slowMs: 2500 });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal((await res.json()).error.code, 'facilitator_unavailable');
    assert.equal(await paid(), before);
  });

  test('facilitator 5xx at verify → 503, nothing charged', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    rig.proxy.setMode({ verify: 'error500' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal(await paid(), before);
  });

  test('settle answers success:false while the authorization is still valid → 503 settlement_unknown with Retry-After, result withheld; the retry settles once and delivers', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    rig.proxy.setMode({ settle: 'settle-false' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '5', 'the transfer may still be mined: come back shortly');
    const json = await res.json();
    assert.equal(json.error.code, 'settlement_unknown');
    assert.equal(json.contrast_ratio, undefined, 'the result is not in the body');
    assert.equal(await paid(), before);
    rig.proxy.setMode('pass');
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200);
    assert.equal((await paid()) - before, 1000n);
  });

  test('settle 5xx (outcome unknown) → 503; the retry settles once and delivers', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    rig.proxy.setMode({ settle: 'error500' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal((await res.json()).error.code, 'settlement_unknown');
    assert.equal(await paid(), before);
    rig.proxy.setMode('pass');
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200);
    assert.equal((await paid()) - before, 1000n);
  });

  test('settle connection dropped → 503; the retry asks the chain, settles once and delivers', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    rig.proxy.setMode({ settle: 'down' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    rig.proxy.setMode('pass');
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200);
    assert.equal((await paid()) - before, 1000n);
  });

  test('settle transfers on chain but the answer is lost (timeout) → 503 settlement_unknown; the retry delivers from the chain without settling again', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    rig.proxy.resetCalls();
    rig.proxy.setMode({ settle: 'hang-after-forward' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal((await res.json()).error.code, 'settlement_unknown');
    const [upstream] = await rig.proxy.waitForUpstream('settle', 1, 10_000);
    const tx = (upstream!.body as { transaction: string }).transaction;
    assert.equal((await paid()) - before, 1000n, 'the money moved');
    rig.proxy.setMode('pass');
    const settlesBefore = rig.proxy.calls.settle;
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200);
    assert.equal(decodePaymentResponseHeader(retry.headers.get('payment-response')!).transaction, tx);
    assert.equal(rig.proxy.calls.settle, settlesBefore, 'no second settle was sent');
    assert.equal((await paid()) - before, 1000n, 'exactly one transfer');
  });

  test('the reconciler records a lost settlement from the chain even if the buyer never retries', async () => {
    const body = freshBody();
    const { header, payload } = await signFor(url, body, rig.devnet);
    rig.proxy.resetCalls();
    rig.proxy.setMode({ settle: 'hang-after-forward' });
    assert.equal((await postJson(url, body, { 'PAYMENT-SIGNATURE': header })).status, 503);
    const [upstream] = await rig.proxy.waitForUpstream('settle', 1, 10_000);
    const auth = (payload.payload as { authorization: { from: string; nonce: string } }).authorization;
    const { sha256Hex } = await import('../src/foundation/canonical-json.js');
    const id = sha256Hex([rig.devnet.network, rig.devnet.asset.toLowerCase(), auth.from.toLowerCase(), auth.nonce.toLowerCase()].join('|'));
    assert.equal((await rig.service.ledger.get({ id }))?.state, 'unknown');
    const { reconcileOnce } = await import('../src/payments/reconciler.js');
    await reconcileOnce(rig.service.ledger, (n) => rig.service.rail.chainFor(n), Date.now);
    const attempt = await rig.service.ledger.get({ id });
    assert.equal(attempt?.state, 'settled', 'this attempt was recorded from the chain');
    assert.equal(attempt?.txHash, (upstream!.body as { transaction: string }).transaction);
  });

  test('ledger unavailable before anything → 503 ledger_unavailable, facilitator never asked', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const calls = { ...rig.proxy.calls };
    ledgerFault = () => true;
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal((await res.json()).error.code, 'ledger_unavailable');
    assert.equal(rig.proxy.calls.verify, calls.verify);
    assert.equal(rig.proxy.calls.settle, calls.settle);
  });

  test('ledger fails when storing the result → 503, never settled, nothing charged; the same payment works later', async () => {
    const body = freshBody();
    const { header } = await signFor(url, body, rig.devnet);
    const before = await paid();
    const settles = rig.proxy.calls.settle;
    ledgerFault = (method, args) => method === 'advance' && (args as LedgerArgs<'advance'>).steps.some((step) => step.to === 'executed');
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal(rig.proxy.calls.settle, settles, 'settle never sent');
    assert.equal(await paid(), before);
    ledgerFault = undefined;
    // The interrupted request let go of its lease: the retry proceeds at once and pays once.
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200, await retry.clone().text());
    assert.equal((await paid()) - before, 1000n);
  });

  test('a handler that throws is never settled: 503 handler_failed, nothing charged', async () => {
    const { startService } = await import('../src/service.js');
    const { loadConfig } = await import('../src/config.js');
    const { devnetEnv, tempDir } = await import('./support/harness.js');
    const { accessibilityContrastCalculator } = await import('../src/capabilities/accessibility-contrast-calculator/index.js');
    const broken = { ...accessibilityContrastCalculator, run: () => { throw new Error('boom'); } };
    const env = devnetEnv(rig.devnet, rig.proxy.url, { DATA_DIR: tempDir() });
    const svc = await startService(loadConfig(env), { catalog: [broken] });
    try {
      const u = svc.url + CONTRAST;
      const { header } = await signFor(u, BLACK_ON_WHITE, rig.devnet);
      const before = await paid();
      const res = await postJson(u, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
      assert.equal(res.status, 503);
      assert.equal((await res.json()).error.code, 'handler_failed');
      assert.equal(await paid(), before);
    } finally {
      await svc.close();
    }
  });
});
