/**
 * The service's own threads carry names the operating system shows (top -H,
 * ps -L, /proc/<pid>/task/<tid>/comm): the SQLite ledger's thread and the
 * handler pool's workers. Linux only; elsewhere the test says why it skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/store/index.js';
import { LEDGER_THREAD_NAME } from '../src/store/sqlite/ledger-protocol.js';
import { acquireHandlerPool } from '../src/isolation/pool.js';
import { HANDLER_THREAD_NAME } from '../src/isolation/protocol.js';
import { nameThisThread, THREAD_NAME_MAX } from '../src/foundation/thread-name.js';

const skip = existsSync('/proc/thread-self/comm') ? undefined : 'threads are named through /proc/thread-self/comm, which only Linux has';

/** The names of this process's threads, one entry per thread. */
function threadNames(): string[] {
  const names: string[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      names.push(readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return names;
}

const count = (name: string) => threadNames().filter((n) => n === name).length;

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

test('each handler pool worker is named "handler-pool"', { skip }, async () => {
  const before = count(HANDLER_THREAD_NAME);
  const { release } = await acquireHandlerPool({ size: 2 });
  try {
    assert.equal(count(HANDLER_THREAD_NAME), before + 2);
  } finally {
    await release();
  }
});

test('a thread name is 1 to 15 printable ASCII characters', () => {
  for (const bad of ['', 'x'.repeat(THREAD_NAME_MAX + 1), 'two words', 'tab\there', 'naïve']) assert.throws(() => nameThisThread(bad), RangeError, JSON.stringify(bad));
});
