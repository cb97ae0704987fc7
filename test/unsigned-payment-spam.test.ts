/**
 * Attack: well-formed payments with random payers and no valid signature,
 * sent in bulk. "Bind before verify" must not mean "write a row and call the
 * facilitator for anything well-formed": nothing is written and nothing is
 * sent until the EIP-712 signature recovers to `from`. What is stored per
 * attempt is bounded whatever the client attaches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { BLACK_ON_WHITE, CONTRAST, decodePaymentRequiredHeader, encodePaymentSignatureHeader, postJson, signFor, startRig } from './support/harness.js';

test('200 unsigned payments from random payers: 402 payment_invalid each, no ledger row, no facilitator call', async () => {
  const rig = await startRig();
  try {
    const url = rig.service.url + CONTRAST;
    const req = decodePaymentRequiredHeader((await postJson(url, BLACK_ON_WHITE)).headers.get('payment-required')!).accepts[0]!;
    const rowsBefore = await rig.service.ledger.summary();
    const calls = { ...rig.proxy.calls };
    const now = Math.floor(Date.now() / 1000);
    const signatures = ['0x' + '00'.repeat(65), '0x' + randomBytes(65).toString('hex'), '0x', '0x' + 'ab'.repeat(5000)];
    for (let round = 0; round < 50; round++) {
      await Promise.all(
        signatures.map(async (signature) => {
          const payload = {
            x402Version: 2,
            accepted: req,
            payload: {
              signature,
              authorization: {
                from: '0x' + randomBytes(20).toString('hex'),
                to: req.payTo,
                value: req.amount,
                validAfter: String(now - 600),
                validBefore: String(now + 300),
                nonce: '0x' + randomBytes(32).toString('hex'),
              },
            },
          };
          const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload as never) });
          assert.equal(res.status, 402);
          assert.equal((await res.json()).problem.code, 'payment_invalid');
        }),
      );
    }
    assert.deepEqual((await rig.service.ledger.summary()).byState, rowsBefore.byState, 'no ledger row was written');
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator was never asked');
  } finally {
    await rig.close();
  }
});

test('what is stored per attempt is bounded: unsigned extras attached to a valid payment are not kept', async () => {
  const rig = await startRig();
  try {
    const url = rig.service.url + CONTRAST;
    const { payload } = await signFor(url, BLACK_ON_WHITE, rig.devnet);
    payload.extensions = { junk: { blob: 'x'.repeat(10_000) } };
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) });
    assert.equal(res.status, 200);
    const rows = await rig.service.db.all<{ n: number }>('SELECT MAX(LENGTH(payload)) AS n FROM payment_attempts');
    assert.ok(Number(rows[0]!.n) < 2048, `stored payload is ${rows[0]!.n} bytes`);
  } finally {
    await rig.close();
  }
});
