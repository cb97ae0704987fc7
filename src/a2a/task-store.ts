/**
 * Where A2A tasks live between the messages of one paid call: in memory,
 * bounded. A task only carries the conversation (the call's input, the
 * requirement, the result); the money is in the ledger, so a task lost to a
 * restart or to eviction costs nothing: the buyer sends skill, input and the
 * same payment in one message and the gate answers from the ledger.
 *
 * Tasks are private to whoever knows their (random) id, so listing is not
 * offered: every unauthenticated caller would share one list of everyone's
 * inputs, results and signed payments.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

export interface TaskStoreLimits {
  maxTasks: number;
  /** Bound on the stored tasks' total JSON size. */
  maxBytes: number;
  /** A task not touched for this long is dropped (longer than any payment window). */
  ttlMs: number;
}

export const DEFAULT_TASK_STORE_LIMITS: TaskStoreLimits = { maxTasks: 10_000, maxBytes: 64 * 1024 * 1024, ttlMs: 60 * 60 * 1000 };

interface Entry {
  task: Task;
  bytes: number;
  touchedAt: number;
}

export class BoundedTaskStore implements TaskStore {
  /** Map order is least recently saved first, which is the eviction order. */
  private readonly tasks = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly limits: TaskStoreLimits = DEFAULT_TASK_STORE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  async save(task: Task, _context: ServerCallContext): Promise<void> {
    // A finished task stays as it finished: a slower concurrent message on it (e.g. a duplicate payment told
    // payment_in_progress) must not turn a completed task back into input-required.
    const stored = this.tasks.get(task.id);
    if (stored && isFinal(stored.task)) return;
    this.drop(task.id);
    const entry = { task: structuredClone(task), bytes: approximateBytes(task), touchedAt: this.now() };
    this.tasks.set(task.id, entry);
    this.bytes += entry.bytes;
    this.evict();
  }

  async load(taskId: string, _context: ServerCallContext): Promise<Task | undefined> {
    const e = this.tasks.get(taskId);
    if (!e) return undefined;
    if (this.now() - e.touchedAt > this.limits.ttlMs) {
      this.drop(taskId);
      return undefined;
    }
    return structuredClone(e.task);
  }

  async list(): Promise<never> {
    throw new UnsupportedOperationError('Listing tasks is not offered: a task is readable only by its id.');
  }

  get size(): number {
    return this.tasks.size;
  }

  private drop(taskId: string): void {
    const e = this.tasks.get(taskId);
    if (!e) return;
    this.tasks.delete(taskId);
    this.bytes -= e.bytes;
  }

  private evict(): void {
    const now = this.now();
    for (const [id, e] of this.tasks) {
      const over = this.tasks.size > this.limits.maxTasks || this.bytes > this.limits.maxBytes || now - e.touchedAt > this.limits.ttlMs;
      if (!over) break;
      this.drop(id);
    }
  }
}

const FINAL_STATES: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

function isFinal(task: Task): boolean {
  return task.status !== undefined && FINAL_STATES.has(task.status.state);
}

/** The task's JSON size: data parts are plain JSON (a raw-bytes part counts larger than it is, which errs on the safe side). */
function approximateBytes(task: Task): number {
  return Buffer.byteLength(JSON.stringify(task));
}
