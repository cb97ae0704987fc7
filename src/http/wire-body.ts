/**
 * A response body as it goes on the wire. A large one (a 2 MiB page's
 * evidence is several MiB of JSON) is written in pieces of PIECE_CHARS, each
 * encoded when the socket wants it: one `res.end(body)` encodes all of it
 * and pushes it through the socket in a single synchronous call, holding the
 * event loop for as long. Pieces, one per event-loop turn, let /healthz, 402s
 * and other deliveries be answered in between. A result made on the worker
 * pool arrives encoded there, so this thread does not encode it again: its
 * pieces are slices of those bytes. Same bytes either way. Why and what it
 * measured: docs/decisions/0013.
 */

/** Bodies up to this many UTF-16 code units are written whole: one write, nothing to schedule. */
export const PIECE_CHARS = 64 * 1024;

/** Bytes per piece when the body comes already encoded. */
const PIECE_BYTES = 64 * 1024;

/**
 * A response's body as one string or one buffer, or as pieces: its
 * `bodyBytes` when the worker pool made them (then nothing is encoded here,
 * and its text is not even made), else its `body` text.
 */
export function wireBody(r: { readonly body: string; readonly bodyBytes?: Uint8Array }): string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  const bytes = r.bodyBytes;
  let at = 0;
  if (bytes) {
    // A Response body may not be a view of shared memory (where the pool puts its results): a small one is copied.
    if (bytes.byteLength <= PIECE_BYTES) return bytes.buffer instanceof SharedArrayBuffer ? new Uint8Array(bytes) : (bytes as Uint8Array<ArrayBuffer>);
    return inPieces(() => {
      const end = Math.min(at + PIECE_BYTES, bytes.byteLength);
      const piece = bytes.subarray(at, end);
      at = end;
      return { piece, last: at >= bytes.byteLength };
    });
  }
  const body = r.body;
  if (body.length <= PIECE_CHARS) return body;
  return inPieces(() => {
    let end = Math.min(at + PIECE_CHARS, body.length);
    // Never split a surrogate pair: its halves would each be encoded as U+FFFD.
    const last = body.charCodeAt(end - 1);
    if (end < body.length && last >= 0xd800 && last <= 0xdbff) end--;
    const piece = Buffer.from(body.slice(at, end), 'utf8');
    at = end;
    return { piece, last: at >= body.length };
  });
}

/**
 * A stream of the pieces `next` cuts, one per event-loop turn: on loopback
 * (and any fast socket) each write completes at once and asks for the next
 * piece in the same turn, so without the yield the pieces would again go out
 * in one synchronous stretch.
 */
function inPieces(next: () => { piece: Uint8Array; last: boolean }): ReadableStream<Uint8Array> {
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!first) await new Promise<void>((resolve) => setImmediate(resolve));
      first = false;
      const { piece, last } = next();
      controller.enqueue(piece);
      if (last) controller.close();
    },
  });
}
