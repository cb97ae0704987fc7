/**
 * JSON log lines on standard output: every line is there, in order, even
 * when the process exits right after logging, and they are written to file
 * descriptor 1 directly (pino's own writer), not through process.stdout's
 * stream. Run in a child process whose stdout is a pipe, as under a process
 * manager or a log collector; the child counts the writes that reach fd 1
 * each way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LINES = 500;

const CHILD = `
import fs from 'node:fs';
const writes = { direct: 0, stream: 0 };
const count = (orig) => function (fd, ...rest) { if (fd === 1) writes.direct++; return orig.call(this, fd, ...rest); };
fs.write = count(fs.write);
fs.writeSync = count(fs.writeSync);
const streamWrite = process.stdout.write;
process.stdout.write = function (...a) { writes.stream++; return streamWrite.apply(this, a); };
const { createLogger } = await import(${JSON.stringify(join(ROOT, 'src/service.ts'))});
const log = createLogger('info');
for (let i = 0; i < ${LINES}; i++) log.info({ reqId: 'r-' + i, status: 402 }, 'request');
process.on('exit', () => process.stderr.write(JSON.stringify(writes)));
process.exit(0);
`;

test('log lines reach stdout directly, all of them and in order, even on an immediate exit', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.once('close', r));
  assert.equal(code, 0, err);
  const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { reqId: string });
  assert.equal(lines.length, LINES, 'no line lost at exit');
  assert.deepEqual(lines.map((l) => l.reqId), Array.from({ length: LINES }, (_, i) => `r-${i}`), 'in order');
  const writes = JSON.parse(err.slice(err.lastIndexOf('{'))) as { direct: number; stream: number };
  assert.equal(writes.stream, 0, 'no line goes through the process.stdout stream');
  // At least one write per line reaches fd 1 directly (a pipe that is full for a moment makes some of them twice).
  assert.ok(writes.direct >= LINES, JSON.stringify(writes));
});
