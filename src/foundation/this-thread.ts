/**
 * The calling thread as the operating system sees it. Linux keeps a name and
 * a nice value per thread and lets a thread set its own through
 * /proc/thread-self; elsewhere, or if refused, the thread keeps the
 * process's (every thread Node starts reads "node", at the process's
 * priority).
 */
import { readlinkSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';

export const THREAD_NAME_MAX = 15;

/**
 * Name this thread, so `top -H`, `ps -L` and /proc/<pid>/task/<tid>/comm
 * tell the service's threads apart: an operator asking which thread burns
 * CPU, and `npm run bench` splitting a paid call's CPU between the event loop
 * and the ledger's thread, read this name.
 */
export function nameThisThread(name: string): void {
  if (name.length === 0 || name.length > THREAD_NAME_MAX || !/^[\x21-\x7e]+$/.test(name)) throw new RangeError(`a thread name is 1 to ${THREAD_NAME_MAX} printable ASCII characters: ${JSON.stringify(name)}`);
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux, or not allowed: the name stays "node".
  }
}

/** Run this thread at `nice` (setpriority(2) on its thread id, which /proc/thread-self names). */
export function niceThisThread(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or not allowed: the process's priority.
  }
}
