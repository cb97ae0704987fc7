/**
 * The HTTP/x402 adapter of the paid flow: read and validate the body, decode
 * the payment header, run `payFor`, translate its outcome into x402 v2
 * headers. Every decision lives in `payments/`; this file only translates,
 * and owns what only HTTP has: the PAYMENT-REQUIRED header and its budget.
 */
import type { Context } from 'hono';
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from './x402-headers.js';
import type { Capability } from '../catalog/capability.js';
import { errorBody, statusOf } from '../errors.js';
import { makeInputReader } from '../catalog/input-reader.js';
import { readBodyBytes, type BodyResult } from '../catalog/json-input.js';
import { IncomingMessage } from 'node:http';
import type { GateOutcome } from '../payments/gate.js';
import { HOW_TO_PAY, type PaidAnswer, type PaidFlow } from '../payments/paid-flow.js';
import { SIGN_IN_WITH_X } from '../payments/sign-in.js';
import { SIGNED_OFFER_HEADER } from '../commitments/formats.js';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '../payments/rail.js';
import { MPP_PROBLEMS, credentialFromHeader, mppProblemOf, paymentScheme, receiptHeader, type MppCharge, type MppCredential } from '../payments/mpp.js';
import { DISCOVERY_HEADER_BUDGET_BYTES, HEADER_BUDGET_BYTES, challengeFitter, type Fitted } from './challenge-fit.js';
export { echoedLength, PAYABLE_HEADER_CEILING_BYTES } from './challenge-fit.js';
import { setMetric } from 'hono/timing';
import { wireBody } from './wire-body.js';
import { requestHeader, type JoinedHeaderName } from './request-header.js';
import { ownOrigin } from './own-origin.js';
import { clientKey } from './forwarded.js';

export { DISCOVERY_HEADER_BUDGET_BYTES, HEADER_BUDGET_BYTES };

export interface PaidRouteOptions {
  flow: PaidFlow;
  /** TRUST_PROXY: the client is the address our proxy appended to X-Forwarded-For. */
  trustProxy: boolean;
}

export { SIGNED_OFFER_HEADER };

/**
 * X-Signed-Offer's value and the body as sent, as the flow checks them (it
 * decides whether the offer is honoured), or why they cannot be read.
 */
function signedOfferOf(header: string, raw: Uint8Array): { signed: unknown; body: unknown } | undefined {
  try {
    const signed: unknown = header.length <= 8192 ? JSON.parse(Buffer.from(header, 'base64').toString('utf8')) : undefined;
    return { signed, body: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) };
  } catch {
    return undefined;
  }
}

/** PAYMENT-SIGNATURE → PaymentPayload, or undefined when it is not base64 JSON of an object. */
export function decodePayment(header: string): PaymentPayload | undefined {
  if (header.length > 16_384) return undefined;
  try {
    const p = decodePaymentSignatureHeader(header);
    return p && typeof p === 'object' ? p : undefined;
  } catch {
    return undefined;
  }
}

const utf8 = new TextEncoder();

/**
 * A challenge's headers, as a fresh object literal per response: it gets the
 * envelope's headers added, which costs more on an object spread from a
 * cached one (docs/decisions/0022).
 */
function challengeHeaders(paymentRequired: string, paymentResponse: SettleResponse | undefined, answer: AnswerHeaders | undefined, mppChallenge?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'PAYMENT-REQUIRED': paymentRequired,
    'Cache-Control': 'no-store',
    'Content-Type': 'application/json',
  };
  // MPP's challenge beside x402's, fresh for each 402 (its hash is the nonce the buyer signs).
  if (mppChallenge !== undefined) headers['WWW-Authenticate'] = mppChallenge;
  if (paymentResponse) headers['PAYMENT-RESPONSE'] = encodePaymentResponseHeader(paymentResponse);
  answer?.addTo(headers);
  return headers;
}

/**
 * The headers the envelope (src/app.ts) gives every answer of a paid route:
 * X-Request-Id and CORS's. The challenges the route builds carry them from
 * the start: under @hono/node-server a Response made with a plain headers
 * object is written with one writeHead, while headers set on the Node
 * response beforehand make Node merge the route's in, one setHeader (and one
 * validation) each (docs/decisions/0022). Any other answer gets them from the envelope.
 */
export interface AnswerHeaders {
  /** Adds them to the headers of the Response the route returns (and notes that it has them). */
  addTo(headers: Record<string, string>): void;
}

/** What the route knows about MPP for one answer: the service's MPP (off when undefined) and whether the request paid with it. */
interface MppAnswer {
  mpp: MppCharge | undefined;
  /** The request carried `Authorization: Payment`: errors are RFC 9457 problems, a delivery gets Payment-Receipt. */
  credential: boolean;
}
const NO_MPP: MppAnswer = { mpp: undefined, credential: false };

function mppChallengeFor(pr: PaymentRequired, priceAtomic: string, mpp: MppCharge | undefined): string | undefined {
  return mpp?.issue(pr.resource.url, priceAtomic).header;
}

function challengeResponse(outcome: Extract<GateOutcome, { kind: 'challenge' }>, fitted: Fitted, priceAtomic: string, answer: AnswerHeaders | undefined, m: MppAnswer = NO_MPP): Response {
  if (m.credential && m.mpp) return mppProblemResponse(outcome, fitted, priceAtomic, m.mpp, answer);
  const pr = fitted.paymentRequired;
  if (outcome.code !== 'payment_required' || outcome.paymentResponse) {
    return new Response(JSON.stringify(challengeBody(outcome, pr, priceAtomic)), {
      status: 402,
      headers: challengeHeaders(fitted.header, outcome.paymentResponse, answer, mppChallengeFor(pr, priceAtomic, m.mpp)),
    });
  }
  // The plain 402's whole body depends only on the challenge, its message and price: made once, answered as the same bytes.
  let plain = fitted.plain;
  if (!plain || plain.message !== outcome.message || plain.priceAtomic !== priceAtomic) {
    plain = fitted.plain = { message: outcome.message, priceAtomic, body: utf8.encode(JSON.stringify(challengeBody(outcome, pr, priceAtomic))) };
  }
  // The body bytes are shared and never written to.
  return new Response(plain.body, { status: 402, headers: challengeHeaders(fitted.header, undefined, answer, mppChallengeFor(pr, priceAtomic, m.mpp)) });
}

/**
 * A 402 (or the draft's 400) to an MPP credential: an RFC 9457 problem
 * (application/problem+json) of the draft's type, with a fresh MPP challenge
 * and the x402 one. Our stable code stays where every other error has it, in
 * `error` (an extension member), so one client reads both.
 */
function mppProblemResponse(outcome: Extract<GateOutcome, { kind: 'challenge' }>, fitted: Fitted, priceAtomic: string, mpp: MppCharge, answer: AnswerHeaders | undefined): Response {
  const issued = mpp.issue(outcome.paymentRequired.resource.url, priceAtomic);
  const p = MPP_PROBLEMS[mppProblemOf(outcome)];
  const body = { type: p.type, title: p.title, status: p.status, detail: outcome.message, challengeId: issued.challenge.id, ...errorBody(outcome.code, outcome.message) };
  const headers = challengeHeaders(fitted.header, outcome.paymentResponse, answer, issued.header);
  headers['Content-Type'] = 'application/problem+json';
  return new Response(JSON.stringify(body), { status: p.status, headers });
}

/**
 * The 402 body: the x402 v2 PaymentRequired of the PAYMENT-REQUIRED header,
 * with `error` set to the human sentence, plus `problem`, our explanation in
 * a sibling object PaymentRequired leaves open: the stable code and message
 * every other error carries in `error`, the price and how to pay.
 */
export function challengeBody(outcome: Extract<GateOutcome, { kind: 'challenge' }>, pr: PaymentRequired, priceAtomic: string) {
  return {
    x402Version: pr.x402Version,
    error: outcome.message,
    resource: pr.resource,
    accepts: pr.accepts,
    ...(pr.extensions ? { extensions: pr.extensions } : {}),
    problem: {
      code: outcome.code,
      message: outcome.message,
      details: [],
      price: { amount_atomic: priceAtomic, asset: pr.accepts[0]?.asset, network: pr.accepts[0]?.network, pay_to: pr.accepts[0]?.payTo },
      how_to_pay: HOW_TO_PAY,
    },
  };
}

/** The payment header of x402 v1 (v2 uses PAYMENT-SIGNATURE). */
const V1_PAYMENT_HEADER = 'x-payment' satisfies JoinedHeaderName;

/** SIGNED_OFFER_HEADER, as looked up. */
const SIGNED_OFFER_NAME = SIGNED_OFFER_HEADER.toLowerCase() as Extract<JoinedHeaderName, 'x-signed-offer'>;

export const V1_REFUSAL_MESSAGE =
  'x402 v1 payments (X-PAYMENT) are not accepted: this server speaks x402 v2 only. The PAYMENT-REQUIRED header of this response is the x402 v2 PaymentRequired: sign one of its accepts and repeat the request with PAYMENT-SIGNATURE (any x402 v2 client, e.g. @x402/fetch, does this). Nothing was verified or charged.';

/**
 * The answer to an x402 v1 payment, in the shape a v1 client reads: v1's
 * payment-required response (`x402Version` 1, `error` from v1's own reason
 * list, no v1 requirements to offer), our explanation in `problem`, and the
 * v2 challenge for the same request in PAYMENT-REQUIRED. v1 payments are not
 * accepted at all: the one gate takes x402 v2 only.
 */
function v1Refusal(outcome: Extract<GateOutcome, { kind: 'challenge' }>, fitted: Fitted, priceAtomic: string, mpp: MppCharge | undefined): Response {
  const pr = fitted.paymentRequired;
  const body = {
    x402Version: 1,
    error: 'invalid_x402_version',
    accepts: [],
    problem: {
      code: 'payment_invalid',
      message: V1_REFUSAL_MESSAGE,
      details: [{ path: 'header:X-PAYMENT', rule: 'x402-version' }],
      price: { amount_atomic: priceAtomic, asset: pr.accepts[0]?.asset, network: pr.accepts[0]?.network, pay_to: pr.accepts[0]?.payTo },
      how_to_pay: HOW_TO_PAY,
    },
  };
  return new Response(JSON.stringify(body), { status: 402, headers: challengeHeaders(fitted.header, outcome.paymentResponse, undefined, mppChallengeFor(pr, priceAtomic, mpp)) });
}

const EMPTY_BODY = new Uint8Array(0);

/** Under @hono/node-server, the Node message of a body with a plain Content-Length no larger than `limit` (not chunked), and that length. */
function declaredBody(c: Context, limit: number): { incoming: IncomingMessage; length: number } | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof IncomingMessage)) return undefined;
  const declared = incoming.headers['content-length'];
  if (declared === undefined || incoming.headers['transfer-encoding'] !== undefined || !/^[0-9]{1,9}$/.test(declared)) return undefined;
  const length = Number(declared);
  return length > limit ? undefined : { incoming, length };
}

/** Nothing has started reading the message (a body counted by the body limit, a stream someone opened). */
function untouched(incoming: IncomingMessage): boolean {
  return !incoming.readableDidRead && incoming.readableFlowing === null && incoming.readableEncoding === null && !incoming.readableObjectMode;
}

/**
 * The body as Node already holds it, under @hono/node-server (its `incoming`
 * binding). A small body arrives in the same read as the request's head, and
 * Node parses all of that read before anything awaited runs: after one await
 * the whole body (its declared Content-Length; Node's parser never passes
 * more to a message) sits in the message's buffer. Taken from there it skips
 * the Request body machinery (a promise chain, listeners on the message, a
 * copy into a fresh ArrayBuffer; docs/decisions/0023). Undefined when the body is chunked, not all
 * there yet, or anything has started reading it (a body counted by the body
 * limit, a stream someone opened): the route then reads it the usual way.
 */
async function receivedBody(c: Context, limit: number): Promise<BodyResult<Uint8Array> | undefined> {
  const message = declaredBody(c, limit);
  if (!message) return undefined;
  const { incoming, length } = message;
  await undefined;
  if (incoming.readableLength !== length || !untouched(incoming)) return undefined;
  // All of the buffer (not flowing, no encoding: read() returns every buffered byte, here the whole body).
  const chunk: unknown = length === 0 ? EMPTY_BODY : incoming.read();
  // Flowing from here on, the message ends by itself (no read left to make), as a body read to its end does.
  incoming.resume();
  return chunk instanceof Uint8Array ? { ok: true, value: chunk } : undefined;
}

/**
 * The body read from the Node message as it arrives (under @hono/node-server,
 * with a declared Content-Length no larger than `limit`, not chunked, and
 * nothing reading the message yet), into one buffer of exactly that length
 * in shared memory, once it has all arrived. A large body that the executor
 * reads on a worker then crosses to it without a copy (docs/decisions/0034). Undefined when those conditions do
 * not hold: the route reads it the usual way. A message that ends short (the
 * client went away) is an error, as the Request body's read is.
 */
async function streamedBody(c: Context, limit: number): Promise<BodyResult<Uint8Array> | undefined> {
  const message = declaredBody(c, limit);
  if (!message || !untouched(message.incoming)) return undefined;
  const { incoming, length } = message;
  // Kept as they arrive and joined once complete: memory grows with what the client has sent, not with what it declared.
  const chunks: Buffer[] = [];
  let at = 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => {
      incoming.off('data', onData);
      chunks.length = 0;
      incoming.resume();
      reject(e);
    };
    const onData = (chunk: Buffer) => {
      // Node's parser never passes a message more than its Content-Length; were it to, the read fails rather than overflow.
      if (at + chunk.byteLength > length) return fail(new Error(`the request body is longer than its Content-Length (${length})`));
      chunks.push(chunk);
      at += chunk.byteLength;
    };
    incoming.on('data', onData);
    incoming.once('end', () => (at === length ? resolve() : fail(new Error(`the request body ended after ${at} of ${length} bytes`))));
    incoming.once('error', fail);
    incoming.once('close', () => {
      if (!incoming.readableEnded) fail(new Error(`the request was closed after ${at} of ${length} body bytes`));
    });
  });
  const bytes = new Uint8Array(new SharedArrayBuffer(length));
  at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, value: bytes };
}

export function paidRoute(cap: Capability, opts: PaidRouteOptions) {
  const reader = makeInputReader(cap);
  const { flow } = opts;
  const mpp = flow.mpp;
  const fit = challengeFitter(flow.describe(cap).extensionCandidates);
  const payable = (pr: PaymentRequired) => fit(pr, { echoed: HEADER_BUDGET_BYTES });
  // `resource.url`'s base: the origin the envelope claimed for this request, never a host that is not ours.
  const originFor = ownOrigin;
  /**
   * No body at all (Content-Length 0 or none): unpaid, it is a discovery probe
   * and gets the full challenge; with a payment attached there is no input to
   * deliver for, so it is refused like any invalid body (400, before any
   * payment step: the payment is never verified, bound or settled).
   */
  const withoutBody = async (c: Context): Promise<Response> => {
    if (requestHeader(c, 'payment-signature') !== undefined || requestHeader(c, V1_PAYMENT_HEADER) !== undefined || (mpp && paymentScheme(authorizationOf(c)) !== undefined)) {
      return c.json(errorBody('invalid_request', `A request body is required: the payment pays for one ${cap.id} input. Nothing was verified or charged.`, [{ path: '', rule: 'required' }]), 400);
    }
    const origin = originFor(c);
    const probe = await flow.probe(cap, origin);
    // With MPP on, the discovery 402's header block carries WWW-Authenticate too: its room comes out of PAYMENT-REQUIRED's budget.
    const budget = DISCOVERY_HEADER_BUDGET_BYTES - (mpp?.headerBytes(origin + cap.path, probe.priceAtomic) ?? 0);
    return respond(c, probe, (pr) => fit(pr, budget), undefined, { mpp, credential: false });
  };
  /** `answer`: the envelope's headers (request id, CORS), for the answers the route builds itself. */
  return async function paidCapabilityRoute(c: Context, answer?: AnswerHeaders): Promise<Response> {
    const declared = Number(c.req.header('content-length') ?? '0');
    if (declared > reader.limit) return c.json(errorBody('payload_too_large', `The request body exceeds ${reader.limit} bytes.`), 413);
    const raw = (await receivedBody(c, reader.limit)) ?? (await streamedBody(c, reader.limit)) ?? (await readBodyBytes(c.req, reader.limit));
    if (!raw.ok) return c.json(errorBody(raw.error.code, raw.error.message, raw.error.details), statusOf(raw.error.code) as 413);
    if (raw.value.byteLength === 0) return withoutBody(c);
    // Where the body is read (inline, or off the event loop for a large body) is the executor's choice; the verdict is the inline one.
    const contentType = c.req.header('content-type');
    const sig = requestHeader(c, 'payment-signature');
    const offThread = flow.executor.readBody(cap, contentType, raw.value, sig !== undefined);
    const read = offThread && (await offThread);
    const parsed = read?.verdict ?? reader.fromBody(contentType, raw.value);
    if (!parsed.ok) return c.json(parsed.body as object, parsed.status as 400);

    // MPP's credential (only while MPP is on: otherwise Authorization is not ours to read).
    const mppValue = mpp ? paymentScheme(authorizationOf(c)) : undefined;
    const m: MppAnswer = { mpp, credential: mppValue !== undefined };
    if (mppValue !== undefined && (sig !== undefined || requestHeader(c, V1_PAYMENT_HEADER) !== undefined)) {
      return c.json(
        errorBody('invalid_payment_header', 'A request pays with one protocol: send either PAYMENT-SIGNATURE (x402) or Authorization: Payment (MPP), not both. Nothing was verified or charged.', [{ path: 'header:Authorization', rule: 'one-payment-protocol' }]),
        400,
      );
    }
    const origin = originFor(c);
    if (sig === undefined && mppValue === undefined && requestHeader(c, V1_PAYMENT_HEADER) !== undefined) {
      // An x402 v1 payment: never decoded, verified or bound. The answer names v2 and carries its challenge.
      const unpaid = await flow.pay(cap, { input: parsed.input, origin });
      return unpaid.outcome.kind === 'challenge' ? v1Refusal(unpaid.outcome, payable(unpaid.outcome.paymentRequired), unpaid.priceAtomic, mpp) : respond(c, unpaid, payable, undefined, m);
    }
    let credential: MppCredential | undefined;
    if (mppValue !== undefined) {
      credential = credentialFromHeader(mppValue);
      if (!credential) {
        // The draft's malformed-credential problem, with fresh challenges: nothing was verified, bound or charged.
        const unpaid = await flow.pay(cap, { input: parsed.input, origin });
        if (unpaid.outcome.kind !== 'challenge') return respond(c, unpaid, payable, answer, m);
        const message = 'Authorization: Payment is not a base64url JSON MPP credential ({challenge, payload}). Nothing was verified or charged.';
        return mppProblemResponse({ ...unpaid.outcome, code: 'payment_invalid', message, mppProblem: 'malformed' }, payable(unpaid.outcome.paymentRequired), unpaid.priceAtomic, mpp!, answer);
      }
    }
    let payment: PaymentPayload | undefined;
    if (sig !== undefined) {
      payment = decodePayment(sig);
      if (!payment) {
        return c.json(errorBody('invalid_payment_header', 'PAYMENT-SIGNATURE is not base64-encoded JSON of an x402 PaymentPayload.', [{ path: 'header:PAYMENT-SIGNATURE', rule: 'base64-json' }]), 400);
      }
    }
    const signedOfferHeader = requestHeader(c, SIGNED_OFFER_NAME);
    const offer = signedOfferHeader === undefined ? undefined : signedOfferOf(signedOfferHeader, raw.value);
    if (signedOfferHeader !== undefined && !offer) {
      return offerRefused(c, `The signed offer cannot be honoured: ${SIGNED_OFFER_HEADER} must be base64 JSON of a quote's signed offer and the body the JSON it was quoted for.`);
    }
    // Read only with a payment: a sign-in proves who may receive what that payment bought,
    // and wrong payment-identifiers are limited per client.
    const signIn = payment ? c.req.header(SIGN_IN_WITH_X) : undefined;
    const client = payment || credential ? clientKey(c, opts.trustProxy) : undefined;
    const paid = await flow.pay(cap, { input: parsed.input, origin, payment, signIn, client, mpp: credential, offer, fingerprint: read?.fingerprint, requestId: c.get('requestId') });
    return respond(c, paid, payable, answer, m);
  };
}

/** A signed offer the flow would not honour: 400 before any payment step, naming the header. */
function offerRefused(c: Context, message: string): Response {
  return c.json(errorBody('invalid_request', message, [{ path: `header:${SIGNED_OFFER_HEADER}`, rule: 'signed-offer' }]), 400);
}

/**
 * The Authorization header. Most requests have none: Node's parsed headers
 * answer that without Hono's Headers (the unpaid 402's hot path).
 */
function authorizationOf(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (incoming instanceof IncomingMessage && incoming.headers.authorization === undefined) return undefined;
  return c.req.header('authorization');
}

function respond(c: Context, { outcome, priceAtomic }: PaidAnswer, fit: (pr: PaymentRequired) => Fitted, answer: AnswerHeaders | undefined, m: MppAnswer): Response {
  switch (outcome.kind) {
    case 'offer-refused':
      return offerRefused(c, outcome.message);
    case 'challenge':
      return challengeResponse(outcome, fit(outcome.paymentRequired), priceAtomic, answer, m);
    case 'deliver': {
      const t = outcome.timings;
      // Where the time went, as Server-Timing (Hono's timing middleware runs for every paid attempt, src/app.ts).
      for (const [name, ms] of [['ledger', t.ledgerMs], ['verify', t.verifyMs], ['handler', t.handlerMs], ['settle', t.settleMs], ['chain', t.chainMs]] as const) setMetric(c, name, ms, undefined, 2);
      const headers: Record<string, string> = {
        'Content-Type': outcome.response.contentType,
        'PAYMENT-RESPONSE': encodePaymentResponseHeader(outcome.paymentResponse),
        'Cache-Control': 'no-store',
        'X-Payment-Replayed': outcome.replayed ? 'true' : 'false',
      };
      // MPP's receipt (reference = the transfer); the signed receipt stays in PAYMENT-RESPONSE for both protocols.
      if (m.credential) headers['Payment-Receipt'] = receiptHeader(outcome.paymentResponse.transaction, outcome.boundAt);
      return new Response(wireBody(outcome.response), { status: outcome.response.status, headers });
    }
    case 'refuse': {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
      if (outcome.retryAfterSeconds) headers['Retry-After'] = String(outcome.retryAfterSeconds);
      if (m.credential) {
        // To an MPP client every error is an RFC 9457 problem; these are not the draft's payment problems.
        headers['Content-Type'] = 'application/problem+json';
        const status = statusOf(outcome.code);
        return new Response(JSON.stringify({ type: 'about:blank', title: STATUS_TITLES[status] ?? 'Error', status, detail: outcome.message, ...errorBody(outcome.code, outcome.message) }), { status, headers });
      }
      return new Response(JSON.stringify(errorBody(outcome.code, outcome.message)), { status: statusOf(outcome.code), headers });
    }
  }
}

/** RFC 9457 `about:blank` problems take the status's phrase as their title. */
const STATUS_TITLES: Record<number, string> = { 400: 'Bad Request', 409: 'Conflict', 429: 'Too Many Requests', 503: 'Service Unavailable' };
