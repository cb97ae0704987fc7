/**
 * MPP's alternate credential field, Payment-Authorization (draft-httpauth-payment,
 * the challenge's `header` auth-param), on the devnet from outside the
 * process: a request whose Authorization holds another scheme (a proxy's
 * Bearer) gets a challenge selecting Payment-Authorization; mppx's own client
 * sends its credential there, keeps the Bearer, pays and is delivered once;
 * replayed, the credential gets what a replayed Authorization: Payment gets;
 * a credential in the field its challenge did not select is refused; two
 * different credentials (or one beside PAYMENT-SIGNATURE) get 400 with
 * nothing verified or charged; CORS lets a browser send the field.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Challenge, Receipt } from 'mppx';
import { Mppx } from 'mppx/client';
import { charge } from 'mppx/evm/client';
import { privateKeyToAccount } from 'viem/accounts';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, decodePaymentResponseHeader, postJson, signFor, startRig, transferLogs, type Rig } from './support/harness.js';

const MPP_SECRET_KEY = 'test-mpp-alternate-field-0123456789abcdef';
/** What a proxy in front of the service authenticates with: it stays in Authorization. */
const PROXY_AUTH = 'Bearer proxy-token-0123';

describe('MPP credentials in Payment-Authorization, on the devnet', () => {
  let rig: Rig;
  let url: string;
  /** mppx's EVM charge client for one of the devnet's buyers (the test's own, so balances are its alone). */
  const method = () => charge({ account: privateKeyToAccount(rig.devnet.buyers[1]!.privateKey), authorization: { name: rig.devnet.assetName, version: rig.devnet.assetVersion } });
  const buyer = () => privateKeyToAccount(rig.devnet.buyers[1]!.privateKey).address;
  before(async () => {
    rig = await startRig({ env: { MPP_SECRET_KEY } });
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());

  /** A fresh challenge for `body` from a 402 answered to a request carrying `headers`, and mppx's credential for it. */
  async function credentialFor(body: unknown, headers: Record<string, string> = {}): Promise<{ challenge: Challenge.Challenge; credential: string }> {
    const res = await postJson(url, body, headers);
    assert.equal(res.status, 402);
    const challenge = Challenge.fromResponse(res);
    return { challenge, credential: await method().createCredential({ challenge: challenge as never, context: {} }) };
  }

  /** What the chain and the facilitator show, to compare before and after. */
  async function state() {
    return { buyer: await balanceOf(rig.devnet, buyer()), payee: await balanceOf(rig.devnet, rig.devnet.payTo), transfers: (await transferLogs(rig.devnet)).length, calls: { ...rig.proxy.calls } };
  }

  test('the 402 selects Payment-Authorization only when Authorization holds another scheme (or the field came); the discovery 402 too', async () => {
    const plain = Challenge.fromResponse(await postJson(url, BLACK_ON_WHITE));
    assert.equal(plain.header, undefined, 'by default the credential goes in Authorization');
    const behindProxy = await postJson(url, BLACK_ON_WHITE, { Authorization: PROXY_AUTH });
    assert.match(behindProxy.headers.get('www-authenticate') ?? '', /, header="Payment-Authorization", /);
    const selecting = Challenge.fromResponse(behindProxy);
    assert.equal(Challenge.credentialHeader(selecting), 'Payment-Authorization');
    assert.ok(Challenge.verify(selecting, { secretKey: MPP_SECRET_KEY }), 'the selection is bound into the id');
    assert.ok(behindProxy.headers.get('payment-required'), 'x402 is offered as before');
    const probe = await fetch(url, { method: 'POST', headers: { Authorization: PROXY_AUTH } });
    assert.equal(probe.status, 402);
    assert.equal(Challenge.fromResponse(probe).header, 'Payment-Authorization');
    // A browser may send it across origins.
    const preflight = await fetch(url, { method: 'OPTIONS', headers: { Origin: 'https://agent.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'payment-authorization' } });
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /(^|,)\s*Payment-Authorization\s*(,|$)/i);
  });

  test('mppx\'s client behind a proxy\'s Authorization pays in Payment-Authorization: 200, one transfer; the credential replayed gets what a replayed Authorization: Payment gets', async () => {
    const body = { foreground: '#112233', background: '#ffffff', large_text: false };
    const before = await state();
    const sent: Headers[] = [];
    const recording = (input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
      return fetch(input, init);
    };
    const mppx = Mppx.create({ methods: [method()], polyfill: false, fetch: recording as typeof fetch });
    const res = await mppx.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', Authorization: PROXY_AUTH }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.clone().text());
    const paidRequest = sent.at(-1)!;
    assert.equal(paidRequest.get('authorization'), PROXY_AUTH, 'the proxy\'s credential stays where it was');
    const credential = paidRequest.get('payment-authorization');
    assert.match(credential ?? '', /^Payment /);
    const bytes = await res.text();
    assert.equal(JSON.parse(bytes).contrast_ratio > 1, true);
    assert.equal(res.headers.get('x-payment-replayed'), 'false');
    const receipt = Receipt.fromResponse(res);
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    assert.equal(receipt.reference, settled.transaction);
    const after = await state();
    assert.equal(after.transfers - before.transfers, 1, 'one transfer');
    assert.equal(before.buyer - after.buyer, 1000n);
    assert.equal(after.payee - before.payee, 1000n);
    assert.equal(after.calls.settle - before.calls.settle, 1);

    // Replayed in Payment-Authorization: its challenge is its proof, the stored result and no second transfer.
    const replay = await postJson(url, body, { Authorization: PROXY_AUTH, 'Payment-Authorization': credential! });
    // The same authorization paid through Authorization: Payment, then replayed there, for comparison.
    const other = { foreground: '#223344', background: '#ffffff', large_text: false };
    const viaAuthorization = (await credentialFor(other)).credential;
    const first = await postJson(url, other, { Authorization: viaAuthorization });
    assert.equal(first.status, 200);
    const firstBytes = await first.text();
    const replayedThere = await postJson(url, other, { Authorization: viaAuthorization });
    const shape = async (r: Response, expected: string) => ({
      status: r.status,
      replayed: r.headers.get('x-payment-replayed'),
      receipt: Receipt.deserialize(r.headers.get('payment-receipt')!).status,
      sameBytes: (await r.text()) === expected,
    });
    const want = await shape(replayedThere, firstBytes);
    assert.deepEqual(want, { status: 200, replayed: 'true', receipt: 'success', sameBytes: true });
    assert.deepEqual(await shape(replay, bytes), want);
    assert.equal((await transferLogs(rig.devnet)).length - after.transfers, 1, 'only the comparison payment transferred');
  });

  test('the same credential in both fields is one credential: it pays once', async () => {
    const body = { foreground: '#334455', background: '#ffffff', large_text: false };
    const { credential } = await credentialFor(body, { Authorization: PROXY_AUTH });
    const before = await state();
    const res = await postJson(url, body, { Authorization: credential, 'Payment-Authorization': credential });
    assert.equal(res.status, 200, await res.clone().text());
    const after = await state();
    assert.equal(after.transfers - before.transfers, 1);
    assert.equal(before.buyer - after.buyer, 1000n);
  });

  test('two different credentials, or one beside PAYMENT-SIGNATURE: 400 invalid_payment_header, nothing verified or charged', async () => {
    const body = { foreground: '#445566', background: '#ffffff', large_text: false };
    const inPaymentAuthorization = (await credentialFor(body, { Authorization: PROXY_AUTH })).credential;
    const inAuthorization = (await credentialFor(body)).credential;
    const x402 = (await signFor(url, body, rig.devnet, { buyer: rig.devnet.buyers[1]! })).header;
    const before = await state();
    const cases: Array<[string, Record<string, string>, string]> = [
      ['different credentials in the two fields', { Authorization: inAuthorization, 'Payment-Authorization': inPaymentAuthorization }, 'one-mpp-credential'],
      ['two credentials in Payment-Authorization', { 'Payment-Authorization': `${inPaymentAuthorization}, ${inAuthorization}` }, 'one-mpp-credential'],
      ['Payment-Authorization beside PAYMENT-SIGNATURE', { 'Payment-Authorization': inPaymentAuthorization, 'PAYMENT-SIGNATURE': x402 }, 'one-payment-protocol'],
    ];
    for (const [name, headers, rule] of cases) {
      const res = await postJson(url, body, headers);
      assert.equal(res.status, 400, name);
      const err = (await res.json()) as { error: { code: string; details: Array<{ rule: string }> } };
      assert.equal(err.error.code, 'invalid_payment_header', name);
      assert.equal(err.error.details[0]!.rule, rule, name);
    }
    assert.deepEqual(await state(), before, 'the facilitator never asked, the chain unchanged');
    // Each credential alone, in its own field, still pays (nothing was bound by the refusals): one transfer.
    const paid = await postJson(url, body, { Authorization: PROXY_AUTH, 'Payment-Authorization': inPaymentAuthorization });
    assert.equal(paid.status, 200);
    assert.equal((await transferLogs(rig.devnet)).length - before.transfers, 1);
  });

  test('a credential in the field its challenge did not select gets the draft\'s invalid-challenge 402, nothing sent or charged', async () => {
    const body = { foreground: '#556677', background: '#ffffff', large_text: false };
    const selecting = (await credentialFor(body, { Authorization: PROXY_AUTH })).credential;
    const plain = (await credentialFor(body)).credential;
    const before = await state();
    for (const [name, headers, fresh] of [
      ['a Payment-Authorization challenge\'s credential in Authorization', { Authorization: selecting }, undefined],
      ['a default challenge\'s credential in Payment-Authorization', { 'Payment-Authorization': plain }, 'Payment-Authorization'],
    ] as const) {
      const res = await postJson(url, body, headers);
      assert.equal(res.status, 402, name);
      assert.equal(res.headers.get('content-type'), 'application/problem+json', name);
      const problem = (await res.json()) as { type: string; detail: string; error: { code: string } };
      assert.equal(problem.type, 'https://paymentauth.org/problems/invalid-challenge', name);
      assert.equal(problem.error.code, 'payment_invalid', name);
      assert.match(problem.detail, /counts only there/, name);
      assert.equal(Challenge.fromResponse(res).header, fresh, `${name}: a fresh challenge for the field the request uses`);
    }
    assert.deepEqual(await state(), before);
  });
});
