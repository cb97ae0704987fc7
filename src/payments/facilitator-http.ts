/**
 * One facilitator over HTTP: the SDK's protocol on its URL (facilitator-wire.ts),
 * with our per-request timeout and the credentials the operator configured for it.
 *
 * CDP keys (CDP_API_KEY_ID/SECRET): every request carries a JWT minted by
 * CDP's own library for that request alone — its method, host and path, a
 * fresh nonce, two minutes of life. When several facilitators are listed,
 * each gets JWTs minted for its own URL: a token one of them receives is
 * good for nothing else (another host, path or a replay), and the secret
 * itself never leaves this process. Static headers
 * (X402_FACILITATOR_HEADERS) go only to the origin they are listed under.
 *
 * A facilitator's error text can echo what it was sent; whatever this client
 * passes on (error messages, refusal reasons) has the credentials cut out,
 * so they reach neither the logs nor a caller.
 */
import { generateJwt } from '@coinbase/cdp-sdk/auth';
import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from '@x402/core/types';
import type { FacilitatorAuth, PaymentConfig } from '../config.js';
import { FacilitatorWire, type Endpoint } from './facilitator-wire.js';

const METHOD: Record<Endpoint, 'GET' | 'POST'> = { supported: 'GET', verify: 'POST', settle: 'POST' };

export function facilitatorHttpClient(url: string, payment: Pick<PaymentConfig, 'facilitatorTimeoutMs' | 'facilitatorAuth'>): FacilitatorClient {
  const base = url.replace(/\/+$/, '');
  const { cdp, headers } = payment.facilitatorAuth;
  const fixed = headers?.[new URL(base).origin];
  if (!cdp && !fixed) return new FacilitatorWire(base, { timeoutMs: payment.facilitatorTimeoutMs });
  // Each request's headers are made right before it is sent: one JWT per request, for that request alone.
  const headersFor = async (endpoint: Endpoint) => ({ ...fixed, ...(cdp && { Authorization: `Bearer ${await cdpJwt(cdp, METHOD[endpoint], `${base}/${endpoint}`)}` }) });
  return new CredentialScrubbing(new FacilitatorWire(base, { timeoutMs: payment.facilitatorTimeoutMs, headersFor }), Object.values(fixed ?? {}));
}

/** CDP's JWT for one request: `uris` = "METHOD host/path" of exactly the URL called. */
function cdpJwt(cdp: NonNullable<FacilitatorAuth['cdp']>, method: string, url: string): Promise<string> {
  const u = new URL(url);
  return generateJwt({ apiKeyId: cdp.apiKeyId, apiKeySecret: cdp.apiKeySecret, requestMethod: method, requestHost: u.host, requestPath: u.pathname });
}

/** A bearer token, or a JWT (base64url of `{"…`) cut anywhere, as an error excerpt may cut it. */
const BEARER = /Bearer\s+[A-Za-z0-9._~+/=-]+/gi;
const JWT = /eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){0,2}/g;
/** A secret's head this long is cut even when the rest of it was cut off (an excerpt's "…"). */
const SECRET_HEAD = 8;

/** `text` without `secret`, nor any part of it from its head on. */
function cut(text: string, secret: string): string {
  const head = secret.slice(0, SECRET_HEAD);
  let out = '';
  let i = 0;
  for (let j = text.indexOf(head, i); j !== -1; j = text.indexOf(head, i)) {
    let k = 0;
    while (k < secret.length && text[j + k] === secret[k]) k++;
    out += text.slice(i, j) + '[redacted]';
    i = j + k;
  }
  return out + text.slice(i);
}

/** The facilitator client with credentials cut out of everything it passes on. */
class CredentialScrubbing implements FacilitatorClient {
  constructor(
    private readonly inner: FacilitatorClient & { url: string },
    private readonly secrets: readonly string[],
  ) {}

  get url(): string {
    return this.inner.url;
  }

  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    return this.scrubbed(() => this.inner.verify(payload, requirements));
  }

  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    return this.scrubbed(() => this.inner.settle(payload, requirements));
  }

  getSupported(): Promise<SupportedResponse> {
    return this.scrubbed(() => this.inner.getSupported());
  }

  private scrub(text: string): string {
    let out = text.replace(BEARER, 'Bearer [redacted]').replace(JWT, '[redacted]');
    for (const s of this.secrets) out = cut(out, s);
    return out;
  }

  /** Facilitator-supplied text: error messages, and the reasons in answers and in the SDK's Verify/SettleError. */
  private scrubFields<T extends object>(o: T): T {
    const rec = o as Record<string, unknown>;
    for (const k of ['message', 'invalidMessage', 'errorMessage', 'invalidReason', 'errorReason'] as const) {
      if (typeof rec[k] === 'string') rec[k] = this.scrub(rec[k] as string);
    }
    return o;
  }

  private async scrubbed<T extends object>(call: () => Promise<T>): Promise<T> {
    try {
      return this.scrubFields(await call());
    } catch (e) {
      throw e instanceof Error ? this.scrubFields(e) : e;
    }
  }
}
