import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { BoundedTaskStore, boundedTask, TASK_CLIENT, TASK_LIMIT_JSONRPC_CODE, TaskLimitError, type TaskStoreLimits } from './task-store.js';

const ctx = new ServerCallContext();
const from = (client: string) => new ServerCallContext({ state: new Map([[TASK_CLIENT, client]]) });

const LIMITS: TaskStoreLimits = { maxTasks: 100, maxBytes: 1_000_000, perClientTasks: 100, perClientBytes: 1_000_000, ttlMs: 3_600_000, defaultWindowMs: 300_000 };

function userMessage(metadata: Record<string, unknown>, data?: unknown): Message {
  return {
    messageId: `m-${Math.random()}`,
    contextId: 'c',
    taskId: '',
    role: Role.ROLE_USER,
    parts: data === undefined ? [{ content: { $case: 'text', value: 'Here is the payment.' }, metadata: undefined, filename: '', mediaType: 'text/plain' }] : [{ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' }],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

function task(id: string, state: TaskState, note = '', opts: { maxTimeoutSeconds?: number; history?: Message[] } = {}): Task {
  const metadata = opts.maxTimeoutSeconds === undefined ? undefined : { 'x402.payment.required': { x402Version: 2, accepts: [{ maxTimeoutSeconds: opts.maxTimeoutSeconds }] } };
  const status = { state, message: metadata && { ...userMessage(metadata), role: Role.ROLE_AGENT }, timestamp: undefined };
  return { id, contextId: 'c', status, artifacts: [], history: opts.history ?? [], metadata: { note } };
}

const waiting = (id: string, note = '', maxTimeoutSeconds = 300) => task(id, TaskState.TASK_STATE_INPUT_REQUIRED, note, { maxTimeoutSeconds });

test('a finished task is never turned back by a slower concurrent save', async () => {
  const s = new BoundedTaskStore();
  await s.save(task('t', TaskState.TASK_STATE_INPUT_REQUIRED), ctx);
  await s.save(task('t', TaskState.TASK_STATE_COMPLETED, 'paid'), ctx);
  await s.save(task('t', TaskState.TASK_STATE_INPUT_REQUIRED, 'late duplicate'), ctx);
  const t = await s.load('t', ctx);
  assert.equal(t?.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(t?.metadata?.note, 'paid');
});

test('a read is a fresh copy: changing it changes nothing stored', async () => {
  const s = new BoundedTaskStore();
  await s.save(task('t', TaskState.TASK_STATE_COMPLETED, 'kept'), ctx);
  const a = (await s.load('t', ctx))!;
  a.metadata!.note = 'changed';
  assert.equal((await s.load('t', ctx))?.metadata?.note, 'kept');
});

test('finished tasks go oldest first past the count, the byte budget or the time to live', async () => {
  let now = 0;
  const s = new BoundedTaskStore({ ...LIMITS, maxTasks: 2 }, () => now);
  for (const id of ['a', 'b', 'c']) await s.save(task(id, TaskState.TASK_STATE_COMPLETED), ctx);
  assert.equal(await s.load('a', ctx), undefined);
  assert.ok(await s.load('c', ctx));

  const big = new BoundedTaskStore({ ...LIMITS, maxBytes: 700 }, () => now);
  await big.save(task('x', TaskState.TASK_STATE_COMPLETED, 'x'.repeat(300)), ctx);
  await big.save(task('y', TaskState.TASK_STATE_COMPLETED, 'y'.repeat(300)), ctx);
  assert.equal(await big.load('x', ctx), undefined, 'over the byte budget: the older one is dropped');
  assert.ok(await big.load('y', ctx));

  now = 3_600_001;
  assert.equal(await s.load('c', ctx), undefined, 'expired');
});

test("a waiting task in its payment window is never evicted by another client's tasks: the other client's new task is refused instead", async () => {
  let now = 0;
  const s = new BoundedTaskStore({ ...LIMITS, maxTasks: 3 }, () => now);
  await s.save(waiting('buyer-task', '', 120), from('buyer'));
  await s.save(waiting('f1'), from('flooder'));
  await s.save(waiting('f2'), from('flooder'));
  await assert.rejects(s.save(waiting('f3'), from('flooder')), (e: unknown) => {
    assert.ok(e instanceof TaskLimitError);
    assert.equal(e.envelopeCode, TASK_LIMIT_JSONRPC_CODE);
    assert.equal(e.data.error.code, 'service_unavailable');
    assert.ok(e.retryAfterSeconds >= 1 && e.retryAfterSeconds <= 120);
    return true;
  });
  assert.ok(await s.load('buyer-task', ctx));
  // Finished tasks make room for new ones, whoever they belong to.
  await s.save(task('f2', TaskState.TASK_STATE_REJECTED), from('flooder'));
  await s.save(waiting('f3'), from('flooder'));
  assert.equal(await s.load('f2', ctx), undefined);
  assert.ok(await s.load('buyer-task', ctx));
  // Past its window (the requirement's maxTimeoutSeconds) the buyer's task may go like any finished one.
  now = 121_000;
  await s.save(waiting('f4'), from('flooder'));
  assert.equal(await s.load('buyer-task', ctx), undefined);
  assert.ok(await s.load('f4', ctx));
});

test("a client over its budget loses its own finished tasks first, then is refused; other clients' tasks are untouched", async () => {
  const s = new BoundedTaskStore({ ...LIMITS, perClientTasks: 2 });
  await s.save(waiting('other'), from('other'));
  await s.save(task('done', TaskState.TASK_STATE_REJECTED), from('busy'));
  await s.save(waiting('w1'), from('busy'));
  await s.save(waiting('w2'), from('busy'));
  assert.equal(await s.load('done', ctx), undefined, 'its own finished task went');
  await assert.rejects(s.save(waiting('w3'), from('busy')), (e: unknown) => e instanceof TaskLimitError && e.data.error.code === 'rate_limited');
  await s.save(waiting('other-2'), from('other'));
  for (const id of ['other', 'other-2', 'w1', 'w2']) assert.ok(await s.load(id, ctx), id);
  // A finished task of a full client is answered but not kept; a message on a waiting task is always kept.
  await s.save(task('w4', TaskState.TASK_STATE_REJECTED), from('busy'));
  assert.equal(await s.load('w4', ctx), undefined);
  await s.save(waiting('w1', 'a second message'), from('busy'));
  assert.equal((await s.load('w1', ctx))?.metadata?.note, 'a second message');
});

test('a task is charged to the client that opened it, whoever sends the later messages', async () => {
  const s = new BoundedTaskStore(LIMITS);
  await s.save(waiting('t'), from('opener'));
  const before = s.bytesOf('opener');
  await s.save(task('t', TaskState.TASK_STATE_COMPLETED, 'r'.repeat(50_000)), from('payer'));
  assert.equal(s.bytesOf('payer'), 0);
  assert.ok(s.bytesOf('opener') > before);
});

test('the stored form keeps no input of a finished task, and of a waiting task only the call and the last messages, without their data', () => {
  const huge = { foreground: 'x'.repeat(1_000_000) };
  const call = userMessage({ skill: 'accessibility-contrast-calculator', extra: 'y'.repeat(100_000) }, { foreground: '#000000', background: '#ffffff' });
  const junk = Array.from({ length: 10 }, () => userMessage({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': { big: 'z'.repeat(100_000) } }, huge));
  const w = boundedTask(task('w', TaskState.TASK_STATE_INPUT_REQUIRED, '', { history: [call, ...junk] }));
  const wJson = JSON.stringify(w);
  assert.ok(wJson.length < 8_000, `waiting: ${wJson.length} bytes`);
  assert.deepEqual(w.history[0]!.parts[0]!.content, { $case: 'data', value: { foreground: '#000000', background: '#ffffff' } }, "the call's arguments are what the payment will run");
  assert.equal(w.history.length, 5, 'the call and the last four messages');
  assert.equal(w.history.at(-1)!.messageId, junk.at(-1)!.messageId, 'the current message keeps its id');

  for (const state of [TaskState.TASK_STATE_REJECTED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED]) {
    const f = boundedTask(task('f', state, '', { history: [userMessage({ skill: 'accessibility-contrast-calculator' }, huge), ...junk] }));
    const json = JSON.stringify(f);
    assert.ok(json.length < 8_000, `${state}: ${json.length} bytes`);
    assert.doesNotMatch(json, /xxxx|zzzz/);
    assert.equal(f.history[0]!.metadata?.skill, 'accessibility-contrast-calculator');
  }

  // Completed: the completing payment is kept when it is the size of a payment, so repeating it finds the task.
  const payment = { x402Version: 2, payload: { signature: '0x' + 'ab'.repeat(65) } };
  const done = boundedTask(task('d', TaskState.TASK_STATE_COMPLETED, '', { history: [call, userMessage({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payment })] }));
  assert.deepEqual(done.history.at(-1)!.metadata?.['x402.payment.payload'], payment);
  assert.equal(done.history[0]!.parts.some((p) => p.content?.$case === 'data'), false);
});

test('listing is refused: tasks are readable only by their id', async () => {
  await assert.rejects(new BoundedTaskStore().list(), /not offered/);
});
