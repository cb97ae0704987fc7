/**
 * Attack (or accident): a chunked upload larger than the body limit. The
 * service answers 413 and the keep-alive connection stays usable: the rest of
 * the body is read and discarded (up to a bound), so the client can send its
 * next request on the same socket. Past that bound the 413 says
 * `Connection: close` and the connection ends after it. Checked with a raw
 * socket, so nothing between the test and the server hides what happens.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { CONTRAST, startRig, type Rig } from './support/harness.js';
import { CATALOG } from '../src/capabilities/index.js';
import { messageBudget } from '../src/catalog/body-budget.js';

interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw HTTP/1.1 client on one socket: send bytes, read whole responses in order, see EOF. */
class RawConnection {
  private buf: Buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  ended = false;
  error: Error | undefined;
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d as Buffer]);
      this.wake();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', (e) => {
      this.error = e;
      this.wake();
    });
  }
  static async open(url: string): Promise<RawConnection> {
    const u = new URL(url);
    const socket = net.connect(Number(u.port), u.hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new RawConnection(socket);
  }
  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  private async until(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (this.ended || Date.now() > deadline) throw new Error(`${what}: ${this.ended ? 'connection ended' : 'timed out'} (${this.error?.message ?? 'no error'}); received ${JSON.stringify(this.buf.toString('latin1').slice(0, 300))}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
  /** True once a full response head has arrived (the client can stop sending). */
  get responseStarted(): boolean {
    return this.buf.includes('\r\n\r\n');
  }
  async readResponse(): Promise<Response> {
    await this.until(() => this.buf.includes('\r\n\r\n'), 'response head');
    const headEnd = this.buf.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = this.buf.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    assert.ok(headers['content-length'] !== undefined, `expected a Content-Length response: ${statusLine}`);
    const length = Number(headers['content-length']);
    const total = headEnd + 4 + length;
    await this.until(() => this.buf.length >= total, 'response body');
    const body = this.buf.subarray(headEnd + 4, total).toString('utf8');
    this.buf = this.buf.subarray(total);
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  }
  async waitForEnd(ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(this.ended, 'the connection was not closed after Connection: close');
  }
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed || !this.socket.writable) return resolve();
      this.socket.write(data, () => resolve());
    });
  }
  /** A chunked POST of `size` bytes of JSON-ish filler; stops early when told to (a client that saw the answer). */
  async postChunked(path: string, size: number, stopEarly = false): Promise<void> {
    await this.write(`POST ${path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent < size; sent += chunk.length) {
      if (this.socket.destroyed || (stopEarly && this.responseStarted)) return;
      const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
      await this.write(Buffer.concat([Buffer.from(part.length.toString(16) + '\r\n'), part, Buffer.from('\r\n')]));
    }
    await this.write('0\r\n\r\n');
  }
  async postDeclared(path: string, size: number, stopEarly = false): Promise<void> {
    await this.write(`POST ${path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent < size; sent += chunk.length) {
      if (this.socket.destroyed || (stopEarly && this.responseStarted)) return;
      await this.write(chunk.subarray(0, Math.min(chunk.length, size - sent)));
    }
  }
  close() {
    this.socket.destroy();
  }
}

describe('413 on an oversized upload keeps the keep-alive connection usable', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  /** The 413, then either Connection: close and EOF, or a second request answered on the same socket. */
  async function check(conn: RawConnection, send: Promise<void>, limit: number) {
    const res = await conn.readResponse();
    await send;
    assert.equal(res.status, 413);
    const body = JSON.parse(res.body);
    assert.equal(body.error.code, 'payload_too_large');
    assert.match(body.error.message, new RegExp(`exceeds ${limit} bytes`));
    if ((res.headers.connection ?? '').toLowerCase() === 'close') {
      await conn.waitForEnd();
      return 'closed';
    }
    await conn.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n');
    const next = await conn.readResponse();
    assert.equal(next.status, 200);
    assert.deepEqual(JSON.parse(next.body), { status: 'ok' });
    return 'reused';
  }

  // MCP, A2A and the router quote take their largest legitimate message (the largest catalog body plus an envelope).
  const message = messageBudget(CATALOG).bytes;
  const cases: Array<[string, string, number, number]> = [
    ['paid route (4 KiB limit)', CONTRAST, 4096, 256 * 1024],
    ['free route (router quote: its own limit)', '/v1/router/quote', message, 5 * 1024 * 1024],
    ['MCP (free, its own limit)', '/mcp', message, message + 1],
    ['A2A (free, its own limit)', '/a2a', message, 4 * 1024 * 1024],
  ];
  for (const [name, path, limit, size] of cases) {
    test(`chunked, ${name}: 413, then the next request on the same socket`, async () => {
      const conn = await RawConnection.open(rig.service.url);
      try {
        assert.equal(await check(conn, conn.postChunked(path, size), limit), 'reused');
        // And again: the connection is as good as new.
        assert.equal(await check(conn, conn.postChunked(path, size), limit), 'reused');
      } finally {
        conn.close();
      }
    });
    test(`declared Content-Length, ${name}: 413, then the next request on the same socket`, async () => {
      const conn = await RawConnection.open(rig.service.url);
      try {
        assert.equal(await check(conn, conn.postDeclared(path, size), limit), 'reused');
      } finally {
        conn.close();
      }
    });
  }

  for (const how of ['chunked', 'declared Content-Length'] as const) {
    test(`${how}, far past the limit, a client that reads only after its upload: it still gets the 413 (no TCP reset drops it)`, async () => {
      const conn = await RawConnection.open(rig.service.url);
      try {
        // The answer waits unread in this client's socket while it uploads. A server that closes with the
        // upload still arriving sends a reset, and the reset discards that unread answer.
        conn.socket.pause();
        const size = 24 * 1024 * 1024;
        await (how === 'chunked' ? conn.postChunked(CONTRAST, size) : conn.postDeclared(CONTRAST, size));
        conn.socket.resume();
        const res = await conn.readResponse();
        assert.equal(res.status, 413);
        assert.equal(res.headers.connection?.toLowerCase(), 'close');
        await conn.waitForEnd();
      } finally {
        conn.close();
      }
    });

    test(`${how}, far past the limit: 413 with Connection: close, and the connection ends after it`, async () => {
      const conn = await RawConnection.open(rig.service.url);
      try {
        // A client that stops sending once it sees the answer (what HTTP clients do on an early response).
        const size = 64 * 1024 * 1024;
        const send = how === 'chunked' ? conn.postChunked(CONTRAST, size, true) : conn.postDeclared(CONTRAST, size, true);
        assert.equal(await check(conn, send, 4096), 'closed');
      } finally {
        conn.close();
      }
    });
  }
});
