import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { BoundedTaskStore } from './task-store.js';

const ctx = new ServerCallContext();

function task(id: string, state: TaskState, note = ''): Task {
  return { id, contextId: 'c', status: { state, message: undefined, timestamp: undefined }, artifacts: [], history: [], metadata: { note } };
}

test('a finished task is never turned back by a slower concurrent save', async () => {
  const s = new BoundedTaskStore();
  await s.save(task('t', TaskState.TASK_STATE_INPUT_REQUIRED), ctx);
  await s.save(task('t', TaskState.TASK_STATE_COMPLETED, 'paid'), ctx);
  await s.save(task('t', TaskState.TASK_STATE_INPUT_REQUIRED, 'late duplicate'), ctx);
  const t = await s.load('t', ctx);
  assert.equal(t?.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(t?.metadata?.note, 'paid');
});

test('the oldest tasks go first past the count, the byte budget or the time to live', async () => {
  let now = 0;
  const s = new BoundedTaskStore({ maxTasks: 2, maxBytes: 10_000, ttlMs: 1000 }, () => now);
  for (const id of ['a', 'b', 'c']) await s.save(task(id, TaskState.TASK_STATE_INPUT_REQUIRED), ctx);
  assert.equal(await s.load('a', ctx), undefined);
  assert.ok(await s.load('c', ctx));

  const big = new BoundedTaskStore({ maxTasks: 100, maxBytes: 600, ttlMs: 1000 }, () => now);
  await big.save(task('x', TaskState.TASK_STATE_INPUT_REQUIRED, 'x'.repeat(300)), ctx);
  await big.save(task('y', TaskState.TASK_STATE_INPUT_REQUIRED, 'y'.repeat(300)), ctx);
  assert.equal(await big.load('x', ctx), undefined, 'over the byte budget: the older one is dropped');
  assert.ok(await big.load('y', ctx));

  now = 1001;
  assert.equal(await s.load('c', ctx), undefined, 'expired');
});

test('listing is refused: tasks are readable only by their id', async () => {
  await assert.rejects(new BoundedTaskStore().list(), /not offered/);
});
