/**
 * One facilitator over HTTP, on node:http(s) with a keep-alive agent: the
 * x402 SDK's facilitator protocol (`GET /supported`, `POST /verify`,
 * `POST /settle`) with the SDK's request bodies, answer checks and error
 * classes, so the facilitator may be CDP, PayAI or the devnet's and the
 * gate's money rules read the same errors as with the SDK's own client.
 * What it leaves out is the fetch machinery around each request (request
 * and response objects, web streams, abort signals): a deadline timer that
 * destroys the request is all a call needs (decision 0024).
 *
 * Kept from the SDK's client, and checked against it by test: the body
 * `{x402Version, paymentPayload, paymentRequirements}` with bigints as
 * strings; redirects followed as fetch follows them; a non-2xx verify or
 * settle carrying `isValid` / `success` → VerifyError / SettleError, any
 * other non-2xx → Error "Facilitator <op> failed (<status>): <excerpt>";
 * a 2xx that is not JSON or not the expected shape → FacilitatorResponseError;
 * the deadline (over the whole exchange, body included) →
 * FacilitatorTimeoutError; no connection → TypeError "fetch failed" with
 * the socket error as its cause (what `provablyNotSent` reads); 429 on
 * /supported retried after Retry-After or a backoff; EXTENSION-RESPONSES on
 * the result (without the SDK's console line about it); an answer's
 * Content-Encoding (gzip, deflate, br) undone as fetch undoes it. Added: an
 * answer is bounded (MAX_ANSWER_BYTES), as sent and decoded.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { FacilitatorClient } from '@x402/core/server';
import {
  FacilitatorResponseError,
  FacilitatorTimeoutError,
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from '@x402/core/types';
import { isOverDecodedLimit, undoContentCoding, utf8Text } from '../foundation/content-coding.js';

export type Endpoint = 'supported' | 'verify' | 'settle';

export interface WireOptions {
  timeoutMs: number;
  /** Headers for one request to `endpoint` (credentials), asked right before it is sent. */
  headersFor?: (endpoint: Endpoint) => Record<string, string> | Promise<Record<string, string>>;
}

/**
 * What the client says it is and wants on every request, as fetch says it
 * (the SDK's client sends a User-Agent and an Accept): a facilitator behind a
 * firewall that turns away clients that do not name themselves answers us too.
 */
const NAMED = { 'User-Agent': 'agent-pay-service/1 (x402 facilitator client)', Accept: 'application/json' };

/** As fetch: at most this many redirects, then the request fails. */
const MAX_REDIRECTS = 20;
/** Connections kept open to one facilitator (verify and settle of concurrent calls). */
const MAX_SOCKETS = 64;
/**
 * How long a kept-alive connection to a facilitator may sit idle before we
 * close it, decided as undici (the fetch under the SDK's own client) decides:
 * the facilitator's announced `Keep-Alive: timeout=N` less IDLE_MARGIN_MS (at
 * most MAX_IDLE_CONNECTION_MS; announced that margin or less: not kept), and
 * IDLE_CONNECTION_MS when it announces nothing, under the 5 s that Node's and
 * many other servers keep one. Closing first matters: a request sent on a
 * connection the server is closing at that moment fails (ECONNRESET), a
 * verify as "facilitator unavailable" and a settle as an unknown outcome,
 * though nothing was wrong. node:http's agent on its own keeps an idle
 * connection for ever, and lowers that to a server's hint only when it has a
 * limit of its own: hence `keepSocketAlive`, its documented override.
 */
export const IDLE_CONNECTION_MS = 4000;
const MAX_IDLE_CONNECTION_MS = 600_000;
const IDLE_MARGIN_MS = 2000;
/** TCP keep-alive probes on a kept connection start after this long (node:http's agent default). */
const KEEP_ALIVE_PROBE_MS = 1000;

/** The idle limit for a connection whose last answer carried `keepAlive` (its Keep-Alive header); ≤ 0: close it. */
export function idleLimitMs(keepAlive: string | undefined): number {
  const seconds = keepAlive === undefined ? undefined : /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(keepAlive)?.[1];
  if (seconds === undefined) return IDLE_CONNECTION_MS;
  return Math.min(Number(seconds) * 1000 - IDLE_MARGIN_MS, MAX_IDLE_CONNECTION_MS);
}

/** /supported on 429: attempts, first backoff and cap, as the SDK's client. */
const SUPPORTED_ATTEMPTS = 3;
const SUPPORTED_BACKOFF_MS = 1000;
const SUPPORTED_BACKOFF_CAP_MS = 30_000;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export class FacilitatorWire implements FacilitatorClient {
  readonly url: string;
  /** Each connection's idle limit, from the Keep-Alive header of the last answer it carried. */
  private readonly idleLimits = new WeakMap<object, number>();
  private readonly http = this.keptAlive(new HttpAgent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_PROBE_MS, maxSockets: MAX_SOCKETS }));
  private readonly https = this.keptAlive(new HttpsAgent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_PROBE_MS, maxSockets: MAX_SOCKETS }));

  constructor(
    url: string,
    private readonly options: WireOptions,
  ) {
    this.url = url.replace(/\/+$/, '');
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const answer = await this.exchange('verify', 'POST', paymentBody(payload, requirements));
    if (!ok(answer)) throw refusal('verify', answer, 'isValid', (status, data) => new VerifyError(status, data as VerifyResponse));
    return withExtensionResponses(checked('verify', answer, verifyResponse), answer);
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const answer = await this.exchange('settle', 'POST', paymentBody(payload, requirements));
    if (!ok(answer)) throw refusal('settle', answer, 'success', (status, data) => new SettleError(status, data as SettleResponse));
    return withExtensionResponses(checked('settle', answer, settleResponse), answer);
  }

  async getSupported(): Promise<SupportedResponse> {
    for (let attempt = 0; ; attempt++) {
      const answer = await this.exchange('supported', 'GET', undefined);
      if (ok(answer)) return checked('supported', answer, supportedResponse);
      const error = new Error(`Facilitator getSupported failed (${answer.status}): ${excerpt(answer.text)}`);
      if (answer.status !== 429 || attempt >= SUPPORTED_ATTEMPTS - 1) throw error;
      await new Promise((r) => setTimeout(r, retryDelay(header(answer.headers, 'retry-after'), attempt)));
    }
  }

  /** The agent, keeping a connection once it is free only up to its idle limit (the agent closes a free connection on its timeout). */
  private keptAlive<A extends HttpAgent>(agent: A): A {
    agent.keepSocketAlive = ((socket: Socket): boolean => {
      const limit = this.idleLimits.get(socket) ?? IDLE_CONNECTION_MS;
      if (limit <= 0) return false;
      socket.setKeepAlive(true, KEEP_ALIVE_PROBE_MS);
      socket.unref();
      socket.setTimeout(limit);
      return true;
    }) as HttpAgent['keepSocketAlive'];
    return agent;
  }

  /** Let go of the kept-alive connections (the service is closing). */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  /** One exchange under one deadline: the request, its redirects and the whole answer body. */
  private async exchange(endpoint: Endpoint, method: 'GET' | 'POST', body: string | undefined): Promise<Answer> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...NAMED, ...(await this.options.headersFor?.(endpoint)) };
    const deadline = Date.now() + this.options.timeoutMs;
    let url = new URL(`${this.url}/${endpoint}`);
    for (let redirects = 0; ; redirects++) {
      const answer = await this.once(url, method, headers, body, endpoint, deadline);
      const location = isRedirect(answer.status) ? header(answer.headers, 'location') : undefined;
      if (location === undefined) return answer;
      if (redirects >= MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
      const next = new URL(location, url);
      // As fetch: 303, and 301/302 after a POST, continue as a GET without a body; credentials stay with their origin.
      if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['Content-Type'];
      }
      if (next.origin !== url.origin) delete headers.Authorization;
      url = next;
    }
  }

  private once(url: URL, method: string, headers: Record<string, string>, body: string | undefined, endpoint: Endpoint, deadline: number): Promise<Answer> {
    const tls = url.protocol === 'https:';
    if (!tls && url.protocol !== 'http:') return Promise.reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }));
    const send = tls ? httpsRequest : httpRequest;
    const sent = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | undefined, answer?: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(answer!);
      };
      const req = send(url, { method, headers: sent, agent: tls ? this.https : this.http }, (res: IncomingMessage) => {
        this.idleLimits.set(res.socket, idleLimitMs(header(res.headers, 'keep-alive')));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_ANSWER_BYTES) return void chunks.push(c);
          finish(tooLarge());
          res.destroy();
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let bytes: Buffer = Buffer.concat(chunks);
          // As fetch: the body of a redirect it follows is never decoded. (We ask for no compression:
          // the answers are a few hundred bytes; a facilitator or a proxy may compress them anyway.)
          if (!(isRedirect(status) && res.headers.location !== undefined)) {
            try {
              bytes = undoContentCoding(bytes, header(res.headers, 'content-encoding'), MAX_ANSWER_BYTES);
            } catch (e) {
              // A stream that does not decode fails as fetch fails it reading the body.
              return finish(isOverDecodedLimit(e) ? tooLarge() : new TypeError('terminated', { cause: e }));
            }
          }
          finish(undefined, { status, headers: res.headers, text: utf8Text(bytes) });
        });
        res.on('error', (e) => finish(new TypeError('fetch failed', { cause: e })));
        res.on('close', () => {
          if (!res.complete) finish(new TypeError('fetch failed', { cause: new Error('the connection closed before the answer was complete') }));
        });
      });
      const timer = setTimeout(() => {
        finish(new FacilitatorTimeoutError(endpoint, this.options.timeoutMs));
        req.destroy();
      }, Math.max(0, deadline - Date.now()));
      req.on('error', (e) => finish(new TypeError('fetch failed', { cause: e })));
      req.end(body);
    });
  }
}

/**
 * The most a facilitator's answer may hold, as sent and once decoded: its
 * answers are a few hundred bytes (`/supported` a few KiB). Past it the
 * exchange fails without proving anything unsent (a settle's outcome is
 * then asked of the chain), instead of the service holding whatever a broken
 * or hostile facilitator streams before the deadline. fetch has no bound.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

const tooLarge = () => new TypeError('fetch failed', { cause: new Error(`the facilitator's answer is larger than ${MAX_ANSWER_BYTES} bytes`) });

/** The SDK's request body: the payload's version, then both objects with bigints as strings. */
function paymentBody(payload: PaymentPayload, requirements: PaymentRequirements): string {
  return JSON.stringify({ x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: requirements }, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
}

const ok = (a: Answer) => a.status >= 200 && a.status < 300;
const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** As the SDK's `responseExcerpt`: whitespace collapsed, at most 200 characters. */
function excerpt(text: string, limit = 200): string {
  const compact = text.trim().replace(/\s+/g, ' ');
  if (!compact) return '<empty response>';
  return compact.length <= limit ? compact : `${compact.slice(0, limit - 3)}...`;
}

/** A non-2xx verify or settle: the facilitator's own verdict when it sent one, else a plain failure. */
function refusal(op: 'verify' | 'settle', a: Answer, verdictKey: string, verdict: (status: number, data: object) => Error): Error {
  let data: unknown;
  try {
    data = JSON.parse(a.text);
  } catch {
    return new Error(`Facilitator ${op} failed (${a.status}): ${excerpt(a.text)}`);
  }
  if (typeof data === 'object' && data !== null && verdictKey in data) return verdict(a.status, data);
  return new Error(`Facilitator ${op} failed (${a.status}): ${excerpt(JSON.stringify(data))}`);
}

/** A 2xx answer parsed and checked by `shape`, or the SDK's FacilitatorResponseError. */
function checked<T>(op: Endpoint, a: Answer, shape: (data: unknown) => T | undefined): T {
  let data: unknown;
  try {
    data = JSON.parse(a.text);
  } catch {
    throw new FacilitatorResponseError(`Facilitator ${op} returned invalid JSON: ${excerpt(a.text)}`);
  }
  const value = shape(data);
  if (value === undefined) throw new FacilitatorResponseError(`Facilitator ${op} returned invalid data: ${excerpt(a.text)}`);
  return value;
}

// ------------------------------------------------------------------ answer shapes (the SDK's schemas)

type Rec = Record<string, unknown>;
const BAD = Symbol('bad');
const isRecord = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A string that may be missing or null (then undefined). */
const optString = (v: unknown) => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : BAD);
/** A string-keyed object that may be missing or null (then undefined). */
const optRecord = (v: unknown) => (v === undefined || v === null ? undefined : isRecord(v) ? v : BAD);

/**
 * Only the listed fields, as the schemas strip the rest (a field sent as
 * null stays, as undefined, as the schemas leave it); undefined when one has
 * the wrong type.
 */
function pick<T>(from: Rec, fields: Record<string, unknown>): T | undefined {
  const out: Rec = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === BAD) return undefined;
    if (v !== undefined || k in from) out[k] = v;
  }
  return out as T;
}

function verifyResponse(d: unknown): VerifyResponse | undefined {
  if (!isRecord(d) || typeof d.isValid !== 'boolean') return undefined;
  return pick<VerifyResponse>(d, {
    isValid: d.isValid,
    invalidReason: optString(d.invalidReason),
    invalidMessage: optString(d.invalidMessage),
    payer: optString(d.payer),
    extensions: optRecord(d.extensions),
    extra: optRecord(d.extra),
  });
}

function settleResponse(d: unknown): SettleResponse | undefined {
  if (!isRecord(d) || typeof d.success !== 'boolean' || typeof d.transaction !== 'string' || typeof d.network !== 'string') return undefined;
  return pick<SettleResponse>(d, {
    success: d.success,
    errorReason: optString(d.errorReason),
    errorMessage: optString(d.errorMessage),
    payer: optString(d.payer),
    transaction: d.transaction,
    network: d.network,
    amount: optString(d.amount),
    extensions: optRecord(d.extensions),
    extra: optRecord(d.extra),
  });
}

function supportedResponse(d: unknown): SupportedResponse | undefined {
  if (!isRecord(d) || !Array.isArray(d.kinds)) return undefined;
  const kinds: unknown[] = [];
  for (const k of d.kinds) {
    if (!isRecord(k) || typeof k.x402Version !== 'number' || typeof k.scheme !== 'string' || typeof k.network !== 'string') return undefined;
    const kind = pick(k, { x402Version: k.x402Version, scheme: k.scheme, network: k.network, extra: optRecord(k.extra) });
    if (!kind) return undefined;
    kinds.push(kind);
  }
  const extensions = d.extensions === undefined ? [] : d.extensions;
  if (!Array.isArray(extensions) || !extensions.every((e) => typeof e === 'string')) return undefined;
  const signers = d.signers === undefined ? {} : d.signers;
  if (!isRecord(signers) || !Object.values(signers).every((s) => Array.isArray(s) && s.every((x) => typeof x === 'string'))) return undefined;
  return { kinds, extensions, signers } as SupportedResponse;
}

// ------------------------------------------------------------------ EXTENSION-RESPONSES

/** The facilitator's EXTENSION-RESPONSES header (base64 JSON object), on the result as the SDK puts it there. */
function withExtensionResponses<T extends object>(result: T, a: Answer): T {
  const raw = header(a.headers, 'extension-responses');
  if (!raw) return result;
  let decoded: unknown;
  try {
    decoded = JSON.parse(utf8Text(Buffer.from(raw, 'base64')));
  } catch {
    return result;
  }
  return isRecord(decoded) ? Object.assign(result, { extensionResponses: decoded }) : result;
}

/** The wait before retrying /supported after a 429: Retry-After (seconds or a date), else a doubling backoff, capped. */
function retryDelay(retryAfter: string | undefined, attempt: number): number {
  let delay: number | undefined;
  if (retryAfter !== undefined) {
    const t = retryAfter.trim();
    if (/^\d+$/.test(t)) delay = Number(t) * 1000;
    else if (!Number.isNaN(Date.parse(retryAfter))) delay = Date.parse(retryAfter) - Date.now();
  }
  if (delay === undefined || delay <= 0) delay = SUPPORTED_BACKOFF_MS * 2 ** attempt;
  return Math.min(delay, SUPPORTED_BACKOFF_CAP_MS);
}
