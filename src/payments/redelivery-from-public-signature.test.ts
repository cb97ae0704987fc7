/**
 * Attack: once a payment settles, its EIP-3009 signature is public calldata,
 * so anyone can rebuild the exact bound PAYMENT-SIGNATURE from the chain and
 * ask for the buyer's stored result, guessing the body until the answer
 * changes. The gate hands a stored result only to a caller who proves
 * something that never went on chain (the payment-identifier it was bound
 * with, or a sign-in by the payer's key over our fresh challenge); without
 * it the answer is the same whatever the body, and tries are limited.
 * Driven through the scripted rail against a real SQLite ledger.
 */
import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { openDatabase } from '../store/index.js';
import type { Ledger } from '../store/ledger.js';
import { authorizationTypedData, type Eip3009Authorization } from './authorization.js';
import { PaymentGate, type GateOutcome, type PaidCall } from './gate.js';
import { WRONG_IDENTIFIERS_PER_CLIENT } from './redelivery.js';
import type { PaymentPayload, PaymentRequired } from './rail.js';
import { ScriptedRail } from '../../test/support/scripted-rail.js';
import { SIGN_IN_WITH_X } from './sign-in.js';

const BUYER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const OTHER = privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6');
const URL_A = 'http://127.0.0.1:8402/x402/v1/accessibility-contrast-calculator';

let ledger: Ledger;
let rail: ScriptedRail;
let gate: PaymentGate;
const clock = { t: 0 };

beforeEach(async () => {
  ({ ledger } = await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'redelivery-')) }));
  rail = new ScriptedRail();
  clock.t = Date.now();
  rail.chain.blockTime = clock.t / 1000;
  gate = new PaymentGate({ ledger, rail, leaseMs: 20_000, now: () => clock.t });
});
afterEach(async () => ledger.close());

async function sign(paymentId: string | null): Promise<PaymentPayload> {
  const req = (await rail.requirements('1000'))[0]!;
  const now = Math.floor(clock.t / 1000);
  const auth: Eip3009Authorization = { from: BUYER.address, to: req.payTo as Hex, value: req.amount, validAfter: String(now - 600), validBefore: String(now + 300), nonce: ('0x' + randomBytes(32).toString('hex')) as Hex };
  const signature = await BUYER.signTypedData(authorizationTypedData(auth, req));
  const extensions = paymentId === null ? undefined : { 'payment-identifier': { info: { required: false, id: paymentId } } };
  return { x402Version: 2, accepted: req, payload: { signature, authorization: auth }, ...(extensions && { extensions }) } as PaymentPayload;
}

/** What anyone can rebuild from the settled transaction: the signed fields and the signature, nothing else. */
function fromChain(p: PaymentPayload): PaymentPayload {
  return { x402Version: 2, accepted: p.accepted, payload: structuredClone(p.payload) } as PaymentPayload;
}

function call(payment: PaymentPayload, over: Partial<PaidCall> = {}): PaidCall {
  return {
    resource: 'contrast',
    description: 'test',
    priceAtomic: '1000',
    resourceUrl: URL_A,
    fingerprint: 'fp-secret-body',
    payment,
    execute: () => ({ status: 200, contentType: 'application/json', body: '{"secret":true}' }),
    ...over,
  };
}

/** The outcome without the parts that legitimately vary with time (the sign-in challenge's nonce and times). */
function shape(o: GateOutcome): unknown {
  const copy = structuredClone(o) as { paymentRequired?: PaymentRequired; signInStamp?: unknown };
  delete copy.signInStamp;
  const siwx = copy.paymentRequired?.extensions?.[SIGN_IN_WITH_X] as { info?: Record<string, unknown> } | undefined;
  if (siwx?.info) for (const k of ['nonce', 'issuedAt', 'expirationTime']) delete siwx.info[k];
  return copy;
}

async function signIn(o: GateOutcome, account = BUYER, resourceUrl = URL_A): Promise<string> {
  const ext = (o as { paymentRequired: PaymentRequired }).paymentRequired.extensions![SIGN_IN_WITH_X] as { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: 'eip191' }> };
  const info = { ...ext.info, chainId: ext.supportedChains[0]!.chainId, type: ext.supportedChains[0]!.type } as never;
  return encodeSIWxHeader(await createSIWxPayload(info, account, resourceUrl));
}

describe('a stored result needs a proof that never went on chain', () => {
  test('the exact bound signature rebuilt from the chain: no result, and the same answer whatever the body', async () => {
    const p = await sign('pay_' + randomBytes(16).toString('hex'));
    assert.equal((await gate.handle(call(p))).kind, 'deliver');
    const right = await gate.handle(call(fromChain(p)));
    const wrong = await gate.handle(call(fromChain(p), { fingerprint: 'fp-a-guess' }));
    const otherResource = await gate.handle(call(fromChain(p), { resource: 'checker', fingerprint: 'fp-other' }));
    assert.equal(right.kind, 'challenge');
    assert.equal((right as { code: string }).code, 'redelivery_proof_required');
    assert.deepEqual(shape(wrong), shape(right), 'a wrong body is indistinguishable from the right one');
    assert.deepEqual(shape(otherResource), shape(right));
    assert.equal(rail.settled.length, 1, 'never settled again');
  });

  test('while the attempt is still unresolved the answer is the same too (no state or body oracle)', async () => {
    const p = await sign('pay_' + randomBytes(16).toString('hex'));
    rail.settleAnswers.push({ kind: 'unknown', message: 'timeout' });
    assert.equal((await gate.handle(call(p))).kind, 'refuse');
    const settledLater = await gate.handle(call(fromChain(p)));
    assert.equal((settledLater as { code: string }).code, 'redelivery_proof_required');
    assert.equal(rail.settled.length, 1, 'an unproven caller drives nothing');
  });

  test('the payment-identifier it was bound with is the proof (the honest retry)', async () => {
    const id = 'pay_' + randomBytes(16).toString('hex');
    const p = await sign(id);
    const first = await gate.handle(call(p));
    const again = await gate.handle(call(p));
    assert.equal(again.kind, 'deliver');
    assert.deepEqual((again as { response: unknown }).response, (first as { response: unknown }).response);
    const guessed = { ...fromChain(p), extensions: { 'payment-identifier': { info: { required: false, id: 'pay_' + 'a'.repeat(32) } } } } as PaymentPayload;
    assert.equal(((await gate.handle(call(guessed))) as { code: string }).code, 'redelivery_proof_required');
    // With the proof, a different body is told apart (the buyer learns nothing it did not know).
    assert.equal(((await gate.handle(call(p, { fingerprint: 'fp-other' }))) as { code: string }).code, 'payment_bound_to_other_request');
  });

  test(`wrong identifiers are limited per client (${WRONG_IDENTIFIERS_PER_CLIENT}): then that client's identifiers are refused with 429; the buyer's from another client, and a sign-in, never are`, async () => {
    const p = await sign('pay_' + randomBytes(16).toString('hex'));
    await gate.handle(call(p, { client: 'buyer' }));
    // Without an identifier there is nothing to guess: not counted.
    for (let i = 0; i < 2 * WRONG_IDENTIFIERS_PER_CLIENT; i++) assert.equal(((await gate.handle(call(fromChain(p), { client: 'onlooker' }))) as { code: string }).code, 'redelivery_proof_required');
    for (let i = 0; i < WRONG_IDENTIFIERS_PER_CLIENT; i++) {
      const last = await gate.handle(call({ ...fromChain(p), extensions: { 'payment-identifier': { info: { required: false, id: `pay_guess_${String(i).padStart(12, '0')}` } } } } as PaymentPayload, { client: 'onlooker' }));
      assert.equal((last as { code: string }).code, 'redelivery_proof_required');
    }
    const limited = await gate.handle(call(p, { client: 'onlooker' }));
    assert.equal(limited.kind, 'refuse');
    assert.equal((limited as { code: string }).code, 'rate_limited', 'the onlooker\'s identifiers are not compared once its tries are spent, even the right one');
    assert.ok((limited as { retryAfterSeconds: number }).retryAfterSeconds > 0);
    assert.equal((await gate.handle(call(p, { client: 'buyer' }))).kind, 'deliver', 'the buyer\'s own identifier, from its own client');
    const withoutId = await gate.handle(call(fromChain(p), { client: 'onlooker' }));
    assert.equal((withoutId as { code: string }).code, 'redelivery_proof_required', 'without an identifier: still the sign-in challenge');
    const proven = await gate.handle(call(fromChain(p), { client: 'onlooker', signIn: await signIn(withoutId) }));
    assert.equal(proven.kind, 'deliver');
    clock.t += 11 * 60_000;
    rail.chain.blockTime = clock.t / 1000;
    assert.equal((await gate.handle(call(p, { client: 'onlooker' }))).kind, 'deliver', 'the window passes');
    assert.equal(rail.settled.length, 1, 'never settled again');
  });

  test('an identifier too simple to be a secret is not a proof: the buyer is told to sign in', async () => {
    const p = await sign('1234567890123456');
    assert.equal((await gate.handle(call(p))).kind, 'deliver');
    const again = await gate.handle(call(p));
    assert.equal((again as { code: string }).code, 'redelivery_proof_required');
    assert.match((again as { message: string }).message, /too short or too simple to be a secret/);
    assert.equal((await gate.handle(call(fromChain(p), { signIn: await signIn(again) }))).kind, 'deliver');
  });

  test('a sign-in by the payer over our fresh challenge is the proof when no identifier was sent', async () => {
    const p = await sign(null);
    await gate.handle(call(p));
    const challenge = await gate.handle(call(fromChain(p)));
    assert.equal((challenge as { code: string }).code, 'redelivery_proof_required');
    const header = await signIn(challenge);
    const got = await gate.handle(call(fromChain(p), { signIn: header }));
    assert.equal(got.kind, 'deliver');
    assert.equal((got as { replayed: boolean }).replayed, true);
  });

  test('a sign-in proves nothing when made by another key, for another resource, on a nonce we did not issue, or too late', async () => {
    const p = await sign(null);
    await gate.handle(call(p));
    const challenge = await gate.handle(call(fromChain(p)));
    const byOther = await signIn(challenge, OTHER);
    const otherUrl = 'http://127.0.0.1:8402/x402/v1/data-compatibility-checker';
    const forOther = await gate.handle(call(fromChain(p), { resourceUrl: otherUrl }));
    const otherResourceSignIn = await signIn(forOther, BUYER, otherUrl);
    const ext = (challenge as { paymentRequired: PaymentRequired }).paymentRequired.extensions![SIGN_IN_WITH_X] as { info: Record<string, string> };
    const forged = await signIn({ ...challenge, paymentRequired: { ...(challenge as { paymentRequired: PaymentRequired }).paymentRequired, extensions: { [SIGN_IN_WITH_X]: { ...ext, info: { ...ext.info, nonce: 'a'.repeat(32) }, supportedChains: [{ chainId: 'eip155:31337', type: 'eip191' }] } } } } as GateOutcome);
    for (const [name, header] of [['another key', byOther], ['another resource', otherResourceSignIn], ['a nonce we did not issue', forged], ['not base64 JSON', '%%%']] as const) {
      const o = await gate.handle(call(fromChain(p), { signIn: header }));
      assert.equal((o as { code: string }).code, 'redelivery_proof_required', name);
    }
    const fresh = await signIn(await gate.handle(call(fromChain(p))));
    clock.t += 6 * 60_000;
    rail.chain.blockTime = clock.t / 1000;
    assert.equal(((await gate.handle(call(fromChain(p), { signIn: fresh }))) as { code: string }).code, 'redelivery_proof_required', 'expired challenge');
  });
});

describe('sign in, get what you paid for: no payment header', () => {
  const unpaid = (over: Partial<PaidCall> = {}) => call(undefined as never, over);
  const code = (o: GateOutcome) => (o as { code: string }).code;

  test('the payer signs in over any 402 of the resource and gets the stored result of the same request, once per sign-in, never charged again', async () => {
    const p = await sign(null);
    const first = await gate.handle(call(p));
    assert.equal(first.kind, 'deliver');
    const header = await signIn(await gate.handle(unpaid()));
    const got = await gate.handle(unpaid({ signIn: header }));
    assert.equal(got.kind, 'deliver');
    assert.equal((got as { replayed: boolean }).replayed, true);
    assert.deepEqual((got as { response: unknown }).response, (first as { response: unknown }).response);
    assert.deepEqual((got as { paymentResponse: unknown }).paymentResponse, (first as { paymentResponse: unknown }).paymentResponse, 'the same receipt');
    const replayed = await gate.handle(unpaid({ signIn: header }));
    assert.equal(code(replayed), 'payment_required', 'a sign-in is used once');
    assert.match((replayed as { message: string }).message, /already used/);
    assert.equal((await gate.handle(unpaid({ signIn: await signIn(await gate.handle(unpaid())) }))).kind, 'deliver', 'a new sign-in, again');
    assert.equal(rail.settled.length, 1, 'never settled again');
  });

  test('another wallet, another body, another resource or an expired sign-in get the ordinary 402, and spend nothing', async () => {
    const p = await sign(null);
    await gate.handle(call(p));
    const challenge = await gate.handle(unpaid());
    assert.equal(code(await gate.handle(unpaid({ signIn: await signIn(challenge, OTHER) }))), 'payment_required', 'another wallet');
    const mine = await signIn(challenge);
    assert.equal(code(await gate.handle(unpaid({ signIn: mine, fingerprint: 'fp-another-body' }))), 'payment_required', 'another body: a sign-in is not a licence for new work');
    const otherUrl = 'http://127.0.0.1:8402/x402/v1/data-compatibility-checker';
    assert.equal(code(await gate.handle(unpaid({ signIn: mine, resource: 'checker', resourceUrl: otherUrl }))), 'payment_required', 'another resource');
    assert.equal(code(await gate.handle(unpaid({ signIn: mine, resource: 'checker' }))), 'payment_required', 'another resource at the same URL');
    // None of those spent it: the payer's sign-in still works, once.
    assert.equal((await gate.handle(unpaid({ signIn: mine }))).kind, 'deliver');
    const late = await signIn(await gate.handle(unpaid()));
    clock.t += 6 * 60_000;
    rail.chain.blockTime = clock.t / 1000;
    const expired = await gate.handle(unpaid({ signIn: late }));
    assert.equal(code(expired), 'payment_required');
    assert.match((expired as { message: string }).message, /expired/);
    assert.equal(rail.verified.length, 1, 'nothing verified, run or settled for a sign-in');
    assert.equal(rail.settled.length, 1);
  });

  test('a payment whose settlement is not known yet: in progress, and the sign-in is kept for later', async () => {
    const p = await sign('pay_' + randomBytes(16).toString('hex'));
    rail.settleAnswers.push({ kind: 'unknown', message: 'timeout' });
    assert.equal((await gate.handle(call(p))).kind, 'refuse');
    const header = await signIn(await gate.handle(unpaid()));
    const pending = await gate.handle(unpaid({ signIn: header }));
    assert.equal(code(pending), 'payment_in_progress');
    assert.equal(rail.settled.length, 1, 'a sign-in drives nothing');
    // The buyer's own retry settles it; the same sign-in then gets the result.
    clock.t += 21_000;
    rail.chain.blockTime = clock.t / 1000;
    assert.equal((await gate.handle(call(p))).kind, 'deliver');
    assert.equal((await gate.handle(unpaid({ signIn: header }))).kind, 'deliver');
  });

  test('with a signed offer past its validUntil, a sign-in that gets nothing is told the offer expired, as an unpaid call is', async () => {
    const p = await sign(null);
    const validUntil = Math.floor(clock.t / 1000) + 60;
    await gate.handle(call(p, { offerValidUntil: validUntil }));
    const header = await signIn(await gate.handle(unpaid()), OTHER);
    clock.t += 120_000;
    rail.chain.blockTime = clock.t / 1000;
    const o = await gate.handle(unpaid({ signIn: header, offerValidUntil: validUntil }));
    assert.equal(code(o), 'invalid_request');
    assert.match((o as { message: string }).message, /offer expired/);
    // The payer's own sign-in gets what it paid for, at the price the offer held.
    assert.equal((await gate.handle(unpaid({ signIn: await signIn(await gate.handle(unpaid())), offerValidUntil: validUntil }))).kind, 'deliver');
  });

  test('a failed payment is nothing to get again', async () => {
    const p = await sign(null);
    rail.verifyAnswers.push({ kind: 'invalid', reason: 'insufficient_funds', message: 'no funds' });
    assert.equal((await gate.handle(call(p))).kind, 'challenge');
    assert.equal(code(await gate.handle(unpaid({ signIn: await signIn(await gate.handle(unpaid())) }))), 'payment_required');
  });
});

describe('an expired signed offer prices only what was bound before it expired', () => {
  test('a new authorization after validUntil is refused before anything is written or sent', async () => {
    const validUntil = Math.floor(clock.t / 1000) - 1;
    const p = await sign('pay_' + randomBytes(16).toString('hex'));
    const o = await gate.handle(call(p, { offerValidUntil: validUntil }));
    assert.equal(o.kind, 'refuse');
    assert.equal((o as { code: string }).code, 'invalid_request');
    assert.equal(rail.verified.length + rail.settled.length, 0);
    assert.deepEqual((await ledger.summary()).byState.reserved + (await ledger.summary()).byState.settled, 0);
  });

  test('an authorization bound while the offer held is redelivered after it expired', async () => {
    const validUntil = Math.floor(clock.t / 1000) + 60;
    const p = await sign('pay_' + randomBytes(16).toString('hex'));
    assert.equal((await gate.handle(call(p, { offerValidUntil: validUntil }))).kind, 'deliver');
    clock.t += 120_000;
    rail.chain.blockTime = clock.t / 1000;
    assert.equal((await gate.handle(call(p, { offerValidUntil: validUntil }))).kind, 'deliver');
  });
});
