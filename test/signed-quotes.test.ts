/**
 * Signed quotes and signed composite steps on the devnet, paid with the
 * official x402 client: every quote step carries an x402 offer-receipt offer
 * with validUntil, bound to the canonical native body; paying that route with
 * that body and the offer in X-Signed-Offer is charged the signed amount, even
 * when it differs from the current price; a wrong body or an expired offer is
 * refused with 400 before any payment. The composite's evidence carries each
 * step's signed commitment, and its receipt binds the whole body.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { verifyOfferSignatureEIP712 } from '@x402/extensions/offer-receipt';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createCommitmentSigner } from '../src/commitments/signer.js';
import { verifyQuoteOffer, verifyReceipt, verifyStep } from '../src/commitments/verify.js';
import { canonicalJson, sha256Hex } from '../src/foundation/canonical-json.js';
import { entryPrice } from '../src/payments/paid-flow.js';
import { CATALOG } from '../src/capabilities/index.js';
import { SIGNED_OFFER_HEADER } from '../src/http/paid-route.js';
import { balanceOf, buyerClient, withPaymentId, decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader, payingFetch, postJson, startRig, transferLogs, type Rig } from './support/harness.js';

const KEY = generatePrivateKey();
const SIGNER = privateKeyToAccount(KEY).address;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');

async function quote(base: string, body: unknown): Promise<any> {
  const res = await postJson(base + '/v1/router/quote', body);
  const q = await res.json();
  assert.equal(res.status, 200, JSON.stringify(q));
  return q;
}

test('entryPrice: without an offer the entry\'s own price (a signed offer\'s price is the flow\'s: src/payments/paid-flow.test.ts)', () => {
  const cap = CATALOG.find((c) => c.id === 'accessibility-contrast-calculator')!;
  assert.equal(entryPrice(cap, {}), cap.priceAtomic);
});

describe('signed quotes on the devnet', () => {
  let rig: Rig;
  let base: string;
  before(async () => {
    rig = await startRig({ env: { X402_SIGNING_KEY: KEY, OUTCOME_ROUTER_COMPOSITE: '1' } });
    base = rig.service.url;
  });
  after(async () => {
    await rig?.close();
  });

  test('each step carries an offer-receipt offer with validUntil, bound to its native body, that the x402 SDK verifies', async () => {
    const q = await quote(base, { objective: 'WCAG contrast of #000000 on #ffffff and #777777 on #ffffff' });
    const now = Math.floor(Date.now() / 1000);
    assert.equal(q.steps.length, 2);
    for (const step of q.steps) {
      const { offer, binding } = step.signed_offer;
      assert.equal(offer.payload.resourceUrl, step.execute_route.url);
      assert.equal(offer.payload.amount, step.price.amount_atomic);
      assert.equal(offer.payload.payTo, step.price.pay_to);
      assert.ok(offer.payload.validUntil >= now + 540, 'valid for about ten minutes');
      assert.equal(binding.payload.bodySha256, '0x' + sha256Hex(canonicalJson(step.native_body)));
      const sdk = await verifyOfferSignatureEIP712(offer);
      assert.equal(sdk.signer.toLowerCase(), SIGNER.toLowerCase());
      const check = await verifyQuoteOffer(step.signed_offer, { signer: SIGNER, body: step.native_body, resourceUrl: step.execute_route.url, nowSeconds: now });
      assert.equal(check.ok, true);
      // Another body is not what was quoted.
      const other = await verifyQuoteOffer(step.signed_offer, { signer: SIGNER, body: { ...step.native_body, large_text: !step.native_body.large_text }, nowSeconds: now });
      assert.equal(other.ok, false);
    }
    assert.ok(q.how_to_pay.composite.signed_offer, 'the composite price is signed too');
  });

  test('paying the quoted route with its body and the offer is charged the signed amount', async () => {
    const q = await quote(base, { objective: 'contrast of #333333 on #ffffff' });
    const step = q.steps[0];
    const res = await payingFetch(rig.devnet)(step.execute_route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNED_OFFER_HEADER]: b64(step.signed_offer) },
      body: JSON.stringify(step.native_body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    const logs = await transferLogs(rig.devnet, { from: rig.devnet.buyer.address });
    assert.equal(logs.find((l) => l.txHash === settled.transaction)!.value, BigInt(step.signed_offer.offer.payload.amount));
  });

  test('a signed offer wins over the current price until validUntil (an offer made before a price change)', async () => {
    // What a quote signed at an earlier price looks like: the operator's key, another amount.
    const url = base + '/x402/v1/accessibility-contrast-calculator';
    const body = { foreground: '#444444', background: '#ffffff', large_text: false };
    const earlier = await createCommitmentSigner(KEY).offer({
      resourceUrl: url, scheme: 'exact', network: rig.devnet.network, asset: rig.devnet.asset, payTo: rig.devnet.payTo, amount: '900',
      validUntil: Math.floor(Date.now() / 1000) + 300, bodySha256: sha256Hex(canonicalJson(body)),
    });
    const unpaid = await postJson(url, body, { [SIGNED_OFFER_HEADER]: b64(earlier) });
    assert.equal(unpaid.status, 402);
    assert.equal(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts[0]!.amount, '900');
    const res = await payingFetch(rig.devnet)(url, { method: 'POST', headers: { 'content-type': 'application/json', [SIGNED_OFFER_HEADER]: b64(earlier) }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    const logs = await transferLogs(rig.devnet, { from: rig.devnet.buyer.address });
    assert.equal(logs.find((l) => l.txHash === settled.transaction)!.value, 900n);
    const check = await verifyReceipt({ paymentResponse: settled, responseBody: new Uint8Array(await res.arrayBuffer()), request: { resource: 'accessibility-contrast-calculator', input: body }, signer: SIGNER });
    assert.deepEqual(check.problems, []);
    assert.equal(check.binding!.amount, '900');
  });

  test('an offer for another body, expired, or not ours is refused with 400 before any payment step', async () => {
    const url = base + '/x402/v1/accessibility-contrast-calculator';
    const body = { foreground: '#555555', background: '#ffffff', large_text: false };
    const signer = createCommitmentSigner(KEY);
    const facts = { resourceUrl: url, scheme: 'exact', network: rig.devnet.network, asset: rig.devnet.asset, payTo: rig.devnet.payTo, amount: '1', bodySha256: sha256Hex(canonicalJson(body)) };
    const expired = await signer.offer({ ...facts, validUntil: Math.floor(Date.now() / 1000) - 5 });
    const otherBody = await signer.offer({ ...facts, validUntil: Math.floor(Date.now() / 1000) + 300, bodySha256: sha256Hex(canonicalJson({ ...body, large_text: true })) });
    const notOurs = await createCommitmentSigner(generatePrivateKey()).offer({ ...facts, validUntil: Math.floor(Date.now() / 1000) + 300 });
    const settlesBefore = rig.proxy.calls.settle;
    for (const [offer, why] of [[expired, /expired/], [otherBody, /different body/], [notOurs, /not signed by this service/], ['not base64 json', /base64 JSON/]] as const) {
      const res = await postJson(url, body, { [SIGNED_OFFER_HEADER]: typeof offer === 'string' ? offer : b64(offer) });
      const e = (await res.json()) as any;
      assert.equal(res.status, 400);
      assert.equal(e.error.code, 'invalid_request');
      assert.match(e.error.message, why);
    }
    assert.equal(rig.proxy.calls.settle, settlesBefore);
  });

  test('past validUntil the paid call is still redelivered; a fresh payment on an offer long expired is refused', async () => {
    const url = base + '/x402/v1/accessibility-contrast-calculator';
    const body = { foreground: '#666666', background: '#ffffff', large_text: false };
    const signer = createCommitmentSigner(KEY);
    const facts = { resourceUrl: url, scheme: 'exact', network: rig.devnet.network, asset: rig.devnet.asset, payTo: rig.devnet.payTo, amount: '900', bodySha256: sha256Hex(canonicalJson(body)) };
    const soon = await signer.offer({ ...facts, validUntil: Math.floor(Date.now() / 1000) + 2 });
    const offerHeader = { [SIGNED_OFFER_HEADER]: b64(soon) };
    const challenge = await postJson(url, body, offerHeader);
    const pr = decodePaymentRequiredHeader(challenge.headers.get('payment-required')!);
    assert.equal(pr.accepts[0]!.amount, '900');
    const client = buyerClient(rig.devnet);
    const payment = encodePaymentSignatureHeader(withPaymentId(await client.createPaymentPayload(pr)));
    const first = await postJson(url, body, { ...offerHeader, 'PAYMENT-SIGNATURE': payment });
    assert.equal(first.status, 200);
    const bytes = await first.text();
    while (Date.now() / 1000 <= soon.offer.payload.validUntil + 1) await new Promise((r) => setTimeout(r, 250));
    const again = await postJson(url, body, { ...offerHeader, 'PAYMENT-SIGNATURE': payment });
    assert.equal(again.status, 200, 'redelivered after the offer expired');
    assert.equal(again.headers.get('x-payment-replayed'), 'true');
    assert.equal(await again.text(), bytes);
    assert.equal(again.headers.get('payment-response'), first.headers.get('payment-response'));

    // An offer that expired longer ago than any authorization made for it could live: a new payment is refused.
    const old = await signer.offer({ ...facts, validUntil: Math.floor(Date.now() / 1000) - 5000 });
    const fresh = structuredClone(pr);
    const late = await postJson(url, body, { [SIGNED_OFFER_HEADER]: b64(old), 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(await client.createPaymentPayload(fresh)) });
    assert.equal(late.status, 400);
    assert.match(((await late.json()) as any).error.message, /expired/);
  });

  test('an offer that expired a minute ago is not honoured for a fresh payment at its old price (nothing bound, nothing charged)', async () => {
    const url = base + '/x402/v1/accessibility-contrast-calculator';
    const body = { foreground: '#676767', background: '#ffffff', large_text: false };
    const signer = createCommitmentSigner(KEY);
    const facts = { resourceUrl: url, scheme: 'exact', network: rig.devnet.network, asset: rig.devnet.asset, payTo: rig.devnet.payTo, amount: '1', bodySha256: sha256Hex(canonicalJson(body)) };
    const lapsed = await signer.offer({ ...facts, validUntil: Math.floor(Date.now() / 1000) - 60 });
    // The buyer signs the old price (the 402 of a still-valid copy of the same terms), and pays after validUntil.
    const live = await signer.offer({ ...facts, validUntil: Math.floor(Date.now() / 1000) + 300 });
    const pr = decodePaymentRequiredHeader((await postJson(url, body, { [SIGNED_OFFER_HEADER]: b64(live) })).headers.get('payment-required')!);
    assert.equal(pr.accepts[0]!.amount, '1');
    const before = { ...rig.proxy.calls };
    const payer = await balanceOf(rig.devnet, rig.devnet.payTo);
    const res = await postJson(url, body, { [SIGNED_OFFER_HEADER]: b64(lapsed), 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(pr))) });
    assert.equal(res.status, 400);
    const e = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(e.error.code, 'invalid_request');
    assert.match(e.error.message, /expired/);
    assert.deepEqual(rig.proxy.calls, before, 'the facilitator is never asked');
    assert.equal(await balanceOf(rig.devnet, rig.devnet.payTo), payer, 'nothing charged');
  });

  test('the composite: its evidence carries each step\'s signed commitment, its receipt binds the whole body', async () => {
    const request = { objective: 'Check contrast of #000000 on #ffffff and #777777 on #ffffff' };
    const q = await quote(base, request);
    const res = await payingFetch(rig.devnet)(base + '/x402/v1/outcome-router', {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNED_OFFER_HEADER]: b64(q.how_to_pay.composite.signed_offer) },
      // The body the composite offer was signed for: the quote's canonical request.
      body: JSON.stringify(q.how_to_pay.composite.body),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const r = JSON.parse(text);
    assert.equal(r.evidence.provenance.length, 2);
    for (const [i, p] of r.evidence.provenance.entries()) {
      assert.equal(p.commitment.payload.executionId, r.execution_id);
      assert.deepEqual(await verifyStep(p.commitment, { signer: SIGNER, output: r.result.results[i].output }), { ok: true });
      assert.equal((await verifyStep(p.commitment, { signer: SIGNER, output: { tampered: true } })).ok, false);
    }
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    const check = await verifyReceipt({ paymentResponse: settled, responseBody: text, request: { fingerprint: q.request_fingerprint }, signer: SIGNER });
    assert.deepEqual(check.problems, []);
  });
});
