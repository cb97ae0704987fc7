/**
 * Handler isolation: capabilities whose cost grows with their input run on a
 * small pool of worker threads, so a 2 MB page cannot stall the event loop
 * that answers /healthz, 402s and ledger work. Each offloaded call has a
 * budget (`HANDLER_BUDGET_MS`, from the moment a worker takes it): past it the
 * worker is terminated (its CPU is reclaimed at once), replaced, and the call
 * fails with `handler_over_budget` — before settlement, so nothing is charged.
 *
 * Which calls go to the pool: entries marked `isolate: 'always'`, and entries
 * marked `isolate: 'large-input'` whose input carries at least
 * `ISOLATE_MIN_INPUT_CHARS` characters of strings. Everything else runs inline,
 * where it is faster than a round trip to a worker. Only entries of the
 * static CATALOG can be offloaded (the worker loads them by id); a result is
 * the same JSON string the inline path produces. The request bodies of those
 * entries, from ISOLATE_MIN_INPUT_CHARS bytes, are also read there (decode,
 * JSON.parse, schema), with the inline reader's verdict; so are the JSON
 * messages of the free surfaces (MCP, A2A, the router quote) from the same size.
 * All of that is one `Executor` (payments/paid-flow.ts) per service,
 * `handlerExecutor`, made when the service is assembled.
 *
 * One pool per process (threads are a machine resource), sized to the
 * machine (a core left to the event loop), shared by every service started in
 * the process and closed when the last one closes; each service's executor
 * over it carries that service's budget.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Capability } from '../catalog/capability.js';
import { parseJsonBody } from '../catalog/json-input.js';
import type { BodyRead, BodyVerdict, Executor } from '../payments/paid-flow.js';
import { ServiceError, type ErrorBody } from '../errors.js';
import type { WorkerReply, WorkerTask } from './protocol.js';
import { workerEntry } from '../foundation/worker-entry.js';
import type { TemplateDigestRequest, TemplateDigests } from '../foundation/json-template.js';

export type { BodyRead, BodyVerdict };

/** A result made on the pool: the response body, its UTF-8 bytes, and their SHA-256 (hex). */
export interface RunResult {
  body: string;
  bytes: Uint8Array;
  sha256: string;
}

/** One step of a composed entry run on the pool: its output's JSON bytes and canonical JSON bytes, the hashes of input and output, its outbound requests. */
export interface StepRun {
  bytes: Uint8Array;
  canonical: Uint8Array;
  inputSha: string;
  outputSha: string;
  networkFetches: number;
}

/** Inputs with at least this many characters of strings go to the pool (entries marked 'large-input'). */
export const ISOLATE_MIN_INPUT_CHARS = 16 * 1024;

export interface HandlerPoolOptions {
  /** Worker threads; default: `defaultHandlerWorkers()`. */
  size?: number;
}

/**
 * One worker per core but one, at least one: the event loop that answers
 * /healthz, 402s and ledger writes keeps a core of its own. With one worker
 * per core, 4 heavy calls kept both cores of a 2-core machine busy and the
 * main thread had to share a core with a worker (and the workers' GC).
 */
export function defaultHandlerWorkers(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/** A task before its sequence number is given. */
type Job =
  | { kind: 'run'; id: string; input: unknown }
  | { kind: 'read'; id: string; contentType: string | undefined; body: Uint8Array; fingerprint: boolean }
  | { kind: 'step'; id: string; body: unknown }
  | { kind: 'compose'; hashParts: Array<string | Uint8Array>; bodyParts: Array<string | Uint8Array | null> }
  | { kind: 'parse'; contentType: string | undefined; body: Uint8Array; limit: number; maxValues?: number }
  | { kind: 'fingerprint'; resource: string; value: unknown }
  | ({ kind: 'digest' } & TemplateDigestRequest);

interface Pending {
  seq: number;
  budgetMs: number;
  job: Job;
  /** Buffers moved (not copied) to the worker with the task. */
  transfer: ArrayBuffer[];
  resolve(value: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task?: Pending;
  timer?: NodeJS.Timeout;
}

/** The worker's entry (worker.ts from source, worker.js in the build): see worker-entry.ts. */
const BOOTSTRAP_URL = workerEntry(import.meta.url, 'worker');

export class HandlerPool {
  readonly size: number;
  /** Calls that a worker finished (for tests and metrics: proof the work left the main thread). */
  completed = 0;
  /** Request bodies a worker read (decoded, parsed and validated) instead of the main thread. */
  bodiesRead = 0;
  /** Steps of composed entries (the router's composite) a worker ran. */
  stepsRun = 0;
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private seq = 0;
  private closed = false;
  private startError: Error | undefined;
  private readyWaiters: Array<{ resolve(): void; reject(e: Error): void }> = [];

  constructor(opts: HandlerPoolOptions) {
    this.size = Math.max(1, opts.size ?? defaultHandlerWorkers());
    for (let i = 0; i < this.size; i++) this.spawn();
  }

  /** Resolves when every worker has loaded the catalog; rejects if one cannot start. */
  ready(): Promise<void> {
    if (this.startError) return Promise.reject(this.startError);
    if ([...this.slots].every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /**
   * Run catalog entry `id` on `input` in a worker: the JSON string of its
   * result and its hash, or `handler_over_budget` once it has run `budgetMs` in a worker.
   */
  run(id: string, input: unknown, budgetMs: number): Promise<RunResult> {
    return (this.submit({ kind: 'run', id, input }, budgetMs) as Promise<EncodedRun>).then((r) => new EncodedResult(r.bytes, r.sha256));
  }

  /**
   * Entry `id`'s input reader on a request body, in a worker: the same verdict
   * (input, or the 400/413/415 answer) the main thread would reach, without
   * its event loop spending the decode, JSON.parse and schema walk of a large body.
   */
  read(id: string, contentType: string | undefined, body: Uint8Array, fingerprint: boolean, budgetMs: number): Promise<BodyRead> {
    return this.submit({ kind: 'read', id, contentType, body, fingerprint }, budgetMs) as Promise<BodyRead>;
  }

  /** One step of a composed entry: entry `id`'s reader on `body`, then its handler, under `budgetMs`. */
  step(id: string, body: unknown, budgetMs: number): Promise<StepRun> {
    return this.submit({ kind: 'step', id, body }, budgetMs) as Promise<StepRun>;
  }

  /** A composed body (see WorkerTask 'compose'); the byte parts are moved to the worker, not copied. */
  compose(hashParts: Array<string | Uint8Array>, bodyParts: Array<string | Uint8Array | null>, budgetMs: number): Promise<RunResult> {
    const moved = new Set<ArrayBuffer>();
    // Bytes in shared memory (a `run` result) are shared, not moved.
    for (const p of [...hashParts, ...bodyParts]) if (p instanceof Uint8Array && p.buffer instanceof ArrayBuffer) moved.add(p.buffer);
    return this.submit({ kind: 'compose', hashParts, bodyParts }, budgetMs, [...moved]) as Promise<RunResult>;
  }

  /**
   * A body read as plain JSON, with the verdict an entry's reader gives before its own rules; with
   * `maxValues`, parseJsonBody's verdict under that value budget (see WorkerTask 'parse').
   */
  parse(contentType: string | undefined, body: Uint8Array, limit: number, budgetMs: number, maxValues?: number): Promise<BodyVerdict> {
    return this.submit({ kind: 'parse', contentType, body, limit, ...(maxValues === undefined ? {} : { maxValues }) }, budgetMs) as Promise<BodyVerdict>;
  }

  /** The paid flow's `callFingerprint` of `value` as resource `resource`, computed in a worker. */
  fingerprint(resource: string, value: unknown, budgetMs: number): Promise<string> {
    return this.submit({ kind: 'fingerprint', resource, value }, budgetMs) as Promise<string>;
  }

  /** The sizes and hashes a router quote names (see WorkerTask 'digest'), computed in a worker. */
  digest(req: TemplateDigestRequest, budgetMs: number): Promise<TemplateDigests> {
    return this.submit({ kind: 'digest', sources: req.sources, templates: req.templates, ...(req.fingerprint && { fingerprint: req.fingerprint }) }, budgetMs) as Promise<TemplateDigests>;
  }

  /** What the workers are doing now (kind and entry id of each task in flight): lets a test see where a call runs. */
  inFlight(): Array<{ kind: Job['kind']; id?: string }> {
    return [...this.slots].flatMap((s) => (s.task ? [{ kind: s.task.job.kind, id: 'id' in s.task.job ? s.task.job.id : undefined }] : []));
  }

  private submit(job: Job, budgetMs: number, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('handler pool is closed'));
    if (this.startError) return Promise.reject(this.startError);
    return new Promise((resolve, reject) => {
      this.queue.push({ seq: ++this.seq, budgetMs, job, transfer, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('handler pool is closed'));
    const slots = [...this.slots];
    this.slots.clear();
    for (const s of slots) {
      if (s.timer) clearTimeout(s.timer);
      s.task?.reject(new Error('handler pool is closed'));
    }
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => 0)));
  }

  private spawn(): void {
    const worker = new Worker(BOOTSTRAP_URL, { execArgv: [], stdout: false, stderr: false });
    worker.unref();
    const slot: Slot = { worker, ready: false };
    this.slots.add(slot);
    worker.on('message', (m: WorkerReply) => {
      if ('ready' in m) {
        slot.ready = true;
        if ([...this.slots].every((s) => s.ready)) for (const w of this.readyWaiters.splice(0)) w.resolve();
        this.pump();
        return;
      }
      const task = slot.task;
      if (!task || task.seq !== m.seq) return;
      clearTimeout(slot.timer);
      slot.task = undefined;
      slot.timer = undefined;
      if (task.job.kind === 'read' || task.job.kind === 'parse') this.bodiesRead++;
      else if (task.job.kind === 'step') this.stepsRun++;
      else this.completed++;
      if (m.ok) task.resolve(m.value);
      else task.reject(new Error(m.error));
      this.pump();
    });
    worker.on('error', (e: unknown) => this.lose(slot, e instanceof Error ? e : new Error(String(e))));
    worker.on('exit', (code) => this.lose(slot, new Error(`handler worker exited with code ${code}`)));
  }

  /** A worker died (crash, out of memory, terminated): fail its call, replace it. */
  private lose(slot: Slot, e: Error): void {
    if (!this.slots.delete(slot)) return;
    if (slot.timer) clearTimeout(slot.timer);
    slot.task?.reject(e);
    slot.task = undefined;
    if (this.closed) return;
    if (!slot.ready) {
      // A worker that cannot even load the catalog will not do better next time: stop, fail loudly.
      this.startError = new Error(`handler worker failed to start: ${e.message}`);
      for (const w of this.readyWaiters.splice(0)) w.reject(this.startError);
      for (const p of this.queue.splice(0)) p.reject(this.startError);
      return;
    }
    this.spawn();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.task) continue;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.timer = setTimeout(() => this.overBudget(slot, task), task.budgetMs);
      slot.worker.postMessage({ seq: task.seq, ...task.job } satisfies WorkerTask, task.transfer);
    }
  }

  private overBudget(slot: Slot, task: Pending): void {
    if (slot.task !== task) return;
    slot.task = undefined;
    task.reject(
      new ServiceError('handler_over_budget', `The handler exceeded its ${task.budgetMs} ms budget; the call was stopped, the payment was not settled and nothing was charged.`),
    );
    // Terminate rather than wait: the worker may be in a loop that never yields. `lose` replaces it.
    this.slots.delete(slot);
    void slot.worker.terminate().catch(() => 0);
    if (!this.closed) this.spawn();
  }
}

// ------------------------------------------------------------ the process's pool

let shared: { pool: HandlerPool; users: number } | undefined;

/** The process's pool, when one runs. */
export function sharedHandlerPool(): HandlerPool | undefined {
  return shared?.pool;
}

/**
 * Start (or share) the process's pool. The first caller starts it (and waits
 * until every worker is ready, so a worker that cannot start stops start-up)
 * and sets its size; `release` closes it after its last user. Each service
 * then makes its own executor over it (`handlerExecutor`) with its own budget.
 */
export async function acquireHandlerPool(opts: HandlerPoolOptions): Promise<{ pool: HandlerPool; release(): Promise<void> }> {
  if (!shared) shared = { pool: new HandlerPool(opts), users: 0 };
  const mine = shared;
  mine.users++;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    if (--mine.users === 0) {
      if (shared === mine) shared = undefined;
      await mine.pool.close();
    }
  };
  try {
    await mine.pool.ready();
  } catch (e) {
    await release();
    throw e;
  }
  return { pool: mine.pool, release };
}

/** At least `min` characters of strings in `value` (stops counting once reached). */
export function stringCharsAtLeast(value: unknown, min: number): boolean {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') n += v.length;
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (n += k.length), stack.push(x);
    if (n >= min) return true;
  }
  return false;
}

/**
 * A result that crossed from a worker as its UTF-8 bytes only, in shared
 * memory: its text is made from them if and when something on this thread
 * reads it. The HTTP answer goes out as the bytes and the SQLite ledger's
 * thread stores the same bytes (shared, not copied, when they are posted to
 * it), so a multi-megabyte result is never a string or a copy here: copying
 * one between threads held the event loop for milliseconds (0029, 0034).
 */
class EncodedResult implements RunResult {
  #text: string | undefined;
  constructor(
    readonly bytes: Uint8Array,
    readonly sha256: string,
  ) {}
  get body(): string {
    return (this.#text ??= new TextDecoder().decode(this.bytes));
  }
}

/** What the worker sends back for a `run`: the bytes and their hash. */
interface EncodedRun {
  bytes: Uint8Array;
  sha256: string;
}

/**
 * A response body already serialized, hashed and encoded on the pool: what a
 * composed entry returns when its result is too large for the event loop to
 * stringify. Serializes as the value it holds, so JSON.stringify of it gives the same bytes.
 */
export class PreparedBody implements RunResult {
  constructor(
    readonly body: string,
    readonly bytes: Uint8Array,
    readonly sha256: string,
  ) {}
  toJSON(): unknown {
    return JSON.parse(this.body);
  }
}

/**
 * Where a composed entry's steps and heavy reading run, and the router's quote
 * hashes a large request: the pool of the service, under that service's
 * budget per task. Given to the modules when the service builds them
 * (ModuleInit.steps), never held in module state.
 */
export interface StepExecutor {
  /** Whether a step of `cap` runs on the pool: as its own route would, or, for an isolated kind of entry, when the plan as a whole is `heavy`. */
  offloads(cap: Capability, body: unknown, heavy: boolean): boolean;
  /** Whether `cap` can run on the pool at all (marked `isolate`, loadable by the worker). */
  offloadable(cap: Capability): boolean;
  step(cap: Capability, body: unknown): Promise<StepRun>;
  compose(hashParts: Array<string | Uint8Array>, bodyParts: Array<string | Uint8Array | null>): Promise<RunResult>;
  parse(contentType: string | undefined, body: Uint8Array, limit: number): Promise<BodyVerdict>;
  fingerprint(resource: string, value: unknown): Promise<string>;
  /** The canonical-JSON sizes and hashes of a router quote's large values and of the bodies that hold them. */
  digest(req: TemplateDigestRequest): Promise<TemplateDigests>;
}

/** The step executor of a service: its pool under its budget, for the entries the worker can load. */
export function stepExecutor(pool: HandlerPool, budgetMs: number, workerCatalog: readonly Capability[]): StepExecutor {
  const loadable = new Set(workerCatalog);
  const offloadable = (cap: Capability) => Boolean(cap.isolate) && loadable.has(cap);
  return {
    offloadable,
    offloads: (cap, body, heavy) => offloadable(cap) && (heavy || isolates(cap, body)),
    step: (cap, body) => pool.step(cap.id, body, budgetMs),
    compose: (hashParts, bodyParts) => pool.compose(hashParts, bodyParts, budgetMs),
    parse: (contentType, body, limit) => pool.parse(contentType, body, limit, budgetMs),
    fingerprint: (resource, value) => pool.fingerprint(resource, value, budgetMs),
    digest: (req) => pool.digest(req, budgetMs),
  };
}

/** Whether a call of an isolated entry goes to the pool: always, or for a large input. */
const isolates = (cap: Capability, input: unknown) => cap.isolate === 'always' || stringCharsAtLeast(input, ISOLATE_MIN_INPUT_CHARS);

export interface HandlerExecutorOptions {
  pool: HandlerPool;
  /** HANDLER_BUDGET_MS: each task on the pool, from the moment a worker takes it. */
  budgetMs: number;
  /** The entries a worker can load by id (the static CATALOG, which worker.ts imports). */
  workerCatalog: readonly Capability[];
  /** The service's whole catalog: which entries run on the pool is chosen here, once. */
  catalog: readonly Capability[];
  /** The service's step executor, when already made for the entries that compose others (ModuleInit.steps). */
  steps?: StepExecutor;
}

/**
 * The executor of a service with a worker pool. An entry marked `isolate`
 * that a worker can load runs there (always, or for a large input); an entry
 * that composes others (the router's composite) runs its heavy steps there;
 * everything else runs inline, where it is faster than a round trip to a
 * worker. Bodies of the offloaded entries from ISOLATE_MIN_INPUT_CHARS bytes
 * are read there too (an entry that composes others reads its own, with the
 * step executor it was built with), with the inline reader's verdict, so the 400s before
 * any payment step are unchanged; only the thread that computes them moves.
 */
export function handlerExecutor(opts: HandlerExecutorOptions): Executor {
  const { pool, budgetMs } = opts;
  const steps = opts.steps ?? stepExecutor(pool, budgetMs, opts.workerCatalog);
  const isolated = new Set(opts.catalog.filter(steps.offloadable));
  // A read the pool cannot take (closed, a worker lost) is read inline: the verdict is the same.
  const orInline = (read: Promise<BodyRead | undefined>) => read.catch(() => undefined);
  return {
    async run(cap, input) {
      if (isolated.has(cap) && isolates(cap, input)) return pool.run(cap.id, input, budgetMs);
      // An entry that composes others may hand back a body already made on the pool.
      const out: unknown = await cap.run(input);
      return out instanceof PreparedBody ? out : { body: JSON.stringify(out) };
    },
    readBody(cap, contentType, body, paid) {
      // Decided synchronously: the small bodies of the 402 path do not pay for a promise.
      if (body.byteLength < ISOLATE_MIN_INPUT_CHARS) return undefined;
      // Copied, not transferred: the route keeps the bytes (a signed offer is checked against them).
      if (isolated.has(cap)) return orInline(pool.read(cap.id, contentType, body, paid, budgetMs));
      return cap.readBodyOffThread ? orInline(cap.readBodyOffThread(contentType, body, paid)) : undefined;
    },
    async parseMessage(body, limits) {
      // The size from which the paid routes read off the event loop: a legitimate large message (the extractor's
      // 2 MiB page as one JSON string) is decoded, scanned and parsed on a worker, with parseJsonBody's verdict.
      if (body.byteLength >= ISOLATE_MIN_INPUT_CHARS) {
        try {
          // A budget is always sent (Infinity: no count), so the worker reads the message as parseJsonBody does.
          const v = await pool.parse('application/json', body, body.byteLength, budgetMs, limits.maxValues ?? Infinity);
          if (v.ok) return { ok: true, value: v.input };
          const { error } = v.body as ErrorBody;
          return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
        } catch {
          // The pool could not take it: read inline.
        }
      }
      return parseJsonBody(body, limits);
    },
  };
}
