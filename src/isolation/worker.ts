/**
 * A handler worker: loads the capability table once, says `ready`, then runs
 * one task at a time — `run`: the entry named by id, `run(input)`, the result
 * as the exact JSON string the inline path would send
 * (`JSON.stringify(await run(input))`), its UTF-8 bytes (moved to the main
 * thread, which writes them to the socket without encoding megabytes) and
 * their SHA-256 (the signed receipt binds it; hashed here too); `read`: the entry's input reader on a
 * request body (decode, JSON.parse, schema), the same verdict the inline path
 * would reach, and for a paid request the fingerprint the gate binds it to.
 * For composed entries (the router's composite, src/router/execute.ts): `step`
 * (one step validated and run, its output's bytes and canonical bytes and
 * hashes), `compose` (the composed body assembled around those bytes and
 * hashed), `parse` (a body read as plain JSON) and `fingerprint`; `parse` also reads the large JSON-RPC
 * and quote messages of the free surfaces (MCP, A2A, the router quote), and `digest` hashes what a quote of
 * such a message names instead of echoing it.
 *
 * Runs TypeScript through tsx, which the pool passes in the worker's execArgv.
 */
import { createHash } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { parentPort } from 'node:worker_threads';
import { CATALOG } from '../capabilities/index.js';
import type { Capability } from '../catalog/capability.js';
import { makeInputReader } from '../catalog/input-reader.js';
import { parseJsonBody } from '../catalog/json-input.js';
import { errorBody, statusOf } from '../errors.js';
import { callFingerprint } from '../payments/paid-flow.js';
import { canonicalJson, sha256Hex } from '../foundation/canonical-json.js';
import { templateDigests } from '../foundation/json-template.js';
import type { BodyVerdict, RunResult, StepRun } from './pool.js';
import { HANDLER_THREAD_NAME, type WorkerReply, type WorkerTask } from './protocol.js';
import { nameThisThread, niceThisThread } from '../foundation/this-thread.js';

const port = parentPort;
if (!port) throw new Error('src/isolation/worker.ts runs only as a worker thread');

/**
 * Heavy handlers yield the CPU to the event loop: this thread runs at nice
 * 10, so when cores are short (2 cores, a worker busy for 200 ms) the
 * scheduler serves the main thread's /healthz, 402s and deliveries first and
 * gives this thread what is left (per thread on Linux; elsewhere the
 * process's priority).
 */
const HANDLER_NICE = 10;
niceThisThread(HANDLER_NICE);
nameThisThread(HANDLER_THREAD_NAME);

const byId = new Map(CATALOG.map((c) => [c.id, c]));
const readers = new Map<string, ReturnType<typeof makeInputReader>>();

const utf8 = new TextEncoder();
const readerOf = (cap: Capability) => {
  let reader = readers.get(cap.id);
  if (!reader) readers.set(cap.id, (reader = makeInputReader(cap)));
  return reader;
};

/**
 * A reader of any JSON value, with exactly the steps an entry's reader takes before its own rules (size, JSON
 * media type, strict UTF-8, nesting, JSON.parse): the composite reads its body with these, then plans.
 */
const jsonReaders = new Map<number, ReturnType<typeof makeInputReader>>();
function jsonReader(limit: number) {
  let reader = jsonReaders.get(limit);
  if (!reader) {
    const anyJson: Capability = { id: 'json', method: 'POST', path: '/', priceAtomic: '0', title: '', summary: '', description: '', inputSchema: {}, outputSchema: {}, examples: [], maxBodyBytes: limit, run: (v) => v, readInput: (v) => ({ ok: true, input: v }) };
    jsonReaders.set(limit, (reader = makeInputReader(anyJson)));
  }
  return reader;
}

/**
 * A `parse` task's verdict: the composite's body through its reader's steps, or (with `maxValues`) a free
 * surface's message through parseJsonBody, the function its inline path calls, so the verdict is the same.
 */
function parsed(task: Extract<WorkerTask, { kind: 'parse' }>): BodyVerdict {
  if (task.maxValues === undefined) return jsonReader(task.limit).fromBody(task.contentType, task.body);
  const r = parseJsonBody(task.body, { maxValues: task.maxValues });
  return r.ok ? { ok: true, input: r.value } : { ok: false, status: statusOf(r.error.code), body: errorBody(r.error.code, r.error.message, r.error.details) };
}

/**
 * Outbound requests made by the step this worker is running (one task at a time per worker): the composite's
 * evidence counts them for steps run here as the main thread's meter does for steps run there.
 */
let stepFetches: number | undefined;
const countFetch = () => {
  if (stepFetches !== undefined) stepFetches++;
};
diagnostics.subscribe('undici:request:create', countFetch);
diagnostics.subscribe('http.client.request.start', countFetch);

async function step(cap: Capability, body: unknown): Promise<StepRun> {
  const checked = readerOf(cap).fromValue(body);
  if (!checked.ok) throw new Error(`a step of ${cap.id} does not validate`);
  stepFetches = 0;
  let out: unknown;
  let networkFetches = 0;
  try {
    out = await cap.run(checked.input);
  } finally {
    networkFetches = stepFetches;
    stepFetches = undefined;
  }
  // The bytes its paid route would send; hashed as the inline path hashes them (canonical JSON of the bytes read back).
  const text = JSON.stringify(out);
  const bytes = utf8.encode(text);
  const canonical = utf8.encode(canonicalJson(JSON.parse(text)));
  return { bytes, canonical, inputSha: sha256Hex(canonicalJson(checked.input)), outputSha: sha256Hex(canonical), networkFetches };
}

/** `text` as UTF-8 in a SharedArrayBuffer of exactly its length. */
function sharedUtf8(text: string): Uint8Array {
  const bytes = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text, 'utf8')));
  utf8.encodeInto(text, bytes);
  return bytes;
}

function compose(hashParts: Array<string | Uint8Array>, bodyParts: Array<string | Uint8Array | null>): RunResult {
  const hash = createHash('sha256');
  for (const p of hashParts) hash.update(p);
  const digest = utf8.encode(JSON.stringify(hash.digest('hex')));
  const chunks = bodyParts.map((p) => (p === null ? digest : typeof p === 'string' ? utf8.encode(p) : p));
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { body: new TextDecoder().decode(bytes), bytes, sha256: sha256Hex(bytes) };
}

port.on('message', async (task: WorkerTask) => {
  let reply: WorkerReply;
  let transfer: ArrayBuffer[] = [];
  try {
    if (task.kind === 'compose') {
      const value = compose(task.hashParts, task.bodyParts);
      transfer = [value.bytes.buffer as ArrayBuffer];
      port.postMessage({ seq: task.seq, ok: true, value } satisfies WorkerReply, transfer);
      return;
    }
    if (task.kind === 'parse') {
      port.postMessage({ seq: task.seq, ok: true, value: parsed(task) } satisfies WorkerReply);
      return;
    }
    if (task.kind === 'fingerprint') {
      port.postMessage({ seq: task.seq, ok: true, value: callFingerprint({ id: task.resource }, task.value) } satisfies WorkerReply);
      return;
    }
    if (task.kind === 'digest') {
      port.postMessage({ seq: task.seq, ok: true, value: templateDigests(task) } satisfies WorkerReply);
      return;
    }
    const cap = byId.get(task.id);
    if (!cap) throw new Error(`no capability "${task.id}" in CATALOG`);
    if (task.kind === 'step') {
      const value = await step(cap, task.body);
      transfer = [value.bytes.buffer as ArrayBuffer, value.canonical.buffer as ArrayBuffer];
      reply = { seq: task.seq, ok: true, value };
    } else if (task.kind === 'read') {
      const verdict = readerOf(cap).fromBody(task.contentType, task.body);
      const fingerprint = task.fingerprint && verdict.ok ? callFingerprint(cap, verdict.input) : undefined;
      reply = { seq: task.seq, ok: true, value: { verdict, fingerprint } };
    } else {
      const body = JSON.stringify(await cap.run(task.input));
      // Encoded here into shared memory: the main thread writes these bytes to the socket and hands the same
      // bytes to the SQLite ledger's thread, neither step a copy (docs/decisions/0034).
      const bytes = sharedUtf8(body);
      // Only the bytes cross: the main thread makes the text if it ever needs it (pool.ts EncodedResult).
      reply = { seq: task.seq, ok: true, value: { bytes, sha256: sha256Hex(bytes) } };
    }
  } catch (e) {
    reply = { seq: task.seq, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply, transfer);
});
port.postMessage({ ready: true } satisfies WorkerReply);
