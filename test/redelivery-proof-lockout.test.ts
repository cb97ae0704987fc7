/**
 * Attack (issue 41, row 3): the payer's own proof locked out. Unproven tries
 * were counted per authorization, whoever sent them: anyone who rebuilt the
 * buyer's PAYMENT-SIGNATURE from the settlement's calldata and sent it ten
 * times made the buyer's original header, payment-identifier and all, answer
 * 429 for ten minutes.
 *
 * Reproduced on the devnet behind a trusted proxy (TRUST_PROXY=1, so each
 * X-Forwarded-For address is a client, as on a deployment): a real payment
 * with @x402/fetch and a payment-identifier, then an onlooker's tries from
 * its own address, over HTTP, MCP and A2A. A valid proof is always honoured;
 * only wrong identifiers are limited, and only for the client that sent them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithSIWx } from '@x402/extensions/sign-in-with-x';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { CONTRAST, decodePaymentResponseHeader, encodePaymentSignatureHeader, startRig, transferLogs, type PaymentPayload, type Rig } from './support/harness.js';
import { paymentFromChain } from './support/calldata.js';
import { sendPaymentIdentifier } from './support/payment-id.js';

const A2A_X402 = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';
const CONTRAST_ID = 'accessibility-contrast-calculator';
/** More than the per-client allowance of wrong identifiers (10). */
const TRIES = 12;

/** `fetch` as seen from `ip` behind the trusted proxy; records every PAYMENT-SIGNATURE it sends. */
function fetchFrom(ip: string, sent: string[] = []): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    req.headers.set('x-forwarded-for', ip);
    const sig = req.headers.get('payment-signature');
    if (sig) sent.push(sig);
    return fetch(req);
  }) as typeof fetch;
}

function post(url: string, body: unknown, ip: string, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, ...headers }, body: JSON.stringify(body) });
}

const withId = (p: PaymentPayload, id: string): PaymentPayload => ({ ...p, extensions: { 'payment-identifier': { info: { required: false, id } } } });
const decode = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PaymentPayload;

describe('the payer\'s own proof cannot be locked out by someone else\'s unproven tries', () => {
  let rig: Rig;
  let url: string;
  before(async () => {
    rig = await startRig({ env: { TRUST_PROXY: '1' } });
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());

  /** A real purchase as README's recommended buyer makes it: @x402/fetch with a registered payment-identifier, from `ip`. */
  async function buy(body: object, ip: string) {
    const id = generatePaymentId();
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(rig.devnet.buyer.privateKey)));
    client.setSpendControls(false);
    sendPaymentIdentifier(client, id);
    const sent: string[] = [];
    const res = await wrapFetchWithPayment(fetchFrom(ip, sent), client)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    const tx = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction;
    const header = sent[sent.length - 1]!;
    const payload = decode(header);
    assert.equal((payload.extensions?.['payment-identifier'] as { info: { id: string } }).info.id, id, 'the header the buyer sent carries its identifier');
    return { header, payload, tx, bytes: await res.text(), stolen: await paymentFromChain(rig.devnet, tx, payload.accepted) };
  }

  const charges = async () => (await transferLogs(rig.devnet, { from: rig.devnet.buyer.address })).length;

  test('HTTP: after an onlooker\'s tries (rebuilt header, then wrong identifiers) the buyer\'s own header still gets the stored result; other clients are not limited', async () => {
    const ONLOOKER = '198.51.100.7';
    const body = { foreground: '#13579b', background: '#ffffff', large_text: false };
    const bought = await buy(body, '203.0.113.10');

    const plain: number[] = [];
    for (let i = 0; i < TRIES; i++) plain.push((await post(url, body, ONLOOKER, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(bought.stolen) })).status);
    const guesses: number[] = [];
    for (let i = 0; i < TRIES; i++) guesses.push((await post(url, body, ONLOOKER, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(withId(bought.stolen, generatePaymentId())) })).status);

    const before = await charges();
    const again = await post(url, body, '203.0.113.10', { 'PAYMENT-SIGNATURE': bought.header });
    assert.equal(again.status, 200, `the buyer's own header with its identifier, after ${TRIES} rebuilt tries and ${TRIES} wrong identifiers from another client: ${again.status} ${again.headers.get('retry-after') ? `Retry-After ${again.headers.get('retry-after')}` : ''}`);
    assert.equal(await again.text(), bought.bytes, 'the stored bytes');
    assert.equal(again.headers.get('x-payment-replayed'), 'true');
    assert.equal(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction, bought.tx, 'the first settlement');
    assert.equal(await charges(), before, 'no new charge');

    assert.deepEqual(plain, new Array(TRIES).fill(402), 'a rebuilt header without an identifier has nothing to guess: the sign-in challenge every time, never 429');
    assert.deepEqual(guesses, [...new Array(10).fill(402), ...new Array(TRIES - 10).fill(429)], 'wrong identifiers are limited for the client that sends them');
    // The onlooker's own comparisons are spent: even the right identifier from its address is not compared (no oracle).
    const fromOnlooker = await post(url, body, ONLOOKER, { 'PAYMENT-SIGNATURE': bought.header });
    assert.equal(fromOnlooker.status, 429);
    assert.ok(Number(fromOnlooker.headers.get('retry-after')) > 0);
    assert.equal((await fromOnlooker.json()).error.code, 'rate_limited');

    // Another client: its unproven tries get the sign-in challenge and its wrong identifiers are compared, untouched by the onlooker's failures.
    const BYSTANDER = '192.0.2.55';
    const unproven = await post(url, body, BYSTANDER, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(bought.stolen) });
    assert.equal(unproven.status, 402);
    assert.equal((await unproven.json()).problem.code, 'redelivery_proof_required');
    const wrong = await post(url, body, BYSTANDER, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(withId(bought.stolen, generatePaymentId())) });
    assert.equal(wrong.status, 402, 'another client\'s identifier is still compared');

    // A sign-in by the paying wallet is never limited: from the bystander, and from the limited onlooker's address too.
    for (const ip of [BYSTANDER, ONLOOKER]) {
      const signedIn = await wrapFetchWithSIWx(fetchFrom(ip), privateKeyToAccount(rig.devnet.buyer.privateKey))(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(bought.stolen) },
        body: JSON.stringify(body),
      });
      assert.equal(signedIn.status, 200, `sign-in from ${ip}`);
      assert.equal(await signedIn.text(), bought.bytes);
    }
    assert.equal(await charges(), before, 'no new charge');
  });

  test('one host is one client: wrong identifiers from addresses of one IPv6 /64 share one allowance', async () => {
    const body = { foreground: '#2468ac', background: '#ffffff', large_text: false };
    const bought = await buy(body, '203.0.113.11');
    const statuses: number[] = [];
    for (let i = 0; i < TRIES; i++) {
      const ip = `2001:db8:41:3::${(i + 1).toString(16)}`;
      statuses.push((await post(url, body, ip, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(withId(bought.stolen, generatePaymentId())) })).status);
    }
    assert.deepEqual(statuses, [...new Array(10).fill(402), ...new Array(TRIES - 10).fill(429)]);
    const buyer = await post(url, body, '2001:db8:41:4::1', { 'PAYMENT-SIGNATURE': bought.header });
    assert.equal(buyer.status, 200, 'the next /64 is another client');
  });

  test('MCP and A2A count the same client as HTTP, and the buyer\'s identifier is honoured on each', async () => {
    const ONLOOKER = '198.51.100.8';
    const args = { foreground: '#369cf0', background: '#ffffff', large_text: false };
    const bought = await buy(args, '203.0.113.12');
    let rpc = 0;
    const mcp = async (payment: PaymentPayload, ip: string) => {
      const res = await fetch(rig.service.url + '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': ip },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpc, method: 'tools/call', params: { name: CONTRAST_ID, arguments: args, _meta: { 'x402/payment': payment } } }),
      });
      const r = ((await res.json()) as { result: { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Record<string, unknown> } }).result;
      if (!r.isError) return { outcome: 'delivered', text: r.content[0]!.text };
      const answer = JSON.parse(r.content[0]!.text) as { error?: string | { code: string }; x402Version?: number };
      // A refusal is an error body; a challenge is the PaymentRequired, whose error is the sentence.
      const outcome = typeof answer.error === 'object' ? answer.error.code : /already bound/.test(String(answer.error)) ? 'redelivery_proof_required' : `challenge: ${String(answer.error)}`;
      return { outcome, text: r.content[0]!.text };
    };
    const a2a = async (payment: PaymentPayload, ip: string) => {
      const res = await fetch(rig.service.url + '/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-A2A-Extensions': A2A_X402, 'x-forwarded-for': ip },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++rpc,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'data', data: args }], metadata: { skill: CONTRAST_ID, 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payment } } },
        }),
      });
      const t = ((await res.json()) as { result: { status: { state: string; message?: { metadata?: Record<string, unknown> } } } }).result;
      return t.status.state === 'completed' ? 'delivered' : String(t.status.message?.metadata?.['x402.payment.error']);
    };

    const seen: string[] = [];
    for (let i = 0; i < 10; i++) seen.push((await mcp(withId(bought.stolen, generatePaymentId()), ONLOOKER)).outcome);
    seen.push(await a2a(withId(bought.stolen, generatePaymentId()), ONLOOKER));
    seen.push(String((await post(url, args, ONLOOKER, { 'PAYMENT-SIGNATURE': bought.header })).status));

    const before = await charges();
    const overMcp = await mcp(bought.payload, '203.0.113.13');
    assert.equal(overMcp.outcome, 'delivered', `the buyer's identifier over MCP from its own address: ${overMcp.text.slice(0, 200)}`);
    assert.equal(overMcp.text, bought.bytes);
    assert.equal(await a2a(bought.payload, '203.0.113.14'), 'delivered', 'the buyer\'s identifier over A2A');
    assert.equal(await charges(), before, 'no new charge');

    assert.deepEqual(seen, [...new Array(10).fill('redelivery_proof_required'), 'rate_limited', '429'], 'ten wrong identifiers over MCP spend the client\'s allowance on A2A and HTTP too');
  });
});
