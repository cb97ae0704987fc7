/**
 * The PAYMENT-REQUIRED header's size budget, which only HTTP has: the gate
 * answers with the entry's richest extensions and service metadata, and the
 * route advertises the richest of the entry's rungs (Bazaar discovery and the
 * metadata on `resource`, richest first) whose encoded header fits. Production facilitators reject payments whose 402
 * header was too large, and reverse proxies buffer a bounded header block.
 */
import { encodePaymentRequiredHeader } from './x402-headers.js';
import { StampedBase64, type StampedBody } from './stamped-encoding.js';
import type { PaymentRequired } from '../payments/rail.js';
import { SERVICE_METADATA_KEYS } from '../payments/gate.js';
import type { OfferRung } from '../payments/paid-flow.js';

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

/**
 * A challenge as advertised: the PaymentRequired within budget, with the
 * placeholder sign-in stamp, its header encoded (each answer writes its own
 * stamp into it: stamped-encoding.ts), and (made once, for a plain 402) its body.
 */
export interface Fitted {
  paymentRequired: PaymentRequired;
  header: StampedBase64;
  plain?: { message: string; priceAtomic: string; body: StampedBody };
}

const fitted = (paymentRequired: PaymentRequired): Fitted => ({ paymentRequired, header: new StampedBase64(JSON.stringify(paymentRequired)) });

/** The last resort: none of the entry's extensions and no service metadata. */
const NOTHING: OfferRung = { extensions: {}, keeps: [] };

/**
 * The gate's own extensions (sign-in, payment-identifier) without their
 * `schema`: the JSON Schema of what a client sends back, which the SDK's
 * clients do not read (they sign the sign-in's `info` on one of its
 * `supportedChains`, and set the identifier's `info.id`). The first thing
 * given up for room.
 */
function withoutSchemas(own: Record<string, unknown>): Record<string, unknown> {
  const bare = (ext: unknown) => {
    if (typeof ext !== 'object' || ext === null || !('schema' in ext)) return ext;
    const { schema: _dropped, ...rest } = ext as Record<string, unknown>;
    return rest;
  };
  return Object.fromEntries(Object.entries(own).map(([key, ext]) => [key, bare(ext)]));
}

/** `resource` with only the service metadata fields a rung keeps (its URL, description and media type always stay). */
function resourceKeeping(resource: PaymentRequired['resource'], keeps: OfferRung['keeps']): PaymentRequired['resource'] {
  const out = { ...resource };
  for (const key of SERVICE_METADATA_KEYS) if (!keeps.includes(key)) delete out[key];
  return out;
}

/**
 * One route's fitting. A plain 402 brings the gate's room for its encodings
 * (`encoded`, kept with the cached challenge): the fitting is made once per
 * budget and kept there, with the body the route makes once; any other
 * challenge is fitted when it is answered.
 */
export function challengeFitter(rungs: ReadonlyArray<OfferRung>) {
  const ours = new Set(rungs.flatMap((r) => Object.keys(r.extensions)));
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
    let f = fitted(pr);
    if (!fits(f)) {
      // The gate's own schemas go first; then the entry's rungs are traded down (Bazaar's levels and the service
      // metadata on `resource`), down to neither. The gate's own extensions (sign-in, payment-identifier) stay.
      const own = withoutSchemas(Object.fromEntries(Object.entries(pr.extensions ?? {}).filter(([k]) => !ours.has(k))));
      for (const rung of [rungs[0] ?? NOTHING, ...rungs.slice(1), NOTHING]) {
        f = fitted({ ...pr, resource: resourceKeeping(pr.resource, rung.keeps), extensions: { ...own, ...rung.extensions } });
        if (fits(f)) break;
      }
    }
    encoded?.set(key, f);
    return f;
  };
}
/** The header a payment echoes back: the 402 with only its longest entry of `accepts` (the one a buyer pays is at most that long). */
export function echoedLength(pr: PaymentRequired): number {
  if (pr.accepts.length <= 1) return encodePaymentRequiredHeader(pr).length;
  const longest = pr.accepts.reduce((a, b) => (JSON.stringify(b).length > JSON.stringify(a).length ? b : a));
  return encodePaymentRequiredHeader({ ...pr, accepts: [longest] }).length;
}
