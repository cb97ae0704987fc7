/**
 * Attack: after a paid call settles, its EIP-3009 authorization and signature
 * are calldata of a public transaction, so anyone can rebuild the buyer's
 * exact PAYMENT-SIGNATURE from the chain alone and ask for the stored result
 * (HTTP, MCP, A2A), guessing the body while a distinct 409 says when a guess is
 * wrong. The rebuilt payment must get nothing, the same answer for every
 * body, and a limited number of tries; the honest buyer recovers the result
 * with the official clients (a payment-identifier, or x402's sign-in-with-x).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createSIWxPayload, encodeSIWxHeader, wrapFetchWithSIWx } from '@x402/extensions/sign-in-with-x';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import {
  buyerClient,
  CONTRAST,
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
  postJson,
  signFor,
  startRig,
  transferLogs,
  type PaymentPayload,
  type PaymentRequired,
  type Rig,
} from './support/harness.js';
import { paymentFromChain } from './support/calldata.js';
import { sendPaymentIdentifier } from './support/payment-id.js';

/** A 402's JSON body without what varies per answer (the sign-in challenge's nonce and times). */
function comparable(json: Record<string, unknown>): unknown {
  const copy = structuredClone(json) as { extensions?: Record<string, { info?: Record<string, unknown> }> };
  const info = copy.extensions?.['sign-in-with-x']?.info;
  if (info) for (const k of ['nonce', 'issuedAt', 'expirationTime']) delete info[k];
  return copy;
}

describe('a settled result is not free to whoever reads the chain', () => {
  let rig: Rig;
  let url: string;
  before(async () => {
    rig = await startRig();
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());

  async function paidCall(body: object, opts: { paymentId?: false } = {}) {
    const { header, payload } = await signFor(url, body, rig.devnet, opts);
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 200);
    const tx = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction;
    const stolen = await paymentFromChain(rig.devnet, tx, payload.accepted);
    return { header, payload, bytes: await res.text(), tx, stolen: encodePaymentSignatureHeader(stolen), stolenPayload: stolen };
  }

  test('HTTP: the signature rebuilt from calldata gets no result, and the right body is indistinguishable from a wrong one', async () => {
    const secret = { foreground: '#123456', background: '#fedcba', large_text: true };
    const { stolen } = await paidCall(secret);
    const calls = { ...rig.proxy.calls };
    const answers = [];
    for (const body of [secret, { ...secret, large_text: false }, { foreground: '#000000', background: '#ffffff', large_text: false }]) {
      const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': stolen });
      assert.equal(res.headers.get('payment-response'), null, 'no receipt');
      answers.push({ status: res.status, body: comparable(await res.json()) });
    }
    assert.equal(answers[0]!.status, 402);
    assert.equal((answers[0]!.body as { problem: { code: string } }).problem.code, 'redelivery_proof_required');
    assert.equal((answers[0]!.body as { contrast_ratio?: unknown }).contrast_ratio, undefined, 'no result');
    assert.deepEqual(answers[1], answers[0], 'a wrong guess of the body answers exactly like the right one');
    assert.deepEqual(answers[2], answers[0]);
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator is never asked');
  });

  test('HTTP: wrong identifiers are limited per client (the buyer\'s own too, from that client); the payer\'s sign-in still recovers it', async () => {
    const body = { foreground: '#224466', background: '#ffffff', large_text: false };
    const { header, stolen, stolenPayload, bytes } = await paidCall(body);
    for (let i = 0; i < 12; i++) {
      const guess = { ...stolenPayload, extensions: { 'payment-identifier': { info: { required: false, id: `pay_guess_${String(i).padStart(12, '0')}` } } } };
      const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(guess as PaymentPayload) });
      assert.equal(res.status, i < 10 ? 402 : 429, `try ${i}`);
    }
    const limited = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(limited.status, 429, 'past the limit even the right identifier is not compared from this client (test/redelivery-proof-lockout: from another it is)');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    // The honest buyer, with the official client's sign-in wrapper: it signs our challenge with the paying wallet.
    const recovered = await wrapFetchWithSIWx(fetch, privateKeyToAccount(rig.devnet.buyer.privateKey))(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': stolen },
      body: JSON.stringify(body),
    });
    assert.equal(recovered.status, 200);
    assert.equal(recovered.headers.get('x-payment-replayed'), 'true');
    assert.equal(await recovered.text(), bytes, 'the stored bytes');
  });

  test('HTTP: a sign-in by another wallet proves nothing', async () => {
    const body = { foreground: '#336699', background: '#ffffff', large_text: false };
    const { stolen } = await paidCall(body);
    const res = await wrapFetchWithSIWx(fetch, privateKeyToAccount(generatePrivateKey()))(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': stolen },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 402);
    assert.equal((await res.json()).problem.code, 'redelivery_proof_required');
  });

  test('HTTP: the honest retry with the same PAYMENT-SIGNATURE (it carries the payment-identifier) gets the stored bytes', async () => {
    const body = { foreground: '#445566', background: '#ffffff', large_text: false };
    const { header, bytes } = await paidCall(body);
    const again = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(again.status, 200);
    assert.equal(await again.text(), bytes);
  });

  test('@x402/fetch with a payment-identifier: the buyer who lost the answer repeats the call under the same id and is not charged again', async () => {
    const body = { foreground: '#556677', background: '#ffffff', large_text: false };
    const id = generatePaymentId();
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(rig.devnet.buyer.privateKey)));
    client.setSpendControls(false);
    sendPaymentIdentifier(client, id);
    const pay = wrapFetchWithPayment(fetch, client);
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    const first = await pay(url, init);
    assert.equal(first.status, 200);
    const tx = decodePaymentResponseHeader(first.headers.get('payment-response')!).transaction;
    const bytes = await first.text();
    const second = await pay(url, init);
    assert.equal(second.status, 200);
    assert.equal(await second.text(), bytes);
    assert.equal(decodePaymentResponseHeader(second.headers.get('payment-response')!).transaction, tx, 'the first settlement, not a second one');
    const transfers = await transferLogs(rig.devnet, { to: rig.devnet.payTo });
    assert.equal(transfers.filter((l) => l.txHash === tx).length, 1);
  });

  test('MCP: the rebuilt payment gets no result whatever the arguments; the payer\'s sign-in in _meta gets it', async () => {
    const client = new Client({ name: 'onlooker', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
    try {
      const args = { foreground: '#667788', background: '#ffffff', large_text: false };
      const challenge = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args });
      const payload = await buyerClient(rig.devnet).createPaymentPayload(challenge.structuredContent as PaymentRequired);
      const paid = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args, _meta: { 'x402/payment': payload } });
      assert.notEqual(paid.isError, true);
      const tx = (paid._meta?.['x402/payment-response'] as { transaction: string }).transaction;
      const stolen = await paymentFromChain(rig.devnet, tx, payload.accepted);
      const right = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args, _meta: { 'x402/payment': stolen } });
      const wrong = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: { ...args, large_text: true }, _meta: { 'x402/payment': stolen } });
      assert.equal(right.isError, true);
      assert.equal((right.structuredContent as { contrast_ratio?: unknown }).contrast_ratio, undefined, 'no result');
      assert.equal(right._meta?.['x402/payment-response'], undefined);
      assert.deepEqual(comparable(right.structuredContent as Record<string, unknown>), comparable(wrong.structuredContent as Record<string, unknown>));
      const pr = right.structuredContent as PaymentRequired;
      assert.match(String(pr.error), /already bound/);
      const ext = pr.extensions!['sign-in-with-x'] as { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: 'eip191' }> };
      const info = { ...ext.info, chainId: ext.supportedChains[0]!.chainId, type: ext.supportedChains[0]!.type } as never;
      const signIn = encodeSIWxHeader(await createSIWxPayload(info, privateKeyToAccount(rig.devnet.buyer.privateKey), ext.info.uri!));
      const recovered = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args, _meta: { 'x402/payment': stolen, 'x402/sign-in-with-x': signIn } });
      assert.notEqual(recovered.isError, true);
      assert.deepEqual(recovered.structuredContent, paid.structuredContent);
    } finally {
      await client.close();
    }
  });

  test('A2A: the rebuilt payment in a new message gets no result whatever the arguments; the payer\'s sign-in in the metadata gets it', async () => {
    const args = { foreground: '#778899', background: '#ffffff', large_text: false };
    const send = async (data: object, metadata: Record<string, unknown>) => {
      const res = await fetch(rig.service.url + '/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-A2A-Extensions': 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'data', data }], metadata: { skill: 'accessibility-contrast-calculator', ...metadata } } },
        }),
      });
      return ((await res.json()) as { result: { status: { state: string; message?: { metadata?: Record<string, unknown> } }; artifacts?: Array<{ parts: Array<{ data?: unknown }> }> } }).result;
    };
    const { payload } = await signFor(url, args, rig.devnet);
    const paid = await send(args, { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload });
    assert.equal(paid.status.state, 'completed');
    const tx = (paid.status.message!.metadata!['x402.payment.receipts'] as Array<{ transaction: string }>)[0]!.transaction;
    const stolen = await paymentFromChain(rig.devnet, tx, payload.accepted);
    const submitted = { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': stolen };
    const right = await send(args, submitted);
    const wrong = await send({ ...args, large_text: true }, submitted);
    for (const t of [right, wrong]) {
      assert.equal(t.status.state, 'input-required');
      assert.equal(t.status.message!.metadata!['x402.payment.error'], 'redelivery_proof_required');
      assert.equal(t.artifacts?.length ?? 0, 0, 'no result artifact');
    }
    const required = right.status.message!.metadata!['x402.payment.required'] as PaymentRequired;
    const ext = required.extensions!['sign-in-with-x'] as { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: 'eip191' }> };
    const info = { ...ext.info, chainId: ext.supportedChains[0]!.chainId, type: ext.supportedChains[0]!.type } as never;
    const signIn = encodeSIWxHeader(await createSIWxPayload(info, privateKeyToAccount(rig.devnet.buyer.privateKey), ext.info.uri!));
    const recovered = await send(args, { ...submitted, 'x402.sign-in-with-x': signIn });
    assert.equal(recovered.status.state, 'completed');
    assert.deepEqual(recovered.artifacts![0]!.parts, paid.artifacts![0]!.parts);
  });

  test('whoever read the chain signs in with its own wallet over a plain 402: the ordinary 402, no result (a sign-in proves a wallet, and that wallet did not pay)', async () => {
    const body = { foreground: '#000000', background: '#ffffff', large_text: false };
    const res = await wrapFetchWithSIWx(fetch, privateKeyToAccount(generatePrivateKey()))(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 402);
    assert.equal(((await res.json()) as { problem: { code: string } }).problem.code, 'payment_required');
  });
});
