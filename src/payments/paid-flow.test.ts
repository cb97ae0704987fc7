/**
 * The one paid flow: an entry's price and fingerprint come from the entry
 * (fixed, or functions of the input), and the origin makes the resource URL;
 * a signed offer is honoured by the flow's own clock; receipts come from the hook.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, openLedger } from '../store/index.js';
import type { Capability } from '../catalog/capability.js';
import { canonicalJson, requestFingerprint, sha256Hex } from '../foundation/canonical-json.js';
import { PaymentGate } from './gate.js';
import { createPaidFlow, INLINE_EXECUTOR, type PaidAnswer, type PaidFlow, type PaidFlowDeps, type PaymentWire } from './paid-flow.js';
import { MppCharge } from './mpp.js';
import { ScriptedRail } from '../../test/support/scripted-rail.js';
import { authorizationTypedData } from './authorization.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createCommitmentSigner } from '../commitments/signer.js';
import { offerVerifier, receiptHook } from '../commitments/flow-hooks.js';
import { verifyReceipt } from '../commitments/verify.js';

const base: Capability<{ n: number }, { n: number }> = {
  id: 'echo',
  method: 'POST',
  path: '/x402/v1/echo',
  priceAtomic: '1000',
  title: 'Echo',
  summary: 'Its input.',
  description: 'Echoes.',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  examples: [],
  run: (input) => input,
};

const describe = (cap: Capability) => ({ cap, summary: 'Echoes.', serviceMetadata: () => ({}), rungs: [] });
const flowOf = (gate: PaymentGate, more: Partial<PaidFlowDeps> = {}) => createPaidFlow({ gate, executor: INLINE_EXECUTOR, describe, clock: Date.now, ...more });
const ORIGIN = 'https://h.example';

/** A transport's words, as the flow needs them (a test's own). */
const WIRE: PaymentWire = { x402Unreadable: { message: 'unreadable', details: [] }, requirementWithRefusal: false, offerPath: 'offer' };
/** One request through the flow, as a transport hands it over: the input as a value, the payment as it came. */
const pay = (flow: PaidFlow, cap: Capability, req: { input: unknown; origin: string; payment?: unknown; offer?: { signed: unknown; body: unknown } }) =>
  flow.answer(cap, { wire: WIRE, origin: req.origin, input: { value: req.input }, x402: req.payment, offer: req.offer });

test('a fixed price and the canonical-input fingerprint, or the entry\'s own functions of the input', async () => {
  const { ledger, db } = await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'paid-flow-')) });
  try {
    const rail = new ScriptedRail();
    const gate = new PaymentGate({ ledger, rail, leaseMs: 20_000 });
    const flow = flowOf(gate);
    const fixed = await pay(flow, base as Capability, { input: { n: 1 }, origin: ORIGIN });
    assert.equal(fixed.kind, 'challenge');
    assert.equal((fixed as { priceAtomic: string }).priceAtomic, '1000');
    const pr = (fixed as { paymentRequired: { resource: { url: string }; accepts: Array<{ amount: string }> } }).paymentRequired;
    assert.equal(pr.resource.url, 'https://h.example/x402/v1/echo');
    assert.equal(pr.accepts[0]!.amount, '1000');

    const priced = { ...base, priceOf: (i: { n: number }) => String(1000 * i.n), fingerprintOf: (i: { n: number }) => `fp-${i.n}` } as Capability;
    const dynamic = await pay(flow, priced, { input: { n: 3 }, origin: ORIGIN });
    assert.equal((dynamic as { priceAtomic: string }).priceAtomic, '3000');
    assert.equal((dynamic as { paymentRequired: { accepts: Array<{ amount: string }> } }).paymentRequired.accepts[0]!.amount, '3000');
    assert.notEqual(requestFingerprint('echo', { n: 3 }), 'fp-3');

    // Paid: bound to the entry's fingerprint, settled at the entry's price for this input.
    const req = (await rail.requirements('3000'))[0]!;
    const account = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
    const now = Math.floor(Date.now() / 1000);
    const auth = { from: account.address, to: req.payTo as `0x${string}`, value: '3000', validAfter: String(now - 600), validBefore: String(now + 300), nonce: `0x${'12'.repeat(32)}` as `0x${string}` };
    const payment = { x402Version: 2, accepted: req, payload: { signature: await account.signTypedData(authorizationTypedData(auth, req)), authorization: auth } } as never;
    const paid = await pay(flow, priced, { input: { n: 3 }, origin: ORIGIN, payment });
    assert.equal(paid.kind, 'deliver', JSON.stringify(paid));
    assert.equal((await ledger.summary()).settledAtomic, '3000');
    const rows = await db.all<{ f: string }>('SELECT request_fingerprint AS f FROM payment_attempts');
    assert.deepEqual(rows.map((r) => r.f), ['fp-3']);
    const plain = await pay(flow, base as Capability, { input: { n: 1 }, origin: ORIGIN });
    assert.equal(plain.kind, 'challenge');
  } finally {
    await ledger.close();
  }
});

test('with the operator\'s hooks a delivery carries its signed receipt (bound to the stored fingerprint and bytes); a signed offer sets the price until the flow\'s clock passes it', async () => {
  const ledger = await openLedger({ dataDir: mkdtempSync(join(tmpdir(), 'paid-flow-signed-')) });
  try {
    const rail = new ScriptedRail();
    const gate = new PaymentGate({ ledger, rail, leaseMs: 20_000 });
    const signer = createCommitmentSigner(generatePrivateKey());
    const [scheme] = await rail.requirements('1000');
    const validUntil = Math.floor(Date.now() / 1000) + 60;
    const terms = { resourceUrl: ORIGIN + base.path, scheme: scheme!.scheme, network: scheme!.network, asset: scheme!.asset, payTo: scheme!.payTo, amount: '700', validUntil };
    const signed = await signer.offer({ ...terms, bodySha256: sha256Hex(canonicalJson({ n: 1 })) });
    let clock = Date.now();
    const flow = flowOf(gate, { receipts: receiptHook(signer), offers: offerVerifier(signer), clock: () => clock });
    const offer = { signed, body: { n: 1 } };

    const challenge = await pay(flow, base as Capability, { input: { n: 1 }, origin: ORIGIN, offer });
    assert.equal(challenge.kind, 'challenge', 'no receipt without a delivery');
    assert.equal((challenge as { priceAtomic: string }).priceAtomic, '700');
    assert.equal((challenge as { paymentRequired: { accepts: Array<{ amount: string }> } }).paymentRequired.accepts[0]!.amount, '700');
    // Signed for another body, or by another key: refused before any payment step.
    const otherBody = await pay(flow, base as Capability, { input: { n: 2 }, origin: ORIGIN, offer: { signed, body: { n: 2 } } });
    assert.equal(otherBody.kind, 'invalid');
    const noKey = await pay(flowOf(gate), base as Capability, { input: { n: 1 }, origin: ORIGIN, offer });
    assert.match((noKey as { body: { error: { message: string } } }).body.error.message, /signs no offers/);

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
    const paid = await pay(flow, base as Capability, { input: { n: 1 }, origin: ORIGIN, payment, offer });
    assert.equal(paid.kind, 'deliver', JSON.stringify(paid));
    const d = paid as Extract<typeof paid, { kind: 'deliver' }>;
    const check = await verifyReceipt({ paymentResponse: d.paymentResponse, responseBody: d.response.body, request: { resource: 'echo', input: { n: 1 } }, signer: signer.address });
    assert.deepEqual(check.problems, []);
    assert.equal(check.binding!.amount, '700');
    assert.equal(check.receipt!.issuedAt, Math.floor(d.boundAt / 1000));
    // Redelivered after the offer expired by the flow's clock: the payment was bound before, so the same receipt.
    clock = (validUntil + 1) * 1000;
    const again = await pay(flow, base as Capability, { input: { n: 1 }, origin: ORIGIN, payment, offer });
    assert.deepEqual((again as typeof d).paymentResponse, d.paymentResponse);
    // Without the receipt hook nothing is added to the settlement.
    const unsigned = await pay(flowOf(gate, { offers: offerVerifier(signer) }), base as Capability, { input: { n: 1 }, origin: ORIGIN, payment, offer });
    assert.equal((unsigned as typeof d).paymentResponse.extensions, undefined);
  } finally {
    await ledger.close();
  }
});

test('the flow decides what came on the wire, in one order for every transport: no input, the input, two protocols, two MPP credentials, x402 v1, an unreadable MPP credential, the offer, an unreadable x402 payment', async () => {
  const ledger = await openLedger({ dataDir: mkdtempSync(join(tmpdir(), 'paid-flow-wire-')) });
  try {
    const rail = new ScriptedRail();
    const mpp = new MppCharge('paid-flow-unit-secret-0123456789abcdef', rail.payment);
    const gate = new PaymentGate({ ledger, rail, leaseMs: 20_000, mpp });
    // A body read off the event loop that the executor declines: read inline, the same verdict.
    const flow = flowOf(gate, { executor: { ...INLINE_EXECUTOR, readBody: () => Promise.resolve(undefined) } });
    const words = (message: string) => ({ message, details: [] });
    const http: PaymentWire = { ...WIRE, mpp: { twoProtocols: words('two'), unreadable: 'mpp unreadable' }, offerUnreadable: 'not base64 JSON', inputRequired: (cap) => words(`input for ${cap.id}`) };
    const a2a: PaymentWire = { ...WIRE, requirementWithRefusal: true };
    const cap = base as Capability;
    const bytes = (text: string) => ({ bytes: new TextEncoder().encode(text), contentType: 'application/json' });
    const ask = (wire: PaymentWire, more: Partial<Parameters<PaidFlow['answer']>[1]>) => flow.answer(cap, { wire, origin: ORIGIN, input: bytes('{"n":1}'), ...more });
    const codeOf = (a: PaidAnswer) => (a.kind === 'invalid' ? `invalid ${a.about} ${a.body.error.code} ${a.body.error.message}` : `${a.kind} ${'code' in a ? a.code : ''}`);

    assert.equal(codeOf(await ask(http, { input: undefined, x402: {} })), 'invalid input invalid_request input for echo');
    const probe = await ask(http, { input: undefined });
    assert.equal(codeOf(probe), 'challenge payment_required');
    assert.ok(probe.kind === 'challenge' && probe.mpp?.header.startsWith('Payment ') && probe.mpp.headerBytes >= probe.mpp.header.length);
    assert.equal(codeOf(await ask(http, { input: bytes('{"n":'), x402: {}, authorization: 'Payment abc' })), 'invalid input invalid_json The request body is not valid JSON: Unexpected end of JSON input');
    assert.equal(codeOf(await ask(http, { x402: {}, authorization: 'Payment abc' })), 'invalid payment invalid_payment_header two');
    assert.equal(codeOf(await ask(http, { x402v1: true, authorization: 'Payment abc' })), 'invalid payment invalid_payment_header two');
    const v1 = await ask(http, { x402v1: true, authorization: 'Bearer not-ours' });
    assert.ok(v1.kind === 'challenge' && v1.v1 === true && v1.mpp !== undefined && v1.mpp.problem === undefined);
    const malformed = await ask(http, { authorization: 'Payment abc', offer: { unreadable: true } });
    assert.ok(malformed.kind === 'challenge' && malformed.code === 'payment_invalid' && malformed.message === 'mpp unreadable');
    assert.equal(malformed.mpp?.problem?.type, 'https://paymentauth.org/problems/malformed-credential');
    assert.equal(malformed.mpp?.problem?.challengeId, malformed.mpp?.challenge.id);
    assert.equal(codeOf(await ask(http, { x402: null, offer: { unreadable: true } })), 'invalid payment invalid_request The signed offer cannot be honoured: not base64 JSON.');
    const unreadable = await ask(http, { x402: [] });
    assert.ok(unreadable.kind === 'invalid' && unreadable.requirement === undefined && unreadable.body.error.code === 'invalid_payment_header');
    const again = await ask(a2a, { x402: 'not an object', authorization: 'Payment abc' });
    assert.ok(again.kind === 'invalid' && again.requirement?.kind === 'challenge', 'a transport whose refusal offers the requirement again gets it');
    assert.equal(codeOf(await ask(a2a, { authorization: 'Payment abc' })), 'challenge payment_required', 'MPP is not read where the transport does not speak it');

    // MPP's two HTTP fields: two different credentials are refused before anything is read; the same one in both is one.
    const withTwo: PaymentWire = { ...http, mpp: { ...http.mpp!, twoCredentials: words('two credentials') } };
    assert.equal(codeOf(await ask(withTwo, { authorization: 'Payment abc', paymentAuthorization: 'Payment abd' })), 'invalid payment invalid_payment_header two credentials');
    assert.equal(codeOf(await ask(withTwo, { paymentAuthorization: 'Payment abc, Payment abd' })), 'invalid payment invalid_payment_header two credentials', 'the field sent twice');
    assert.equal(codeOf(await ask(withTwo, { x402: {}, paymentAuthorization: 'Payment abc' })), 'invalid payment invalid_payment_header two');
    assert.equal(codeOf(await ask(withTwo, { input: undefined, paymentAuthorization: 'Payment abc' })), 'invalid input invalid_request input for echo');
    const same = await ask(withTwo, { authorization: 'Payment abc', paymentAuthorization: 'Payment abc' });
    assert.ok(same.kind === 'challenge' && same.mpp?.problem?.type === 'https://paymentauth.org/problems/malformed-credential', 'one (unreadable) credential');
    // The 402's challenge selects Payment-Authorization when Authorization holds another scheme or Payment-Authorization came.
    const selects = async (more: Partial<Parameters<PaidFlow['answer']>[1]>) => {
      const a = await ask(withTwo, more);
      assert.ok(a.kind === 'challenge' && a.mpp, JSON.stringify(more));
      assert.ok(a.mpp.headerBytes >= a.mpp.header.length);
      return a.mpp.challenge.header ?? 'Authorization';
    };
    assert.equal(await selects({}), 'Authorization');
    assert.equal(await selects({ authorization: 'Payment abc' }), 'Authorization');
    assert.equal(await selects({ authorization: 'Bearer proxy-token' }), 'Payment-Authorization');
    assert.equal(await selects({ authorization: 'Bearer proxy-token', paymentAuthorization: 'Payment abc' }), 'Payment-Authorization');
    assert.equal(await selects({ paymentAuthorization: 'Bearer not-a-credential' }), 'Payment-Authorization');
    assert.equal(await selects({ input: undefined, authorization: 'Bearer proxy-token' }), 'Payment-Authorization', 'the discovery 402 too');
    // MPP off: neither field is read.
    const off = flowOf(new PaymentGate({ ledger, rail, leaseMs: 20_000 }));
    const unread = await off.answer(cap, { wire: withTwo, origin: ORIGIN, input: bytes('{"n":1}'), authorization: 'Payment abc', paymentAuthorization: 'Payment abd' });
    assert.ok(unread.kind === 'challenge' && unread.code === 'payment_required' && unread.mpp === undefined);

    // Not ready: the unpaid answers are the gate's refusal, to an MPP credential in its problem form.
    rail.ready = false;
    const refusedMpp = await ask(http, { authorization: 'Payment abc' });
    assert.ok(refusedMpp.kind === 'refuse' && refusedMpp.mpp === true && refusedMpp.code === 'facilitator_unavailable');
    const refusedV1 = await ask(http, { x402v1: true });
    assert.ok(refusedV1.kind === 'refuse' && refusedV1.mpp === undefined);
  } finally {
    await ledger.close();
  }
});
