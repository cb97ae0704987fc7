/**
 * A handler worker: loads the capability table once, says `ready`, then runs
 * one task at a time — the entry named by id, `run(input)`, the result as the
 * exact JSON string the inline path would send (`JSON.stringify(await run(input))`).
 *
 * Runs TypeScript through tsx, which the pool passes in the worker's execArgv.
 */
import { parentPort } from 'node:worker_threads';
import { CATALOG } from '../capabilities/index.js';
import type { WorkerReply, WorkerTask } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('src/isolation/worker.ts runs only as a worker thread');

const byId = new Map(CATALOG.map((c) => [c.id, c]));

port.on('message', async (task: WorkerTask) => {
  let reply: WorkerReply;
  try {
    const cap = byId.get(task.id);
    if (!cap) throw new Error(`no capability "${task.id}" in CATALOG`);
    reply = { seq: task.seq, ok: true, body: JSON.stringify(await cap.run(task.input)) };
  } catch (e) {
    reply = { seq: task.seq, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true } satisfies WorkerReply);
