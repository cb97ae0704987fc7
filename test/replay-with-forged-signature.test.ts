/**
 * Attack: after one paid call settles, payer and nonce are public (the
 * AuthorizationUsed event, the transaction's calldata). Anyone who knows the
 * request body builds a PAYMENT-SIGNATURE with that payer and nonce and a
 * garbage, missing, malleated or re-dated signature, and asks for the stored
 * result. Only the exact signed authorization that was bound may get it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BLACK_ON_WHITE, CONTRAST, decodePaymentRequiredHeader, encodePaymentSignatureHeader, postJson, signFor, startRig, type PaymentPayload, type Rig } from './support/harness.js';
import { signAuthorization } from './support/sign.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function withAuth(p: PaymentPayload, edit: (inner: { signature?: string; authorization: Record<string, string> }) => void): string {
  const copy = JSON.parse(JSON.stringify(p)) as PaymentPayload;
  edit(copy.payload as { signature?: string; authorization: Record<string, string> });
  return encodePaymentSignatureHeader(copy);
}

describe('replaying a settled payment without its signature', () => {
  let rig: Rig;
  let url: string;
  let payload: PaymentPayload;
  let header: string;
  const body = { foreground: '#0a0b0c', background: '#ffffff', large_text: false };
  before(async () => {
    rig = await startRig();
    url = rig.service.url + CONTRAST;
    ({ header, payload } = await signFor(url, body, rig.devnet));
    const first = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(first.status, 200);
  });
  after(async () => rig?.close());

  const forgeries: Array<[string, (i: { signature?: string; authorization: Record<string, string> }) => void]> = [
    ['a garbage signature', (i) => (i.signature = '0x' + '11'.repeat(65))],
    ['a zero signature', (i) => (i.signature = '0x' + '00'.repeat(65))],
    ['no signature', (i) => delete i.signature],
    ['an empty signature', (i) => (i.signature = '0x')],
    ['a made-up validBefore', (i) => (i.authorization.validBefore = String(Number(i.authorization.validBefore) + 60))],
    ['a made-up validAfter', (i) => (i.authorization.validAfter = String(Number(i.authorization.validAfter) + 1))],
    [
      'a malleated signature (s → n − s, v flipped: recovers to the same payer)',
      (i) => {
        const sig = i.signature!;
        const r = sig.slice(2, 66);
        const s = BigInt('0x' + sig.slice(66, 130));
        const v = parseInt(sig.slice(130, 132), 16);
        i.signature = '0x' + r + (N - s).toString(16).padStart(64, '0') + (v === 27 ? '1c' : '1b');
      },
    ],
  ];

  for (const [name, edit] of forgeries) {
    test(`${name}: no result bytes, the facilitator is never asked`, async () => {
      const calls = { ...rig.proxy.calls };
      const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': withAuth(payload, edit) });
      // Whatever it claims, any signature other than the bound one gets 402 payment_invalid (README, "Replay only with proof").
      assert.equal(res.status, 402);
      const json = await res.json();
      assert.equal(json.problem.code, 'payment_invalid');
      assert.equal(json.contrast_ratio, undefined, 'no result in the body');
      assert.equal(res.headers.get('payment-response'), null, 'no receipt');
      assert.deepEqual(rig.proxy.calls, calls);
    });
  }

  test('the same payer signing a second authorization with the bound nonce gets no result', async () => {
    const req = decodePaymentRequiredHeader((await postJson(url, body)).headers.get('payment-required')!).accepts[0]!;
    const nonce = (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce;
    const other = await signAuthorization(rig.devnet.buyer, req, { nonce, validBefore: BigInt(Math.floor(Date.now() / 1000) + 200) });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(other) });
    assert.equal(res.status, 402);
    assert.equal((await res.json()).contrast_ratio, undefined);
  });

  test('the exact bound PAYMENT-SIGNATURE still gets the stored result', async () => {
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-payment-replayed'), 'true');
    assert.equal((await res.json()).contrast_ratio !== undefined, true);
  });

  test('payment-identifier: a stolen authorization with an attached identifier gets nothing', async () => {
    // The extension is not signed: re-using someone's settled authorization under a new id must not unlock anything.
    const ext = { 'payment-identifier': { info: { required: false, id: 'pay_' + 'b'.repeat(28) } } };
    const first = await signFor(url, BLACK_ON_WHITE, rig.devnet, { extensions: ext });
    assert.equal((await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': first.header })).status, 200);
    const stolen = JSON.parse(JSON.stringify(payload)) as PaymentPayload;
    stolen.extensions = ext;
    (stolen.payload as { signature: string }).signature = '0x' + '22'.repeat(65);
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(stolen) });
    assert.equal(res.status, 402);
    assert.equal((await res.json()).contrast_ratio, undefined);
  });
});
