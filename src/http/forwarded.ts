/**
 * Who is calling and under which origin, behind a reverse proxy or not.
 *
 * Without TRUST_PROXY the X-Forwarded-* headers are ignored: any client could
 * send them, and they would then choose the URLs in our 402 challenges and
 * discovery documents, or dodge the rate limit. With TRUST_PROXY=1 the one
 * proxy in front of the service is trusted: the scheme and host it reports
 * become the request URL (every "origin of this request" in the service reads
 * `c.req.url`), and the address it appended last is the client. A client is
 * counted by its host's key (src/foundation/client-key.ts), not its address.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { clientKeyForAddress, UNKNOWN_CLIENT, type ClientKey } from '../foundation/client-key.js';

/** First value of a comma-separated header (a proxy chain lists the outermost first). */
function firstValue(header: string | undefined): string | undefined {
  const v = header?.split(',')[0]?.trim();
  return v ? v : undefined;
}

/** A host[:port] a URL can carry: no userinfo, path or whitespace. */
const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;

/** Rewrites the request URL from X-Forwarded-Proto and X-Forwarded-Host (only installed when TRUST_PROXY=1). */
export function forwardedOrigin(): MiddlewareHandler {
  return async (c, next) => {
    const proto = firstValue(c.req.header('x-forwarded-proto'))?.toLowerCase();
    const host = firstValue(c.req.header('x-forwarded-host'));
    if (proto === undefined && host === undefined) return next();
    const url = new URL(c.req.url);
    if (proto === 'http' || proto === 'https') url.protocol = `${proto}:`;
    if (host !== undefined && HOST.test(host)) {
      url.host = host;
      // Setting a host without a port keeps the old one; the public origin has none then.
      if (!/:[0-9]{1,5}$/.test(host)) url.port = '';
    }
    if (url.href !== c.req.url) {
      const raw = c.req.raw;
      const body = raw.method === 'GET' || raw.method === 'HEAD' ? null : raw.body;
      c.req.raw = new Request(url.href, { method: raw.method, headers: raw.headers, body, signal: raw.signal, duplex: 'half' } as RequestInit);
    }
    return next();
  };
}

/**
 * Who a request counts against in every per-client limit and budget: the key
 * of the socket peer's host, or (TRUST_PROXY) of the hop our proxy appended
 * to X-Forwarded-For.
 */
export function clientKey(c: Context, trustProxy: boolean): ClientKey {
  return clientKeyOf(c.env, c.req.header('x-forwarded-for'), trustProxy);
}

/** The same key from a request's Hono env (its socket) and X-Forwarded-For, for work done after the request's context (the A2A task store). */
export function clientKeyOf(env: unknown, forwardedFor: string | undefined, trustProxy: boolean): ClientKey {
  if (trustProxy) {
    const last = forwardedFor?.slice(forwardedFor.lastIndexOf(',') + 1).trim();
    if (last) return clientKeyForAddress(last);
  }
  let peer: string | undefined;
  try {
    peer = getConnInfo({ env } as Context).remote.address;
  } catch {
    // Not served by @hono/node-server (app.request in tests): no socket to ask.
  }
  return peer === undefined ? UNKNOWN_CLIENT : clientKeyForAddress(peer);
}
