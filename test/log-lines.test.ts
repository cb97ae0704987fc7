/**
 * JSON log lines on standard output, as a process manager or a log collector
 * reads them (a pipe): every line is there and in order, whatever way the
 * process ends; lines below `warn` go out together in one write, at most
 * KEEP_MS after the first of them; a `warn` or worse line is out before `log.warn`
 * returns. Each case runs in a child process that counts the writes reaching
 * file descriptor 1 (decisions 0028, 0033 and 0035).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KEEP_MS } from '../src/observability/log-lines.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `body` with `log` (the service's logger at info), `writes()` (writes to fd 1 so far, and through process.stdout) and `report` (returned, with `atExit`: the writes once the process has exited). */
async function child(body: string): Promise<{ code: number | null; lines: Array<{ msg: string; level: number; i?: number }>; report: Record<string, unknown> }> {
  const script = `
import fs from 'node:fs';
const counted = { direct: 0, stream: 0 };
const count = (orig) => function (fd, ...rest) { if (fd === 1) counted.direct++; return orig.call(this, fd, ...rest); };
fs.write = count(fs.write);
fs.writeSync = count(fs.writeSync);
const streamWrite = process.stdout.write;
process.stdout.write = function (...a) { counted.stream++; return streamWrite.apply(this, a); };
const writes = () => ({ ...counted });
const report = {};
const { createLogger } = await import(${JSON.stringify(join(ROOT, 'src/service.ts'))});
const log = createLogger('info');
// After the logger's own exit handler: what it wrote on the way out is counted.
process.on('exit', () => process.stderr.write('\\n' + JSON.stringify({ ...report, atExit: writes() })));
${body}
`;
  const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  c.stdout.on('data', (d) => (out += d));
  c.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => c.once('close', r));
  const last = err.trim().split('\n').pop() ?? '{}';
  const report = JSON.parse(last.startsWith('{') ? last : '{}') as Record<string, unknown>;
  return { code, lines: out.trim() === '' ? [] : out.trim().split('\n').map((l) => JSON.parse(l)), report };
}

test('500 lines in one turn, then an immediate exit: all of them, in order, in a few writes and none through process.stdout', async () => {
  const r = await child(`
for (let i = 0; i < 500; i++) log.info({ i, status: 402 }, 'request');
report.before = writes();
process.exit(0);
`);
  assert.equal(r.code, 0);
  assert.deepEqual(r.lines.map((l) => l.i), Array.from({ length: 500 }, (_, i) => i), 'every line, in order');
  const before = r.report.before as { direct: number };
  const after = r.report.atExit as { direct: number; stream: number };
  assert.ok(before.direct < 500, `kept for the turn, not one write per line: ${before.direct} writes before the exit`);
  assert.ok(after.direct >= 1 && after.direct <= 10, `a turn's lines go out together: ${after.direct} writes for 500 lines`);
  assert.equal(after.stream, 0, 'no line goes through the process.stdout stream');
});

test(`lines below warn are kept across turns and written together within ${KEEP_MS} ms, without an exit`, async () => {
  const r = await child(`
const started = performance.now();
log.info('one'); log.info('two'); log.info('three');
report.sameTurn = writes().direct;
await new Promise((resolve) => setTimeout(resolve, 10));
log.info('four');
report.laterTurn = writes().direct;
report.laterTurnAt = performance.now() - started;
await new Promise((resolve) => setTimeout(resolve, ${KEEP_MS} + 50));
report.afterKeep = writes().direct;
log.info('five');
await new Promise((resolve) => setTimeout(resolve, ${KEEP_MS} + 50));
report.afterSecondKeep = writes().direct;
`);
  assert.equal(r.code, 0);
  assert.deepEqual(r.lines.map((l) => l.msg), ['one', 'two', 'three', 'four', 'five']);
  assert.equal(r.report.sameTurn, 0, 'kept while the turn runs');
  // A machine that stalls the child past the keep time has written the batch already; otherwise the later turn's line joined it.
  if ((r.report.laterTurnAt as number) < KEEP_MS) assert.equal(r.report.laterTurn, 0, 'still kept in a later turn, inside the keep time');
  assert.equal(r.report.afterKeep, (r.report.laterTurnAt as number) < KEEP_MS ? 1 : 2, 'one write for the lines of both turns');
  assert.equal(r.report.afterSecondKeep, (r.report.afterKeep as number) + 1, 'a line after the write starts the next batch');
});

test('a warn or error line is out before log.warn returns, after the lines kept before it', async () => {
  const r = await child(`
log.info('kept');
log.warn('trouble');
report.afterWarn = writes().direct;
log.info('after');
log.error('worse');
report.afterError = writes().direct;
`);
  assert.equal(r.code, 0);
  assert.deepEqual(r.lines.map((l) => l.msg), ['kept', 'trouble', 'after', 'worse'], 'in order');
  assert.equal(r.report.afterWarn, 1, 'the kept line and the warning, written at once');
  assert.equal(r.report.afterError, 2);
});

test('an uncaught exception: the lines of its turn are still written', async () => {
  const r = await child(`
log.info('before the crash');
setTimeout(() => { log.info('in the crashing turn'); throw new Error('boom'); }, 5);
`);
  assert.notEqual(r.code, 0);
  assert.deepEqual(r.lines.map((l) => l.msg), ['before the crash', 'in the crashing turn']);
});

test('every logger of the process writes through one batch: their lines in order, one exit handler however many loggers', async () => {
  const r = await child(`
const listeners = process.listenerCount('exit');
const others = Array.from({ length: 20 }, () => createLogger('info'));
report.addedListeners = process.listenerCount('exit') - listeners;
log.info('first');
others[7].info('second');
log.info('third');
await new Promise((resolve) => setTimeout(resolve, ${KEEP_MS} + 50));
report.writes = writes().direct;
`);
  assert.equal(r.code, 0);
  assert.deepEqual(r.lines.map((l) => l.msg), ['first', 'second', 'third']);
  assert.equal(r.report.addedListeners, 0, 'no exit handler per logger');
  assert.equal(r.report.writes, 1, 'one write for the batch, whichever logger wrote');
});
