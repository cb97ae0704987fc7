/**
 * The HTTP/x402 adapter of the paid flow: read and validate the body, decode
 * the payment header, run `payFor`, translate its outcome into x402 v2
 * headers. Every decision lives in `payments/`; this file only translates,
 * and owns what only HTTP has: the PAYMENT-REQUIRED header and its budget.
 */
import type { Context } from 'hono';
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from './x402-headers.js';
import { StampedBody } from './stamped-encoding.js';
import type { Capability } from '../catalog/capability.js';
import { errorBody, statusOf } from '../errors.js';
import { HOW_TO_PAY, type PaidAnswer, type PaidFlow, type PaymentWire, type PresentedOffer } from '../payments/paid-flow.js';
import { SIGNED_OFFER_HEADER } from '../commitments/formats.js';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '../payments/rail.js';
import { DISCOVERY_HEADER_BUDGET_BYTES, HEADER_BUDGET_BYTES, challengeFitter, type Fitted } from './challenge-fit.js';
import { setMetric } from 'hono/timing';
import { wireBody } from './wire-body.js';
import { authorizationHeader, requestHeader, type JoinedHeaderName } from './request-header.js';
import { readRequestBody } from './request-body.js';
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
function signedOfferOf(header: string, raw: Uint8Array): PresentedOffer {
  try {
    const signed: unknown = header.length <= 8192 ? JSON.parse(Buffer.from(header, 'base64').toString('utf8')) : undefined;
    return { signed, body: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) };
  } catch {
    return { unreadable: true };
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

/**
 * A challenge's headers, as a fresh object literal per response: it gets the
 * envelope's headers added, which costs more on an object spread from a
 * cached one (docs/decisions/0022).
 */
function challengeHeaders(paymentRequired: string, paymentResponse: SettleResponse | undefined, answer: AnswerHeaders | undefined, mppChallenge?: string, preferenceApplied?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'PAYMENT-REQUIRED': paymentRequired,
    'Cache-Control': 'no-store',
    'Content-Type': 'application/json',
  };
  // MPP's challenge beside x402's, fresh for each 402 (its hash is the nonce the buyer signs).
  if (mppChallenge !== undefined) headers['WWW-Authenticate'] = mppChallenge;
  if (paymentResponse) headers['PAYMENT-RESPONSE'] = encodePaymentResponseHeader(paymentResponse);
  // RFC 7240: the chain asked for with Prefer is first in accepts.
  if (preferenceApplied !== undefined) headers['Preference-Applied'] = preferenceApplied;
  answer?.addTo(headers);
  return headers;
}

/**
 * The headers the envelope (src/http/paid-envelope.ts) gives every answer of a paid route:
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

type ChallengeAnswer = Extract<PaidAnswer, { kind: 'challenge' }>;

function challengeResponse(a: ChallengeAnswer, fitted: Fitted, answer: AnswerHeaders | undefined, applied: string | undefined): Response {
  // Fitted with the placeholder sign-in stamp: this 402's own goes into its header and body.
  const header = fitted.header.with(a.signInStamp);
  if (a.v1) return v1Refusal(a, fitted, header);
  if (a.mpp?.problem) {
    // To an MPP credential: an RFC 9457 problem of the draft's type (application/problem+json), with a fresh MPP challenge and the x402 one.
    const headers = challengeHeaders(header, a.paymentResponse, answer, a.mpp.header, applied);
    headers['Content-Type'] = 'application/problem+json';
    return new Response(JSON.stringify(a.mpp.problem), { status: a.mpp.problem.status, headers });
  }
  const pr = fitted.paymentRequired;
  const headers = challengeHeaders(header, a.paymentResponse, answer, a.mpp?.header, applied);
  if (a.code !== 'payment_required' || a.paymentResponse) return new Response(new StampedBody(JSON.stringify(challengeBody(a, pr, a.priceAtomic))).with(a.signInStamp), { status: 402, headers });
  // The plain 402's body depends only on the challenge, its message and price (and the stamp): encoded once.
  let plain = fitted.plain;
  if (!plain || plain.message !== a.message || plain.priceAtomic !== a.priceAtomic) {
    plain = fitted.plain = { message: a.message, priceAtomic: a.priceAtomic, body: new StampedBody(JSON.stringify(challengeBody(a, pr, a.priceAtomic))) };
  }
  return new Response(plain.body.with(a.signInStamp), { status: 402, headers });
}

/**
 * The 402 body: the x402 v2 PaymentRequired of the PAYMENT-REQUIRED header,
 * with `error` set to the human sentence, plus `problem`, our explanation in
 * a sibling object PaymentRequired leaves open: the stable code and message
 * every other error carries in `error`, the price and how to pay.
 */
export function challengeBody(outcome: Pick<ChallengeAnswer, 'code' | 'message'>, pr: PaymentRequired, priceAtomic: string) {
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
function v1Refusal(a: ChallengeAnswer, fitted: Fitted, header: string): Response {
  const pr = fitted.paymentRequired;
  const body = {
    x402Version: 1,
    error: 'invalid_x402_version',
    accepts: [],
    problem: {
      code: 'payment_invalid',
      message: V1_REFUSAL_MESSAGE,
      details: [{ path: 'header:X-PAYMENT', rule: 'x402-version' }],
      price: { amount_atomic: a.priceAtomic, asset: pr.accepts[0]?.asset, network: pr.accepts[0]?.network, pay_to: pr.accepts[0]?.payTo },
      how_to_pay: HOW_TO_PAY,
    },
  };
  return new Response(JSON.stringify(body), { status: 402, headers: challengeHeaders(header, a.paymentResponse, undefined, a.mpp?.header) });
}

/** A payable 402's budget: what a payment carries back (see challenge-fit.ts). */
const PAYABLE_BUDGET = { echoed: HEADER_BUDGET_BYTES };

/** Where HTTP carries payments, in the words of its refusals. */
const HTTP_WIRE: PaymentWire = {
  mpp: {
    twoProtocols: {
      message: 'A request pays with one protocol: send either PAYMENT-SIGNATURE (x402) or an MPP credential (Authorization: Payment or Payment-Authorization: Payment), not both. Nothing was verified or charged.',
      details: [{ path: 'header:Authorization', rule: 'one-payment-protocol' }],
    },
    twoCredentials: {
      message: 'A request carries one MPP credential: Authorization: Payment and Payment-Authorization: Payment hold different ones (or a field holds two). Send the one credential in the field its challenge selected. Nothing was verified or charged.',
      details: [{ path: 'header:Payment-Authorization', rule: 'one-mpp-credential' }],
    },
    unreadable: 'The Payment credential (Authorization or Payment-Authorization) is not a base64url JSON MPP credential ({challenge, payload}). Nothing was verified or charged.',
  },
  x402Unreadable: { message: 'PAYMENT-SIGNATURE is not base64-encoded JSON of an x402 PaymentPayload.', details: [{ path: 'header:PAYMENT-SIGNATURE', rule: 'base64-json' }] },
  requirementWithRefusal: false,
  offerPath: `header:${SIGNED_OFFER_HEADER}`,
  offerUnreadable: `${SIGNED_OFFER_HEADER} must be base64 JSON of a quote's signed offer and the body the JSON it was quoted for`,
  inputRequired: (cap) => ({ message: `A request body is required: the payment pays for one ${cap.id} input. Nothing was verified or charged.`, details: [{ path: '', rule: 'required' }] }),
};

export function paidRoute(cap: Capability, opts: PaidRouteOptions) {
  const { flow } = opts;
  const limit = flow.inputLimit(cap);
  const fit = challengeFitter(flow.describe(cap).rungs);
  const payable = (pr: PaymentRequired, encoded?: Map<string, unknown>) => fit(pr, PAYABLE_BUDGET, encoded);
  /** `answer`: the envelope's headers (request id, CORS), for the answers the route builds itself. */
  return async function paidCapabilityRoute(c: Context, answer?: AnswerHeaders): Promise<Response> {
    const declared = Number(c.req.header('content-length') ?? '0');
    if (declared > limit) return c.json(errorBody('payload_too_large', `The request body exceeds ${limit} bytes.`), 413);
    const raw = await readRequestBody(c, limit);
    if (!raw.ok) return c.json(errorBody(raw.error.code, raw.error.message, raw.error.details), statusOf(raw.error.code) as 413);
    // No body at all (Content-Length 0 or none): a discovery probe, answered with the whole challenge its header budget holds.
    const probe = raw.value.byteLength === 0;
    const sig = requestHeader(c, 'payment-signature');
    const authorization = authorizationHeader(c);
    const paymentAuthorization = requestHeader(c, 'payment-authorization');
    const signedOffer = probe ? undefined : requestHeader(c, SIGNED_OFFER_NAME);
    const preferNetwork = preferredNetwork(requestHeader(c, 'prefer'));
    const paid = await flow.answer(cap, {
      wire: HTTP_WIRE,
      origin: ownOrigin(c),
      input: probe ? undefined : { bytes: raw.value, contentType: c.req.header('content-type') },
      x402: sig === undefined ? undefined : (decodePayment(sig) ?? null),
      x402v1: requestHeader(c, V1_PAYMENT_HEADER) !== undefined,
      authorization,
      paymentAuthorization,
      // With a payment, who may receive what it bought; without one, a request for what its wallet already bought with this request.
      signIn: requestHeader(c, 'sign-in-with-x'),
      preferNetwork,
      // Wrong payment-identifiers are limited per client. A method, not an arrow property: tsx names every
      // arrow stored in a property (esbuild keepNames), a cost on each 402.
      client() {
        return clientKey(c, opts.trustProxy);
      },
      offer: signedOffer === undefined ? undefined : signedOfferOf(signedOffer, raw.value),
      requestId: c.get('requestId'),
    });
    if (probe) return respond(c, paid, (pr, encoded) => fit(pr, DISCOVERY_HEADER_BUDGET_BYTES - (paid.kind === 'challenge' && paid.mpp ? paid.mpp.headerBytes : 0), encoded), undefined, preferNetwork);
    return respond(c, paid, payable, answer, preferNetwork);
  };
}

/**
 * The flow's answer as HTTP: a 400 or 413 before any payment step, the 402
 * (its header within the budget `fit` keeps), the delivery with its receipts,
 * or the refusal; to an MPP credential every error is an RFC 9457 problem.
 */
function respond(c: Context, a: PaidAnswer, fit: (pr: PaymentRequired, encoded?: Map<string, unknown>) => Fitted, answer: AnswerHeaders | undefined, preferNetwork: string | undefined): Response {
  switch (a.kind) {
    case 'invalid':
      return c.json(a.body, a.status as 400);
    case 'challenge': {
      const first = a.template.accepts[0]?.network;
      const applied = preferNetwork !== undefined && first !== undefined && (first === preferNetwork || first.startsWith(`${preferNetwork}:`)) ? `network=${preferNetwork}` : undefined;
      return challengeResponse(a, fit(a.template, a.encoded), answer, applied);
    }
    case 'deliver': {
      const t = a.timings;
      // Where the time went, as Server-Timing (Hono's timing middleware runs for every paid attempt, src/http/paid-envelope.ts).
      for (const [name, ms] of [['ledger', t.ledgerMs], ['verify', t.verifyMs], ['handler', t.handlerMs], ['settle', t.settleMs], ['chain', t.chainMs]] as const) setMetric(c, name, ms, undefined, 2);
      const headers: Record<string, string> = {
        'Content-Type': a.response.contentType,
        'PAYMENT-RESPONSE': encodePaymentResponseHeader(a.paymentResponse),
        'Cache-Control': 'no-store',
        'X-Payment-Replayed': a.replayed ? 'true' : 'false',
      };
      // MPP's receipt (reference = the transfer); the signed receipt stays in PAYMENT-RESPONSE for both protocols.
      if (a.mpp) headers['Payment-Receipt'] = a.mpp.receiptHeader;
      return new Response(wireBody(a.response), { status: a.response.status, headers });
    }
    case 'refuse': {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
      if (a.retryAfterSeconds) headers['Retry-After'] = String(a.retryAfterSeconds);
      if (a.mpp) {
        // To an MPP client every error is an RFC 9457 problem; these are not the draft's payment problems.
        headers['Content-Type'] = 'application/problem+json';
        const status = statusOf(a.code);
        return new Response(JSON.stringify({ type: 'about:blank', title: STATUS_TITLES[status] ?? 'Error', status, detail: a.message, ...errorBody(a.code, a.message) }), { status, headers });
      }
      return new Response(JSON.stringify(errorBody(a.code, a.message)), { status: statusOf(a.code), headers });
    }
  }
}

/**
 * The chain named by a `Prefer: network=<CAIP-2 network or namespace>`
 * preference (RFC 7240), e.g. `network=solana`: the 402 lists it first, for
 * clients that pay or sign in with `accepts[0]` only (the SDK's
 * wrapFetchWithSIWx). Anything else is no preference.
 */
export function preferredNetwork(prefer: string | undefined): string | undefined {
  if (prefer === undefined) return undefined;
  const m = /(?:^|[,;\s])network\s*=\s*"?([a-z0-9-]{3,8}(?::[-_a-zA-Z0-9]{1,32})?)"?\s*(?:[,;]|$)/.exec(prefer);
  return m?.[1];
}

/** RFC 9457 `about:blank` problems take the status's phrase as their title. */
const STATUS_TITLES: Record<number, string> = { 400: 'Bad Request', 409: 'Conflict', 429: 'Too Many Requests', 503: 'Service Unavailable' };
