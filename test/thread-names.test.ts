/**
 * The service's own threads carry names the operating system shows (top -H,
 * ps -L, /proc/<pid>/task/<tid>/comm): the SQLite ledger's thread and the
 * handler pool's workers. Linux only; elsewhere the test says why it skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/store/index.js';
import { LEDGER_THREAD_NAME } from '../src/store/sqlite/ledger-protocol.js';
import { acquireHandlerPool } from '../src/isolation/pool.js';
import { HANDLER_THREAD_NAME } from '../src/isolation/protocol.js';
import { nameThisThread, THREAD_NAME_MAX } from '../src/foundation/this-thread.js';

const skip = existsSync('/proc/thread-self/comm') ? undefined : 'threads are named through /proc/thread-self/comm, which only Linux has';

/** This process's threads: name and nice value, one entry per thread. */
function threads(): Array<{ name: string; nice: number }> {
  const out: Array<{ name: string; nice: number }> = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the parenthesised name: state is field 3, nice field 19.
      const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      out.push({ name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(), nice });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

const count = (name: string) => threads().filter((t) => t.name === name).length;

test('the SQLite ledger runs on a thread named "ledger", and only while it is open', { skip }, async () => {
  const before = count(LEDGER_THREAD_NAME);
  const db = await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'thread-names-')) });
  try {
    assert.equal(count(LEDGER_THREAD_NAME), before + 1);
  } finally {
    await db.close();
  }
  assert.equal(count(LEDGER_THREAD_NAME), before);
});

test('each handler pool worker is named "handler-pool" and runs at nice 10, below the event loop', { skip }, async () => {
  const before = count(HANDLER_THREAD_NAME);
  const { release } = await acquireHandlerPool({ size: 2 });
  try {
    assert.equal(count(HANDLER_THREAD_NAME), before + 2);
    // getPriority() with no argument: the calling thread's, here the event loop's.
    const expected = Math.min(getPriority() + 10, 19);
    assert.deepEqual(threads().filter((t) => t.name === HANDLER_THREAD_NAME).map((t) => t.nice), Array(before + 2).fill(expected));
  } finally {
    await release();
  }
});

test('a thread name is 1 to 15 printable ASCII characters', () => {
  for (const bad of ['', 'x'.repeat(THREAD_NAME_MAX + 1), 'two words', 'tab\there', 'naïve']) assert.throws(() => nameThisThread(bad), RangeError, JSON.stringify(bad));
});
