/**
 * The PAYMENT-REQUIRED header's size budget, which only HTTP has: the gate
 * answers with the entry's richest extensions, and the route advertises the
 * richest of the entry's candidates (Bazaar discovery, richest first) whose
 * encoded header fits. Production facilitators reject payments whose 402
 * header was too large, and reverse proxies buffer a bounded header block.
 */
import { encodePaymentRequiredHeader } from './x402-headers.js';
import type { PaymentRequired } from '../payments/rail.js';

/**
 * Budget for the base64 PAYMENT-REQUIRED header of a payable 402 as a payment
 * carries it back (under 2 KB; a production facilitator rejected ~3.5 KB): the
 * resource, the extensions and the one entry of `accepts` the buyer pays. The
 * other chains' entries never reach a facilitator, so they are left out of it
 * (`PAYABLE_HEADER_CEILING_BYTES` bounds the whole header).
 */
export const HEADER_BUDGET_BYTES = 2040;

/** The whole payable header, every chain's entry included: the header block stays under the 4 KiB a reverse proxy buffers, WWW-Authenticate beside it. */
export const PAYABLE_HEADER_CEILING_BYTES = 3072;

/**
 * Budget for the header of a discovery challenge (a request with no body):
 * it can never be paid, so the facilitator limit above does not apply, and it
 * is spent on the input and output shapes discovery clients read from the
 * header. 3.5 KiB keeps the whole header block under the 4 KiB a reverse
 * proxy buffers by default (nginx's proxy_buffer_size).
 */
export const DISCOVERY_HEADER_BUDGET_BYTES = 3584;

/** A challenge as advertised: the PaymentRequired within budget, its header, and (made once, for a plain 402) its body. */
export interface Fitted {
  paymentRequired: PaymentRequired;
  header: string;
  plain?: { message: string; priceAtomic: string; body: Uint8Array<ArrayBuffer> };
}

/**
 * One route's fitting. A plain 402 brings the gate's room for its encodings
 * (`encoded`, kept with the cached challenge): the fitting is made once per
 * budget and kept there, with the body the route makes once; any other
 * challenge is fitted when it is answered.
 */
export function challengeFitter(candidates: ReadonlyArray<Record<string, unknown>>) {
  const ours = new Set(candidates.flatMap((c) => Object.keys(c)));
  /**
   * `budget`: the whole header's (a discovery challenge, which nothing can
   * pay), or `{ echoed }`: what a payment carries back, with the longest
   * single entry of `accepts`, the whole header under the ceiling.
   */
  return function fit(pr: PaymentRequired, budget: number | { echoed: number }, encoded?: Map<string, unknown>): Fitted {
    const key = typeof budget === 'number' ? `fitted|${budget}` : `fitted|e${budget.echoed}`;
    const hit = encoded?.get(key) as Fitted | undefined;
    if (hit) return hit;
    const fits = (f: Fitted) => (typeof budget === 'number' ? f.header.length <= budget : f.header.length <= PAYABLE_HEADER_CEILING_BYTES && echoedLength(f.paymentRequired) <= budget.echoed);
    let fitted: Fitted = { paymentRequired: pr, header: encodePaymentRequiredHeader(pr) };
    if (!fits(fitted)) {
      // The gate's own extensions (sign-in, payment-identifier) stay; only the entry's candidates are traded down.
      const kept = Object.fromEntries(Object.entries(pr.extensions ?? {}).filter(([k]) => !ours.has(k)));
      for (const candidate of [...candidates.slice(1), {}]) {
        const paymentRequired = { ...pr, extensions: { ...kept, ...candidate } };
        fitted = { paymentRequired, header: encodePaymentRequiredHeader(paymentRequired) };
        if (fits(fitted)) break;
      }
    }
    encoded?.set(key, fitted);
    return fitted;
  };
}

/** The header a payment echoes back: the 402 with only its longest entry of `accepts` (the one a buyer pays is at most that long). */
export function echoedLength(pr: PaymentRequired): number {
  if (pr.accepts.length <= 1) return encodePaymentRequiredHeader(pr).length;
  const longest = pr.accepts.reduce((a, b) => (JSON.stringify(b).length > JSON.stringify(a).length ? b : a));
  return encodePaymentRequiredHeader({ ...pr, accepts: [longest] }).length;
}
