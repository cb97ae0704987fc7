/**
 * Attack (issue 21, item 1, the A2A task store's part): an unpaid SendMessage
 * naming a paid skill with megabytes of arguments is rejected by validation,
 * yet the task kept the whole message in its history, so every GetTask of it
 * copied and serialised megabytes. Rules checked here on the real endpoint:
 * a rejected or failed task keeps no copy of its input, junk sent on a task
 * waiting for payment is not kept either, a completed task keeps its result
 * (and still answers a repeated payment) but not the input, and a paid
 * skill's arguments are bounded by its own HTTP body limit before anything
 * copies or validates them. Reads are measured in bytes of the answer.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import type { PaymentRequired } from '@x402/core/types';
import { buyerClient, startRig, type Rig } from './support/harness.js';
import { X402_URI, userMessage as message } from './support/a2a-messages.js';

const CONTRAST = 'accessibility-contrast-calculator';
const JUNK = 'J'.repeat(2 * 1024 * 1024);
const HALF_JUNK = JUNK.slice(0, 1024 * 1024);
/** A task without input answers in a few KB (the requirement, the status, summaries of the messages). */
const SMALL = 16 * 1024;

function asTask(r: Message | Task): Task {
  assert.ok('status' in r, `expected a task, got ${JSON.stringify(r).slice(0, 300)}`);
  return r;
}

describe('A2A: a rejected or failed task keeps no copy of its input; a task read costs what its answer costs', () => {
  let rig: Rig;
  let client: Client;
  const send = (m: Message) => client.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined }, { serviceParameters: { 'A2A-Extensions': X402_URI } });
  /** GetTask over the wire: the answer's bytes and its result. */
  const getTask = async (id: string) => {
    const res = await fetch(rig.service.url + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }) });
    const text = await res.text();
    return { bytes: Buffer.byteLength(text), text, task: JSON.parse(text).result as { status: { state: string }; history?: unknown[]; artifacts?: unknown[] } };
  };

  before(async () => {
    rig = await startRig();
    client = await new ClientFactory().createFromUrl(rig.service.url);
  });
  after(async () => {
    await rig?.close();
  });

  test('a paid skill named with 2 MiB of arguments is rejected, and neither the answer nor a later GetTask carries them', async () => {
    const r = asTask(await send(message({ skill: CONTRAST }, { foreground: JUNK, background: '#ffffff' })));
    assert.equal(r.status?.state, TaskState.TASK_STATE_REJECTED);
    assert.ok(JSON.stringify(r).length < SMALL, `the SendMessage answer holds ${JSON.stringify(r).length} characters`);
    const read = await getTask(r.id);
    assert.equal(read.task.status.state, 'TASK_STATE_REJECTED');
    assert.ok(read.bytes < SMALL, `GetTask answered ${read.bytes} bytes`);
    assert.doesNotMatch(read.text, /JJJJ/);
  });

  test('a free skill refusing 2 MiB of arguments keeps none of them either', async () => {
    const r = asTask(await send(message({ skill: 'router-quote' }, { objective: JUNK })));
    assert.ok(r.status?.state === TaskState.TASK_STATE_REJECTED || r.status?.state === TaskState.TASK_STATE_FAILED, String(r.status?.state));
    const read = await getTask(r.id);
    assert.ok(read.bytes < SMALL, `GetTask answered ${read.bytes} bytes`);
    assert.doesNotMatch(read.text, /JJJJ/);
  });

  test("a paid skill's arguments over its own HTTP body limit are refused as payload_too_large, before any payment requirement", async () => {
    // Many small values: the contrast calculator takes at most 4096 bytes over HTTP.
    const r = asTask(await send(message({ skill: CONTRAST }, { foreground: '#000000', background: '#ffffff', padding: Array.from({ length: 20_000 }, () => ({})) })));
    assert.equal(r.status?.state, TaskState.TASK_STATE_REJECTED);
    assert.equal(r.status?.message?.metadata?.error_code, 'payload_too_large');
    assert.equal(r.status?.message?.metadata?.['x402.payment.status'], undefined);
  });

  test('junk sent on a task waiting for payment is not kept: the task keeps its call and summaries', async () => {
    const args = { foreground: '#202020', background: '#f8f8f8', large_text: false };
    const waiting = asTask(await send(message({ skill: CONTRAST }, args)));
    assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    for (let i = 0; i < 3; i++) {
      const r = asTask(await send(message({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': { x402Version: 2, junk: HALF_JUNK } }, { junk: HALF_JUNK }, waiting.id)));
      assert.equal(r.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'still waiting');
      assert.equal(r.status?.message?.metadata?.['x402.payment.status'], 'payment-failed');
    }
    const read = await getTask(waiting.id);
    assert.equal(read.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.ok(read.bytes < SMALL, `GetTask answered ${read.bytes} bytes`);
    assert.doesNotMatch(read.text, /JJJJ/);
    assert.match(read.text, /#202020/, "the call's arguments are kept while the task waits: the payment runs them");

    // The buyer's payment still completes it; the completed task keeps the result, not the input, and a repeated payment still finds it.
    const payload = await buyerClient(rig.devnet).createPaymentPayload(waiting.status!.message!.metadata!['x402.payment.required'] as PaymentRequired);
    const paid = { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload };
    const done = asTask(await send(message(paid, undefined, waiting.id)));
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    const completed = await getTask(waiting.id);
    assert.match(completed.text, /contrast_ratio/);
    assert.doesNotMatch(completed.text, /#202020|JJJJ/);
    assert.ok(completed.bytes < SMALL, `GetTask answered ${completed.bytes} bytes`);
    const again = asTask(await send(message(paid, undefined, waiting.id)));
    assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(again.artifacts, done.artifacts);
  });
});
