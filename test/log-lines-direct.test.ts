/**
 * JSON log lines on standard output are written in batches, not one blocking
 * write per line, and none is lost when the process exits right after
 * logging. Run in a child process whose stdout is a pipe, as under a process
 * manager or a log collector; the child counts every write that reaches
 * file descriptor 1, whichever way it is made.
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
let writes = 0;
const count = (orig) => function (fd, ...rest) { if (fd === 1) writes++; return orig.call(this, fd, ...rest); };
fs.write = count(fs.write);
fs.writeSync = count(fs.writeSync);
const streamWrite = process.stdout.write;
process.stdout.write = function (...a) { writes++; return streamWrite.apply(this, a); };
const { createLogger } = await import(${JSON.stringify(join(ROOT, 'src/service.ts'))});
const log = createLogger('info');
for (let i = 0; i < ${LINES}; i++) log.info({ reqId: 'r-' + i, status: 402 }, 'request');
process.on('exit', () => process.stderr.write(JSON.stringify({ writes })));
// A turn later the batch is on its way; then exit at once, with lines possibly still buffered.
setImmediate(() => process.exit(0));
`;

test('a burst of log lines leaves in a few writes, and every line is there after an immediate exit', async () => {
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
  const { writes } = JSON.parse(err.slice(err.lastIndexOf('{'))) as { writes: number };
  assert.ok(writes <= LINES / 50, `${writes} writes for ${LINES} lines`);
});
