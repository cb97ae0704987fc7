/**
 * Shutdown: readiness turns 503 as soon as it begins, a request in flight
 * finishes (within SHUTDOWN_DRAIN_MS) before the service closes, and one that
 * outlasts the drain deadline is cut so the close still ends. `npm start`
 * leaves no node or anvil process behind when npm itself is signalled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceModule } from '../src/module.js';
import { startRig } from './support/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A free route that holds its answer until the test lets it go. */
function slowModule() {
  let entered!: () => void;
  let release!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const released = new Promise<void>((r) => (release = r));
  const module: ServiceModule = {
    name: 'slow-test-route',
    freeRoutes: () => [
      {
        method: 'GET',
        path: '/slow',
        operation: { operationId: 'slow', responses: { '200': { description: 'ok' } } },
        handle: async (c) => {
          entered();
          await released;
          return c.json({ done: true });
        },
      },
    ],
  };
  return { module, inside, release };
}

test('SIGTERM-style close: /readyz is 503 at once, the request in flight completes, then the service closes', async () => {
  const slow = slowModule();
  const rig = await startRig({ env: { SHUTDOWN_DRAIN_MS: '60000' }, service: { modules: [slow.module] } });
  try {
    assert.equal((await fetch(rig.service.url + '/readyz')).status, 200);
    const inFlight = fetch(rig.service.url + '/slow');
    await slow.inside;
    let closed = false;
    const closing = rig.service.close().then(() => (closed = true));
    const ready = await rig.service.app.request('/readyz');
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { status: string }).status, 'shutting_down');
    // Still draining: the close waits for the request.
    await new Promise((r) => setImmediate(r));
    assert.equal(closed, false);
    slow.release();
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { done: true });
    await closing;
    assert.equal(closed, true);
  } finally {
    await rig.close();
  }
});

test('a request that outlasts SHUTDOWN_DRAIN_MS is cut and the close still ends', async () => {
  const slow = slowModule();
  const rig = await startRig({ env: { SHUTDOWN_DRAIN_MS: '300' }, service: { modules: [slow.module] } });
  try {
    const inFlight = fetch(rig.service.url + '/slow').then(
      (r) => r.status,
      () => 'cut' as const,
    );
    await slow.inside;
    await rig.service.close();
    assert.equal(await inFlight, 'cut');
  } finally {
    slow.release();
    await rig.close();
  }
});

/** Every descendant of `pid` (children first found by ps). */
function descendants(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const kids = out.split(/\s+/).filter(Boolean).map(Number);
  return kids.flatMap((k) => [k, ...descendants(k)]);
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const commandOf = (pid: number) => {
  try {
    return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
};

test('npm start signalled with SIGTERM leaves no node or anvil process behind', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  const npm = spawn('npm', ['start'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => npm.once('exit', () => r()));
  let pids: number[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not get ready:\n${out}`)), 90_000);
      npm.once('exit', (code) => reject(new Error(`npm start exited (${code}) before ready:\n${out}`)));
      const check = () => {
        if (/Service ready|"url":"http/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      };
      npm.stdout!.on('data', check);
      npm.stderr!.on('data', check);
    });
    pids = descendants(npm.pid!);
    const commands = pids.map(commandOf);
    assert.ok(commands.some((c) => /anvil/.test(c)), `anvil runs under npm start: ${commands.join(' | ')}`);
    assert.ok(commands.some((c) => /node/.test(c) && /main\.ts/.test(c)), `the service runs under npm start: ${commands.join(' | ')}`);
    npm.kill('SIGTERM');
    await exited;
    // The service drains and exits; give it a bounded while to do so.
    for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    const left = pids.filter(alive);
    assert.deepEqual(left.map((p) => `${p} ${commandOf(p)}`), [], 'every process npm start began has exited');
  } finally {
    for (const p of pids.filter(alive)) process.kill(p, 'SIGKILL');
    if (npm.exitCode === null) npm.kill('SIGKILL');
  }
});
