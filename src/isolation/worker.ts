/**
 * A handler worker: loads the capability table once, says `ready`, then runs
 * one task at a time — `run`: the entry named by id, `run(input)`, the result
 * as the exact JSON string the inline path would send
 * (`JSON.stringify(await run(input))`) and its SHA-256 (the signed receipt
 * binds it; hashing megabytes here keeps it off the event loop); `read`: the entry's input reader on a
 * request body (decode, JSON.parse, schema), the same verdict the inline path
 * would reach, and for a paid request the fingerprint the gate binds it to.
 *
 * Runs TypeScript through tsx, which the pool passes in the worker's execArgv.
 */
import { parentPort } from 'node:worker_threads';
import { CATALOG } from '../capabilities/index.js';
import { makeInputReader } from '../catalog/input-reader.js';
import { callFingerprint } from '../payments/paid-flow.js';
import { sha256Hex } from '../payments/canonical-json.js';
import type { RunResult } from './pool.js';
import type { WorkerReply, WorkerTask } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('src/isolation/worker.ts runs only as a worker thread');

const byId = new Map(CATALOG.map((c) => [c.id, c]));
const readers = new Map<string, ReturnType<typeof makeInputReader>>();

port.on('message', async (task: WorkerTask) => {
  let reply: WorkerReply;
  try {
    const cap = byId.get(task.id);
    if (!cap) throw new Error(`no capability "${task.id}" in CATALOG`);
    if (task.kind === 'read') {
      let reader = readers.get(cap.id);
      if (!reader) readers.set(cap.id, (reader = makeInputReader(cap)));
      const verdict = reader.fromBody(task.contentType, task.body);
      const fingerprint = task.fingerprint && verdict.ok ? callFingerprint(cap, verdict.input) : undefined;
      reply = { seq: task.seq, ok: true, value: { verdict, fingerprint } };
    } else {
      const body = JSON.stringify(await cap.run(task.input));
      reply = { seq: task.seq, ok: true, value: { body, sha256: sha256Hex(body) } satisfies RunResult };
    }
  } catch (e) {
    reply = { seq: task.seq, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true } satisfies WorkerReply);
