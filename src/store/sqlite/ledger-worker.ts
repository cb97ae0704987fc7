/**
 * The SQLite ledger's own thread: its connection, its writes and their
 * fsyncs, and the WAL checkpoints those writes trigger, all happen here, so
 * the event loop that answers requests never waits for the disk (a stored
 * 7 MiB result and its fsync cost that loop tens of milliseconds).
 *
 * It is the same SqlLedger on the same driver the parent would otherwise run:
 * same SQL, same transactions, same bounded lock waits on timers (so one
 * waiting statement never holds up the others), same durability. Calls are
 * answered in the order their statements finish.
 *
 * It also checkpoints the WAL for the whole file, on a timer: the event
 * loop's connection (the content stores) is opened without automatic
 * checkpoints, which would otherwise land inside one of its commits every
 * ~1,000 pages, page copies and an fsync on the event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LedgerUnavailableError } from '../ledger.js';
import { SqlLedger } from '../sql-ledger.js';
import { openSqlite } from './driver.js';
import { nameThisThread } from '../../foundation/this-thread.js';
import { LEDGER_THREAD_NAME, type LedgerCall, type LedgerThreadData, type LedgerThreadReply } from './ledger-protocol.js';

const port = parentPort;
if (!port) throw new Error('src/store/sqlite/ledger-worker.ts runs only as a worker thread');
const { file, timeoutMs } = workerData as LedgerThreadData;
nameThisThread(LEDGER_THREAD_NAME);

const send = (m: LedgerThreadReply) => port.postMessage(m);

let driver: ReturnType<typeof openSqlite>;
let ledger: SqlLedger;
try {
  driver = openSqlite(file, { timeoutMs });
  ledger = new SqlLedger(driver);
} catch (e) {
  send({ startError: e instanceof Error ? e.message : String(e) });
  throw e;
}

port.on('message', async ({ seq, method, args }: LedgerCall) => {
  try {
    if (method === 'checkpoint') {
      // PASSIVE: it never waits for a reader or the writer; frames still in use wait for the next one.
      driver.checkpoint();
      return send({ seq, ok: true, value: undefined });
    }
    const fn = (ledger as unknown as Record<string, (args: unknown) => Promise<unknown>>)[method];
    if (typeof fn !== 'function') throw new Error(`the ledger has no method ${method}`);
    const value = await fn.call(ledger, args);
    send({ seq, ok: true, value });
    if (method === 'close') port.close();
  } catch (e) {
    send({ seq, ok: false, unavailable: e instanceof LedgerUnavailableError, message: e instanceof Error ? e.message : String(e) });
  }
});
send({ ready: true });
