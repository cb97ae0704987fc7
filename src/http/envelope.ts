/**
 * The envelope of every route: the request id, the forwarded origin, the
 * answer headers (or a CORS preflight's answer), then metrics, draining and
 * the request's log line; an unhandled error fails closed. Paid routes have
 * theirs (src/http/paid-envelope.ts), every other route shares one
 * middleware (envelope): in both it is one handler, not a chain of
 * middleware, since each link of Hono's chain is an async step of its own
 * (docs/decisions/0037).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import type { OperationsConfig } from '../config.js';
import { errorBody } from '../errors.js';
import { metrics, secondsSince } from '../observability/metrics.js';
import { answerHeaders, requestIdOf, type CorsOrigins } from './answer-headers.js';
import { forwardedOrigin } from './forwarded.js';
import { nodeOutgoing } from './node-response.js';
import { claimOrigin, type OwnOrigins } from './own-origin.js';

export interface RequestEnvelope {
  /** Metrics, draining and the log line of an answered request. */
  answered(c: Context, id: string, route: string, status: number, start: number): void;
  /** The 503 of an unhandled error (app.onError's too). */
  failClosed(err: unknown, c: Context): Response;
  corsAllowOrigin: CorsOrigins;
  origins: OwnOrigins;
  /** Behind a trusted proxy, the request URL (and so every origin the service derives) is the proxy's public one: this puts it there. */
  forwarded: MiddlewareHandler | undefined;
}

export interface RequestEnvelopeOptions {
  log?: Logger;
  /** Set when shutdown begins: answers then close their connection. */
  lifecycle?: { readonly draining: boolean };
  /** CORS and proxy trust; defaults: CORS for any origin, no proxy trusted. */
  operations: Partial<Pick<OperationsConfig, 'corsOrigins' | 'trustProxy'>>;
  /** The origins each request is named under (src/http/own-origin.ts). */
  origins: OwnOrigins;
}

/** A `next` for a middleware the envelope runs by hand: nothing follows it there. */
export const noNext = async (): Promise<void> => {};

export function requestEnvelope({ log, lifecycle, operations, origins }: RequestEnvelopeOptions): RequestEnvelope {
  const failClosed = (err: unknown, c: Context): Response => {
    // Hono hands only Errors to its error handler; anything else thrown goes on up, as it does there.
    if (!(err instanceof Error)) throw err;
    log?.error({ reqId: c.get('requestId'), err: err.message, path: c.req.path }, 'unhandled error: failing closed');
    return c.json(errorBody('service_unavailable', 'The service failed while handling this request; nothing was delivered or settled.'), 503);
  };

  /** Metrics, draining and the request's log line, once its answer is known: one for every route. */
  const answered = (c: Context, id: string, route: string, status: number, start: number) => {
    metrics.http.record(c.req.method, route, status, secondsSince(start));
    if (lifecycle?.draining) {
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
  const corsAllowOrigin = operations.corsOrigins === undefined || operations.corsOrigins === '*' ? '*' : [...operations.corsOrigins];
  const forwarded = operations.trustProxy ? forwardedOrigin() : undefined;
  return { answered, failClosed, corsAllowOrigin, origins, forwarded };
}

/** The route pattern that answered, for metric labels (bounded: never the raw path). */
function routeLabel(c: Context): string {
  const path = routePath(c);
  return path === '*' || path === '' || path === '/*' ? 'unmatched' : path;
}

/**
 * The envelope of every route but the paid ones, as middleware: the request
 * id (a caller's X-Request-Id, word characters, at most 64, is kept, else one
 * is made; echoed on the answer), the forwarded origin, the answer headers or
 * the preflight, then metrics, draining and the log line.
 */
export function envelope(env: RequestEnvelope): MiddlewareHandler {
  const { forwarded, origins } = env;
  const withHeaders = answerHeaders(env.corsAllowOrigin);
  return async (c, next) => {
    const id = requestIdOf(c);
    c.set('requestId', id);
    const start = performance.now();
    try {
      if (forwarded) await forwarded(c, noNext);
      claimOrigin(c, origins);
      await withHeaders(c, id, next);
    } catch (e) {
      c.res = env.failClosed(e, c);
    }
    env.answered(c, id, routeLabel(c), c.res.status, start);
  };
}
