/**
 * An idle service wakes nobody: once a paid call is over, nothing in the
 * process runs more than a few times a second (no polling ledger thread, no
 * event-loop monitor ticking every few milliseconds). Counted from outside,
 * as the kernel counts them: the context switches of every thread of the
 * service's process while no request arrives (Linux /proc).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { startDevnet } from '../devnet/index.js';
import { spawnService } from './support/child-service.js';
import { BLACK_ON_WHITE, CONTRAST, devnetEnv, postJson, signFor, tempDir } from './support/harness.js';

/**
 * Voluntary context switches of each thread of `pid`, by thread id: each is a
 * thread going back to sleep, so each counts one wake-up. Involuntary ones
 * (preemption) are left out: they count the machine's load, not the process's
 * wake-ups. A quiet run counts about 50 in 4 s, nearly all the event-loop
 * sampler's; a busy CI runner counted over 100 in one window, from threads
 * finishing the call's tail late.
 */
function switches(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    // The event loop's thread (its id is the process id): every timer, poll and checkpoint we schedule
    // wakes it. Other threads (V8's and libuv's helpers) follow the runner's load: CI counted four of
    // them at 20+ switches each in both windows while the event loop stayed at 45.
    if (tid !== String(pid)) continue;
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const n = [...status.matchAll(/^voluntary_ctxt_switches:\s+(\d+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
      out.set(tid, n);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

const IDLE_SECONDS = 4;
/** Allowed while idle: the event-loop delay sampler (ten times a second) and slack; it was over a hundred before. */
const MAX_WAKEUPS_PER_SECOND = 25;

test('after a paid call, an idle service process wakes at most a few times a second', { skip: !existsSync('/proc/self/task') && 'needs Linux /proc' }, async (t) => {
  const devnet = await startDevnet();
  const svc = await spawnService(devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: tempDir('idle-') }));
  try {
    const url = svc.url + CONTRAST;
    const { header } = await signFor(url, BLACK_ON_WHITE, devnet);
    const paid = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(paid.status, 200, await paid.text());
    // What follows a write (its checkpoint) and the call's own tail run first.
    await new Promise((r) => setTimeout(r, 2500));
    const pid = svc.child.pid!;
    // Two windows, the quieter one counts: a timer wakes the process in both, while the call's
    // tail (a late collection on a busy runner, seen in CI) lands in one at most.
    const window = async () => {
      const before = switches(pid);
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      const after = switches(pid);
      const perThread = [...after].map(([tid, n]) => [tid, n - (before.get(tid) ?? 0)] as const).filter(([, n]) => n > 0);
      return { perThread, total: perThread.reduce((s, [, n]) => s + n, 0) };
    };
    const first = await window();
    const second = await window();
    const { perThread, total } = first.total <= second.total ? first : second;
    t.diagnostic(`windows: ${first.total} and ${second.total} wake-ups in ${IDLE_SECONDS} s`);
    t.diagnostic(`${total} wake-ups in ${IDLE_SECONDS} s idle: ${JSON.stringify(Object.fromEntries(perThread))}`);
    assert.ok(total <= MAX_WAKEUPS_PER_SECOND * IDLE_SECONDS, `${total} context switches in ${IDLE_SECONDS} s idle (by thread: ${JSON.stringify(Object.fromEntries(perThread))})`);
  } finally {
    await svc.kill();
    await devnet.stop();
  }
});
