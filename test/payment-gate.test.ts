/**
 * The payment gate end to end on the devnet: the official x402 client, the
 * SDK facilitator, a real chain and the real ledger. No mocks.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  BLACK_ON_WHITE, CONTRAST, balanceOf, decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader,
  payingFetch, postJson, signFor, startRig, transferLogs, type Rig,
} from './support/harness.js';
import { signAuthorization } from './support/sign.js';
import { echoedLength, PAYABLE_HEADER_CEILING_BYTES } from '../src/http/challenge-fit.js';

describe('payment gate on the devnet', () => {
  let rig: Rig;
  let url: string;
  before(async () => {
    rig = await startRig();
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());

  const paid = () => balanceOf(rig.devnet, rig.devnet.payTo);

  test('an unpaid valid request gets a 402 challenge with a small PAYMENT-REQUIRED header', async () => {
    const res = await postJson(url, BLACK_ON_WHITE);
    assert.equal(res.status, 402);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const header = res.headers.get('payment-required')!;
    const pr = decodePaymentRequiredHeader(header);
    // Under 2 KB as a payment carries it back (the entry it pays); the other chain's entry on top, within 3 KB.
    assert.ok(echoedLength(pr) < 2048, `header is ${echoedLength(pr)} bytes with one entry of accepts`);
    assert.ok(header.length <= PAYABLE_HEADER_CEILING_BYTES, `header is ${header.length} bytes`);
    assert.equal(pr.x402Version, 2);
    assert.equal(pr.resource.url, url);
    const a = pr.accepts[0]!;
    assert.equal(a.scheme, 'exact');
    assert.equal(a.network, 'eip155:31337');
    assert.equal(a.amount, '1000');
    assert.equal(a.asset.toLowerCase(), rig.devnet.asset.toLowerCase());
    assert.equal(a.payTo.toLowerCase(), rig.devnet.payTo.toLowerCase());
    assert.equal(a.maxTimeoutSeconds, 300, 'X402_MAX_TIMEOUT_SECONDS defaults to 300');
    assert.deepEqual({ name: a.extra?.name, version: a.extra?.version }, { name: 'USD Coin', version: '2' });
    const body = await res.json();
    assert.equal(body.problem.code, 'payment_required');
    assert.match(body.problem.message, /1000 atomic units/);
    assert.equal(body.error, body.problem.message, 'the body is an x402 PaymentRequired: error is the sentence');
    assert.deepEqual(body.accepts, pr.accepts, "the body's PaymentRequired is the header's");
    assert.equal(body.problem.price.amount_atomic, '1000');
  });

  test('the official @x402/fetch client pays, the payee gains exactly the price, the ledger says settled', async () => {
    const before = await paid();
    const deliveries = (await rig.service.ledger.summary()).paidDeliveries;
    const res = await payingFetch(rig.devnet)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.contrast_ratio, 21);
    assert.equal(body.wcag_aaa, true);
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    assert.equal(receipt.success, true);
    assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(receipt.network, 'eip155:31337');
    assert.equal((await paid()) - before, 1000n);
    const logs = await transferLogs(rig.devnet, { to: rig.devnet.payTo });
    assert.ok(logs.some((l) => l.txHash === receipt.transaction && l.value === 1000n));
    const summary = await rig.service.ledger.summary();
    assert.equal(summary.paidDeliveries - deliveries, 1, 'one paid delivery recorded');
  });

  test('an invalid body with a valid payment attached gets 400 and the payment is never verified or settled', async () => {
    const { header } = await signFor(url, BLACK_ON_WHITE, rig.devnet);
    const before = await paid();
    const calls = { ...rig.proxy.calls };
    const res = await postJson(url, { foreground: '#00000', background: '#ffffff', large_text: false }, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error.code, 'invalid_request');
    assert.deepEqual(body.error.details[0], { path: '/foreground', rule: 'pattern', message: body.error.details[0].message });
    const extra = await postJson(url, { ...BLACK_ON_WHITE, alpha: 1 }, { 'PAYMENT-SIGNATURE': header });
    assert.equal(extra.status, 400);
    assert.equal((await extra.json()).error.details[0].path, '/alpha');
    const notJson = await postJson(url, '{"foreground":', { 'PAYMENT-SIGNATURE': header });
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).error.code, 'invalid_json');
    assert.equal(rig.proxy.calls.verify, calls.verify);
    assert.equal(rig.proxy.calls.settle, calls.settle);
    assert.equal(await paid(), before);
  });

  test('replay: the same PAYMENT-SIGNATURE and request get the stored response byte for byte, settled once', async () => {
    const { header } = await signFor(url, { foreground: '#777777', background: '#ffffff', large_text: false }, rig.devnet);
    const before = await paid();
    const first = await postJson(url, { foreground: '#777777', background: '#ffffff', large_text: false }, { 'PAYMENT-SIGNATURE': header });
    assert.equal(first.status, 200);
    const settles = rig.proxy.calls.settle;
    // Same JSON value, different key order and spacing: same fingerprint.
    const again = await postJson(url, '{ "large_text": false, "background": "#ffffff", "foreground": "#777777" }', { 'PAYMENT-SIGNATURE': header });
    assert.equal(again.status, 200);
    assert.equal(await again.text(), await first.text());
    assert.equal(again.headers.get('payment-response'), first.headers.get('payment-response'));
    assert.equal(again.headers.get('x-payment-replayed'), 'true');
    assert.equal(rig.proxy.calls.settle, settles, 'no second settlement');
    assert.equal((await paid()) - before, 1000n);
  });

  test('replay with a different body: 409 payment_bound_to_other_request, nothing delivered', async () => {
    const body = { foreground: '#123456', background: '#ffffff', large_text: false };
    const { header } = await signFor(url, body, rig.devnet);
    assert.equal((await postJson(url, body, { 'PAYMENT-SIGNATURE': header })).status, 200);
    const other = await postJson(url, { ...body, large_text: true }, { 'PAYMENT-SIGNATURE': header });
    assert.equal(other.status, 409);
    assert.equal((await other.json()).error.code, 'payment_bound_to_other_request');
  });

  test('20 concurrent duplicates of one payment: exactly one settlement and one transfer', async () => {
    const body = { foreground: '#ff0000', background: '#00ff00', large_text: true };
    const { header, payload } = await signFor(url, body, rig.devnet);
    const before = await paid();
    const settles = rig.proxy.calls.settle;
    const results = await Promise.all(Array.from({ length: 20 }, () => postJson(url, body, { 'PAYMENT-SIGNATURE': header })));
    const statuses = results.map((r) => r.status);
    const fresh = results.filter((r) => r.status === 200 && r.headers.get('x-payment-replayed') === 'false');
    assert.equal(fresh.length, 1, `statuses: ${statuses.join(',')}`);
    // The others either overlap the first (409, come back within the 20 s lease) or follow it (the stored result, replayed).
    const delivered = await fresh[0]!.clone().text();
    for (const r of results.filter((r) => r !== fresh[0])) {
      if (r.status === 409) {
        assert.equal((await r.json()).error.code, 'payment_in_progress');
        const retryAfter = Number(r.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 20, `Retry-After ${retryAfter} is within the lease`);
      } else {
        assert.equal(r.status, 200, `unexpected ${r.status}`);
        assert.equal(r.headers.get('x-payment-replayed'), 'true');
        assert.equal(await r.text(), delivered, 'a replay is the stored response byte for byte');
      }
    }
    assert.equal(rig.proxy.calls.settle - settles, 1);
    assert.equal((await paid()) - before, 1000n);
    const nonce = (payload.payload as { authorization: { nonce: string } }).authorization.nonce;
    assert.ok(nonce);
    // A later retry gets the result.
    const late = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(late.status, 200);
  });

  for (const [name, mutate] of [
    ['wrong amount', (a: Record<string, unknown>) => (a.amount = '999')],
    ['wrong asset', (a: Record<string, unknown>) => (a.asset = '0x000000000000000000000000000000000000dEaD')],
    ['wrong payTo', (a: Record<string, unknown>) => (a.payTo = '0x000000000000000000000000000000000000bEEF')],
    ['wrong network', (a: Record<string, unknown>) => (a.network = 'eip155:8453')],
  ] as const) {
    test(`${name}: 402 payment_invalid, nothing settled`, async () => {
      const before = await paid();
      const settles = rig.proxy.calls.settle;
      const { header } = await signFor(url, BLACK_ON_WHITE, rig.devnet, { mutate: (pr) => mutate(pr.accepts[0] as unknown as Record<string, unknown>) });
      const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
      assert.equal(res.status, 402);
      assert.equal((await res.json()).problem.code, 'payment_invalid');
      assert.ok(res.headers.get('payment-required'));
      assert.equal(rig.proxy.calls.settle, settles);
      assert.equal(await paid(), before);
    });
  }

  test('a signature for a different value than the accepted amount is refused before verify', async () => {
    const res402 = await postJson(url, BLACK_ON_WHITE);
    const req = decodePaymentRequiredHeader(res402.headers.get('payment-required')!).accepts[0]!;
    const payload = await signAuthorization(rig.devnet.buyer, req, { value: '1' });
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) });
    assert.equal(res.status, 402);
    assert.equal((await res.json()).problem.code, 'payment_invalid');
  });

  test('an expired authorization: 402 payment_expired, nothing settled', async () => {
    const res402 = await postJson(url, BLACK_ON_WHITE);
    const req = decodePaymentRequiredHeader(res402.headers.get('payment-required')!).accepts[0]!;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const payload = await signAuthorization(rig.devnet.buyer, req, { validBefore: now - 5n });
    const before = await paid();
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) });
    assert.equal(res.status, 402);
    assert.equal((await res.json()).problem.code, 'payment_expired');
    assert.equal(await paid(), before);
  });

  test('a forged signature is refused locally: 402 payment_invalid, no ledger row, the facilitator never asked', async () => {
    const res402 = await postJson(url, BLACK_ON_WHITE);
    const req = decodePaymentRequiredHeader(res402.headers.get('payment-required')!).accepts[0]!;
    const payload = await signAuthorization(rig.devnet.buyers[1]!, req);
    // Claim to be another payer: the signature no longer matches `from`.
    (payload.payload as { authorization: { from: string } }).authorization.from = rig.devnet.buyer.address;
    const header = encodePaymentSignatureHeader(payload);
    const calls = { ...rig.proxy.calls };
    const rows = (await rig.service.ledger.summary()).byState;
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 402);
    assert.equal((await res.json()).problem.code, 'payment_invalid');
    const again = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(again.status, 402);
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator was never asked');
    assert.deepEqual((await rig.service.ledger.summary()).byState, rows, 'nothing was written');
  });

  test('a payer without funds is refused by the facilitator at verify: 402 payment_invalid, the attempt is failed for good', async () => {
    const { devnetAccount } = await import('../devnet/index.js');
    const res402 = await postJson(url, BLACK_ON_WHITE);
    const req = decodePaymentRequiredHeader(res402.headers.get('payment-required')!).accepts[0]!;
    const payload = await signAuthorization(devnetAccount(8), req);
    const header = encodePaymentSignatureHeader(payload);
    const before = await paid();
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 402);
    assert.equal((await res.json()).problem.code, 'payment_invalid');
    const again = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(again.status, 402);
    assert.equal(await paid(), before);
  });

  test('a garbled PAYMENT-SIGNATURE header is a 400 invalid_payment_header', async () => {
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': 'not-base64-json' });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error.code, 'invalid_payment_header');
  });

  test('payment-identifier: a new authorization with the same id and request gets the cached result without paying again', async () => {
    const body = { foreground: '#abcdef', background: '#000000', large_text: false };
    const ext = { 'payment-identifier': { info: { required: false, id: 'pay_' + 'a'.repeat(28) } } };
    const first = await signFor(url, body, rig.devnet, { extensions: ext });
    const r1 = await postJson(url, body, { 'PAYMENT-SIGNATURE': first.header });
    assert.equal(r1.status, 200);
    const before = await paid();
    const second = await signFor(url, body, rig.devnet, { extensions: ext });
    assert.notEqual(second.header, first.header);
    const r2 = await postJson(url, body, { 'PAYMENT-SIGNATURE': second.header });
    assert.equal(r2.status, 200);
    assert.equal(await r2.text(), await r1.text());
    assert.equal(r2.headers.get('payment-response'), r1.headers.get('payment-response'));
    assert.equal(await paid(), before, 'the second authorization is not settled');
    const third = await signFor(url, body, rig.devnet, { extensions: ext });
    const r3 = await postJson(url, { ...body, large_text: true }, { 'PAYMENT-SIGNATURE': third.header });
    assert.equal(r3.status, 409);
    assert.equal((await r3.json()).error.code, 'payment_identifier_conflict');
  });

  test('free routes: healthz and readyz', async () => {
    assert.equal((await fetch(rig.service.url + '/healthz')).status, 200);
    const ready = await fetch(rig.service.url + '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual((await ready.json()).checks, { ledger: 'ok', facilitator: 'ok' });
  });

  test('a 402, a failed attempt and a free GET are never counted as paid deliveries', async () => {
    const { devnetAccount } = await import('../devnet/index.js');
    const before = await rig.service.ledger.summary();
    const res402 = await postJson(url, BLACK_ON_WHITE);
    assert.equal(res402.status, 402);
    const req = decodePaymentRequiredHeader(res402.headers.get('payment-required')!).accepts[0]!;
    const unfunded = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(await signAuthorization(devnetAccount(9), req)) });
    assert.equal(unfunded.status, 402, 'refused at verify: a failed attempt');
    assert.equal((await fetch(rig.service.url + '/healthz')).status, 200);
    const after = await rig.service.ledger.summary();
    const added = Object.fromEntries(Object.entries(after.byState).map(([state, count]) => [state, count - before.byState[state as keyof typeof before.byState]]).filter(([, d]) => d !== 0));
    assert.deepEqual(added, { failed: 1 }, 'only the refused authorization left a row');
    assert.equal(after.paidDeliveries, before.paidDeliveries);
    assert.equal(after.settledAtomic, before.settledAtomic);
    // Every delivery of this suite is one contrast call at 1000.
    assert.equal(after.paidDeliveries, after.byState.settled);
    assert.equal(BigInt(after.settledAtomic), BigInt(after.paidDeliveries) * 1000n);
  });
});

describe('402 challenges of every capability', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  test('declare sign-in-with-x and keep PAYMENT-REQUIRED under 2 KB as a payment carries it back (one entry of accepts), every chain\'s entry within 3 KB; Bazaar where it fits, always on the discovery challenge', async () => {
    const { CATALOG } = await import('../src/capabilities/index.js');
    for (const cap of rig.service.catalog) {
      const input = [...cap.examples].sort((a, b) => JSON.stringify(a.input).length - JSON.stringify(b.input).length)[0]!.input;
      const res = await postJson(rig.service.url + cap.path, input);
      assert.equal(res.status, 402, cap.id);
      const header = res.headers.get('payment-required')!;
      const pr = decodePaymentRequiredHeader(header);
      assert.equal(pr.accepts.length, 2, 'Base and Solana');
      assert.ok(echoedLength(pr) < 2048, `${cap.id}: ${echoedLength(pr)} bytes with one entry of accepts`);
      assert.ok(header.length <= PAYABLE_HEADER_CEILING_BYTES, `${cap.id}: ${header.length} bytes`);
      assert.equal(pr.accepts[0]!.amount, cap.priceAtomic, cap.id);
      // The gate's own extensions always stay: the sign-in (its info and chains; its schema only where there is room) and payment-identifier.
      const signIn = pr.extensions?.['sign-in-with-x'] as { info: { uri: string }; supportedChains: unknown[] } | undefined;
      assert.equal(signIn?.info.uri, rig.service.url + cap.path, `${cap.id} declares sign-in-with-x`);
      assert.equal(signIn.supportedChains.length, 2);
      assert.ok(pr.extensions?.['payment-identifier'], `${cap.id} advertises payment-identifier`);
      // Bazaar's leanest level with the example takes more room than the sign-in leaves: it goes where it fits.
      const bazaar = pr.extensions?.bazaar as { info: { input: { body: unknown } } } | undefined;
      if (bazaar) assert.deepEqual(bazaar.info.input.body, input, `${cap.id}: bazaar carries the example input`);
      const probe = decodePaymentRequiredHeader((await fetch(rig.service.url + cap.path, { method: 'POST' })).headers.get('payment-required')!);
      assert.ok((probe.extensions?.bazaar as { info: { input: unknown } } | undefined)?.info.input, `${cap.id}: the discovery challenge carries Bazaar`);
      assert.equal(probe.extensions?.['sign-in-with-x'], undefined, `${cap.id}: but no sign-in (nothing can be got again without input; x402scan would read the route as sign-in gated)`);
    }
    for (const base of CATALOG) assert.ok(rig.service.catalog.includes(base), `${base.id} is served and was checked above`);
  });
});
