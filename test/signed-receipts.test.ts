/**
 * Signed receipts bound to content, end to end on the devnet with real
 * payments: the official x402 client pays and still parses PAYMENT-RESPONSE;
 * the receipt in extensions["offer-receipt"] verifies with our verifier and
 * with the x402 SDK's own offer-receipt verifier; a tampered response or
 * request byte fails; redelivery carries the very same receipt; MCP carries
 * it too.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { verifyReceiptSignatureEIP712, extractReceiptFromResponse } from '@x402/extensions/offer-receipt';
import type { PaymentRequired } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifyReceipt, receiptOf } from '../src/commitments/verify.js';
import { HEADER_BUDGET_BYTES } from '../src/http/paid-route.js';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { BLACK_ON_WHITE, CONTRAST, buyerClient, decodePaymentResponseHeader, devnetEnv, payingFetch, postJson, signFor, startRig, tempDir, type Rig } from './support/harness.js';

const KEY = generatePrivateKey();
const SIGNER = privateKeyToAccount(KEY).address;
const RESOURCE = 'accessibility-contrast-calculator';

describe('signed receipts bound to content', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ env: { X402_SIGNING_KEY: KEY } });
  });
  after(async () => {
    await rig?.close();
  });

  test('the official client pays, parses PAYMENT-RESPONSE unchanged, and the receipt verifies', async () => {
    const res = await payingFetch(rig.devnet)(rig.service.url + CONTRAST, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BLACK_ON_WHITE),
    });
    assert.equal(res.status, 200);
    const header = res.headers.get('payment-response')!;
    assert.ok(header.length <= HEADER_BUDGET_BYTES, `PAYMENT-RESPONSE is ${header.length} bytes`);
    const settled = decodePaymentResponseHeader(header);
    assert.equal(settled.success, true);
    assert.match(settled.transaction, /^0x[0-9a-f]{64}$/);
    const bytes = new Uint8Array(await res.clone().arrayBuffer());

    // The x402 SDK's own offer-receipt helpers find and verify the standard receipt.
    const sdkReceipt = extractReceiptFromResponse(res);
    assert.ok(sdkReceipt && sdkReceipt.format === 'eip712');
    const sdk = await verifyReceiptSignatureEIP712(sdkReceipt);
    assert.equal(sdk.signer.toLowerCase(), SIGNER.toLowerCase());
    assert.equal(sdk.payload.transaction, settled.transaction);
    assert.equal(sdk.payload.resourceUrl, rig.service.url + CONTRAST);
    assert.equal(sdk.payload.payer.toLowerCase(), rig.devnet.buyer.address.toLowerCase());

    const ok = await verifyReceipt({ paymentResponse: settled, responseBody: bytes, request: { resource: RESOURCE, input: BLACK_ON_WHITE }, signer: SIGNER });
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.binding!.amount, '1000');

    // One byte changed in the response, or in the request, and it no longer verifies.
    const tampered = bytes.slice();
    tampered[tampered.length - 2] ^= 1;
    const badResponse = await verifyReceipt({ paymentResponse: settled, responseBody: tampered, request: { resource: RESOURCE, input: BLACK_ON_WHITE }, signer: SIGNER });
    assert.equal(badResponse.ok, false);
    assert.match(badResponse.problems.join(' '), /response bytes/);
    const badRequest = await verifyReceipt({ paymentResponse: settled, responseBody: bytes, request: { resource: RESOURCE, input: { ...BLACK_ON_WHITE, foreground: '#000001' } }, signer: SIGNER });
    assert.equal(badRequest.ok, false);
    assert.match(badRequest.problems.join(' '), /request fingerprints/);
    // Another signer, or an edited signed field, fails too.
    const otherSigner = await verifyReceipt({ paymentResponse: settled, responseBody: bytes, signer: privateKeyToAccount(generatePrivateKey()).address });
    assert.equal(otherSigner.ok, false);
    const edited = structuredClone(settled) as unknown as { extensions: { 'offer-receipt': { info: { binding: { payload: { amount: string } } } } } };
    edited.extensions['offer-receipt'].info.binding.payload.amount = '1';
    assert.equal((await verifyReceipt({ paymentResponse: edited, responseBody: bytes, signer: SIGNER })).ok, false);
  });

  test('redelivery with the same PAYMENT-SIGNATURE carries the same receipt, byte for byte', async () => {
    const body = { foreground: '#123456', background: '#fedcba', large_text: true };
    const { header } = await signFor(rig.service.url + CONTRAST, body, rig.devnet);
    const first = await postJson(rig.service.url + CONTRAST, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(first.status, 200);
    const firstBody = await first.text();
    // A second later, so a clock-based time would differ.
    await new Promise((r) => setTimeout(r, 1100));
    const again = await postJson(rig.service.url + CONTRAST, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('x-payment-replayed'), 'true');
    assert.equal(await again.text(), firstBody);
    assert.equal(again.headers.get('payment-response'), first.headers.get('payment-response'));
    const check = await verifyReceipt({ paymentResponse: decodePaymentResponseHeader(again.headers.get('payment-response')!), responseBody: firstBody, request: { resource: RESOURCE, input: body }, signer: SIGNER });
    assert.deepEqual(check.problems, []);
  });

  test('MCP paid tool results carry the same kind of receipt in _meta["x402/payment-response"]', async () => {
    const client = new Client({ name: 'receipt-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
    try {
      const args = { foreground: '#222222', background: '#eeeeee', large_text: false };
      const unpaid = await client.callTool({ name: RESOURCE, arguments: args });
      const payload = await buyerClient(rig.devnet).createPaymentPayload(unpaid.structuredContent as PaymentRequired);
      const paid = await client.callTool({ name: RESOURCE, arguments: args, _meta: { 'x402/payment': payload } });
      assert.notEqual(paid.isError, true);
      const settled = paid._meta!['x402/payment-response'];
      const text = (paid.content as Array<{ text: string }>)[0]!.text;
      const check = await verifyReceipt({ paymentResponse: settled, responseBody: text, request: { resource: RESOURCE, input: args }, signer: SIGNER });
      assert.deepEqual(check.problems, []);
      assert.equal(typeof receiptOf(settled), 'object');
    } finally {
      await client.close();
    }
  });

  test('the signer is published in /.well-known/x402 and the agent card', async () => {
    const manifest = (await (await fetch(rig.service.url + '/.well-known/x402')).json()) as any;
    assert.equal(manifest.signing.signer, SIGNER);
    assert.equal(manifest.signing.extension, 'offer-receipt');
    const card = (await (await fetch(rig.service.url + '/.well-known/agent-card.json')).json()) as any;
    const ext = card.capabilities.extensions.find((e: any) => e.params?.signer !== undefined);
    assert.equal(ext.params.signer, SIGNER);
  });

  test('without a signing key the service still sells, signs nothing, and its documents say so', async () => {
    const unsigned = await startService(loadConfig(devnetEnv(rig.devnet, rig.devnet.facilitatorUrl, { DATA_DIR: tempDir() })));
    try {
      const manifest = (await (await fetch(unsigned.url + '/.well-known/x402')).json()) as any;
      assert.equal(manifest.signing.signer, null);
      assert.match(manifest.signing.note, /no signing key/);
      const res = await payingFetch(rig.devnet, rig.devnet.buyers[3])(unsigned.url + CONTRAST, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
      assert.equal(res.status, 200);
      const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      assert.equal(settled.success, true);
      assert.equal(settled.extensions?.['offer-receipt'], undefined);
      const quote = (await (await postJson(unsigned.url + '/v1/router/quote', { objective: 'contrast of #000000 on #ffffff' })).json()) as any;
      assert.equal(quote.steps[0].signed_offer, undefined);
    } finally {
      await unsigned.close();
    }
  });
});
