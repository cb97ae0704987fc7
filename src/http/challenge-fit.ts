/**
 * The PAYMENT-REQUIRED header's size budget, which only HTTP has: the gate
 * answers with the entry's richest extensions, and the route advertises the
 * richest of the entry's candidates (Bazaar discovery, richest first) whose
 * encoded header fits. Production facilitators reject payments whose 402
 * header was too large, and reverse proxies buffer a bounded header block.
 */
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '../payments/rail.js';

/** Budget for the base64 PAYMENT-REQUIRED header value (under 2 KB; a production facilitator rejected ~3.5 KB). */
export const HEADER_BUDGET_BYTES = 2040;

/**
 * Budget for the header of a discovery challenge (a request with no body):
 * it can never be paid, so the facilitator limit above does not apply, and it
 * is spent on the input and output shapes discovery clients read from the
 * header. 3.5 KiB keeps the whole header block under the 4 KiB a reverse
 * proxy buffers by default (nginx's proxy_buffer_size).
 */
export const DISCOVERY_HEADER_BUDGET_BYTES = 3584;

/** A challenge as advertised: the PaymentRequired within budget, its header, and (made once) the plain 402's body. */
export interface Fitted {
  paymentRequired: PaymentRequired;
  header: string;
  plain?: { message: string; priceAtomic: string; body: Uint8Array<ArrayBuffer> };
}

/**
 * One route's fitting, remembered per challenge the gate answers with (the
 * gate reuses one PaymentRequired per resource URL and price, so the unpaid
 * 402 is encoded once). Bounded: the resource URL follows the caller's Host.
 */
export function challengeFitter(candidates: ReadonlyArray<Record<string, unknown>>) {
  const ours = new Set(candidates.flatMap((c) => Object.keys(c)));
  const remembered = new Map<string, Fitted & { source: PaymentRequired }>();
  return function fit(pr: PaymentRequired, budget: number): Fitted {
    const key = `${budget}|${pr.resource.url}|${pr.accepts[0]?.amount}|${pr.error ?? ''}`;
    const hit = remembered.get(key);
    if (hit?.source === pr) return hit;
    let fitted: Fitted = { paymentRequired: pr, header: encodePaymentRequiredHeader(pr) };
    if (fitted.header.length > budget) {
      // The gate's own extensions (sign-in, payment-identifier) stay; only the entry's candidates are traded down.
      const kept = Object.fromEntries(Object.entries(pr.extensions ?? {}).filter(([k]) => !ours.has(k)));
      for (const candidate of [...candidates.slice(1), {}]) {
        const paymentRequired = { ...pr, extensions: { ...kept, ...candidate } };
        fitted = { paymentRequired, header: encodePaymentRequiredHeader(paymentRequired) };
        if (fitted.header.length <= budget) break;
      }
    }
    if (remembered.size >= 256) remembered.clear();
    remembered.set(key, { ...fitted, source: pr });
    return remembered.get(key)!;
  };
}
