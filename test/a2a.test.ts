/**
 * The A2A binding with the official A2A SDK client, end to end on the devnet:
 * the client finds the JSON-RPC interface on the agent card, a free skill
 * answers with a message, a paid skill stops in the a2a-x402 payment-required
 * state, the signed payment completes it with the result and the receipt,
 * exactly one transfer lands on chain, and repeating the payment is free.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { balanceOf, buyerClient, withPaymentId, startRig, transferLogs, type Rig } from './support/harness.js';
import { X402_URI, isTask, userMessage } from './support/a2a-messages.js';

const CONTRAST = 'accessibility-contrast-calculator';

function asTask(r: Message | Task): Task {
  assert.ok(isTask(r), `expected a task, got ${JSON.stringify(r)}`);
  return r;
}

function dataOf(parts: Message['parts']): unknown {
  const p = parts.find((x) => x.content?.$case === 'data');
  return p?.content?.$case === 'data' ? p.content.value : undefined;
}

describe('A2A binding (JSON-RPC) with the A2A SDK client', () => {
  let rig: Rig;
  let client: Client;
  let base: string;
  const send = (message: Message) => client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, { serviceParameters: { 'A2A-Extensions': X402_URI } });
  const attempts = async () => Object.values((await rig.service.ledger.summary()).byState).reduce((a, b) => a + b, 0);

  before(async () => {
    rig = await startRig();
    base = rig.service.url;
    client = await new ClientFactory().createFromUrl(base);
  });
  after(async () => {
    await rig?.close();
  });

  test('the agent card lists the JSON-RPC interface first (v1.0, then v0.3), MCP next, and declares the a2a-x402 extension', async () => {
    const card = await (await fetch(base + '/.well-known/agent-card.json')).json();
    assert.deepEqual(card.supportedInterfaces[0], { url: base + '/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' });
    assert.deepEqual(card.supportedInterfaces[1], { url: base + '/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' });
    assert.equal(card.supportedInterfaces[2].protocolBinding, 'MCP');
    const ext = card.capabilities.extensions.find((e: { uri: string }) => e.uri === X402_URI);
    assert.ok(ext, 'the extension is declared with its spec URI');
    assert.equal(ext.required, false);
    assert.equal(ext.params.x402Version, 2);
    for (const cap of rig.service.catalog) assert.ok(card.skills.some((s: { id: string; tags: string[] }) => s.id === cap.id && s.tags.includes('paid')), cap.id);
    assert.ok(card.skills.some((s: { id: string }) => s.id === 'router-quote'));
  });

  test('a free skill answers directly with a message carrying a data part, at the caller\'s origin', async () => {
    const r = await send(userMessage({ skill: 'router-quote' }, { objective: 'contrast of #777777 on #ffffff' }));
    assert.ok(!isTask(r), 'a message, not a task');
    const quote = dataOf(r.parts) as { outcome: { kind: string } };
    assert.equal(quote.outcome.kind, 'single');
    assert.match(JSON.stringify(quote), new RegExp(`${base}/x402/v1/${CONTRAST}`));
    const listed = await send(userMessage({ skill: 'list-services' }, {}));
    assert.ok(!isTask(listed));
    const services = dataOf(listed.parts) as { services: Array<{ id: string }> };
    assert.ok(services.services.some((s) => s.id === CONTRAST));
  });

  test('invalid input is refused before any payment requirement, even with a payment attached', async () => {
    const before = await attempts();
    const t = asTask(await send(userMessage({ skill: CONTRAST }, { foreground: 'red' })));
    assert.equal(t.status?.state, TaskState.TASK_STATE_REJECTED);
    const meta = t.status?.message?.metadata ?? {};
    assert.equal(meta.error_code, 'invalid_request');
    assert.equal(meta['x402.payment.status'], undefined, 'no payment requirement');
    assert.equal((dataOf(t.status!.message!.parts) as { error: { code: string } }).error.code, 'invalid_request');
    const withPayment = asTask(await send(userMessage({ skill: CONTRAST, 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': { x402Version: 2 } }, { foreground: 'red' })));
    assert.equal(withPayment.status?.state, TaskState.TASK_STATE_REJECTED);
    assert.equal(await attempts(), before, 'the ledger was not touched');
    const unknown = asTask(await send(userMessage({ skill: 'no-such-skill' }, {})));
    assert.equal(unknown.status?.state, TaskState.TASK_STATE_REJECTED);
    assert.equal(unknown.status?.message?.metadata?.error_code, 'not_found');
  });

  test('a paid skill asks for payment, the signed payment completes it with result and receipt, one transfer; repeating the payment is free', async () => {
    const args = { foreground: '#333333', background: '#fafafa', large_text: false };
    const challenge = asTask(await send(userMessage({ skill: CONTRAST }, args)));
    assert.equal(challenge.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const meta = challenge.status!.message!.metadata!;
    assert.equal(meta['x402.payment.status'], 'payment-required');
    const required = meta['x402.payment.required'] as PaymentRequired;
    assert.equal(required.x402Version, 2);
    assert.equal(required.accepts[0]!.amount, '1000');
    assert.equal(required.accepts[0]!.payTo, rig.devnet.payTo);
    // The words say how to pay over A2A (a payment message on the task), not over HTTP (a header this transport has no place for).
    const words = challenge.status!.message!.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    assert.match(words, /^Payment required: 1000 atomic units of USDC \(0\.001 USDC\) on eip155:31337 to 0x[0-9a-fA-F]{40}, or on solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1 to [1-9A-HJ-NP-Za-km-z]{32,44}\. To pay over A2A/);
    assert.match(words, /"x402\.payment\.status": "payment-submitted" and "x402\.payment\.payload"/);
    assert.doesNotMatch(words, /PAYMENT-SIGNATURE|header/);

    const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(required));
    const paid = { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload };
    const balanceBefore = await balanceOf(rig.devnet, rig.devnet.payTo);
    const done = asTask(await send(userMessage(paid, undefined, challenge.id)));
    assert.equal(done.id, challenge.id);
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    const cap = rig.service.catalog.find((c) => c.id === CONTRAST)!;
    assert.deepEqual(dataOf(done.artifacts[0]!.parts), JSON.parse(JSON.stringify(await cap.run(args))), "the capability's own result");
    const doneMeta = done.status!.message!.metadata!;
    assert.equal(doneMeta['x402.payment.status'], 'payment-completed');
    const receipt = (doneMeta['x402.payment.receipts'] as Array<{ success: boolean; transaction: string; network: string }>)[0]!;
    assert.equal(receipt.success, true);
    assert.equal(receipt.network, rig.devnet.network);
    const transfers = async () => (await transferLogs(rig.devnet, { to: rig.devnet.payTo })).filter((l) => l.txHash === receipt.transaction).length;
    assert.equal(await transfers(), 1);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - balanceBefore, 1000n);
    const settled = (await rig.service.ledger.summary()).byState.settled;

    // The answer got lost: the same payment message on the same task returns the same completed task.
    const again = asTask(await send(userMessage(paid, undefined, challenge.id)));
    assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(dataOf(again.artifacts[0]!.parts), dataOf(done.artifacts[0]!.parts));
    assert.deepEqual(again.status!.message!.metadata!['x402.payment.receipts'], doneMeta['x402.payment.receipts']);

    // The task is gone too (restart, another instance): skill, input and the same payment in one message; the gate answers from the ledger.
    const fresh = asTask(await send(userMessage({ skill: CONTRAST, ...paid }, args)));
    assert.notEqual(fresh.id, challenge.id);
    assert.equal(fresh.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(dataOf(fresh.artifacts[0]!.parts), dataOf(done.artifacts[0]!.parts));
    assert.equal((fresh.status!.message!.metadata!['x402.payment.receipts'] as Array<{ transaction: string }>)[0]!.transaction, receipt.transaction);

    assert.equal(await transfers(), 1, 'still exactly one transfer');
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - balanceBefore, 1000n, 'charged once');
    assert.equal((await rig.service.ledger.summary()).byState.settled, settled, 'no second settlement');
  });

  test('a payment the gate refuses leaves the task waiting with payment-failed, our error code and the requirement again', async () => {
    const args = { foreground: '#000000', background: '#eeeeee', large_text: true };
    const challenge = asTask(await send(userMessage({ skill: CONTRAST }, args)));
    const required = challenge.status!.message!.metadata!['x402.payment.required'] as PaymentRequired;
    const payload = (withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(required))) as PaymentPayload;
    const forged = structuredClone(payload);
    (forged.payload as { authorization: { value: string } }).authorization.value = '1';
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const r = asTask(await send(userMessage({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': forged }, undefined, challenge.id)));
    assert.equal(r.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const meta = r.status!.message!.metadata!;
    assert.equal(meta['x402.payment.status'], 'payment-failed');
    assert.equal(meta['x402.payment.error'], 'payment_invalid');
    assert.equal((meta['x402.payment.required'] as PaymentRequired).accepts[0]!.amount, '1000');
    // The same task then takes the honest payment.
    const ok = asTask(await send(userMessage({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, undefined, challenge.id)));
    assert.equal(ok.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n);
  });

  test('a settlement left unknown keeps the task waiting (503 code, nothing delivered); the same payment on the same task then completes it once', async () => {
    const args = { foreground: '#222222', background: '#dddddd', large_text: false };
    const challenge = asTask(await send(userMessage({ skill: CONTRAST }, args)));
    const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(challenge.status!.message!.metadata!['x402.payment.required'] as PaymentRequired));
    const paid = { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload };
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    rig.proxy.setMode({ settle: 'settle-false' });
    try {
      const r = asTask(await send(userMessage(paid, undefined, challenge.id)));
      assert.equal(r.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert.equal(r.status!.message!.metadata!['x402.payment.status'], 'payment-failed');
      assert.equal(r.status!.message!.metadata!['x402.payment.error'], 'settlement_unknown');
      assert.equal(r.artifacts.length, 0, 'no result before settlement');
      assert.doesNotMatch(JSON.stringify(r.status), /contrast_ratio/);
    } finally {
      rig.proxy.setMode('pass');
    }
    const retry = asTask(await send(userMessage(paid, undefined, challenge.id)));
    assert.equal(retry.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.match(JSON.stringify(dataOf(retry.artifacts[0]!.parts)), /contrast_ratio/);
    const receipt = (retry.status!.message!.metadata!['x402.payment.receipts'] as Array<{ success: boolean; transaction: string }>)[0]!;
    assert.equal(receipt.success, true);
    assert.equal((await transferLogs(rig.devnet, { to: rig.devnet.payTo })).filter((l) => l.txHash === receipt.transaction).length, 1);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n, 'charged once');
  });

  test('raw JSON-RPC v1.0: a v1.0 method without A2A-Version is read as v0.3 and not found; a paid call activates the requested x402 extension', async () => {
    const rpc = (headers: Record<string, string>, message: unknown) =>
      fetch(base + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'SendMessage', params: { message } }) });
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { foreground: '#101010', background: '#ffffff', large_text: false } }], metadata: { skill: CONTRAST } };
    const noVersion = await (await rpc({}, message)).json();
    assert.equal(noVersion.id, 'r1');
    assert.equal(noVersion.error.code, -32601, 'SendMessage is not a v0.3 method');
    const res = await rpc({ 'A2A-Version': '1.0', 'A2A-Extensions': X402_URI }, message);
    assert.equal(res.headers.get('A2A-Extensions'), X402_URI);
    const body = await res.json();
    assert.equal(body.result.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(body.result.task.status.message.metadata['x402.payment.status'], 'payment-required');
    const bad = await fetch(base + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: '{"jsonrpc":' });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, -32700);
  });

  test('A2A v0.3 wire form, exactly as the a2a-x402 spec shows it: message/send, input-required, payment-submitted, completed with receipts', async () => {
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(base + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json', 'X-A2A-Extensions': X402_URI }, body: JSON.stringify({ jsonrpc: '2.0', id: 'req-001', method, params }) });
      return { res, body: await res.json() };
    };
    const args = { foreground: '#0a0a0a', background: '#f0f0f0', large_text: false };
    const first = await rpc('message/send', { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: args }], metadata: { skill: CONTRAST } } });
    assert.equal(first.res.headers.get('X-A2A-Extensions'), X402_URI, 'activated under the v0.3 header name');
    const task = first.body.result;
    assert.equal(task.kind, 'task');
    assert.equal(task.status.state, 'input-required');
    assert.equal(task.status.message.metadata['x402.payment.status'], 'payment-required');
    const required = task.status.message.metadata['x402.payment.required'] as PaymentRequired;
    assert.equal(required.x402Version, 2);

    const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(required));
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const pay = () =>
      rpc('message/send', {
        message: { kind: 'message', messageId: randomUUID(), taskId: task.id, role: 'user', parts: [{ kind: 'text', text: 'Here is the payment authorization.' }], metadata: { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload } },
      });
    const done = (await pay()).body.result;
    assert.equal(done.kind, 'task');
    assert.equal(done.id, task.id);
    assert.equal(done.status.state, 'completed');
    assert.equal(done.status.message.metadata['x402.payment.status'], 'payment-completed');
    const receipt = done.status.message.metadata['x402.payment.receipts'][0];
    assert.equal(receipt.success, true);
    const cap = rig.service.catalog.find((c) => c.id === CONTRAST)!;
    assert.deepEqual(done.artifacts[0].parts[0], { kind: 'data', data: JSON.parse(JSON.stringify(await cap.run(args))) });
    const again = (await pay()).body.result;
    assert.equal(again.status.state, 'completed');
    assert.deepEqual(again.artifacts, done.artifacts);
    assert.equal((await transferLogs(rig.devnet, { to: rig.devnet.payTo })).filter((l) => l.txHash === receipt.transaction).length, 1);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n);
  });

  test('GET /a2a describes the endpoint; listing tasks is not offered', async () => {
    const d = await (await fetch(base + '/a2a')).json();
    assert.equal(d.endpoint, base + '/a2a');
    assert.match(d.payment, /x402\.payment\.required/);
    assert.match(await (await fetch(base + '/llms.txt')).text(), new RegExp(`## A2A\n${base}/a2a is an A2A v1\\.0 JSON-RPC endpoint`));
    const res = await fetch(base + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ListTasks', params: {} }) });
    const body = await res.json();
    assert.equal(body.id, 7);
    assert.ok(body.error, 'an error, not everyone\'s tasks');
  });
});

describe('A2A free skills and the per-client limit of free routes', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ env: { RATE_LIMIT_PER_MINUTE: '4', TRUST_PROXY: '1' } });
  });
  after(async () => {
    await rig?.close();
  });

  test("a free skill's in-process call counts against its caller, so one busy client does not exhaust the others", async () => {
    const clientFrom = async (address: string) => {
      const c = await new ClientFactory().createFromUrl(rig.service.url);
      return (m: Message) => c.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined }, { serviceParameters: { 'X-Forwarded-For': address } });
    };
    const busy = await clientFrom('10.0.0.1');
    let refused = 0;
    for (let i = 0; i < 5; i++) {
      try {
        const r = await busy(userMessage({ skill: 'list-services' }, {}));
        if (isTask(r)) refused++; // a rejected task: the inner call was limited
      } catch {
        refused++; // the /a2a request itself was limited (429)
      }
    }
    assert.ok(refused > 0, 'the busy client meets its own limit');
    const other = await clientFrom('10.0.0.2');
    const r = await other(userMessage({ skill: 'list-services' }, {}));
    assert.ok(!isTask(r), `another client still gets its answer, got ${JSON.stringify(r).slice(0, 300)}`);
    assert.ok((dataOf(r.parts) as { services: unknown[] }).services.length > 0);
  });
});
