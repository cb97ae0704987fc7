/**
 * The collectors' one HTTP client: GET a JSON document with a hard time
 * limit and a hard size limit, never following redirects. A response over
 * the size limit is aborted while it streams (nothing of it is parsed); a
 * slow one is aborted at the deadline. Every outcome is a value, never a
 * throw, so one bad source never stops a collection run.
 *
 * A source is operator configuration, but a URL or a DNS name can still
 * point inside the network the service runs in: loopback (the service's own
 * admin API, a local Redis), the cloud metadata service at 169.254.169.254,
 * private and link-local ranges. So a collector connects only to public
 * addresses (the ranges of `addresses.ts`) unless the operator opts in
 * (INTEL_ALLOW_PRIVATE_SOURCES=1, passed down as `allowPrivateAddresses`).
 * The address is checked where the socket gets it, after resolution: a
 * literal in the URL as connected to, or every answer of the lookup the
 * socket itself calls, so a name whose answer changes between a check and
 * the connection (DNS rebinding) cannot slip past. Every request takes a
 * fresh connection: a pooled socket would skip the check.
 *
 * Built on node:http(s) rather than fetch so the deadline covers the whole
 * exchange (headers and body) and the host lookup can be given (tests point
 * public-looking host names at local servers; production uses DNS).
 */
import { createHash } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isOverDecodedLimit, undoContentCoding, utf8Text } from '../../foundation/content-coding.js';
import { mayConnectTo } from './addresses.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Host resolution; DNS when not given. */
  lookup?: LookupFunction;
  /** INTEL_ALLOW_PRIVATE_SOURCES: connect to loopback, private, link-local and other non-public addresses too. */
  allowPrivateAddresses?: boolean;
}

export type FetchFailure = 'timeout' | 'too_large' | 'not_json' | 'http_status' | 'network' | 'redirect' | 'private_address';

export type FetchOutcome =
  | { ok: true; url: string; status: number; json: unknown; bytes: number; excerptHash: string }
  | { ok: false; url: string; failure: FetchFailure; detail: string };

/** A connection not made: the address it would go to is not public. */
export class PrivateAddressRefused extends Error {
  constructor(
    readonly address: string,
    host: string,
  ) {
    super(`${host === address ? address : `${host} resolves to ${address}`}, an internal address: collectors connect only to public addresses unless INTEL_ALLOW_PRIVATE_SOURCES=1`);
    this.name = 'PrivateAddressRefused';
  }
}

const USER_AGENT = 'agent-pay-service-intel-collector/1 (+https://github.com/)';

function fail(url: string, failure: FetchFailure, detail: string): FetchOutcome {
  return { ok: false, url, failure, detail };
}

/** A header node:http may hand over as a list, as one value. */
const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

/** `lookup`, whose answers are refused when any of them is not public (the socket may connect to any of them). */
function publicOnly(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const answers = typeof address === 'string' ? [address] : address.map((a) => a.address);
      const internal = answers.find((a) => !mayConnectTo(a));
      if (internal !== undefined) return callback(new PrivateAddressRefused(internal, hostname), '', family);
      callback(null, address, family);
    });
}

/** The lookup a request to `u` connects through, or the refusal of its literal address. */
function connectThrough(u: URL, limits: FetchLimits): LookupFunction | PrivateAddressRefused {
  const lookup = limits.lookup ?? dnsLookup;
  if (limits.allowPrivateAddresses) return lookup;
  // node:net connects to a literal address without calling any lookup: it is judged here, as it will be connected to.
  const literal = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal)) return mayConnectTo(literal) ? lookup : new PrivateAddressRefused(literal, literal);
  return publicOnly(lookup);
}

interface Ask {
  method: string;
  headers: OutgoingHttpHeaders;
  body?: Buffer;
  signal?: AbortSignal;
}

type Refusal = { ok: false; failure: FetchFailure; detail: string; cause?: unknown };
type Answer = { ok: true; res: IncomingMessage; body: Buffer; wireBytes: number } | Refusal;

/**
 * One request on a fresh connection, within `limits`: one deadline for
 * connect, headers and every body byte; the body's size bounded as sent and
 * once a Content-Encoding the server applied anyway is undone. `screen` may
 * refuse an answer by its head, before any of its body is read.
 */
function exchange(u: URL, ask: Ask, limits: FetchLimits, screen?: (res: IncomingMessage) => Refusal | undefined): Promise<Answer> {
  const lookup = connectThrough(u, limits);
  if (lookup instanceof PrivateAddressRefused) return Promise.resolve({ ok: false, failure: 'private_address', detail: lookup.message, cause: lookup });
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolve) => {
    let settled = false;
    const done = (a: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ask.signal?.removeEventListener('abort', aborted);
      req.destroy();
      resolve(a);
    };
    const headers = { 'user-agent': USER_AGENT, 'accept-encoding': 'identity', ...ask.headers };
    const req = request(u, { method: ask.method, headers, lookup, agent: false });
    const timer = setTimeout(() => done({ ok: false, failure: 'timeout', detail: `no complete answer within ${limits.timeoutMs} ms` }), limits.timeoutMs);
    timer.unref();
    const aborted = () => done({ ok: false, failure: 'network', detail: 'aborted by the caller', cause: ask.signal?.reason });
    if (ask.signal?.aborted) aborted();
    else ask.signal?.addEventListener('abort', aborted, { once: true });
    req.on('error', (e) => done(e instanceof PrivateAddressRefused ? { ok: false, failure: 'private_address', detail: e.message, cause: e } : { ok: false, failure: 'network', detail: e.message, cause: e }));
    req.on('response', (res: IncomingMessage) => {
      const refused = screen?.(res);
      if (refused) return done(refused);
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) return done({ ok: false, failure: 'too_large', detail: `declares ${declared} bytes; the limit is ${limits.maxBytes}` });
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (bytes > limits.maxBytes) return done({ ok: false, failure: 'too_large', detail: `more than ${limits.maxBytes} bytes` });
        chunks.push(c);
      });
      res.on('error', (e) => done({ ok: false, failure: 'network', detail: e.message, cause: e }));
      res.on('end', () => {
        if (settled) return;
        const coding = header(res.headers['content-encoding']);
        try {
          // We ask for no coding, but a server or a proxy in front of it may compress anyway; the bound holds for what it decodes to.
          done({ ok: true, res, body: undoContentCoding(Buffer.concat(chunks), coding, limits.maxBytes), wireBytes: bytes });
        } catch (e) {
          if (isOverDecodedLimit(e)) return done({ ok: false, failure: 'too_large', detail: `decodes to more than ${limits.maxBytes} bytes (${coding})` });
          done({ ok: false, failure: 'network', detail: `the body does not decode as its Content-Encoding (${coding}) says` });
        }
      });
    });
    if (ask.body) req.end(ask.body);
    else req.end();
  });
}

/**
 * GET `url` and parse its body as JSON, within `limits` (the body's size as
 * sent, and once a Content-Encoding the server applied anyway is undone).
 * The excerpt hash is of the document: the decoded bytes.
 */
export async function fetchJson(url: string, limits: FetchLimits, accept = 'application/json'): Promise<FetchOutcome> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return fail(url, 'network', 'not a URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return fail(url, 'network', 'not an http(s) URL');
  const got = await exchange(u, { method: 'GET', headers: { accept } }, limits, (res) => {
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400) return { ok: false, failure: 'redirect', detail: `answered ${status}; collectors do not follow redirects` };
    if (status !== 200) return { ok: false, failure: 'http_status', detail: `answered ${status}` };
    return undefined;
  });
  if (!got.ok) return fail(url, got.failure, got.detail);
  let json: unknown;
  try {
    json = JSON.parse(utf8Text(got.body));
  } catch {
    const type = String(got.res.headers['content-type'] ?? 'no content type');
    return fail(url, 'not_json', `the body is not JSON (${type})`);
  }
  return { ok: true, url, status: got.res.statusCode ?? 0, json, bytes: got.wireBytes, excerptHash: createHash('sha256').update(got.body).digest('hex') };
}

/** Statuses whose answer has no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

/**
 * A `fetch` on the same client, for clients that bring their own HTTP
 * transport (viem's JSON-RPC `fetchFn`): the same connection rule, deadline
 * and size limit, the body read whole and handed back decoded. A failure
 * rejects, as fetch does; an internal address as `PrivateAddressRefused`.
 */
export function collectorFetch(limits: FetchLimits): typeof fetch {
  return async (input, init) => {
    const ask = new Request(input, init);
    const u = new URL(ask.url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${ask.url}`);
    const body = ask.body ? Buffer.from(await ask.arrayBuffer()) : undefined;
    const got = await exchange(u, { method: ask.method, headers: Object.fromEntries(ask.headers), ...(body && { body }), signal: ask.signal }, limits);
    if (!got.ok) throw got.cause instanceof PrivateAddressRefused ? got.cause : new Error(got.detail, { cause: got.cause });
    const status = got.res.statusCode ?? 0;
    const headers = new Headers();
    const raw = got.res.rawHeaders;
    // The body handed back is decoded: its coding and length headers no longer describe it.
    for (let i = 0; i + 1 < raw.length; i += 2) if (!/^content-(encoding|length)$/i.test(raw[i]!)) headers.append(raw[i]!, raw[i + 1]!);
    return new Response(NULL_BODY_STATUS.has(status) ? null : new Uint8Array(got.body), { status, statusText: got.res.statusMessage ?? '', headers });
  };
}
