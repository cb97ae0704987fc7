/**
 * A handler worker: loads the capability table once, says `ready`, then runs
 * one task at a time — `run`: the entry named by id, `run(input)`, the result
 * as the exact JSON string the inline path would send
 * (`JSON.stringify(await run(input))`), its UTF-8 bytes (moved to the main
 * thread, which writes them to the socket without encoding megabytes) and
 * their SHA-256 (the signed receipt binds it; hashed here too); `read`: the entry's input reader on a
 * request body (decode, JSON.parse, schema), the same verdict the inline path
 * would reach, and for a paid request the fingerprint the gate binds it to.
 *
 * Runs TypeScript through tsx, which the pool passes in the worker's execArgv.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { CATALOG } from '../capabilities/index.js';
import { makeInputReader } from '../catalog/input-reader.js';
import { callFingerprint } from '../payments/paid-flow.js';
import { sha256Hex } from '../payments/canonical-json.js';
import type { RunResult } from './pool.js';
import type { WorkerReply, WorkerTask } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('src/isolation/worker.ts runs only as a worker thread');

/**
 * Heavy handlers yield the CPU to the event loop: this thread runs at nice
 * 10, so when cores are short (2 cores, a worker busy for 200 ms) the
 * scheduler serves the main thread's /healthz, 402s and deliveries first and
 * gives this thread what is left. Linux keeps a nice value per thread
 * (setpriority(2) on the thread id, which /proc/thread-self names); elsewhere,
 * or if refused, the thread keeps the process's priority.
 */
function yieldCpuToEventLoop(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, HANDLER_NICE);
  } catch {
    // Not Linux, or not allowed: same priority as the event loop.
  }
}
const HANDLER_NICE = 10;
yieldCpuToEventLoop();

const byId = new Map(CATALOG.map((c) => [c.id, c]));
const readers = new Map<string, ReturnType<typeof makeInputReader>>();

const utf8 = new TextEncoder();

port.on('message', async (task: WorkerTask) => {
  let reply: WorkerReply;
  let transfer: ArrayBuffer[] = [];
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
      // Encoded here, and moved (not copied) to the main thread, which then writes bytes to the socket.
      const bytes = utf8.encode(body);
      transfer = [bytes.buffer as ArrayBuffer];
      reply = { seq: task.seq, ok: true, value: { body, bytes, sha256: sha256Hex(bytes) } satisfies RunResult };
    }
  } catch (e) {
    reply = { seq: task.seq, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply, transfer);
});
port.postMessage({ ready: true } satisfies WorkerReply);
