/**
 * Names the calling thread for the operating system, so `top -H`, `ps -L`
 * and /proc/<pid>/task/<tid>/comm tell the service's threads apart: Node
 * names none of them (the event loop, V8's helpers, libuv's pool and every
 * worker thread all read "node"). An operator asking which thread burns CPU,
 * and `npm run bench` splitting a paid call's CPU between the event loop and
 * the ledger's thread, read this name.
 *
 * Linux lets a thread rename itself through /proc/thread-self/comm (at most
 * 15 bytes). Elsewhere, or if refused, the thread keeps its name.
 */
import { writeFileSync } from 'node:fs';

export const THREAD_NAME_MAX = 15;

export function nameThisThread(name: string): void {
  if (name.length === 0 || name.length > THREAD_NAME_MAX || !/^[\x21-\x7e]+$/.test(name)) throw new RangeError(`a thread name is 1 to ${THREAD_NAME_MAX} printable ASCII characters: ${JSON.stringify(name)}`);
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux, or not allowed: the name stays "node".
  }
}
