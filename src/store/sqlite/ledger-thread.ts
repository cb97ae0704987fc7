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
 * Small calls that never wait for a flush (reads, the claim, the unflushed
 * `settled` write) are answered on the event loop's own connection instead
 * (`inline`), but only while the thread has nothing outstanding. Why: on a
 * small virtual machine each message to an idle thread and each answer back
 * cost ~0.3 ms of waking (measured: ~0.35 ms a round trip against ~0.03 ms
 * inline), three times per paid call. Nothing they do waits for the disk,
 * and the driver waits for locks on timers, never in the call. Every durable
 * write, and anything carrying a large text, stays on the thread; while the
 * thread has calls outstanding (including one past its deadline on a stalled
 * disk), every call goes there too, so calls keep their order and a stall
 * never reaches the event loop.
 */
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../isolation/worker-entry.js';
import { LedgerUnavailableError, type AdvanceOptions, type Ledger } from '../ledger.js';
import type { LedgerCall, LedgerMethod, LedgerThreadData, LedgerThreadReply } from './ledger-protocol.js';

const ENTRY = workerEntry(import.meta.url, 'ledger-worker');

/** Beyond the driver's own bound (lock waits), time for the write and its fsync. */
const ANSWER_MARGIN_MS = 2000;

const PREFIX = 'ledger unavailable: ';

/** Reads: no write, no flush. */
const READS: ReadonlySet<LedgerMethod> = new Set(['get', 'getByPaymentKey', 'listUnresolved', 'history', 'summary', 'paidDeliveriesByPayer', 'settlementWatermark']);

/** A text this long is written on the thread whatever the call (the page writes alone would hold the event loop). */
const LARGE_TEXT_CHARS = 64 * 1024;

function carriesLargeText(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.length >= LARGE_TEXT_CHARS;
  if (v === null || typeof v !== 'object' || depth > 4) return false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (carriesLargeText(x, depth + 1)) return true;
  return false;
}

/** Whether a call may be answered on the event loop's connection (when the thread has nothing outstanding). */
function flushFree(method: LedgerMethod, args: unknown[], large: boolean): boolean {
  if (READS.has(method)) return true;
  // reserve never flushes (its contract); advance only when asked not to.
  const unflushed = method === 'reserve' || (method === 'advance' && (args[4] as AdvanceOptions | undefined)?.durable === false);
  return unflushed && !large;
}

/** Calls whose first argument is the attempt they write. */
const WRITES_BY_ID: ReadonlySet<LedgerMethod> = new Set(['advance', 'transition', 'transitionUnleased']);

/**
 * Attempts a large text was written to through this ledger, so their next
 * small write goes to the thread as well. Why: SQLite rewrites a whole row on
 * UPDATE, overflow pages included, so marking a delivery with a 2 MiB stored
 * response `settled` wrote 2 MiB again (~17 ms on the event loop, seen in the
 * isolation bench's profile). Bounded; an attempt written before a restart is
 * not known here, which costs that one write its time, not its correctness.
 */
class LargeRows {
  private readonly ids = new Set<string>();
  constructor(private readonly max = 1024) {}
  note(method: LedgerMethod, args: unknown[], large: boolean): void {
    if (!large || !WRITES_BY_ID.has(method) || typeof args[0] !== 'string') return;
    if (this.ids.size >= this.max) this.ids.delete(this.ids.values().next().value!);
    this.ids.add(args[0]);
  }
  has(method: LedgerMethod, args: unknown[]): boolean {
    return WRITES_BY_ID.has(method) && typeof args[0] === 'string' && this.ids.has(args[0]);
  }
}

/** How many calls were answered where (tests, benchmarks). */
export interface LedgerRouting {
  inline: number;
  thread: number;
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
  /** Posted to the thread and not answered yet, late answers included: while any is, every call goes there. */
  private outstanding = 0;
  private closed = false;
  private readonly answerMs: number;
  private readonly routing: LedgerRouting = { inline: 0, thread: 0 };
  private readonly largeRows = new LargeRows();

  private constructor(
    private readonly data: LedgerThreadData,
    private readonly inline: Ledger | undefined,
  ) {
    this.answerMs = data.timeoutMs + ANSWER_MARGIN_MS;
  }

  /**
   * Start the thread and wait until its connection is open (a start failure
   * stops start-up). `inline`: the same ledger on the event loop's connection
   * to the same file, for the calls described above; without it every call
   * goes to the thread.
   */
  static async open(file: string, opts: { timeoutMs: number; inline?: Ledger }): Promise<Ledger & { readonly routing: Readonly<LedgerRouting> }> {
    const ledger = new ThreadedSqliteLedger({ file, timeoutMs: opts.timeoutMs }, opts.inline);
    await ledger.start().started;
    return ledger.asLedger();
  }

  private asLedger(): Ledger & { readonly routing: Readonly<LedgerRouting> } {
    const call = (method: LedgerMethod) => (...args: unknown[]) => this.route(method, args);
    return {
      routing: this.routing,
      kind: 'sqlite',
      ping: call('ping') as Ledger['ping'],
      reserve: call('reserve') as Ledger['reserve'],
      acquire: call('acquire') as Ledger['acquire'],
      transition: call('transition') as Ledger['transition'],
      advance: call('advance') as Ledger['advance'],
      transitionUnleased: call('transitionUnleased') as Ledger['transitionUnleased'],
      renew: call('renew') as Ledger['renew'],
      release: call('release') as Ledger['release'],
      get: call('get') as Ledger['get'],
      getByPaymentKey: call('getByPaymentKey') as Ledger['getByPaymentKey'],
      listUnresolved: call('listUnresolved') as Ledger['listUnresolved'],
      history: call('history') as Ledger['history'],
      summary: call('summary') as Ledger['summary'],
      paidDeliveriesByPayer: call('paidDeliveriesByPayer') as Ledger['paidDeliveriesByPayer'],
      settlementWatermark: call('settlementWatermark') as Ledger['settlementWatermark'],
      close: () => this.close(),
    };
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
      if (this.thread === thread) this.outstanding--;
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
      // Nothing is left running on a thread that is gone.
      this.outstanding = 0;
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

  private route(method: LedgerMethod, args: unknown[]): Promise<unknown> {
    const large = !READS.has(method) && carriesLargeText(args);
    this.largeRows.note(method, args, large);
    if (this.inline && !this.closed && this.outstanding === 0 && flushFree(method, args, large) && !this.largeRows.has(method, args)) {
      this.routing.inline++;
      return (this.inline[method as keyof Ledger] as (...a: unknown[]) => Promise<unknown>).apply(this.inline, args);
    }
    return this.call(method, args);
  }

  private call(method: LedgerMethod, args: unknown[]): Promise<unknown> {
    if (this.closed) return Promise.reject(new LedgerUnavailableError(new Error('the ledger is closed')));
    const thread = this.thread ?? this.start();
    const seq = ++this.seq;
    this.routing.thread++;
    this.outstanding++;
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
    const thread = this.thread;
    if (thread) {
      // The thread closes its connection (checkpointing the WAL) before it ends.
      await this.call('close', []).catch(() => {});
    }
    this.closed = true;
    if (thread) await thread.worker.terminate().catch(() => 0);
    this.thread = undefined;
  }
}
