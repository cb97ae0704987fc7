/**
 * The one paid flow: an entry's price and fingerprint come from the entry
 * (fixed, or functions of the input), and the origin makes the resource URL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, openLedger } from '../store/index.js';
import type { Capability } from '../catalog/capability.js';
import { requestFingerprint } from '../foundation/canonical-json.js';
import { PaymentGate } from './gate.js';
import { payFor, priceFor } from './paid-flow.js';
import { ScriptedRail } from './scripted-rail.js';
import { authorizationTypedData } from './authorization.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createCommitmentSigner } from '../commitments/signer.js';
import { verifyReceipt } from '../commitments/verify.js';

const base: Capability<{ n: number }, { n: number }> = {
  id: 'echo',
  method: 'POST',
  path: '/x402/v1/echo',
  priceAtomic: '1000',
  title: 'Echo',
  description: 'Echoes.',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  examples: [],
  run: (input) => input,
};

test('a fixed price and the canonical-input fingerprint, or the entry\'s own functions of the input', async () => {
  const { ledger, db } = await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'paid-flow-')) });
  try {
    const rail = new ScriptedRail();
    const gate = new PaymentGate({ ledger, rail, leaseMs: 20_000 });
    const offer = { cap: base as Capability, summary: 'Echoes.', extensionCandidates: [] };
    assert.equal(priceFor(base as Capability, { n: 1 }), '1000');
    const fixed = await payFor(gate, offer, { n: 1 }, undefined, 'https://h.example');
    assert.equal(fixed.kind, 'challenge');
    const pr = (fixed as { paymentRequired: { resource: { url: string }; accepts: Array<{ amount: string }> } }).paymentRequired;
    assert.equal(pr.resource.url, 'https://h.example/x402/v1/echo');
    assert.equal(pr.accepts[0]!.amount, '1000');

    const priced = { ...base, priceOf: (i: { n: number }) => String(1000 * i.n), fingerprintOf: (i: { n: number }) => `fp-${i.n}` } as Capability;
    assert.equal(priceFor(priced, { n: 3 }), '3000');
    const dynamic = await payFor(gate, { ...offer, cap: priced }, { n: 3 }, undefined, 'https://h.example');
    assert.equal((dynamic as { paymentRequired: { accepts: Array<{ amount: string }> } }).paymentRequired.accepts[0]!.amount, '3000');
    assert.notEqual(requestFingerprint('echo', { n: 3 }), 'fp-3');

    // Paid: bound to the entry's fingerprint, settled at the entry's price for this input.
    const req = (await rail.requirements('3000'))[0]!;
    const account = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
    const now = Math.floor(Date.now() / 1000);
    const auth = { from: account.address, to: req.payTo as `0x${string}`, value: '3000', validAfter: String(now - 600), validBefore: String(now + 300), nonce: `0x${'12'.repeat(32)}` as `0x${string}` };
    const payment = { x402Version: 2, accepted: req, payload: { signature: await account.signTypedData(authorizationTypedData(auth, req)), authorization: auth } } as never;
    const paid = await payFor(gate, { ...offer, cap: priced }, { n: 3 }, payment, 'https://h.example');
    assert.equal(paid.kind, 'deliver', JSON.stringify(paid));
    assert.equal((await ledger.summary()).settledAtomic, '3000');
    const rows = await db.all<{ f: string }>('SELECT request_fingerprint AS f FROM payment_attempts');
    assert.deepEqual(rows.map((r) => r.f), ['fp-3']);
    const plain = await payFor(gate, offer, { n: 1 }, undefined, 'https://h.example');
    assert.equal(plain.kind, 'challenge');
  } finally {
    await ledger.close();
  }
});

test('with the operator\'s signer a delivery carries its signed receipt (bound to the stored fingerprint and bytes); a checked signed offer sets the price', async () => {
  const ledger = await openLedger({ dataDir: mkdtempSync(join(tmpdir(), 'paid-flow-signed-')) });
  try {
    const rail = new ScriptedRail();
    const gate = new PaymentGate({ ledger, rail, leaseMs: 20_000 });
    const signer = createCommitmentSigner(generatePrivateKey());
    const offer = { cap: base as Capability, summary: 'Echoes.', extensionCandidates: [] };
    const honoured = { amount: '700', validUntil: Math.floor(Date.now() / 1000) + 60 };
    assert.equal(priceFor(base as Capability, { n: 1 }, honoured), '700');
    const challenge = await payFor(gate, offer, { n: 1 }, undefined, 'https://h.example', { signer, honoured });
    assert.equal(challenge.kind, 'challenge', 'no receipt without a delivery');
    assert.equal((challenge as { paymentRequired: { accepts: Array<{ amount: string }> } }).paymentRequired.accepts[0]!.amount, '700');

    const req = (await rail.requirements('700'))[0]!;
    const account = privateKeyToAccount(generatePrivateKey());
    const now = Math.floor(Date.now() / 1000);
    const auth = { from: account.address, to: req.payTo as `0x${string}`, value: '700', validAfter: String(now - 600), validBefore: String(now + 300), nonce: `0x${'34'.repeat(32)}` as `0x${string}` };
    // With a payment-identifier: the buyer's proof when it asks for the same result again.
    const payment = {
      x402Version: 2,
      accepted: req,
      payload: { signature: await account.signTypedData(authorizationTypedData(auth, req)), authorization: auth },
      extensions: { 'payment-identifier': { info: { required: false, id: 'pay_receipt_redelivery_0001' } } },
    } as never;
    const paid = await payFor(gate, offer, { n: 1 }, payment, 'https://h.example', { signer, honoured });
    assert.equal(paid.kind, 'deliver', JSON.stringify(paid));
    const d = paid as Extract<typeof paid, { kind: 'deliver' }>;
    const check = await verifyReceipt({ paymentResponse: d.paymentResponse, responseBody: d.response.body, request: { resource: 'echo', input: { n: 1 } }, signer: signer.address });
    assert.deepEqual(check.problems, []);
    assert.equal(check.binding!.amount, '700');
    assert.equal(check.receipt!.issuedAt, Math.floor(d.boundAt / 1000));
    // Redelivered: the same receipt.
    const again = await payFor(gate, offer, { n: 1 }, payment, 'https://h.example', { signer, honoured });
    assert.deepEqual((again as typeof d).paymentResponse, d.paymentResponse);
    // Without a signer nothing is added to the settlement.
    const unsigned = await payFor(gate, offer, { n: 1 }, payment, 'https://h.example', { honoured });
    assert.equal((unsigned as typeof d).paymentResponse.extensions, undefined);
  } finally {
    await ledger.close();
  }
});
