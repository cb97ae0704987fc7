/**
 * MPP's challenge and credential, against mppx itself: the challenges we
 * build by hand are ones mppx reads, verifies and hashes as we do; each is
 * unique; a credential maps to the x402 payload the gate takes only when it
 * answers our challenge for this route and price exactly; and the challenge
 * is a redelivery proof that cannot be rebuilt from the chain.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Challenge, Credential, evm } from 'mppx';
import { Mppx } from 'mppx/client';
import { charge } from 'mppx/evm/client';
import { privateKeyToAccount } from 'viem/accounts';
import { keccak256, toHex } from 'viem';
import { MppCharge, PAYMENT_AUTHORIZATION, credentialFromHeader, credentialFromObject, paymentScheme, paymentSchemes, type MppChallenge } from './mpp.js';
import { RedeliveryGuard } from './redelivery.js';
import { SignInWithX } from './sign-in.js';
import type { PaymentPayload, PaymentRequirements } from './rail.js';

const SECRET = 'unit-test-mpp-secret-0123456789abcdef';
const PAYER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const TERMS = { network: 'eip155:8453', payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', asset: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 }, maxTimeoutSeconds: 300 };
const URL_A = 'https://api.example/x402/v1/accessibility-contrast-calculator';
const URL_B = 'https://api.example/x402/v1/data-compatibility-checker';
const PRICE = '1000';
const REQUIREMENTS: PaymentRequirements[] = [
  { scheme: 'exact', network: 'eip155:8453', amount: PRICE, asset: TERMS.asset.address, payTo: TERMS.payTo, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } } as PaymentRequirements,
];

const mppxClient = charge({ account: PAYER, authorization: { name: 'USD Coin', version: '2' } });
async function signed(challenge: MppChallenge) {
  return credentialFromHeader(await mppxClient.createCredential({ challenge: challenge as never, context: {} }))!;
}

describe('MPP challenges', () => {
  test('mppx reads our WWW-Authenticate value, verifies its id with the secret and hashes it as the object we keep', () => {
    const mpp = new MppCharge(SECRET, TERMS);
    const issued = mpp.issue(URL_A, PRICE);
    const parsed = Challenge.deserialize(issued.header);
    assert.deepEqual(parsed, issued.challenge);
    assert.ok(Challenge.verify(parsed, { secretKey: SECRET }));
    assert.equal(Challenge.verify(parsed, { secretKey: SECRET + 'x' }), false);
    assert.equal(evm.challengeHash(parsed), evm.challengeHash(issued.challenge));
    assert.deepEqual(parsed.request, { amount: PRICE, currency: TERMS.asset.address, methodDetails: { chainId: 8453, credentialTypes: ['authorization'], decimals: 6 }, recipient: TERMS.payTo });
    assert.equal(parsed.realm, 'api.example');
    assert.ok(Date.parse(parsed.expires!) > Date.now() + 290_000);
  });

  test('a challenge selecting Payment-Authorization: mppx reads the field, verifies the id bound to it, and its client sends the credential there', async () => {
    const mpp = new MppCharge(SECRET, TERMS);
    const issued = mpp.issue(URL_A, PRICE, PAYMENT_AUTHORIZATION);
    assert.match(issued.header, / header="Payment-Authorization", opaque="/);
    const parsed = Challenge.deserialize(issued.header);
    assert.deepEqual(parsed, issued.challenge);
    assert.equal(Challenge.credentialHeader(parsed), 'Payment-Authorization');
    assert.ok(Challenge.verify(parsed, { secretKey: SECRET }));
    // The selection is bound: the same challenge without it (or with it added to a default one) does not verify.
    const { header: _dropped, ...without } = parsed;
    assert.equal(Challenge.verify(without as MppChallenge, { secretKey: SECRET }), false);
    const plain = Challenge.deserialize(mpp.issue(URL_A, PRICE).header);
    assert.equal(plain.header, undefined);
    assert.equal(Challenge.verify({ ...plain, header: PAYMENT_AUTHORIZATION }, { secretKey: SECRET }), false);
    // mppx's own HTTP client attaches the credential to the selected field and leaves another Authorization as it is.
    const sent: Headers[] = [];
    const fetchStub = async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      sent.push(headers);
      return sent.length === 1 ? new Response(null, { status: 402, headers: { 'WWW-Authenticate': issued.header } }) : new Response('{}', { status: 200 });
    };
    const client = Mppx.create({ methods: [mppxClient], polyfill: false, fetch: fetchStub as typeof fetch });
    await client.fetch(URL_A, { method: 'POST', headers: { Authorization: 'Bearer proxy-token' }, body: '{}' });
    assert.equal(sent.length, 2);
    assert.equal(sent[1]!.get('authorization'), 'Bearer proxy-token');
    const credential = credentialFromHeader(sent[1]!.get('payment-authorization')!)!;
    assert.equal(credential.challenge.header, PAYMENT_AUTHORIZATION);
    assert.ok(mpp.admit(credential, URL_A, PRICE, REQUIREMENTS, PAYMENT_AUTHORIZATION).ok);
  });

  test('every 402 gets a challenge of its own, within one second and across instances sharing the secret', () => {
    const a = new MppCharge(SECRET, TERMS, () => 1_800_000_000_000);
    const b = new MppCharge(SECRET, TERMS, () => 1_800_000_000_000);
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(a.issue(URL_A, PRICE).challenge.id);
    for (let i = 0; i < 1000; i++) ids.add(b.issue(URL_A, PRICE).challenge.id);
    assert.equal(ids.size, 2000);
  });

  test('what is kept per resource and price is bounded (Host headers are caller-controlled)', () => {
    const mpp = new MppCharge(SECRET, TERMS);
    for (let i = 0; i < 300; i++) mpp.issue(`https://h${i}.example/x`, PRICE);
    assert.ok(Challenge.verify(Challenge.deserialize(mpp.issue(URL_A, PRICE).header), { secretKey: SECRET }));
  });

  test('headerBytes bounds every challenge\'s header for a resource, price and credential field', () => {
    const mpp = new MppCharge(SECRET, TERMS);
    const bound = mpp.headerBytes(URL_A, PRICE);
    const selecting = mpp.headerBytes(URL_A, PRICE, PAYMENT_AUTHORIZATION);
    for (let i = 0; i < 2000; i++) {
      assert.ok(mpp.issue(URL_A, PRICE).header.length <= bound);
      assert.ok(mpp.issue(URL_A, PRICE, PAYMENT_AUTHORIZATION).header.length <= selecting);
    }
    assert.equal(mpp.headerBytes(URL_A, PRICE), bound);
    assert.equal(mpp.headerBytes(URL_A, PRICE, PAYMENT_AUTHORIZATION), selecting);
    assert.ok(selecting > bound);
  });

  test('the secret must be at least 32 bytes', () => {
    assert.throws(() => new MppCharge('short', TERMS));
  });

  test('only the Payment scheme of an Authorization value is read', () => {
    assert.equal(paymentScheme(undefined), undefined);
    assert.equal(paymentScheme('Bearer abc'), undefined);
    assert.equal(paymentScheme('Bearer abc, Payment eyJ4'), 'Payment eyJ4');
    assert.equal(credentialFromHeader('Payment not-json'), undefined);
    assert.equal(credentialFromHeader('Payment ' + 'e'.repeat(20_000)), undefined, 'bounded before decoding');
    assert.equal(credentialFromObject({ challenge: 1 }), undefined);
    assert.equal(credentialFromObject({ challenge: 1, payload: {} }), undefined);
    assert.equal(credentialFromObject(null), undefined);
    assert.deepEqual(paymentSchemes(undefined), []);
    assert.deepEqual(paymentSchemes('Bearer abc'), []);
    assert.deepEqual(paymentSchemes('Payment eyJh, payment  eyJi'), ['Payment eyJh', 'payment  eyJi'], 'a field sent twice arrives joined');
  });
});

describe('MPP credentials', () => {
  test('mppx\'s credential for our challenge becomes the x402 exact payload of the same authorization', async () => {
    const mpp = new MppCharge(SECRET, TERMS);
    const { challenge } = mpp.issue(URL_A, PRICE);
    const credential = await signed(challenge);
    const r = mpp.admit(credential, URL_A, PRICE, REQUIREMENTS);
    assert.ok(r.ok);
    const p = credential.payload as Record<string, string>;
    assert.deepEqual(r.payment, {
      x402Version: 2,
      accepted: REQUIREMENTS[0],
      payload: { signature: p.signature, authorization: { from: p.from, to: p.to, value: PRICE, validAfter: p.validAfter, validBefore: p.validBefore, nonce: evm.challengeHash(challenge) } },
    } as unknown as PaymentPayload);
    // The MCP form (the credential as an object) reads the same.
    assert.deepEqual(credentialFromObject(JSON.parse(JSON.stringify(credential))), credential);
  });

  test('a credential that does not answer this route\'s current challenge exactly is refused with the draft\'s problem', async () => {
    const mpp = new MppCharge(SECRET, TERMS);
    const { challenge } = mpp.issue(URL_A, PRICE);
    const good = await signed(challenge);
    const other = new MppCharge(SECRET + '-other', TERMS).issue(URL_A, PRICE).challenge;
    const cases: Array<[string, Parameters<MppCharge['admit']>[0], string, string, string]> = [
      ['another route', good, URL_B, PRICE, 'invalidChallenge'],
      ['another price now', good, URL_A, '2000', 'invalidChallenge'],
      ['another service\'s secret', await signed(other), URL_A, PRICE, 'invalidChallenge'],
      ['request edited', { ...good, challenge: { ...challenge, request: { ...challenge.request, amount: '1' } } }, URL_A, PRICE, 'invalidChallenge'],
      ['method', { ...good, challenge: { ...challenge, method: 'tempo' } }, URL_A, PRICE, 'methodUnsupported'],
      ['nonce is not the hash', { ...good, payload: { ...(good.payload as object), nonce: keccak256(toHex('x')) } }, URL_A, PRICE, 'verificationFailed'],
      ['pays someone else', { ...good, payload: { ...(good.payload as object), to: PAYER.address } }, URL_A, PRICE, 'verificationFailed'],
      ['outlives its challenge', { ...good, payload: { ...(good.payload as object), validBefore: String(Math.floor(Date.parse(challenge.expires!) / 1000) + 1) } }, URL_A, PRICE, 'verificationFailed'],
      ['not an authorization', { ...good, payload: { type: 'transaction', signature: '0x00' } }, URL_A, PRICE, 'malformed'],
      ['no payload', { ...good, payload: null }, URL_A, PRICE, 'malformed'],
      ['from is not an address', { ...good, payload: { ...(good.payload as object), from: '0x1234' } }, URL_A, PRICE, 'malformed'],
      ['value is not a uint', { ...good, payload: { ...(good.payload as object), value: '-1' } }, URL_A, PRICE, 'malformed'],
      ['nonce is not 32 bytes', { ...good, payload: { ...(good.payload as object), nonce: '0x12' } }, URL_A, PRICE, 'malformed'],
      ['signature is not hex', { ...good, payload: { ...(good.payload as object), signature: 'abc' } }, URL_A, PRICE, 'malformed'],
      ['id of another length', { ...good, challenge: { ...challenge, id: 'short' } }, URL_A, PRICE, 'invalidChallenge'],
      ['source of another payer', { ...good, source: 'did:pkh:eip155:8453:0x0000000000000000000000000000000000000001' }, URL_A, PRICE, 'verificationFailed'],
    ];
    for (const [name, credential, url, price, problem] of cases) {
      const r = mpp.admit(credential, url, price, REQUIREMENTS);
      assert.equal(r.ok, false, name);
      if (!r.ok) assert.equal(r.problem, problem, name);
    }
    const none = mpp.admit(good, URL_A, PRICE, []);
    assert.ok(!none.ok && none.problem === 'invalidChallenge', 'no requirements to pay');
  });

  test('a credential counts only in the field its challenge selected', async () => {
    const mpp = new MppCharge(SECRET, TERMS);
    const plain = await signed(mpp.issue(URL_A, PRICE).challenge);
    const selecting = await signed(mpp.issue(URL_A, PRICE, PAYMENT_AUTHORIZATION).challenge);
    assert.ok(mpp.admit(plain, URL_A, PRICE, REQUIREMENTS, 'Authorization').ok);
    assert.ok(mpp.admit(plain, URL_A, PRICE, REQUIREMENTS).ok, 'MCP\'s _meta: the default');
    assert.ok(mpp.admit(selecting, URL_A, PRICE, REQUIREMENTS, PAYMENT_AUTHORIZATION).ok);
    for (const [name, credential, field] of [
      ['default challenge in Payment-Authorization', plain, PAYMENT_AUTHORIZATION],
      ['Payment-Authorization challenge in Authorization', selecting, 'Authorization'],
      ['Payment-Authorization challenge over MCP', selecting, undefined],
    ] as const) {
      const r = mpp.admit(credential, URL_A, PRICE, REQUIREMENTS, field);
      assert.ok(!r.ok && r.problem === 'invalidChallenge', name);
      assert.match(!r.ok ? r.message : '', /counts only there/, name);
    }
  });
});

describe('RedeliveryGuard: the MPP challenge as proof', () => {
  const attempt = (nonce: string) => ({ id: 'a1', network: 'eip155:8453', payer: PAYER.address.toLowerCase(), paymentKey: null, nonce });
  const payment = { x402Version: 2 } as unknown as PaymentPayload;

  test('the challenge the authorization was signed for proves the buyer, even after it expired', async () => {
    let now = Date.now();
    const mpp = new MppCharge(SECRET, TERMS, () => now);
    const guard = new RedeliveryGuard(new SignInWithX('eip155:8453'), async () => true, mpp);
    const { challenge } = mpp.issue(URL_A, PRICE);
    now += 3600_000;
    assert.equal((await guard.check(attempt(evm.challengeHash(challenge)), { payment, mppChallenge: challenge, client: 'c' }, URL_A, now)).kind, 'proven');
  });

  test('what the chain shows (the nonce) rebuilds no proof: another of our challenges, a forged id, or MPP off prove nothing', async () => {
    const mpp = new MppCharge(SECRET, TERMS);
    const guard = new RedeliveryGuard(new SignInWithX('eip155:8453'), async () => true, mpp);
    const { challenge } = mpp.issue(URL_A, PRICE);
    const nonce = evm.challengeHash(challenge);
    const another = mpp.issue(URL_A, PRICE).challenge;
    assert.equal((await guard.check(attempt(nonce), { payment, mppChallenge: another, client: 'c' }, URL_A, Date.now())).kind, 'unproven');
    const forged = { ...challenge, id: 'A'.repeat(43) };
    assert.equal((await guard.check(attempt(evm.challengeHash(forged)), { payment, mppChallenge: forged, client: 'c' }, URL_A, Date.now())).kind, 'unproven');
    const off = new RedeliveryGuard(new SignInWithX('eip155:8453'), async () => true);
    assert.equal((await off.check(attempt(nonce), { payment, mppChallenge: challenge, client: 'c' }, URL_A, Date.now())).kind, 'unproven');
    // Sanity: the serialized credential carries the challenge whole (what the guard is given).
    assert.equal(Credential.deserialize(Credential.serialize({ challenge, payload: {} })).challenge.id, challenge.id);
  });
});
