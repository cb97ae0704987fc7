/**
 * The one paid flow every transport uses: a catalog entry, its validated
 * input, the caller's payment (if any) and the origin the caller reached us
 * at go in; the gate's outcome comes out. HTTP, MCP and the router's
 * composite only translate that outcome into their own wire format.
 */
import type { Capability } from '../catalog/capability.js';
import { runCapability } from '../isolation/pool.js';
import { requestFingerprint } from './canonical-json.js';
import type { GateOutcome, PaymentGate } from './gate.js';
import type { PaymentPayload, PaymentRequired } from './rail.js';

export { HOW_TO_PAY } from './how-to-pay.js';

/** What a transport knows about an entry besides the catalog: its 402 description and advertised extensions (built once). */
export interface PaidOffer {
  cap: Capability;
  /** One sentence for the 402's `resource.description`. */
  summary: string;
  /** Extensions for the 402 (Bazaar discovery), richest first. */
  extensionCandidates: Array<Record<string, unknown>>;
}

/** The entry's price for this input: fixed, or a function of the input (the composite router). */
export function priceFor(cap: Capability, input: unknown): string {
  return cap.priceOf ? cap.priceOf(input) : cap.priceAtomic;
}

export function payFor(
  gate: PaymentGate,
  offer: PaidOffer,
  input: unknown,
  payment: PaymentPayload | undefined,
  origin: string,
  opts: { fits?: (paymentRequired: PaymentRequired) => boolean } = {},
): Promise<GateOutcome> {
  const cap = offer.cap;
  let fingerprint: string | undefined;
  return gate.handle({
    resource: cap.id,
    description: offer.summary,
    priceAtomic: priceFor(cap, input),
    resourceUrl: origin + cap.path,
    // Only a paid request is bound to its fingerprint: an unpaid 402 never computes it.
    get fingerprint() {
      return (fingerprint ??= cap.fingerprintOf ? cap.fingerprintOf(input) : requestFingerprint(cap.id, input));
    },
    payment,
    extensionCandidates: offer.extensionCandidates,
    fits: opts.fits,
    // Inline, or on the worker pool for entries marked `isolate` (same bytes either way).
    execute: async () => ({ status: 200, contentType: 'application/json', body: await runCapability(gate, cap, input) }),
  });
}
