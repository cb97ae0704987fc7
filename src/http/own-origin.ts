/**
 * The origin this service names for a request: in 402 challenges (the
 * resource URL, MPP's realm), the signed receipts and offers
 * (src/commitments), MCP and A2A challenges and the discovery documents. The
 * client chooses the Host header (and the authority of an absolute-form
 * request target, RFC 9112 §3.2.2, and behind a trusted proxy
 * X-Forwarded-Host); if it chose the origin too, anyone could make the
 * operator sign a receipt or an offer for a URL at a host they own (a
 * phishing mirror, a cache to poison). So the request may only pick among
 * the service's own names, never add one:
 *
 * - PUBLIC_BASE_URL set: that origin, whatever the request says.
 * - otherwise the request's host when it is one of ours: the listening
 *   address (HOST:PORT; for a loopback or wildcard bind also localhost,
 *   127.0.0.1 and [::1] at that port) or an ALLOWED_HOSTS entry, in its
 *   canonical spelling (lower case, no final dot);
 * - any other host is ignored: the answer names the listening address
 *   (`localhost` for a wildcard bind), as if the request had named it.
 *
 * Ignored rather than refused: a client that sends an odd Host (a raw HTTP
 * tool, a health checker by IP address, HTTP/1.0 without Host) still gets its
 * answer, every route and surface behaves the same, and what is stated or
 * signed can only ever be one of the finite set of origins the operator
 * configured. The origin is claimed once per request by the envelope
 * (src/http/envelope.ts, paid-envelope.ts) and read by every route through ownOrigin.
 */
import type { Context } from 'hono';
import { IncomingMessage } from 'node:http';
import type { AllowedHost } from '../config.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The origin this request is answered under (see ownOrigin), claimed by the envelope of every route. */
    origin: string;
  }
}

export interface OwnOriginsOptions {
  /** PUBLIC_BASE_URL: named for every request when set. */
  publicBaseUrl: string | undefined;
  /** ALLOWED_HOSTS: more names of this service. */
  allowedHosts: readonly AllowedHost[];
  /** TRUST_PROXY: the scheme in the request URL is the proxy's; otherwise it is plain HTTP (what this server speaks). */
  trustProxy: boolean;
}

/** Names a loopback or wildcard bind answers to on this machine, whatever HOST spells. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_BINDS = new Set(['0.0.0.0', '[::]']);

/** The canonical hostname of a URL's host: WHATWG's (lower case, IPv6 compressed in brackets, IPv4 in dotted form), without a final dot. */
function canonicalHostname(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

const defaultPort = (protocol: string) => (protocol === 'https:' ? 443 : 80);

function originOf(protocol: string, hostname: string, port: number): string {
  return `${protocol}//${hostname}${port === defaultPort(protocol) ? '' : `:${port}`}`;
}

export class OwnOrigins {
  private readonly names: AllowedHost[];
  /** The listening address's origin: named for a request whose host is not ours. */
  private primary: string | undefined;
  /** Request URL prefix (scheme and authority) → our origin it names, or null when it names none of ours. Bounded: the prefix is the caller's. */
  private readonly seen = new Map<string, string | null>();

  constructor(private readonly opts: OwnOriginsOptions) {
    this.names = [...opts.allowedHosts];
  }

  /** The address the server listens on (HOST as configured, and the port it got: PORT=0 picks one). */
  listeningOn(host: string, port: number): void {
    const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    const hostname = canonicalHostname(new URL(`http://${bracketed}`).hostname);
    const wildcard = WILDCARD_BINDS.has(hostname);
    const loopback = hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.');
    for (const name of [hostname, ...(loopback || wildcard ? LOOPBACK_NAMES : [])]) this.names.push({ hostname: name, port });
    this.primary = originOf('http:', wildcard ? 'localhost' : hostname, port);
    this.seen.clear();
  }

  /**
   * The origin to name for a request to `url` (after TRUST_PROXY's rewrite).
   * `overSocket`: false for the process's own in-process requests (`app.request`
   * from tests and tools: nobody outside chose their URL), named as addressed.
   */
  originFor(url: string, overSocket: boolean): string {
    if (this.opts.publicBaseUrl !== undefined) return this.opts.publicBaseUrl;
    const ours = this.resolve(url);
    if (ours !== undefined) return ours;
    if (!overSocket) return new URL(url).origin;
    // Never the caller's host: a service that does not know where it listens names nothing.
    if (this.primary === undefined) throw new Error('a request came over a socket before the service knew its listening address');
    return this.primary;
  }

  private resolve(url: string): string | undefined {
    const slash = url.indexOf('/', url.indexOf('//') + 2);
    const prefix = slash < 0 ? url : url.slice(0, slash);
    const known = this.seen.get(prefix);
    if (known !== undefined) return known ?? undefined;
    const origin = this.match(new URL(url));
    if (this.seen.size >= 256) this.seen.clear();
    this.seen.set(prefix, origin ?? null);
    return origin;
  }

  private match(u: URL): string | undefined {
    const hostname = canonicalHostname(u.hostname);
    const port = u.port ? Number(u.port) : defaultPort(u.protocol);
    if (!this.names.some((n) => n.hostname === hostname && (n.port === undefined || n.port === port))) return undefined;
    return originOf(this.opts.trustProxy ? u.protocol : 'http:', hostname, port);
  }
}

/** Whether the request came over a socket (served by @hono/node-server), not from the process itself. */
function overSocket(c: Context): boolean {
  return (c.env as { incoming?: unknown } | undefined)?.incoming instanceof IncomingMessage;
}

/** Sets the origin this request is answered under (what ownOrigin reads); the envelope calls it once the request URL is final (TRUST_PROXY). */
export function claimOrigin(c: Context, origins: OwnOrigins): void {
  c.set('origin', origins.originFor(c.req.url, overSocket(c)));
}

/**
 * The origin to name in what this request's answer states or signs (the
 * base of every absolute URL): PUBLIC_BASE_URL, else the request's host when
 * it is one of ours, else the listening address (see the top of this file).
 */
export function ownOrigin(c: Context): string {
  const origin = c.get('origin') as string | undefined;
  if (origin === undefined) throw new Error(`no origin was claimed for ${c.req.method} ${c.req.path}: the route runs outside the app's envelope`);
  return origin;
}
