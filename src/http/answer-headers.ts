/**
 * The headers every answer carries whatever its route returns: X-Request-Id,
 * nosniff and, for an actual (not preflight) request, CORS's
 * Access-Control-Allow-Origin and Expose-Headers — the same ones Hono's cors
 * middleware sets. A CORS preflight is answered by Hono's cors itself.
 */
import type { Context, Next } from 'hono';
import { cors } from 'hono/cors';
import type { ServerResponse } from 'node:http';
import type { AnswerHeaders } from './paid-route.js';
import { nodeOutgoing } from './node-response.js';
import { requestHeader } from './request-header.js';
import { NO_SNIFF, NO_SNIFF_HEADER } from './security-headers.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's id (X-Request-Id), set by the envelope of every route (see requestIdOf). */
    requestId: string;
  }
}

/** A caller's X-Request-Id is kept when it is at most this long (and word characters, `-`, `=`), else one is made. */
const REQUEST_ID_MAX_CHARS = 64;

/** The request id of a call: the caller's X-Request-Id when it is short and plain (the rule of Hono's requestId middleware), else a new one. */
export function requestIdOf(c: Context): string {
  const given = requestHeader(c, 'x-request-id');
  return given && given.length <= REQUEST_ID_MAX_CHARS && !/[^\w\-=]/.test(given) ? given : crypto.randomUUID();
}

/** The origins CORS allows: any (`*`) or these. */
export type CorsOrigins = '*' | string[];

/** Header names of x402 v2 and MPP (transport: HTTP) a browser agent must be able to send and read across origins. */
const CORS_ALLOW_HEADERS = ['Content-Type', 'PAYMENT-SIGNATURE', 'SIGN-IN-WITH-X', 'X-Signed-Offer', 'X-Request-Id', 'Authorization', 'Payment-Authorization', 'Prefer'];
const CORS_EXPOSE_HEADERS = ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'WWW-Authenticate', 'Payment-Receipt', 'X-Request-Id', 'Retry-After', 'ETag', 'Preference-Applied', 'X-Payment-Replayed'];

const CORS_EXPOSED = CORS_EXPOSE_HEADERS.join(',');

/** The Access-Control-Allow-Origin of an actual request: `*`, the request's allowed Origin, or none. */
function allowedOrigin(c: Context, origins: CorsOrigins): string | undefined {
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

function answerHeadersOnNode(outgoing: ServerResponse, id: string, origin: string | undefined, origins: CorsOrigins): void {
  putAnswerHeaders((name, value) => outgoing.setHeader(name, value), id, origin, origins !== '*');
}

function answerHeadersOnResponse(h: Headers, id: string, origin: string | undefined, origins: CorsOrigins): void {
  // Vary is appended: the route's own Vary (if any) stays.
  putAnswerHeaders((name, value) => (name === 'Vary' ? h.append(name, value) : h.set(name, value)), id, origin, origins !== '*');
}

/**
 * The answer headers of one paid call: put by the route on the Response it
 * builds (see AnswerHeaders), else by the envelope once the route has
 * answered (putOnAnswer).
 */
export class PaidAnswerHeaders implements AnswerHeaders {
  private added = false;
  private readonly origin: string | undefined;

  constructor(
    c: Context,
    private readonly id: string,
    private readonly origins: CorsOrigins,
  ) {
    this.origin = allowedOrigin(c, origins);
  }

  addTo(headers: Record<string, string>): void {
    putAnswerHeaders((name, value) => (headers[name] = value), this.id, this.origin, this.origins !== '*');
    this.added = true;
  }

  /** Unless the route added them: on the Node response (see withAnswerHeaders), else on `res`. */
  putOnAnswer(c: Context, res: Response): void {
    if (this.added) return;
    const outgoing = nodeOutgoing(c);
    if (outgoing) answerHeadersOnNode(outgoing, this.id, this.origin, this.origins);
    else answerHeadersOnResponse(res.headers, this.id, this.origin, this.origins);
  }
}

/**
 * The answer headers around a route. Under @hono/node-server they go straight
 * onto the Node response, which merges them with the route's own when it
 * writes the head. Hono's cors writes through `c.res` before the route runs,
 * which makes Hono copy the route's Response into a fresh one (materialising
 * its body stream); docs/decisions/0022 has the measurement. Outside
 * node-server (app.request) they are set on the Response.
 */
async function withAnswerHeaders(c: Context, id: string, origins: CorsOrigins, run: Next): Promise<void> {
  const origin = allowedOrigin(c, origins);
  const outgoing = nodeOutgoing(c);
  if (outgoing) answerHeadersOnNode(outgoing, id, origin, origins);
  await run();
  if (!outgoing) answerHeadersOnResponse(c.res.headers, id, origin, origins);
}

/**
 * Runs the route (`next`) of the request `id` with the answer headers, or
 * answers a CORS preflight (OPTIONS) through Hono's cors middleware, with the
 * request id and nosniff.
 */
export function answerHeaders(origins: CorsOrigins): (c: Context, id: string, next: Next) => Promise<void> {
  const preflight = cors({
    origin: origins,
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
  });
  const answerPreflight = async (c: Context, id: string, next: Next): Promise<void> => {
    c.header('X-Request-Id', id);
    c.header(NO_SNIFF_HEADER, NO_SNIFF);
    const answer = await preflight(c, next);
    if (answer) c.res = answer;
  };
  return (c, id, next) => (c.req.method === 'OPTIONS' ? answerPreflight(c, id, next) : withAnswerHeaders(c, id, origins, next));
}
