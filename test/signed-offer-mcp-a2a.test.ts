/**
 * A signed quote offer is honoured alike on every transport: over MCP
 * (`_meta["x402/signed-offer"]`) and A2A (message metadata
 * `x402.signed-offer`) as over HTTP's X-Signed-Offer, the signed amount is the
 * price asked and the amount transferred; an offer for other arguments is
 * refused before any payment step. Real devnet, real transfers.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client as A2aClient } from '@a2a-js/sdk/client';
import type { PaymentRequired } from '@x402/core/types';
import { generatePrivateKey } from 'viem/accounts';
import { createCommitmentSigner } from '../src/commitments/signer.js';
import { canonicalJson, sha256Hex } from '../src/foundation/canonical-json.js';
import { buyerClient, withPaymentId, startRig, transferLogs, type Rig } from './support/harness.js';
import { X402_URI, isTask, userMessage } from './support/a2a-messages.js';

const KEY = generatePrivateKey();
const CONTRAST = 'accessibility-contrast-calculator';

describe('a signed offer over MCP and A2A', () => {
  let rig: Rig;
  let mcp: Client;
  let a2a: A2aClient;
  const send = (message: Message) => a2a.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, { serviceParameters: { 'A2A-Extensions': X402_URI } });
  /** An offer this service signed for the contrast route and `body`, at an amount the entry does not charge today. */
  const offerFor = (body: unknown, amount: string) =>
    createCommitmentSigner(KEY).offer({
      resourceUrl: `${rig.service.url}/x402/v1/${CONTRAST}`, scheme: 'exact', network: rig.devnet.network, asset: rig.devnet.asset, payTo: rig.devnet.payTo, amount,
      validUntil: Math.floor(Date.now() / 1000) + 300, bodySha256: sha256Hex(canonicalJson(body)),
    });
  const transferred = async (tx: string) => (await transferLogs(rig.devnet, { from: rig.devnet.buyer.address })).find((l) => l.txHash === tx)!.value;

  before(async () => {
    rig = await startRig({ env: { X402_SIGNING_KEY: KEY } });
    mcp = new Client({ name: 'test-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
    a2a = await new ClientFactory().createFromUrl(rig.service.url);
  });
  after(async () => {
    await mcp?.close();
    await rig?.close();
  });

  test('MCP: the offer\'s amount is asked and transferred; an offer for other arguments is refused before any payment step', async () => {
    const args = { foreground: '#303030', background: '#ffffff', large_text: false };
    const offer = await offerFor(args, '900');
    const challenge = await mcp.callTool({ name: CONTRAST, arguments: args, _meta: { 'x402/signed-offer': offer } });
    const pr = challenge.structuredContent as PaymentRequired;
    assert.equal(pr.accepts[0]!.amount, '900');
    const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(pr));
    const paid = await mcp.callTool({ name: CONTRAST, arguments: args, _meta: { 'x402/payment': payload, 'x402/signed-offer': offer } });
    assert.notEqual(paid.isError, true, JSON.stringify(paid));
    const receipt = paid._meta?.['x402/payment-response'] as { transaction: string };
    assert.equal(await transferred(receipt.transaction), 900n);

    const attempts = (await rig.service.ledger.summary()).byState;
    const other = await mcp.callTool({ name: CONTRAST, arguments: { ...args, foreground: '#313131' }, _meta: { 'x402/payment': payload, 'x402/signed-offer': offer } });
    assert.equal(other.isError, true);
    const body = JSON.parse((other.content as Array<{ text: string }>)[0]!.text);
    assert.equal(body.error.code, 'invalid_request');
    assert.match(body.error.message, /signed for a different body/);
    assert.deepEqual((await rig.service.ledger.summary()).byState, attempts, 'nothing bound or settled');
  });

  test('A2A: the offer on the asking and the paying message is the price; an offer for other arguments is refused', async () => {
    const args = { foreground: '#404040', background: '#ffffff', large_text: false };
    const offer = await offerFor(args, '800');
    const challenge = (await send(userMessage({ skill: CONTRAST, 'x402.signed-offer': offer }, args))) as Task;
    assert.ok(isTask(challenge));
    assert.equal(challenge.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const required = challenge.status!.message!.metadata!['x402.payment.required'] as PaymentRequired;
    assert.equal(required.accepts[0]!.amount, '800');
    const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(required));
    const done = (await send(userMessage({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload, 'x402.signed-offer': offer }, undefined, challenge.id))) as Task;
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(done.status));
    const receipts = done.status!.message!.metadata!['x402.payment.receipts'] as Array<{ transaction: string }>;
    assert.equal(await transferred(receipts[0]!.transaction), 800n);

    const other = (await send(userMessage({ skill: CONTRAST, 'x402.signed-offer': offer }, { ...args, foreground: '#414141' }))) as Task;
    assert.equal(other.status?.state, TaskState.TASK_STATE_REJECTED);
    assert.equal(other.status!.message!.metadata!.error_code, 'invalid_request');
  });
});
