/**
 * The collectors' one HTTP client: GET a JSON document with a hard time
 * limit and a hard size limit, never following redirects. A response over
 * the size limit is aborted while it streams (nothing of it is parsed); a
 * slow one is aborted at the deadline. Every outcome is a value, never a
 * throw, so one bad source never stops a collection run.
 *
 * Built on node:http(s) rather than fetch so the deadline covers the whole
 * exchange (headers and body) and the host lookup can be given (tests point
 * public-looking host names at local servers; production uses DNS).
 */
import { createHash } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isOverDecodedLimit, undoContentCoding, utf8Text } from '../../foundation/content-coding.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Host resolution; DNS when not given. */
  lookup?: LookupFunction;
}

export type FetchFailure = 'timeout' | 'too_large' | 'not_json' | 'http_status' | 'network' | 'redirect';

export type FetchOutcome =
  | { ok: true; url: string; status: number; json: unknown; bytes: number; excerptHash: string }
  | { ok: false; url: string; failure: FetchFailure; detail: string };

const USER_AGENT = 'agent-pay-service-intel-collector/1 (+https://github.com/)';

function fail(url: string, failure: FetchFailure, detail: string): FetchOutcome {
  return { ok: false, url, failure, detail };
}

/** A header node:http may hand over as a list, as one value. */
const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

/**
 * GET `url` and parse its body as JSON, within `limits` (the body's size as
 * sent, and once a Content-Encoding the server applied anyway is undone).
 * The excerpt hash is of the document: the decoded bytes.
 */
export function fetchJson(url: string, limits: FetchLimits, accept = 'application/json'): Promise<FetchOutcome> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve(fail(url, 'network', 'not a URL'));
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return Promise.resolve(fail(url, 'network', 'not an http(s) URL'));
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<FetchOutcome>((resolve) => {
    let settled = false;
    const done = (o: FetchOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(o);
    };
    const req = request(u, { method: 'GET', headers: { accept, 'user-agent': USER_AGENT, 'accept-encoding': 'identity' }, lookup: limits.lookup ?? dnsLookup });
    // One deadline for the whole exchange: connect, headers and every body byte.
    const timer = setTimeout(() => done(fail(url, 'timeout', `no complete answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    timer.unref();
    req.on('error', (e) => done(fail(url, 'network', e.message)));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) return done(fail(url, 'redirect', `answered ${status}; collectors do not follow redirects`));
      if (status !== 200) return done(fail(url, 'http_status', `answered ${status}`));
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) return done(fail(url, 'too_large', `declares ${declared} bytes; the limit is ${limits.maxBytes}`));
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (bytes > limits.maxBytes) return done(fail(url, 'too_large', `more than ${limits.maxBytes} bytes`));
        chunks.push(c);
      });
      res.on('error', (e) => done(fail(url, 'network', e.message)));
      res.on('end', () => {
        if (settled) return;
        let body: Buffer;
        try {
          // We ask for no coding, but a server or a proxy in front of it may compress anyway; the bound holds for what it decodes to.
          body = undoContentCoding(Buffer.concat(chunks), header(res.headers['content-encoding']), limits.maxBytes);
        } catch (e) {
          if (isOverDecodedLimit(e)) return done(fail(url, 'too_large', `decodes to more than ${limits.maxBytes} bytes (${header(res.headers['content-encoding'])})`));
          return done(fail(url, 'network', `the body does not decode as its Content-Encoding (${header(res.headers['content-encoding'])}) says`));
        }
        let json: unknown;
        try {
          json = JSON.parse(utf8Text(body));
        } catch {
          const type = String(res.headers['content-type'] ?? 'no content type');
          return done(fail(url, 'not_json', `the body is not JSON (${type})`));
        }
        done({ ok: true, url, status, json, bytes, excerptHash: createHash('sha256').update(body).digest('hex') });
      });
    });
    req.end();
  });
}

/**
 * A `fetch` that refuses a response body over `maxBytes` (declared or
 * streamed), for clients that bring their own HTTP transport (viem's JSON-RPC
 * `fetchFn`): the body is read under the limit and handed back whole.
 */
export function sizeLimitedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel();
      throw new Error(`response declares ${declared} bytes; the limit is ${maxBytes}`);
    }
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
        if (bytes > maxBytes) {
          await reader.cancel();
          throw new Error(`response over ${maxBytes} bytes`);
        }
        chunks.push(value);
      }
    }
    return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
