/**
 * Builds the HTTP app from the catalog and the surfaces. Free routes and
 * discovery documents are added here as they arrive; paid routes all go
 * through the same gate.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { compress, COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/compress';
import { cors } from 'hono/cors';
import { etag } from 'hono/etag';
import { routePath } from 'hono/route';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Capability } from './catalog/capability.js';
import { errorBody } from './errors.js';
import { DEFAULT_MAX_BODY_BYTES } from './catalog/input-reader.js';
import { paidRoute, type AnswerHeaders } from './http/paid-route.js';
import { timing } from 'hono/timing';
import type { CommitmentSigner } from './commitments/signer.js';
import type { PaymentGate } from './payments/gate.js';
import type { PaidFlow } from './payments/paid-flow.js';
import type { PaymentRail } from './payments/rail.js';
import type { Ledger } from './store/ledger.js';
import { registerFreeRoutes } from './http/free-routes.js';
import type { FreeRoute } from './module.js';
import { operationsRoutes } from './http/operations-routes.js';
import { clientKey, forwardedOrigin } from './http/forwarded.js';
import { claimOrigin, OwnOrigins } from './http/own-origin.js';
import { NO_SNIFF, NO_SNIFF_HEADER } from './http/security-headers.js';
import { requestHeader } from './http/request-header.js';
import { rateLimit, type RateLimitStore } from './http/rate-limit.js';
import type { OperationsConfig } from './config.js';
import { metrics, secondsSince } from './observability/metrics.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's id (X-Request-Id), set by the envelope of every route (see requestIdOf). */
    requestId: string;
  }
}

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
  /** The one paid flow the paid routes hand their calls to (its receipts signed by `signer`). */
  flow: PaidFlow;
  rail: PaymentRail;
  ledger: Ledger;
  publicBaseUrl: string | undefined;
  /**
   * The origin each request is named under (src/http/own-origin.ts): the
   * service adds its listening address once it listens. Default: from
   * publicBaseUrl and the operations settings, for in-process requests only.
   */
  origins?: OwnOrigins;
  /** Signs every paid delivery's receipt (src/commitments); none without a key. */
  signer?: CommitmentSigner;
  log?: Logger;
  /** Route registrations of service modules, run after the built-in routes; each returns the free routes it registered. */
  modules?: Array<(app: Hono) => readonly FreeRoute[]>;
  /** CORS, proxy trust, rate limit and metrics settings; defaults: CORS for any origin, no proxy trusted, no limit. */
  operations?: Partial<OperationsConfig>;
  /** Where the free-route rate limit counts (memory or Redis); required for a limit to apply. */
  rateLimitStore?: RateLimitStore;
  /** Set by the service when shutdown begins (readiness turns 503, connections close after their response). */
  lifecycle?: { readonly draining: boolean };
}

/** Discovery documents: fetched often, change only with a deploy, so they carry an ETag and answer 304. */
export const DISCOVERY_DOCUMENT_PATHS = ['/openapi.json', '/.well-known/*', '/llms.txt', '/v1/services'] as const;

/** Smaller GET answers are sent uncompressed (see the compress middleware). */
export const COMPRESS_MIN_BYTES = 2048;

/** Never rate limited: the probes and the scraper must see an overloaded instance as it is. */
const OPERATIONS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Header names of x402 v2 and MPP (transport: HTTP) a browser agent must be able to send and read across origins. */
const CORS_ALLOW_HEADERS = ['Content-Type', 'PAYMENT-SIGNATURE', 'SIGN-IN-WITH-X', 'X-Signed-Offer', 'X-Request-Id', 'Authorization'];
const CORS_EXPOSE_HEADERS = ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'WWW-Authenticate', 'Payment-Receipt', 'X-Request-Id', 'Retry-After', 'ETag'];

/** Whether the request has an Authorization header (MPP's credential), read from Node's parsed headers when served by node-server. */
function hasAuthorization(c: Context): boolean {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming.headers.authorization !== undefined : c.req.header('authorization') !== undefined;
}

/** The route pattern that answered, for metric labels (bounded: never the raw path). */
function routeLabel(c: Context): string {
  const path = routePath(c);
  return path === '*' || path === '' || path === '/*' ? 'unmatched' : path;
}

// Bodies are counted as they stream in, so a chunked upload without
// Content-Length cannot make the process buffer more than the limit. A
// declared Content-Length within the limit is left to the route, without
// touching the body stream (reading it through the middleware would slow
// every call). Paid routes carry their capability's own limit; every other
// route shares one.
/**
 * Whether a body may be left to the route: undefined when it may (a declared
 * Content-Length within the limit, or a GET/HEAD), else the 413, or the
 * counted read (a 413, or nothing once the body is in memory within the limit).
 */
function bodyLimitCheck(c: Context, limit: number): Promise<Response | void> | undefined {
  const declared = c.req.header('content-length');
  if (declared !== undefined && requestHeader(c, 'transfer-encoding') === undefined) {
    const n = Number(declared);
    if (!(n > limit)) return undefined;
    // Known too large: drain it (keep-alive) when that is cheap, else answer at once and close.
    return n > limit + OVERSIZE_DRAIN_MAX_BYTES ? Promise.resolve(tooLarge(c, limit, true)) : countedBody(c, noNext, limit);
  }
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return undefined;
  return countedBody(c, noNext, limit);
}

const noNext = async (): Promise<void> => {};

function streamingLimit(limit: number): MiddlewareHandler {
  return (c, next) => {
    const check = bodyLimitCheck(c, limit);
    return check ? check.then((early): Promise<Response | void> | Response => early || next()) : next();
  };
}

interface PaidRouteEnvelope {
  /** Metrics, draining and the log line of an answered request. */
  answered(c: Context, id: string, route: string, status: number, start: number): void;
  /** The 503 of an unhandled error (app.onError's). */
  failClosed(err: unknown, c: Context): Response;
  corsAllowOrigin: '*' | string[];
  origins: OwnOrigins;
}

const CORS_EXPOSED = CORS_EXPOSE_HEADERS.join(',');

/** The Access-Control-Allow-Origin of an actual request: `*`, the request's allowed Origin, or none. */
function allowedOrigin(c: Context, origins: '*' | string[]): string | undefined {
  if (origins === '*') return '*';
  const requested = requestHeader(c, 'origin');
  return requested !== undefined && origins.includes(requested) ? requested : undefined;
}

/** The headers every answer carries (request id, nosniff, CORS of an actual request), the one list of them, written through `put`. */
function putAnswerHeaders(put: (name: string, value: string) => void, id: string, origin: string | undefined, vary: boolean): void {
  put('X-Request-Id', id);
  put(NO_SNIFF_HEADER, NO_SNIFF);
  if (origin !== undefined) put('Access-Control-Allow-Origin', origin);
  if (vary) put('Vary', 'Origin');
  put('Access-Control-Expose-Headers', CORS_EXPOSED);
}

function answerHeadersOnNode(outgoing: ServerResponse, id: string, origin: string | undefined, origins: '*' | string[]): void {
  putAnswerHeaders((name, value) => outgoing.setHeader(name, value), id, origin, origins !== '*');
}

function answerHeadersOnResponse(h: Headers, id: string, origin: string | undefined, origins: '*' | string[]): void {
  // Vary is appended: the route's own Vary (if any) stays.
  putAnswerHeaders((name, value) => (name === 'Vary' ? h.append(name, value) : h.set(name, value)), id, origin, origins !== '*');
}

/** The answer headers of one paid call, for the route to put on the Response it builds (see AnswerHeaders). */
class PaidAnswerHeaders implements AnswerHeaders {
  added = false;
  constructor(
    private readonly id: string,
    private readonly origin: string | undefined,
    private readonly vary: boolean,
  ) {}

  addTo(headers: Record<string, string>): void {
    putAnswerHeaders((name, value) => (headers[name] = value), this.id, this.origin, this.vary);
    this.added = true;
  }
}

/**
 * The headers every answer carries whatever its route returns: X-Request-Id
 * and, for an actual (not preflight) request, CORS's Access-Control-Allow-Origin
 * and Expose-Headers — the same ones Hono's cors middleware sets. Under
 * @hono/node-server they go straight onto the Node response, which merges them
 * with the route's own when it writes the head. Hono's cors writes through
 * `c.res` before the route runs, which makes Hono copy the route's Response
 * into a fresh one (materialising its body stream); docs/decisions/0022 has
 * the measurement. Outside node-server (app.request) they are set on the Response.
 */
async function withAnswerHeaders(c: Context, id: string, origins: '*' | string[], run: () => Promise<void>): Promise<void> {
  const origin = allowedOrigin(c, origins);
  const outgoing = nodeOutgoing(c);
  if (outgoing) answerHeadersOnNode(outgoing, id, origin, origins);
  await run();
  if (!outgoing) answerHeadersOnResponse(c.res.headers, id, origin, origins);
}

/**
 * Paid routes are registered before the middleware of every other route, so
 * a paid call (the 402 path above all) runs none of what does not apply to it
 * (rate limit, ETag, gzip, the free-route body limit) and gets what does —
 * request id, metrics and log line, CORS, the forwarded origin, its body
 * limit — from one handler, not a chain of middleware: each link of Hono's
 * chain is an async step of its own. The answer headers are put by the route
 * on the challenge it builds (see AnswerHeaders), else on the Node response
 * once the route has answered (see withAnswerHeaders): Hono's cors and
 * requestId write through `c.res`/`c.header`, which makes Hono copy every 402
 * into a fresh Response (materialising the body stream), and requestId alone
 * loses its header on a Response the route builds (docs/decisions/0022). CORS preflights
 * (OPTIONS) and other methods on these paths still go through the shared
 * middleware below.
 */
function registerPaidRoutes(app: Hono, deps: AppDeps, env: PaidRouteEnvelope): void {
  const origins = env.corsAllowOrigin;
  const forwarded = deps.operations?.trustProxy ? forwardedOrigin() : undefined;
  const serverTiming = timing({ total: false, autoEnd: false, enabled: (c) => (c.get('metric')?.headers.length ?? 0) > 0 });
  for (const cap of deps.catalog) {
    const handler = paidRoute(cap, { flow: deps.flow, trustProxy: deps.operations?.trustProxy ?? false });
    const limit = cap.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const serve = (c: Context, answer: AnswerHeaders): Promise<Response> => {
      // Once a trusted proxy's host is in the URL: the origin the answer names (never a host not ours).
      claimOrigin(c, env.origins);
      const check = bodyLimitCheck(c, limit);
      return check ? check.then((early) => early || handler(c, answer)) : handler(c, answer);
    };
    // Behind a trusted proxy: the forwarded origin first.
    const serveForwarded = async (c: Context, answer: AnswerHeaders): Promise<Response> => {
      await forwarded!(c, noNext);
      return serve(c, answer);
    };
    // A paid attempt (PAYMENT-SIGNATURE, or MPP's Authorization) reports where its time went as Server-Timing, through Hono's
    // timing middleware, when it is delivered (ledger, verify, handler, settle, chain); no other answer
    // carries one, and the unpaid 402 does not run the middleware at all.
    const serveTimed = async (c: Context, answer: AnswerHeaders): Promise<Response> => {
      await serverTiming(c, async () => {
        c.res = await (forwarded ? serveForwarded(c, answer) : serve(c, answer));
      });
      return c.res;
    };
    app.on(cap.method, cap.path, async (c) => {
      const id = requestIdOf(c);
      c.set('requestId', id);
      const origin = allowedOrigin(c, origins);
      const answer = new PaidAnswerHeaders(id, origin, origins !== '*');
      const start = performance.now();
      let res: Response;
      try {
        // A paid attempt over either protocol (x402's PAYMENT-SIGNATURE, MPP's Authorization) is timed.
        const paying = requestHeader(c, 'payment-signature') !== undefined || hasAuthorization(c);
        const run = paying ? serveTimed : forwarded ? serveForwarded : serve;
        res = await run(c, answer);
      } catch (e) {
        res = env.failClosed(e, c);
      }
      env.answered(c, id, cap.path, res.status, start);
      if (!answer.added) {
        const outgoing = nodeOutgoing(c);
        if (outgoing) answerHeadersOnNode(outgoing, id, origin, origins);
        else answerHeadersOnResponse(res.headers, id, origin, origins);
      }
      return res;
    });
  }
}

/** A caller's X-Request-Id is kept when it is at most this long (and word characters, `-`, `=`), else one is made. */
const REQUEST_ID_MAX_CHARS = 64;

/** The request id of a call: the caller's X-Request-Id when it is short and plain (the rule of Hono's requestId middleware), else a new one. */
function requestIdOf(c: Context): string {
  const given = requestHeader(c, 'x-request-id');
  return given && given.length <= REQUEST_ID_MAX_CHARS && !/[^\w\-=]/.test(given) ? given : crypto.randomUUID();
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  const ops = deps.operations ?? {};
  const log = deps.log;

  const failClosed = (err: unknown, c: Context): Response => {
    // Hono hands only Errors to its error handler; anything else thrown goes on up, as it does there.
    if (!(err instanceof Error)) throw err;
    deps.log?.error({ reqId: c.get('requestId'), err: err.message, path: c.req.path }, 'unhandled error: failing closed');
    return c.json(errorBody('service_unavailable', 'The service failed while handling this request; nothing was delivered or settled.'), 503);
  };

  /** Metrics, draining and the request's log line, once its answer is known: one for every route. */
  const answered = (c: Context, id: string, route: string, status: number, start: number) => {
    metrics.http.record(c.req.method, route, status, secondsSince(start));
    if (deps.lifecycle?.draining) {
      // Shutting down: this connection is not reused; the client reconnects to an instance that stays.
      nodeOutgoing(c)?.setHeader('Connection', 'close');
    }
    // One line per request. No payment header, body or buyer data is logged.
    if (log?.isLevelEnabled('info')) {
      log.info(
        { reqId: id, method: c.req.method, path: c.req.path, status, ms: Math.round((performance.now() - start) * 100) / 100, paid: c.req.header('payment-signature') !== undefined },
        'request',
      );
    }
  };
  const corsAllowOrigin = ops.corsOrigins === undefined || ops.corsOrigins === '*' ? '*' : [...ops.corsOrigins];
  const origins = deps.origins ?? new OwnOrigins({ publicBaseUrl: deps.publicBaseUrl, allowedHosts: [], trustProxy: ops.trustProxy ?? false });
  registerPaidRoutes(app, deps, { answered, failClosed, corsAllowOrigin, origins });

  // CORS: a preflight is answered by Hono's cors middleware; every other answer gets its headers
  // with the request id, through withAnswerHeaders (see there why not through cors itself).
  const preflight = cors({
    origin: corsAllowOrigin,
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
  });
  // Behind a trusted proxy the request URL (and so every origin the service derives) is the proxy's public one.
  const forwarded = ops.trustProxy ? forwardedOrigin() : undefined;

  // Every other route, in one envelope as the paid routes have theirs (each link of Hono's chain is an
  // async step of its own; docs/decisions/0037): the request id (a caller's X-Request-Id, word characters,
  // at most 64, is kept, else one is made; echoed on the answer), the forwarded origin, the answer headers
  // or the preflight, then metrics, draining and the log line.
  app.use('*', async (c, next) => {
    const id = requestIdOf(c);
    c.set('requestId', id);
    const start = performance.now();
    try {
      if (forwarded) await forwarded(c, noNext);
      claimOrigin(c, origins);
      if (c.req.method === 'OPTIONS') {
        c.header('X-Request-Id', id);
        c.header(NO_SNIFF_HEADER, NO_SNIFF);
        const answer = await preflight(c, next);
        if (answer) c.res = answer;
      } else await withAnswerHeaders(c, id, corsAllowOrigin, next);
    } catch (e) {
      c.res = failClosed(e, c);
    }
    answered(c, id, routeLabel(c), c.res.status, start);
  });

  const paidKeys = new Set(deps.catalog.map((c) => `${c.method} ${c.path}`));
  if (deps.rateLimitStore && ops.rateLimitPerMinute) {
    const trustProxy = ops.trustProxy ?? false;
    app.use(
      '*',
      rateLimit({
        perMinute: ops.rateLimitPerMinute,
        store: deps.rateLimitStore,
        clientOf: (c) => clientKey(c, trustProxy),
        exempt: (c) => c.req.method === 'OPTIONS' || OPERATIONS_PATHS.has(c.req.path) || paidKeys.has(`${c.req.method} ${c.req.path}`),
        log,
      }),
    );
  }

  // Discovery documents get their ETag from the bytes actually sent (outside the compression), so
  // the gzip and the plain representation each have their own strong validator.
  for (const path of DISCOVERY_DOCUMENT_PATHS) app.use(path, etag());
  // Large documents (OpenAPI, newswire lists) are compressed for clients that accept gzip. Only GET
  // answers of at least COMPRESS_MIN_BYTES: gzip through CompressionStream costs about 250 µs of CPU
  // per response even for 1.7 KB (measured), five times the cost of sending it plain, so the POST
  // answers (402 challenges, results: small) and small documents go uncompressed. An answer that
  // already carries its route's strong ETag (the intelligence API and pages) is left as validated.
  const gzip = compress({ encoding: 'gzip', threshold: COMPRESS_MIN_BYTES });
  const afterRoute = async () => {};
  app.use('*', async (c, next) => {
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
  });

  const paidPaths = new Set(deps.catalog.map((c) => c.path));
  const freeRouteLimit = streamingLimit(FREE_ROUTE_MAX_BODY_BYTES);
  // A route that declares a smaller limit (MCP, A2A, the router quote: their largest legitimate message,
  // derived from the catalog) gets it here, as the body streams in (issue 21). Filled below, as the modules
  // register their routes (the body-taking routes have literal paths).
  const ownLimits = new Map<string, MiddlewareHandler>();
  app.use('*', (c, next) => (paidPaths.has(c.req.path) ? next() : (ownLimits.get(`${c.req.method} ${c.req.path}`) ?? freeRouteLimit)(c, next)));

  registerFreeRoutes(app, operationsRoutes({ ledger: deps.ledger, rail: deps.rail, lifecycle: deps.lifecycle, metricsToken: ops.metricsToken }));

  for (const register of deps.modules ?? []) {
    for (const r of register(app)) {
      if (r.maxBodyBytes !== undefined && r.maxBodyBytes < FREE_ROUTE_MAX_BODY_BYTES) ownLimits.set(`${r.method} ${r.path}`, streamingLimit(r.maxBodyBytes));
    }
  }

  // After module routes, so a free GET on a paid POST path (changes-since) is not shadowed.
  for (const cap of deps.catalog) {
    app.all(cap.path, (c) => c.json(errorBody('method_not_allowed', `Use ${cap.method} ${cap.path}.`), 405, { Allow: cap.method }));
  }

  app.notFound((c) => {
    // `/docs/` and the like: people type the slash; every route here is named without one.
    const path = c.req.path;
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && /^\/[^/\\]/.test(path) && !path.includes('\\') && path.endsWith('/')) {
      // The path as sent (percent-encoded), not `path`, which Hono decoded: a decoded %09 or %0A is whitespace a
      // browser drops from a Location (`/\t/evil.example` is `//evil.example`, another origin), and a decoded
      // control or non-Latin-1 character cannot be written in a header at all.
      const url = new URL(c.req.url);
      const target = url.pathname.replace(/\/+$/, '');
      // Never to another origin: the target starts with one slash and a path character.
      if (/^\/[^/\\]/.test(target)) return c.body(null, 308, { Location: target + url.search });
    }
    return c.json(errorBody('not_found', `No resource at ${c.req.method} ${path}.`), 404);
  });
  app.onError(failClosed);
  return app;
}
