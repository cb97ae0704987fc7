/**
 * The SQLite ledger, run on a thread of its own (ledger-worker.ts) and called
 * from the event loop by message. Why: better-sqlite3 is synchronous, so on
 * the event loop every durable commit waited for its fsync, and a paid call
 * storing a 7 MiB result held every other request for tens of milliseconds
 * (writing the pages, the fsync, the checkpoint it triggered). Here the
 * event loop only posts the call and goes on.
 *
 * Bounded like every ledger call: an answer that does not come within the
 * driver's own bound plus a margin (a disk that stalls, a thread stuck in a
 * syscall) fails with `LedgerUnavailableError`, which the gate answers with a
 * fail-closed 503. A late answer is then ignored; the statement may still
 * have committed, exactly like a PostgreSQL query that times out on the
 * client after the server committed it, and the gate's rules already cover
 * that (a bound attempt is found again by the buyer's retry). A thread that
 * dies fails its calls the same way and is started again for the next one.
 *
 * Every ledger call goes to the thread, reads and unflushed writes too, in
 * the order they are made: the thread's connection is the only one that
 * touches the ledger's tables while the service runs, so its page cache
 * stays valid, and a stalled disk never reaches the event loop. Answering
 * the calls that do not wait for the disk on the event loop's connection
 * saved latency but cost CPU per paid call (docs/decisions/0035).
 *
 * The WAL is copied into the database file by this thread too, once writes
 * (on either connection: the event loop's commits call `checkpointSoon`)
 * have paused for a moment, and by its own commits when the WAL passes
 * SQLite's threshold. A ledger with nothing written wakes nobody.
 */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../foundation/worker-entry.js';
import { LEDGER_METHOD_NAMES, LEDGER_METHODS, LedgerUnavailableError, type Ledger } from '../ledger.js';
import type { LedgerCall, LedgerMethod, LedgerThreadData, LedgerThreadReply } from './ledger-protocol.js';

const ENTRY = workerEntry(import.meta.url, 'ledger-worker');

/** Beyond the driver's own bound (lock waits), time for the write and its fsync. */
const ANSWER_MARGIN_MS = 2000;

const PREFIX = 'ledger unavailable: ';

/** How long writes must pause before the WAL is checkpointed from here. */
export const CHECKPOINT_AFTER_MS = 1000;

/** The ledger on its thread, and the hook the event loop's own connection calls after its writes. */
export interface ThreadedLedger {
  ledger: Ledger;
  checkpointSoon(): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

interface Thread {
  worker: Worker;
  started: Promise<void>;
}

export class ThreadedSqliteLedger {
  readonly kind = 'sqlite' as const;
  private thread: Thread | undefined;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private closed = false;
  private readonly answerMs: number;
  private checkpointDue: NodeJS.Timeout | undefined;
  private lastWrite = 0;

  private constructor(private readonly data: LedgerThreadData) {
    this.answerMs = data.timeoutMs + ANSWER_MARGIN_MS;
  }

  /** Start the thread and wait until its connection is open (a start failure stops start-up). */
  static async open(file: string, opts: { timeoutMs: number }): Promise<ThreadedLedger> {
    const ledger = new ThreadedSqliteLedger({ file, timeoutMs: opts.timeoutMs });
    await ledger.start().started;
    return { ledger: ledger.asLedger(), checkpointSoon: () => ledger.checkpointSoon() };
  }

  /**
   * Checkpoint the WAL once writes have paused for CHECKPOINT_AFTER_MS. Under
   * steady writes none runs from here: the thread's own commits checkpoint
   * the WAL when it passes SQLite's automatic threshold (its connection keeps
   * it), so each page is copied once per threshold, not once a second.
   */
  private checkpointSoon(): void {
    this.lastWrite = performance.now();
    if (this.checkpointDue || this.closed) return;
    const due = () => {
      const quietFor = performance.now() - this.lastWrite;
      if (quietFor < CHECKPOINT_AFTER_MS) {
        this.checkpointDue = setTimeout(due, CHECKPOINT_AFTER_MS - quietFor);
        this.checkpointDue.unref();
        return;
      }
      this.checkpointDue = undefined;
      // Refused or late (closed, a stalled disk): the next write asks again.
      this.call('checkpoint', undefined).catch(() => {});
    };
    this.checkpointDue = setTimeout(due, CHECKPOINT_AFTER_MS);
    this.checkpointDue.unref();
  }

  /** Every method a message to the thread, but `close`, which also stops the thread. */
  private asLedger(): Ledger {
    const methods = LEDGER_METHOD_NAMES.map((m) => [m, LEDGER_METHODS[m].does === 'close' ? () => this.close() : (args?: unknown) => this.call(m, args)]);
    return { kind: 'sqlite', ...Object.fromEntries(methods) } as Ledger;
  }

  private start(): Thread {
    const worker = new Worker(ENTRY, { workerData: this.data, execArgv: [], stdout: false, stderr: false });
    // Never what keeps the process alive: a pending call has its own timer.
    worker.unref();
    let settle!: { resolve(): void; reject(e: Error): void };
    const started = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    const thread: Thread = { worker, started };
    worker.on('message', (m: LedgerThreadReply) => {
      if ('ready' in m) return settle.resolve();
      if ('startError' in m) return settle.reject(new Error(`the SQLite ledger thread could not open ${this.data.file}: ${m.startError}`));
      const p = this.pending.get(m.seq);
      if (!p) return; // answered after its deadline: already failed closed
      this.pending.delete(m.seq);
      clearTimeout(p.timer);
      if (m.ok) p.resolve(m.value);
      else if (m.unavailable) p.reject(new LedgerUnavailableError(new Error(m.message.startsWith(PREFIX) ? m.message.slice(PREFIX.length) : m.message)));
      else p.reject(new Error(m.message));
    });
    const lost = (why: string) => {
      settle.reject(new Error(`the SQLite ledger thread stopped before it was ready: ${why}`));
      if (this.thread !== thread) return;
      this.thread = undefined;
      for (const [seq, p] of this.pending) {
        this.pending.delete(seq);
        clearTimeout(p.timer);
        p.reject(new LedgerUnavailableError(new Error(`the ledger thread stopped (${why})`)));
      }
    };
    worker.on('error', (e) => lost(e instanceof Error ? e.message : String(e)));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    this.thread = thread;
    return thread;
  }

  private call(method: LedgerMethod, args: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new LedgerUnavailableError(new Error('the ledger is closed')));
    const thread = this.thread ?? this.start();
    const seq = ++this.seq;
    // Only a write (the probe's too) leaves WAL to copy; a read or the close leaves none.
    if (method !== 'checkpoint' && ['write', 'probe'].includes(LEDGER_METHODS[method].does)) this.checkpointSoon();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new LedgerUnavailableError(new Error(`the ledger thread did not answer ${method} within ${this.answerMs} ms`)));
      }, this.answerMs);
      this.pending.set(seq, { resolve, reject, timer });
      thread.worker.postMessage({ seq, method, args } satisfies LedgerCall);
    });
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.checkpointDue);
    const thread = this.thread;
    if (thread) {
      // The thread closes its connection (checkpointing the WAL) before it ends.
      await this.call('close', undefined).catch(() => {});
    }
    this.closed = true;
    if (thread) await thread.worker.terminate().catch(() => 0);
    this.thread = undefined;
  }
}
