/**
 * Builds the HTTP app from the catalog and the surfaces. Free routes and
 * discovery documents are added here as they arrive; paid routes all go
 * through the same gate.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Capability } from './catalog/capability.js';
import { errorBody } from './errors.js';
import { DEFAULT_MAX_BODY_BYTES } from './catalog/input-reader.js';
import { paidRoute } from './http/paid-route.js';
import type { CommitmentSigner } from './commitments/signer.js';
import type { PaymentGate } from './payments/gate.js';
import type { PaymentRail } from './payments/rail.js';
import type { Ledger } from './store/ledger.js';
import { registerFreeRoutes } from './http/free-routes.js';
import { operationsRoutes } from './http/operations-routes.js';

/** Largest body accepted by free routes (router quote, MCP, admin import). */
export const FREE_ROUTE_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Once a body is known to pass its limit, at most this many more bytes (for
 * at most this long) are read and discarded, so the 413 leaves the keep-alive
 * connection usable; past either bound the 413 says `Connection: close`.
 */
export const OVERSIZE_DRAIN_MAX_BYTES = 8 * 1024 * 1024;
export const OVERSIZE_DRAIN_MAX_MS = 5_000;

function tooLarge(c: Context, limit: number, close = false): Response {
  return c.json(errorBody('payload_too_large', `The request body exceeds ${limit} bytes.`), 413, close ? { Connection: 'close' } : {});
}

/**
 * Read a body, keeping at most `limit` bytes. Over the limit the rest is
 * drained before the 413: answering while the client was still sending left
 * the request unfinished, and the connection was then dropped without a word.
 */
async function countedBody(c: Context, next: () => Promise<void>, limit: number): Promise<Response | void> {
  const stream = c.req.raw.body;
  if (!stream) return next();
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let drainUntil = 0;
  for (;;) {
    const read = drainUntil === 0 ? await reader.read() : await readBefore(reader, drainUntil);
    if (read === 'timeout') return tooLarge(c, limit, true);
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
    if (size > limit + OVERSIZE_DRAIN_MAX_BYTES) return tooLarge(c, limit, true);
  }
  if (size > limit) return tooLarge(c, limit);
  c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
  return next();
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

/** The Node response under @hono/node-server (its `outgoing` binding), when it has not started sending. */
function nodeOutgoing(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse && !outgoing.headersSent ? outgoing : undefined;
}

export interface AppDeps {
  catalog: readonly Capability[];
  gate: PaymentGate;
  rail: PaymentRail;
  ledger: Ledger;
  publicBaseUrl: string | undefined;
  /** Signs every paid delivery's receipt (src/commitments); none without a key. */
  signer?: CommitmentSigner;
  log?: Logger;
  /** Route registrations of service modules, run after the built-in routes. */
  modules?: Array<(app: Hono) => void>;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  if (deps.log) {
    const log = deps.log;
    app.use('*', async (c, next) => {
      const id = c.req.header('x-request-id')?.slice(0, 64) || randomUUID();
      const start = performance.now();
      // On Node, the header goes on the outgoing message before the route
      // runs (Node merges it with the route's own headers); touching
      // `c.res.headers` afterwards would turn a route's plain header record
      // into a Headers object on every request.
      const outgoing = nodeOutgoing(c);
      outgoing?.setHeader('X-Request-Id', id);
      await next();
      if (!outgoing) c.res.headers.set('X-Request-Id', id);
      // One line per request. No payment header, body or buyer data is logged.
      if (log.isLevelEnabled('info')) {
        log.info(
          { reqId: id, method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round((performance.now() - start) * 100) / 100, paid: c.req.header('payment-signature') !== undefined },
          'request',
        );
      }
    });
  }

  // Bodies are counted as they stream in, so a chunked upload without
  // Content-Length cannot make the process buffer more than the limit. A
  // declared Content-Length within the limit is left to the route, without
  // touching the body stream (reading it through the middleware would slow
  // every call). Paid routes carry their capability's own limit; every other
  // route shares one.
  const streamingLimit = (limit: number): MiddlewareHandler => {
    return (c, next) => {
      const declared = c.req.header('content-length');
      if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
        const n = Number(declared);
        if (!(n > limit)) return next();
        // Known too large: drain it (keep-alive) when that is cheap, else answer at once and close.
        return n > limit + OVERSIZE_DRAIN_MAX_BYTES ? Promise.resolve(tooLarge(c, limit, true)) : countedBody(c, next, limit);
      }
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
      return countedBody(c, next, limit);
    };
  };
  const paidPaths = new Set(deps.catalog.map((c) => c.path));
  const freeRouteLimit = streamingLimit(FREE_ROUTE_MAX_BODY_BYTES);
  app.use('*', (c, next) => (paidPaths.has(c.req.path) ? next() : freeRouteLimit(c, next)));

  registerFreeRoutes(app, operationsRoutes({ ledger: deps.ledger, rail: deps.rail }));

  for (const cap of deps.catalog) {
    const handler = paidRoute(cap, { gate: deps.gate, publicBaseUrl: deps.publicBaseUrl, signer: deps.signer });
    const limit = cap.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    app.on(cap.method, cap.path, streamingLimit(limit), handler);
  }

  for (const register of deps.modules ?? []) register(app);

  // After module routes, so a free GET on a paid POST path (changes-since) is not shadowed.
  for (const cap of deps.catalog) {
    app.all(cap.path, (c) => c.json(errorBody('method_not_allowed', `Use ${cap.method} ${cap.path}.`), 405, { Allow: cap.method }));
  }

  app.notFound((c) => c.json(errorBody('not_found', `No resource at ${c.req.method} ${c.req.path}.`), 404));
  app.onError((err, c) => {
    deps.log?.error({ err: err.message, path: c.req.path }, 'unhandled error: failing closed');
    return c.json(errorBody('service_unavailable', 'The service failed while handling this request; nothing was delivered or settled.'), 503);
  });
  return app;
}
