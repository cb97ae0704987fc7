/**
 * The x402 v2 headers this server writes and reads (PAYMENT-SIGNATURE in,
 * PAYMENT-RESPONSE and PAYMENT-REQUIRED out): base64 of the JSON's UTF-8, as
 * `@x402/core/http` makes and reads them, byte for byte (x402-headers.test.ts
 * compares the two on arbitrary values). The SDK takes a path written for
 * browsers (one string per byte through btoa/atob); Node's Buffer does the
 * same conversion in one call. Why this is worth its own file:
 * docs/decisions/0033.
 */
import type { PaymentPayload, PaymentRequired, SettleResponse } from '../payments/rail.js';
import { utf8Text } from '../foundation/content-coding.js';

/** The SDK's test of a base64 header value (standard alphabet, padding at most two). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const toBase64 = (json: string): string => Buffer.from(json, 'utf8').toString('base64');

/**
 * Whether atob (WHATWG forgiving-base64, the SDK's decoder) takes this value
 * that passed BASE64: padding only where it completes a group of four, and
 * no group of one character. Buffer would decode those too.
 */
function atobAccepts(value: string): boolean {
  const unpadded = value.length % 4 === 0 ? value.replace(/={1,2}$/, '') : value;
  return unpadded.length % 4 !== 1 && !unpadded.includes('=');
}

/** PAYMENT-SIGNATURE → its JSON value; throws on a value that is not base64 or not JSON, as the SDK does. */
export function decodePaymentSignatureHeader(value: string): PaymentPayload {
  if (!BASE64.test(value) || !atobAccepts(value)) throw new Error('Invalid payment signature header');
  // As the SDK decodes it (TextDecoder): invalid UTF-8 becomes U+FFFD, a leading byte order mark is dropped (Buffer would keep it).
  return JSON.parse(utf8Text(Buffer.from(value, 'base64'))) as PaymentPayload;
}

/** PAYMENT-RESPONSE: the settlement as the buyer sees it (the facilitator's extension responses left out, as the SDK does). */
export function encodePaymentResponseHeader(response: SettleResponse): string {
  const buyerFacing: Partial<SettleResponse> = { ...response };
  delete buyerFacing.extensionResponses;
  return toBase64(JSON.stringify(buyerFacing));
}

/** PAYMENT-REQUIRED. */
export function encodePaymentRequiredHeader(required: PaymentRequired): string {
  return toBase64(JSON.stringify(required));
}
