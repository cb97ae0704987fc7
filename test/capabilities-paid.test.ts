/**
 * Every paid capability, paid for real on the devnet with the official x402
 * client: the answer is the handler's output for the canonical input, valid
 * against the published output schema, and exactly the price moves.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newAjv } from '../src/catalog/ajv.js';
import { makeInputReader } from '../src/catalog/input-reader.js';
import { balanceOf, decodePaymentResponseHeader, payingFetch, postJson, startRig, type Rig } from './support/harness.js';

describe('paid end-to-end call of each capability', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  test('each capability delivers its native result after exactly one settlement of its price', async () => {
    const ajv = newAjv();
    const pay = payingFetch(rig.devnet);
    for (const cap of rig.service.catalog) {
      const example = cap.examples[0]!;
      const before = await balanceOf(rig.devnet, rig.devnet.payTo);
      const res = await pay(rig.service.url + cap.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(example.input) });
      assert.equal(res.status, 200, `${cap.id}: ${await res.clone().text()}`);
      const body = await res.json();
      const validate = ajv.compile(cap.outputSchema);
      assert.ok(validate(body), `${cap.id}: ${JSON.stringify(validate.errors)?.slice(0, 300)}`);
      // The handler's own output for the same (defaulted) input; for store-backed capabilities this reads the same content.
      const parsed = makeInputReader(cap).fromValue(structuredClone(example.input));
      assert.ok(parsed.ok);
      assert.deepEqual(body, JSON.parse(JSON.stringify(await cap.run(parsed.input))), `${cap.id}: the delivered result is the handler's output`);
      assert.equal(decodePaymentResponseHeader(res.headers.get('payment-response')!).success, true);
      assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, BigInt(cap.priceAtomic), cap.id);
    }
  });

  test('schema violations of every capability are 400 with a stable code before any payment step', async () => {
    const calls = { ...rig.proxy.calls };
    for (const cap of rig.service.catalog) {
      const res = await postJson(rig.service.url + cap.path, { ...(cap.examples[0]!.input as object), not_a_field: 1 });
      assert.equal(res.status, 400, cap.id);
      const body = await res.json();
      assert.equal(body.error.code, 'invalid_request', cap.id);
      assert.ok(body.error.details.some((d: { path: string; rule: string }) => d.path === '/not_a_field' && d.rule === 'additionalProperties'), cap.id);
    }
    const dup = await postJson(rig.service.url + '/x402/v1/data-compatibility-checker', {
      source_fields: [
        { name: 'a', type: 'string', required: true, nullable: false },
        { name: 'a', type: 'string', required: true, nullable: false },
      ],
      target_fields: [{ name: 'a', type: 'string', required: true, nullable: false }],
    });
    assert.equal(dup.status, 400);
    assert.equal((await dup.json()).error.code, 'duplicate_field_name');
    const big = await postJson(rig.service.url + '/x402/v1/nft-metadata-uri-normalizer', { uri: 'ipfs://x', token_id: '9'.repeat(90) });
    assert.equal(big.status, 400, 'token id above 2^256-1');
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator was never asked');
  });

  test('the extractor accepts a raw text/html body and refuses bodies over its limit with 413', async () => {
    const url = rig.service.url + '/x402/v1/catalog-offer-evidence-extractor';
    const html = '<script type="application/ld+json">{"@type":"Product","name":"Mug","offers":{"price":"9.50","priceCurrency":"EUR"}}</script>';
    const raw = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/html; charset=utf-8' }, body: html });
    assert.equal(raw.status, 402, 'a valid raw HTML body reaches the payment step');
    const tooBig = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/html' }, body: 'x'.repeat(3 * 1024 * 1024) });
    assert.equal(tooBig.status, 413);
    assert.equal((await tooBig.json()).error.code, 'payload_too_large');
    const wrongType = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' });
    assert.equal(wrongType.status, 415);
    // A chunked body without Content-Length is counted as it streams: the server answers 413 before it ends.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(rig.service.url + '/x402/v1/accessibility-contrast-calculator', { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
      req.write('x'.repeat(8192));
      req.write('x'.repeat(8192));
      // Never ended: the answer must come while the body is still open.
    });
    assert.equal(status, 413);
  });
});
