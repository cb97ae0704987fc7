/**
 * A paid route reads a small body straight from Node's buffer once the
 * request's head has been handled (src/http/paid-route.ts receivedBody), and
 * the usual way otherwise. However the bytes arrive — with the head, after
 * it, split, chunked, pipelined behind another request, several requests on
 * one keep-alive connection — each request is answered for exactly its own
 * body: a valid one gets the 402 challenge, an invalid one the 400, and no
 * byte of one request is read as another's. Checked with a raw socket, so
 * nothing between the test and the server groups or splits the writes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { CONTRAST, BLACK_ON_WHITE, startRig, type Rig } from './support/harness.js';
import { CATALOG } from '../src/capabilities/index.js';

let rig: Rig;
before(async () => {
  rig = await startRig();
});
after(async () => rig?.close());

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One keep-alive connection: write pieces (with pauses), read Content-Length answers in order. */
class Connection {
  private buf = Buffer.alloc(0);
  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => (this.buf = Buffer.concat([this.buf, d])));
  }
  static async open(): Promise<Connection> {
    const u = new URL(rig.service.url);
    const socket = net.connect(Number(u.port), u.hostname);
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new Connection(socket);
  }
  async send(...pieces: Array<string | number>): Promise<void> {
    for (const p of pieces) {
      if (typeof p === 'number') await new Promise((r) => setTimeout(r, p));
      else await new Promise<void>((resolve) => this.socket.write(p, () => resolve()));
    }
  }
  async answer(): Promise<Answer> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const headEnd = this.buf.indexOf('\r\n\r\n');
      if (headEnd >= 0) {
        const [statusLine, ...lines] = this.buf.subarray(0, headEnd).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
        const total = headEnd + 4 + Number(headers['content-length']);
        if (this.buf.length >= total) {
          const body = this.buf.subarray(headEnd + 4, total).toString('utf8');
          this.buf = this.buf.subarray(total);
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (Date.now() > deadline || this.socket.destroyed) throw new Error(`no complete answer; received ${JSON.stringify(this.buf.toString('latin1').slice(0, 200))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  close() {
    this.socket.destroy();
  }
}

const valid = JSON.stringify(BLACK_ON_WHITE);
const invalid = JSON.stringify({ ...BLACK_ON_WHITE, foreground: 'not a colour' });
const head = (body: string, id: string) => `POST ${CONTRAST} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Request-Id: ${id}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;

function assertChallenge(a: Answer, id: string) {
  assert.equal(a.status, 402, a.body);
  assert.ok(a.headers['payment-required'], 'PAYMENT-REQUIRED');
  assert.equal(a.headers['x-request-id'], id);
  assert.equal((JSON.parse(a.body) as { problem: { code: string } }).problem.code, 'payment_required');
}
function assertInvalid(a: Answer, id: string) {
  assert.equal(a.status, 400, a.body);
  assert.equal(a.headers['x-request-id'], id);
  assert.equal(a.headers['payment-required'], undefined);
}

test('head and body in one write, body after the head, body split in two: each answered for its own bytes', async () => {
  const c = await Connection.open();
  try {
    await c.send(head(valid, 'w-1') + valid);
    assertChallenge(await c.answer(), 'w-1');
    await c.send(head(valid, 'w-2'), 60, valid);
    assertChallenge(await c.answer(), 'w-2');
    const cut = 10;
    await c.send(head(valid, 'w-3') + valid.slice(0, cut), 60, valid.slice(cut));
    assertChallenge(await c.answer(), 'w-3');
    await c.send(head(invalid, 'w-4') + invalid.slice(0, cut), 60, invalid.slice(cut));
    assertInvalid(await c.answer(), 'w-4');
    await c.send(head(invalid, 'w-5') + invalid);
    assertInvalid(await c.answer(), 'w-5');
    await c.send(head(valid, 'w-6') + valid);
    assertChallenge(await c.answer(), 'w-6');
  } finally {
    c.close();
  }
});

test('pipelined requests in one write: a valid, an invalid and a valid body, answered in order', async () => {
  const c = await Connection.open();
  try {
    await c.send(head(valid, 'p-1') + valid + head(invalid, 'p-2') + invalid + head(valid, 'p-3') + valid);
    assertChallenge(await c.answer(), 'p-1');
    assertInvalid(await c.answer(), 'p-2');
    assertChallenge(await c.answer(), 'p-3');
  } finally {
    c.close();
  }
});

test('a chunked body and an empty body: the challenge (the empty one is a discovery probe), the connection still usable', async () => {
  const c = await Connection.open();
  try {
    const chunked = `POST ${CONTRAST} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Request-Id: c-1\r\nTransfer-Encoding: chunked\r\n\r\n`;
    await c.send(chunked + `${Buffer.byteLength(valid).toString(16)}\r\n${valid}\r\n0\r\n\r\n`);
    assertChallenge(await c.answer(), 'c-1');
    await c.send(head('', 'c-2'));
    const empty = await c.answer();
    assert.equal(empty.status, 402, empty.body);
    assert.equal(empty.headers['x-request-id'], 'c-2');
    await c.send(head(valid, 'c-3') + valid);
    assertChallenge(await c.answer(), 'c-3');
  } finally {
    c.close();
  }
});

test('a body cut short (the client goes away after half of it, in pieces): nothing is answered for it, and the service goes on answering', async () => {
  const big = JSON.stringify({ ...BLACK_ON_WHITE, padding: 'x'.repeat(3_000) });
  for (const share of [0.1, 0.5, 0.99]) {
    const c = await Connection.open();
    const sent = Math.floor(Buffer.byteLength(big) * share);
    await c.send(head(big, `cut-${share}`) + big.slice(0, 1000), 30, big.slice(1000, sent), 30);
    c.close();
  }
  // The service is alive, and the same connection pattern with the whole body is answered for its own bytes.
  const c = await Connection.open();
  try {
    await c.send(head(big, 'whole') + big.slice(0, 1000), 30, big.slice(1000));
    const a = await c.answer();
    assert.equal(a.headers['x-request-id'], 'whole');
    assert.equal(a.status, 400, 'the padding member is not part of the contrast input: refused, so the whole body was read and checked');
    await c.send(head(valid, 'after') + valid);
    assertChallenge(await c.answer(), 'after');
  } finally {
    c.close();
  }
});

test('bodies declared large and sent slowly hold only what has arrived: 40 connections declaring the limit hold no buffer of that size', async () => {
  const cap = CATALOG.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
  const limit = cap.maxBodyBytes!;
  const before = process.memoryUsage().arrayBuffers;
  const conns = await Promise.all(Array.from({ length: 40 }, () => Connection.open()));
  try {
    for (const [i, c] of conns.entries()) await c.send(`POST ${cap.path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Request-Id: slow-${i}\r\nContent-Length: ${limit}\r\n\r\n{"html":"`);
    await new Promise((r) => setTimeout(r, 200));
    const held = process.memoryUsage().arrayBuffers - before;
    assert.ok(held < 8 * limit, `${held} bytes of buffers held for 40 bodies of which a few bytes arrived (each declared ${limit})`);
  } finally {
    for (const c of conns) c.close();
  }
});
