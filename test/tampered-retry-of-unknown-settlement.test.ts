/**
 * Attack: a settlement's outcome is unknown (the facilitator answered 5xx).
 * Someone retries with a tampered copy of the payment (same payer and nonce,
 * re-dated, bad signature). The old gate settled the caller's new payload,
 * the facilitator refused it, and the valid authorization was marked failed:
 * the honest retry then got 402. Only the bound payload is ever settled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTRAST, balanceOf, encodePaymentSignatureHeader, postJson, signFor, startRig, type PaymentPayload } from './support/harness.js';

test('a tampered retry of an unknown settlement changes nothing; the honest retry settles once and delivers', async () => {
  const rig = await startRig({ env: { RECONCILE_INTERVAL_MS: '3600000' } });
  try {
    const url = rig.service.url + CONTRAST;
    const body = { foreground: '#1a2b3c', background: '#fefefe', large_text: true };
    const { header, payload } = await signFor(url, body, rig.devnet);
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    rig.proxy.setMode({ settle: 'error500' });
    const first = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(first.status, 503);
    assert.equal((await first.json()).error.code, 'settlement_unknown');
    rig.proxy.setMode('pass');

    for (const edit of [
      (i: { signature: string; authorization: Record<string, string> }) => (i.authorization.validBefore = String(Number(i.authorization.validBefore) - 100)),
      (i: { signature: string; authorization: Record<string, string> }) => (i.signature = '0x' + '33'.repeat(65)),
    ]) {
      const tampered = JSON.parse(JSON.stringify(payload)) as PaymentPayload;
      edit(tampered.payload as { signature: string; authorization: Record<string, string> });
      const settles = rig.proxy.calls.settle;
      const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(tampered) });
      assert.equal(res.status, 402);
      assert.equal((await res.json()).contrast_ratio, undefined);
      assert.equal(rig.proxy.calls.settle, settles, 'the tampered payload was never sent to settle');
    }

    const honest = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(honest.status, 200, await honest.clone().text());
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n);
  } finally {
    await rig.close();
  }
});
