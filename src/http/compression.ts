/**
 * Large documents (OpenAPI, newswire lists) are compressed for clients that
 * accept gzip. Only GET answers of at least COMPRESS_MIN_BYTES: gzip through
 * CompressionStream costs several times what sending a small answer plain
 * costs, whatever its size (docs/decisions/0047), so the POST answers
 * (402 challenges, results: small) and small documents go uncompressed. An
 * answer that already carries its route's strong ETag (the intelligence API
 * and pages) is left as validated.
 */
import type { MiddlewareHandler } from 'hono';
import { compress, COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/compress';

/** Smaller GET answers are sent uncompressed. */
export const COMPRESS_MIN_BYTES = 2048;

export function gzipLargeGets(): MiddlewareHandler {
  const gzip = compress({ encoding: 'gzip', threshold: COMPRESS_MIN_BYTES });
  const afterRoute = async () => {};
  return async (c, next) => {
    if (c.req.method !== 'GET' || !/\bgzip\b/i.test(c.req.header('accept-encoding') ?? '')) return next();
    await next();
    const res = c.res;
    if (!res.body || res.headers.has('etag') || !COMPRESSIBLE_CONTENT_TYPE_REGEX.test(res.headers.get('content-type') ?? '')) return;
    // The threshold needs a Content-Length; our JSON and HTML answers are built in memory, so
    // measuring them costs a copy (never a stream: event streams are not a compressible type).
    if (!res.headers.has('content-length')) {
      const bytes = await res.arrayBuffer();
      c.res = new Response(bytes, res);
      c.res.headers.set('Content-Length', String(bytes.byteLength));
    }
    // Hono's compress transforms the answer already in c.res (the route has run).
    await gzip(c, afterRoute);
  };
}
