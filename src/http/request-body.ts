/**
 * The paid route's request body, read the cheapest way Node allows. This is
 * the one place a route reaches past Hono into @hono/node-server's Node
 * message (its `incoming` binding), and why: a paid call's body is read once
 * per request, and the Request body machinery (a promise chain, listeners on
 * the message, a copy into a fresh ArrayBuffer) costs more than the rest of
 * an unpaid 402 (docs/decisions/0023); a large body read straight into shared
 * memory crosses to the worker pool without a copy (docs/decisions/0034).
 * Anything else (app.request, a chunked body, a body something has started
 * reading) is read the ordinary way, with the same verdict.
 */
import type { Context } from 'hono';
import { IncomingMessage } from 'node:http';
import { readBodyBytes, type BodyResult } from '../catalog/json-input.js';

const EMPTY_BODY = new Uint8Array(0);

/** Under @hono/node-server, the Node message of a body with a plain Content-Length no larger than `limit` (not chunked), and that length. */
function declaredBody(c: Context, limit: number): { incoming: IncomingMessage; length: number } | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof IncomingMessage)) return undefined;
  const declared = incoming.headers['content-length'];
  if (declared === undefined || incoming.headers['transfer-encoding'] !== undefined || !/^[0-9]{1,9}$/.test(declared)) return undefined;
  const length = Number(declared);
  return length > limit ? undefined : { incoming, length };
}

/** Nothing has started reading the message (a body counted by the body limit, a stream someone opened). */
function untouched(incoming: IncomingMessage): boolean {
  return !incoming.readableDidRead && incoming.readableFlowing === null && incoming.readableEncoding === null && !incoming.readableObjectMode;
}

/**
 * The body as Node already holds it, under @hono/node-server (its `incoming`
 * binding). A small body arrives in the same read as the request's head, and
 * Node parses all of that read before anything awaited runs: after one await
 * the whole body (its declared Content-Length; Node's parser never passes
 * more to a message) sits in the message's buffer. Taken from there it skips
 * the Request body machinery (a promise chain, listeners on the message, a
 * copy into a fresh ArrayBuffer; docs/decisions/0023). Undefined when the body is chunked, not all
 * there yet, or anything has started reading it (a body counted by the body
 * limit, a stream someone opened): the route then reads it the usual way.
 */
async function receivedBody(c: Context, limit: number): Promise<BodyResult<Uint8Array> | undefined> {
  const message = declaredBody(c, limit);
  if (!message) return undefined;
  const { incoming, length } = message;
  await undefined;
  if (incoming.readableLength !== length || !untouched(incoming)) return undefined;
  // All of the buffer (not flowing, no encoding: read() returns every buffered byte, here the whole body).
  const chunk: unknown = length === 0 ? EMPTY_BODY : incoming.read();
  // Flowing from here on, the message ends by itself (no read left to make), as a body read to its end does.
  incoming.resume();
  return chunk instanceof Uint8Array ? { ok: true, value: chunk } : undefined;
}

/**
 * The body read from the Node message as it arrives (under @hono/node-server,
 * with a declared Content-Length no larger than `limit`, not chunked, and
 * nothing reading the message yet), into one buffer of exactly that length
 * in shared memory, once it has all arrived. A large body that the executor
 * reads on a worker then crosses to it without a copy (docs/decisions/0034). Undefined when those conditions do
 * not hold: the route reads it the usual way. A message that ends short (the
 * client went away) is an error, as the Request body's read is.
 */
async function streamedBody(c: Context, limit: number): Promise<BodyResult<Uint8Array> | undefined> {
  const message = declaredBody(c, limit);
  if (!message || !untouched(message.incoming)) return undefined;
  const { incoming, length } = message;
  // Kept as they arrive and joined once complete: memory grows with what the client has sent, not with what it declared.
  const chunks: Buffer[] = [];
  let at = 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => {
      incoming.off('data', onData);
      chunks.length = 0;
      incoming.resume();
      reject(e);
    };
    const onData = (chunk: Buffer) => {
      // Node's parser never passes a message more than its Content-Length; were it to, the read fails rather than overflow.
      if (at + chunk.byteLength > length) return fail(new Error(`the request body is longer than its Content-Length (${length})`));
      chunks.push(chunk);
      at += chunk.byteLength;
    };
    incoming.on('data', onData);
    incoming.once('end', () => (at === length ? resolve() : fail(new Error(`the request body ended after ${at} of ${length} bytes`))));
    incoming.once('error', fail);
    incoming.once('close', () => {
      if (!incoming.readableEnded) fail(new Error(`the request was closed after ${at} of ${length} body bytes`));
    });
  });
  const bytes = new Uint8Array(new SharedArrayBuffer(length));
  at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, value: bytes };
}

/** The body, at most `limit` bytes (a longer one is the reader's 413): as Node holds it, as it streams in, or through the Request. */
export async function readRequestBody(c: Context, limit: number): Promise<BodyResult<Uint8Array>> {
  return (await receivedBody(c, limit)) ?? (await streamedBody(c, limit)) ?? (await readBodyBytes(c.req, limit));
}
