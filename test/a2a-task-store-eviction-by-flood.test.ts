/**
 * Attack (issue 21, item 6): another client floods /a2a with cheap messages
 * until the shared task store evicts a buyer's task that is waiting for
 * payment; the buyer's payment then gets "Task not found". Driven with the
 * official A2A SDK client against the real app on the devnet, clients told
 * apart by address (TRUST_PROXY=1, X-Forwarded-For, as the rate limiter
 * counts them). Two floods that each emptied the old shared LRU (64 MiB):
 * rejected messages carrying 2 MiB each, and valid 2 MiB extractor calls
 * that each open a task waiting for payment.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { PaymentRequired } from '@x402/core/types';
import { balanceOf, buyerClient, startRig, type Rig } from './support/harness.js';
import { X402_URI, isTask, userMessage as message } from './support/a2a-messages.js';

const CONTRAST = 'accessibility-contrast-calculator';
const EXTRACTOR = 'catalog-offer-evidence-extractor';
const TWO_MIB = 2 * 1024 * 1024;

describe('A2A: a flood from one client cannot evict another client\'s task waiting for payment', () => {
  let rig: Rig;
  const clientFrom = async (address: string) => {
    const c = await new ClientFactory().createFromUrl(rig.service.url);
    return {
      send: (m: Message) => c.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined }, { serviceParameters: { 'A2A-Extensions': X402_URI, 'X-Forwarded-For': address } }),
      get: (id: string) => c.getTask({ tenant: '', id, historyLength: undefined }, { serviceParameters: { 'X-Forwarded-For': address } }),
    };
  };

  before(async () => {
    rig = await startRig({ env: { TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '0' } });
  });
  after(async () => {
    await rig?.close();
  });

  async function waitingTask(buyer: Awaited<ReturnType<typeof clientFrom>>, args: Record<string, unknown>): Promise<Task> {
    const r = await buyer.send(message({ skill: CONTRAST }, args));
    assert.ok(isTask(r));
    assert.equal(r.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    return r;
  }

  async function pay(buyer: Awaited<ReturnType<typeof clientFrom>>, task: Task): Promise<void> {
    const required = task.status!.message!.metadata!['x402.payment.required'] as PaymentRequired;
    const payload = await buyerClient(rig.devnet).createPaymentPayload(required);
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const done = await buyer.send(message({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, undefined, task.id));
    assert.ok(isTask(done), `the payment is answered with the task, got ${JSON.stringify(done).slice(0, 300)}`);
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.match(JSON.stringify(done.artifacts), /contrast_ratio/);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n, 'charged once');
  }

  test('40 rejected messages of 2 MiB each from another client: the buyer\'s waiting task survives and its payment completes it', async () => {
    const buyer = await clientFrom('198.51.100.7');
    const task = await waitingTask(buyer, { foreground: '#123456', background: '#fefefe', large_text: false });
    const flooder = await clientFrom('203.0.113.66');
    const junk = 'x'.repeat(TWO_MIB);
    for (let i = 0; i < 40; i++) {
      const r = await flooder.send(message({ skill: CONTRAST }, { foreground: junk, background: '#ffffff' }));
      assert.ok(isTask(r) && r.status?.state === TaskState.TASK_STATE_REJECTED, 'each flood message is refused by validation');
    }
    const still = await buyer.get(task.id);
    assert.equal(still.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'the waiting task is still there');
    await pay(buyer, task);
  });

  test('40 valid 2 MiB extractor calls (each a task waiting for payment) from another client: its own new tasks are refused with a stable JSON-RPC code, the buyer\'s task survives', async () => {
    const buyer = await clientFrom('198.51.100.8');
    const task = await waitingTask(buyer, { foreground: '#654321', background: '#fdfdfd', large_text: true });
    const flooder = await clientFrom('203.0.113.67');
    const html = `<html><body>${'p'.repeat(TWO_MIB - 100)}</body></html>`;
    let opened = 0;
    const refusals: Array<{ code?: number; message: string }> = [];
    for (let i = 0; i < 40; i++) {
      try {
        const r = await flooder.send(message({ skill: EXTRACTOR }, { html }));
        assert.ok(isTask(r) && r.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED, `a valid call waits for payment, got ${JSON.stringify(r).slice(0, 300)}`);
        opened++;
      } catch (e) {
        refusals.push({ code: (e as { envelopeCode?: number }).envelopeCode, message: (e as Error).message });
      }
    }
    const still = await buyer.get(task.id);
    assert.equal(still.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'the waiting task is still there');
    await pay(buyer, task);

    assert.ok(refusals.length > 0, 'the flooding client meets its own budget');
    assert.ok(opened >= 1, 'a client may keep a few large tasks waiting');
    assert.equal(refusals[0]!.code, -32029, refusals[0]!.message);
    assert.match(refusals[0]!.message, /rate_limited/);

    // Another client is not affected by the flooder's budget.
    const other = await clientFrom('198.51.100.9');
    await waitingTask(other, { foreground: '#111111', background: '#eeeeee', large_text: false });
  });
});
