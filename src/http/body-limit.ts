/**
 * Request body limits. Bodies are counted as they stream in, so a chunked
 * upload without Content-Length cannot make the process buffer more than the
 * limit. A declared Content-Length within the limit is left to the route,
 * without touching the body stream (reading it through the middleware would
 * slow every call). Paid routes carry their capability's own limit (they run
 * bodyLimitCheck in their envelope); every other route shares one
 * (FREE_ROUTE_MAX_BODY_BYTES) unless it declares a smaller one (bodyLimit).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Socket } from 'node:net';
import { errorBody } from '../errors.js';
import { nodeOutgoing } from './node-response.js';
import { requestHeader } from './request-header.js';

/** Largest body accepted by a free route that declares no smaller limit of its own (FreeRoute.maxBodyBytes: MCP, A2A and the router quote do). */
export const FREE_ROUTE_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Once a body is known to pass its limit, at most this many more bytes (for
 * at most this long) are read and discarded, so the 413 leaves the keep-alive
 * connection usable; past either bound the 413 says `Connection: close`.
 */
export const OVERSIZE_DRAIN_MAX_BYTES = 8 * 1024 * 1024;
export const OVERSIZE_DRAIN_MAX_MS = 5_000;

/** How long a connection closed after a 413 keeps draining what the client still sends (see lingerOnClose). */
export const CLOSE_LINGER_MS = 2_000;

function tooLarge(c: Context, limit: number, close = false, unread?: ReadableStreamDefaultReader<Uint8Array>): Response {
  if (close) lingerOnClose(c, unread);
  return c.json(errorBody('payload_too_large', `The request body exceeds ${limit} bytes.`), 413, close ? { Connection: 'close' } : {});
}

/**
 * A "lingering close" for a 413 sent while the client is still uploading.
 * Node destroys a `Connection: close` socket once the answer is written; with
 * the client's bytes still unread, the kernel then sends a TCP reset, and a
 * reset makes the client's kernel discard the 413 it has not read yet (the
 * client sees EPIPE or ECONNRESET, never the answer). So the socket sends its
 * FIN after the 413, and what the client still sends is read and discarded
 * (from the body being read, or by Node for a body nobody read) until the
 * client closes its side, for at most CLOSE_LINGER_MS.
 */
function lingerOnClose(c: Context, unread: ReadableStreamDefaultReader<Uint8Array> | undefined): void {
  const socket = nodeOutgoing(c)?.socket;
  if (!socket) return;
  const until = Date.now() + CLOSE_LINGER_MS;
  if (unread) void discardUntil(unread, until);
  socket.destroySoon = function lingeringClose(this: Socket): void {
    const stop = setTimeout(() => this.destroy(), Math.max(0, until - Date.now()));
    stop.unref();
    this.once('close', () => clearTimeout(stop));
    this.once('end', () => this.destroy());
    this.end();
  };
}

async function discardUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: number): Promise<void> {
  try {
    for (;;) {
      const read = await readBefore(reader, until);
      if (read === 'timeout' || read.done) break;
    }
  } catch {
    // The connection went away: nothing left to drain.
  }
  reader.cancel().catch(() => {});
}

/**
 * Read a body, keeping at most `limit` bytes: a 413, or nothing once the body
 * is in memory (in place of the stream). Over the limit the rest is drained
 * before the 413: answering while the client was still sending left the
 * request unfinished, and the connection was then dropped without a word.
 */
async function countedBody(c: Context, limit: number): Promise<Response | void> {
  const stream = c.req.raw.body;
  if (!stream) return;
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let drainUntil = 0;
  for (;;) {
    const read = drainUntil === 0 ? await reader.read() : await readBefore(reader, drainUntil);
    if (read === 'timeout') return tooLarge(c, limit, true, reader);
    if (read.done) break;
    size += read.value.byteLength;
    if (size <= limit) {
      chunks.push(read.value);
      continue;
    }
    if (drainUntil === 0) {
      drainUntil = Date.now() + OVERSIZE_DRAIN_MAX_MS;
      chunks.length = 0;
    }
    if (size > limit + OVERSIZE_DRAIN_MAX_BYTES) return tooLarge(c, limit, true, reader);
  }
  if (size > limit) return tooLarge(c, limit);
  c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
}

async function readBefore(reader: ReadableStreamDefaultReader<Uint8Array>, deadline: number): Promise<ReadableStreamReadResult<Uint8Array> | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([reader.read(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a body may be left to the route: undefined when it may (a declared
 * Content-Length within the limit, or a GET/HEAD), else the 413, or the
 * counted read (a 413, or nothing once the body is in memory within the limit).
 */
export function bodyLimitCheck(c: Context, limit: number): Promise<Response | void> | undefined {
  const declared = c.req.header('content-length');
  if (declared !== undefined && requestHeader(c, 'transfer-encoding') === undefined) {
    const n = Number(declared);
    if (!(n > limit)) return undefined;
    // Known too large: drain it (keep-alive) when that is cheap, else answer at once and close.
    return n > limit + OVERSIZE_DRAIN_MAX_BYTES ? Promise.resolve(tooLarge(c, limit, true)) : countedBody(c, limit);
  }
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return undefined;
  return countedBody(c, limit);
}

/** The middleware of a route's body limit: its 413, or on to the route. */
export function bodyLimit(limit: number): MiddlewareHandler {
  return (c, next) => {
    const check = bodyLimitCheck(c, limit);
    return check ? check.then((early): Promise<Response | void> | Response => early || next()) : next();
  };
}
