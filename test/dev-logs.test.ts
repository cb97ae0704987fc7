/**
 * Development logs: pretty lines when the service writes to a terminal, one
 * JSON object per line otherwise (files, pipes, log collectors). The choice is
 * tested on the stream's TTY flag, and both loggers really write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger, logFormatFor } from '../src/service.js';

/** A stream that records what is written, and says whether it is a terminal. */
function sink(isTTY: boolean) {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  (out as { isTTY?: boolean }).isTTY = isTTY;
  return { out, text: () => lines.join('') };
}

test('a terminal gets pretty logs; anything else gets JSON lines', () => {
  assert.equal(logFormatFor({ isTTY: true }), 'pretty');
  assert.equal(logFormatFor({ isTTY: false }), 'json');
  assert.equal(logFormatFor({}), 'json');
});

test('the JSON logger writes one object per line; the pretty one writes readable text', () => {
  const json = sink(false);
  createLogger('info', json.out).info({ reqId: 'r-1', status: 200 }, 'request');
  const obj = JSON.parse(json.text().trim());
  assert.equal(obj.msg, 'request');
  assert.equal(obj.reqId, 'r-1');

  const pretty = sink(true);
  createLogger('info', pretty.out).info({ reqId: 'r-2', status: 200 }, 'request');
  const text = pretty.text().replace(/\x1b\[[0-9;]*m/g, '');
  assert.throws(() => JSON.parse(text));
  assert.match(text, /INFO.*request/);
  assert.match(text, /reqId: "r-2"/);
});
