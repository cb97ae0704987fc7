/**
 * Request headers on the hot paths (the unpaid 402 looks up about ten per
 * request). Hono's `c.req.header(name)` goes through @hono/node-server's
 * Headers, which validates and lower-cases the name and then reads Node's own
 * parsed headers for most names; this reads Node's parsed headers directly,
 * for the names where that is exactly what node-server answers (decision 0015).
 */
import type { Context } from 'hono';
import { IncomingMessage } from 'node:http';

/**
 * Lower-case names Node and fetch join alike (duplicates joined with ", "):
 * node-server reads these from Node's parsed headers too. Names Node keeps
 * only the first value of (content-type, content-length, host, …) are left
 * to Hono, which joins all of them as fetch does.
 */
export type JoinedHeaderName = 'payment-signature' | 'x-payment' | 'x-request-id' | 'origin' | 'transfer-encoding' | 'x-signed-offer' | 'sign-in-with-x' | 'prefer' | 'payment-authorization';

/** A value node-server would not answer as it is (surrounding whitespace, NUL/CR/LF): left to Hono. */
const UNUSUAL_VALUE = /^[\t\n\r ]|[\t\n\r ]$|[\0\r\n]/;

/** The request header `name`, as `c.req.header(name)` gives it. */
export function requestHeader(c: Context, name: JoinedHeaderName): string | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  // Not served by node-server (app.request): ask Hono. (No middleware here changes request headers.)
  if (!(incoming instanceof IncomingMessage)) return c.req.header(name);
  const value = incoming.headers[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' && !UNUSUAL_VALUE.test(value) ? value : c.req.header(name);
}

/**
 * The Authorization header (where MPP's credential travels). Most requests
 * have none: Node's parsed headers answer that without Hono's Headers (the
 * unpaid 402's hot path).
 */
export function authorizationHeader(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (incoming instanceof IncomingMessage && incoming.headers.authorization === undefined) return undefined;
  return c.req.header('authorization');
}
