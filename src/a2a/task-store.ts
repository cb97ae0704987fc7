/**
 * Where A2A tasks live between the messages of one paid call: in memory,
 * bounded per client and in all. A task only carries the conversation (the
 * call's input while it waits, the requirement, the result); the money is in
 * the ledger, so a finished task lost to a restart or to eviction costs
 * nothing: the buyer sends skill, input and the same payment in one message
 * and the gate answers from the ledger.
 *
 * The rules (issue 21: 17 cheap messages from one client evicted another
 * buyer's waiting task from a shared LRU, and its payment got "Task not
 * found"; a rejected task kept its 4 MiB input and every read of it cloned
 * that input):
 * - A task waiting for payment (input-required) is never evicted before its
 *   payment window ends: the requirement's largest `maxTimeoutSeconds`,
 *   counted from the task's last message.
 * - Each client (its host's key, as the rate limiter counts it) has a budget of
 *   tasks and bytes. A client over it loses its own oldest finished tasks
 *   (and its waiting ones past their window) first; if that is not enough,
 *   its new task is refused with a JSON-RPC error (TASK_LIMIT_JSONRPC_CODE),
 *   never at another client's expense. The same holds for the global budget:
 *   only finished tasks and waiting ones past their window are evicted
 *   (least recently saved first); when only waiting tasks in their window are
 *   left, a new task is refused.
 * - A finished task (completed, failed, rejected, canceled) keeps no input:
 *   its history is a summary of each message (ids, role, skill, payment
 *   status, a few characters of text), plus the payment that completed it
 *   when that payment is small, so repeating it returns the stored task. A
 *   finished task that does not fit is answered but not kept.
 * - A task is stored as the JSON it will be read as, so a read costs what its
 *   answer costs (one parse), nothing is shared with the caller, and the byte
 *   budgets count exactly what is held.
 *
 * Tasks are private to whoever knows their (random) id, so listing is not
 * offered: every unauthenticated caller would share one list of everyone's
 * inputs, results and signed payments.
 */
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { A2AError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { A2A_SKILL_KEY } from '../discovery/documents.js';
import { errorBody, type ErrorBody } from '../errors.js';
import { X402_PAYLOAD, X402_REQUIRED, X402_STATUS } from './x402-extension.js';

/** The key of `ServerCallContext.state` under which the executor records who sends a message: its ClientKey (see clientKeyOf), the key every per-client limit counts. */
export const TASK_CLIENT = 'agent-pay-service/a2a-task-client';

/** JSON-RPC error code of a new task the store cannot hold now (server-defined range; A2A's own codes are -32001…-32009). */
export const TASK_LIMIT_JSONRPC_CODE = -32029;

export interface TaskStoreLimits {
  /** All clients together. */
  maxTasks: number;
  /** Bound on the stored tasks' total JSON size, all clients together. */
  maxBytes: number;
  perClientTasks: number;
  perClientBytes: number;
  /** A task not saved for this long is dropped (at least as long as any payment window). */
  ttlMs: number;
  /** The payment window of a waiting task whose requirement names no maxTimeoutSeconds. */
  defaultWindowMs: number;
}

export const DEFAULT_TASK_STORE_LIMITS: TaskStoreLimits = {
  maxTasks: 10_000,
  maxBytes: 64 * 1024 * 1024,
  perClientTasks: 64,
  // Three of the largest legitimate inputs (the extractor's 2.5 MiB body) waiting at once.
  perClientBytes: 8 * 1024 * 1024,
  ttlMs: 60 * 60 * 1000,
  defaultWindowMs: 5 * 60 * 1000,
};

/**
 * Bytes a waiting task is charged beyond its size when admitted: later
 * messages on it add bounded summaries and a new status, and those must fit
 * without refusing the buyer's payment message or evicting anyone.
 */
const WAITING_GROWTH_BYTES = 16 * 1024;
/** Messages kept besides the call: the latest ones (the SDK finds the current message in the history by its id). */
const HISTORY_TAIL = 4;
const SUMMARY_TEXT_CHARS = 256;
const SUMMARY_ID_CHARS = 256;
const SUMMARY_META_CHARS = 128;
/** The completing payment is kept (for a repeated payment message) when its canonical JSON is at most this long; an x402 v2 payload is ~1–2 KB. */
const KEPT_PAYMENT_BYTES = 8 * 1024;

/** A new task refused because its client, or the whole store, is full of tasks that may not be evicted yet. */
export class TaskLimitError extends A2AError {
  /** Read by the SDK's JSON-RPC mappers (v1.0 and v0.3): the error's code and, in v0.3, its data. */
  readonly transport = 'jsonrpc';
  readonly envelopeCode = TASK_LIMIT_JSONRPC_CODE;
  readonly data: ErrorBody & { retry_after_seconds: number };
  constructor(
    code: 'rate_limited' | 'service_unavailable' | 'payload_too_large',
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super({ message: `${code}: ${message}` });
    this.data = { ...errorBody(code, message), retry_after_seconds: retryAfterSeconds };
  }
}

interface Entry {
  id: string;
  client: string;
  /** The task as it is read. */
  json: string;
  bytes: number;
  /** What the entry counts against the budgets: its bytes, or for a waiting task the room reserved for it. */
  charge: number;
  waiting: boolean;
  windowMs: number;
  savedAt: number;
  /** Until then a waiting task cannot be evicted (0 for a finished task). */
  protectedUntil: number;
}

interface ClientTasks {
  /** Least recently saved first. */
  entries: Map<string, Entry>;
  bytes: number;
}

export class BoundedTaskStore implements TaskStore {
  /** Map order is least recently saved first, which is the eviction order. */
  private readonly tasks = new Map<string, Entry>();
  private readonly clients = new Map<string, ClientTasks>();
  private bytes = 0;

  constructor(
    private readonly limits: TaskStoreLimits = DEFAULT_TASK_STORE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const old = this.tasks.get(task.id);
    // A finished task stays as it finished: a slower concurrent message on it (e.g. a duplicate payment told
    // payment_in_progress) must not turn a completed task back into input-required.
    if (old && !old.waiting) return;
    const now = this.now();
    const form = boundedTask(task);
    const json = JSON.stringify(form);
    const bytes = Buffer.byteLength(json);
    const waiting = !isFinal(form);
    const windowMs = waiting ? (windowOf(form) ?? old?.windowMs ?? this.limits.defaultWindowMs) : 0;
    const entry: Entry = {
      id: task.id,
      // A task stays charged to the client that opened it, whoever sends the later messages.
      client: old?.client ?? clientOf(context),
      json,
      bytes,
      charge: waiting ? Math.max(bytes, old?.charge ?? bytes + WAITING_GROWTH_BYTES) : bytes,
      waiting,
      windowMs,
      savedAt: now,
      protectedUntil: waiting ? now + Math.min(windowMs, this.limits.ttlMs) : 0,
    };
    if (old) this.unlink(old);
    const fits = this.makeRoom(entry, now);
    if (!fits) {
      if (!old && waiting) throw this.refusal(entry, now);
      // A finished task that does not fit is answered but not kept (the ledger still redelivers it). A message on a
      // waiting task is always kept: refusing it could cost the buyer the task it is paying for.
      if (!waiting) return;
    }
    this.link(entry);
  }

  /**
   * The refusal `save` would give a new task waiting for payment of at least `minBytes` bytes of JSON from
   * this call's client, decided now (evicting nothing): only tasks the rules never evict yet (waiting ones in
   * their window) are counted against the budgets, so what this refuses, `save` would refuse too. Lets the
   * transport refuse a client over its budget before its skill runs.
   */
  refusalFor(context: ServerCallContext, minBytes: number): TaskLimitError | undefined {
    const now = this.now();
    const probe = { client: clientOf(context), bytes: minBytes, charge: minBytes + WAITING_GROWTH_BYTES };
    const l = this.limits;
    /** Whether `entries` (held now, `count` tasks and `bytes` charged in all) leave no room for the probe under `maxTasks`/`maxBytes`. */
    const noRoom = (entries: Iterable<Entry>, count: number, bytes: number, maxTasks: number, maxBytes: number): boolean => {
      // The totals bound what may not be evicted: count that only when the totals do not already leave room.
      if (count + 1 <= maxTasks && bytes + probe.charge <= maxBytes) return false;
      let kept = 0;
      let keptBytes = 0;
      for (const x of entries) {
        if (this.evictable(x, now)) continue;
        kept++;
        keptBytes += x.charge;
      }
      return kept + 1 > maxTasks || keptBytes + probe.charge > maxBytes;
    };
    const own = this.clients.get(probe.client);
    if (probe.charge > l.perClientBytes || (own && noRoom(own.entries.values(), own.entries.size, own.bytes, l.perClientTasks, l.perClientBytes))) return this.refusal(probe, now, true);
    return noRoom(this.tasks.values(), this.tasks.size, this.bytes, l.maxTasks, l.maxBytes) ? this.refusal(probe, now, false) : undefined;
  }

  async load(taskId: string, _context: ServerCallContext): Promise<Task | undefined> {
    const e = this.tasks.get(taskId);
    if (!e) return undefined;
    if (this.expired(e, this.now())) {
      this.unlink(e);
      return undefined;
    }
    return JSON.parse(e.json) as Task;
  }

  async list(): Promise<never> {
    throw new UnsupportedOperationError('Listing tasks is not offered: a task is readable only by its id.');
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Bytes held for one client (tests and metrics). */
  bytesOf(client: string): number {
    return this.clients.get(client)?.bytes ?? 0;
  }

  private expired(e: Entry, now: number): boolean {
    return now - e.savedAt > this.limits.ttlMs && now >= e.protectedUntil;
  }

  private evictable(e: Entry, now: number): boolean {
    return !e.waiting || now >= e.protectedUntil;
  }

  /** Evicts what the rules allow until `e` fits its client's budget and the global one; false when it still does not. */
  private makeRoom(e: Entry, now: number): boolean {
    for (const old of this.tasks.values()) {
      if (!this.expired(old, now)) break;
      this.unlink(old);
    }
    const own = this.clients.get(e.client);
    const clientOver = () => !!own && (own.entries.size + 1 > this.limits.perClientTasks || own.bytes + e.charge > this.limits.perClientBytes);
    if (own && clientOver()) {
      for (const old of own.entries.values()) {
        if (this.evictable(old, now)) this.unlink(old);
        if (!clientOver()) break;
      }
    }
    if (clientOver() || e.charge > this.limits.perClientBytes) return false;
    const over = () => this.tasks.size + 1 > this.limits.maxTasks || this.bytes + e.charge > this.limits.maxBytes;
    if (over()) {
      for (const old of this.tasks.values()) {
        if (this.evictable(old, now)) this.unlink(old);
        if (!over()) break;
      }
    }
    return !over();
  }

  /** `clientFull`: whether the client's own budget (not the store's) is what leaves no room (default: its totals say so). */
  private refusal(e: Pick<Entry, 'client' | 'bytes' | 'charge'>, now: number, clientFull?: boolean): TaskLimitError {
    const own = this.clients.get(e.client);
    const retryAfter = (entries: Iterable<Entry>) => {
      let soonest = Infinity;
      for (const x of entries) if (x.waiting && x.protectedUntil > now) soonest = Math.min(soonest, x.protectedUntil);
      return Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : 1;
    };
    if (e.charge > this.limits.perClientBytes) {
      return new TaskLimitError('payload_too_large', `This task (${e.bytes} bytes of JSON) is larger than one client's task budget (${this.limits.perClientBytes} bytes); send smaller arguments or ids.`, 1);
    }
    if (own && (clientFull ?? (own.entries.size + 1 > this.limits.perClientTasks || own.bytes + e.charge > this.limits.perClientBytes))) {
      const s = retryAfter(own.entries.values());
      return new TaskLimitError(
        'rate_limited',
        `This client already has tasks waiting for payment up to its budget (${this.limits.perClientTasks} tasks, ${this.limits.perClientBytes} bytes); pay or let one lapse (the first window ends in ${s} s), then send again.`,
        s,
      );
    }
    const s = retryAfter(this.tasks.values());
    return new TaskLimitError('service_unavailable', `The task store is full of tasks waiting for payment; retry in ${s} s.`, s);
  }

  private link(e: Entry): void {
    this.tasks.set(e.id, e);
    this.bytes += e.charge;
    let c = this.clients.get(e.client);
    if (!c) this.clients.set(e.client, (c = { entries: new Map(), bytes: 0 }));
    c.entries.set(e.id, e);
    c.bytes += e.charge;
  }

  private unlink(e: Entry): void {
    if (this.tasks.get(e.id) !== e) return;
    this.tasks.delete(e.id);
    this.bytes -= e.charge;
    const c = this.clients.get(e.client);
    if (!c) return;
    c.entries.delete(e.id);
    c.bytes -= e.charge;
    if (c.entries.size === 0) this.clients.delete(e.client);
  }
}

function clientOf(context: ServerCallContext): string {
  const c = context.state?.get(TASK_CLIENT);
  return typeof c === 'string' ? c : 'unknown';
}

const FINAL_STATES: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

function isFinal(task: Task): boolean {
  return task.status !== undefined && FINAL_STATES.has(task.status.state);
}

/** The payment window a waiting task's requirement grants: its largest maxTimeoutSeconds. */
function windowOf(task: Task): number | undefined {
  const required = task.status?.message?.metadata?.[X402_REQUIRED] as { accepts?: Array<{ maxTimeoutSeconds?: unknown }> } | undefined;
  let seconds: number | undefined;
  for (const a of Array.isArray(required?.accepts) ? required.accepts : []) {
    const s = a?.maxTimeoutSeconds;
    if (typeof s === 'number' && Number.isFinite(s) && s > 0) seconds = Math.max(seconds ?? 0, s);
  }
  return seconds === undefined ? undefined : seconds * 1000;
}

/** The message that names the skill: its data part is the call's arguments. */
function isCall(m: Message): boolean {
  return m.role === Role.ROLE_USER && typeof m.metadata?.[A2A_SKILL_KEY] === 'string';
}

const isPayment = (p: unknown): boolean => p !== null && typeof p === 'object' && !Array.isArray(p);

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

/**
 * What is kept of one message: ids, role, the skill and payment status it
 * named, a few characters of its text; the completing payment when asked and
 * small. Never its data, files or other metadata.
 */
function summary(m: Message, keepPayment: boolean, exactId: boolean): Message {
  const meta = m.metadata ?? {};
  const kept: Record<string, unknown> = {};
  for (const key of [A2A_SKILL_KEY, X402_STATUS]) {
    const v = meta[key];
    if (typeof v === 'string') kept[key] = clip(v, SUMMARY_META_CHARS);
  }
  if (keepPayment && isPayment(meta[X402_PAYLOAD])) {
    // Measured by its JSON: a payload that carries more than an x402 payment does is not kept.
    const size = Buffer.byteLength(JSON.stringify(meta[X402_PAYLOAD]));
    if (size <= KEPT_PAYMENT_BYTES) kept[X402_PAYLOAD] = meta[X402_PAYLOAD];
  }
  let text = '';
  for (const p of m.parts ?? []) {
    if (text.length > SUMMARY_TEXT_CHARS) break;
    if (p.content?.$case === 'text') text += (text ? ' ' : '') + p.content.value.slice(0, SUMMARY_TEXT_CHARS + 1);
  }
  const omitted = (m.parts ?? []).some((p) => p.content?.$case !== 'text');
  return {
    // The SDK finds the message it is answering in the history by its exact id (else it adds the whole message).
    messageId: exactId ? m.messageId : clip(m.messageId ?? '', SUMMARY_ID_CHARS),
    contextId: clip(m.contextId ?? '', SUMMARY_ID_CHARS),
    taskId: clip(m.taskId ?? '', SUMMARY_ID_CHARS),
    role: m.role,
    parts: [textPart(clip(text, SUMMARY_TEXT_CHARS) + (omitted ? `${text ? ' ' : ''}[data not kept]` : ''))],
    metadata: Object.keys(kept).length ? kept : undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * The form of a task that is published, stored and read: bounded whatever
 * the messages carried. A waiting task keeps its call's arguments (already
 * validated and within the skill's body limit: they are what the payment
 * will run); a finished one keeps only summaries.
 */
export function boundedTask(task: Task): Task {
  const waiting = !isFinal(task);
  const history = task.history ?? [];
  const call = history.findIndex(isCall);
  let paidWith = -1;
  if (task.status?.state === TaskState.TASK_STATE_COMPLETED) {
    for (let i = history.length - 1; i >= 0; i--) {
      if (history[i]!.role === Role.ROLE_USER && isPayment(history[i]!.metadata?.[X402_PAYLOAD])) {
        paidWith = i;
        break;
      }
    }
  }
  const kept: Message[] = [];
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    const last = i === history.length - 1;
    if (i === call && waiting) {
      const data = m.parts.find((p) => p.content?.$case === 'data');
      kept.push({ ...summary(m, false, last), parts: data ? [data] : [] });
    } else if (i === call || i === paidWith || i >= history.length - HISTORY_TAIL) {
      kept.push(summary(m, i === paidWith, last));
    }
  }
  return { id: task.id, contextId: task.contextId, status: task.status, artifacts: task.artifacts ?? [], history: kept, metadata: task.metadata };
}
