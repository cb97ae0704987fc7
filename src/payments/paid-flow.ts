/**
 * The one paid flow every transport uses: a catalog entry, its validated
 * input, the caller's payment (if any) and the origin the caller reached us
 * at go in; the gate's outcome comes out. HTTP, MCP and the router's
 * composite only translate that outcome into their own wire format.
 */
import type { Capability } from '../catalog/capability.js';
import { OFFER_RECEIPT } from '../commitments/formats.js';
import type { CommitmentSigner } from '../commitments/signer.js';
import { runCapability } from '../isolation/pool.js';
import { requestFingerprint } from '../foundation/canonical-json.js';
import type { GateOutcome, PaidCall, PaymentGate } from './gate.js';
import type { MppCredential } from './mpp.js';
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

/**
 * The challenge for a request that brings no input at all (a discovery probe,
 * x402scan's): the entry's base price and its richest extensions that fit.
 * Nothing can be bought with it: there is no input to run, so the call has no
 * fingerprint and nothing to execute, and the gate only ever answers it with
 * the challenge (the transport refuses a payment sent without input before
 * calling this).
 */
export function challengeWithoutInput(gate: PaymentGate, offer: PaidOffer, origin: string, opts: Pick<PayOptions, 'fits' | 'fitsName'> = {}): Promise<GateOutcome> {
  const cap = offer.cap;
  return gate.handle({
    resource: cap.id,
    description: offer.summary,
    priceAtomic: cap.priceRange?.minAtomic ?? cap.priceAtomic,
    resourceUrl: origin + cap.path,
    get fingerprint(): string {
      throw new Error(`${cap.id}: a call without input has no fingerprint and cannot be paid`);
    },
    payment: undefined,
    extensionCandidates: offer.extensionCandidates,
    fits: opts.fits,
    fitsName: opts.fitsName,
    execute: () => {
      throw new Error(`${cap.id}: a call without input cannot be executed`);
    },
  });
}

/**
 * The entry's price for this input: fixed, or a function of the input (the
 * composite router) — unless the buyer brings an offer this service signed
 * for this route and this very body (the transport checks that with
 * `verifyQuoteOffer`): then the signed amount is the price, whatever the
 * entry says now. Whether the offer still holds is the gate's decision: a new
 * payment only until its `validUntil`, a redelivery of a payment bound before
 * then at any time.
 */
export function priceFor(cap: Capability, input: unknown, honoured?: HonouredOffer): string {
  if (honoured) return honoured.amount;
  return cap.priceOf ? cap.priceOf(input) : cap.priceAtomic;
}

/** A signed quote offer, authentic and for this route and this body; possibly expired (the gate decides). */
export interface HonouredOffer {
  amount: string;
  validUntil: number;
}

/** The fingerprint a paid call is bound to: the entry's own, else RFC 8785 canonical JSON + SHA-256 (canonical-json.ts). */
export function callFingerprint(cap: Capability, input: unknown): string {
  return cap.fingerprintOf ? cap.fingerprintOf(input) : requestFingerprint(cap.id, input);
}

export interface PayOptions {
  fits?: (paymentRequired: PaymentRequired) => boolean;
  /** Names `fits` when a transport uses more than one budget (see PaidCall.fitsName). */
  fitsName?: string;
  /** Signs the receipt every paid delivery carries; none when the operator configured no key. */
  signer?: CommitmentSigner;
  honoured?: HonouredOffer;
  /** The caller's sign-in proof (SIGN-IN-WITH-X, base64 JSON) for a redelivery. */
  signIn?: string;
  /** The payment as an MPP credential instead of `payment` (see PaidCall.mpp). */
  mpp?: MppCredential;
  /** `callFingerprint(cap, input)` when it was already computed off the event loop (the worker pool reads large bodies). */
  fingerprint?: string;
}

export async function payFor(
  gate: PaymentGate,
  offer: PaidOffer,
  input: unknown,
  payment: PaymentPayload | undefined,
  origin: string,
  opts: PayOptions = {},
): Promise<GateOutcome> {
  const cap = offer.cap;
  const priceAtomic = priceFor(cap, input, opts.honoured);
  if (!payment && !opts.mpp && !opts.honoured) {
    // The unpaid 402, once built for this resource, price and transport: no call object, no await (--cpu-prof: ~10 µs a 402).
    const cached = gate.cachedChallenge(origin + cap.path, priceAtomic, opts.fits ? (opts.fitsName ?? 'fitted') : 'full');
    if (cached) return cached;
  }
  let fingerprint: string | undefined;
  const call: PaidCall = {
    resource: cap.id,
    description: offer.summary,
    priceAtomic,
    resourceUrl: origin + cap.path,
    // Only a paid request is bound to its fingerprint: an unpaid 402 never computes it.
    get fingerprint() {
      return (fingerprint ??= opts.fingerprint ?? callFingerprint(cap, input));
    },
    payment,
    signIn: opts.signIn,
    mpp: opts.mpp,
    offerValidUntil: opts.honoured?.validUntil,
    extensionCandidates: offer.extensionCandidates,
    fits: opts.fits,
    fitsName: opts.fitsName,
    // Inline, or on the worker pool for entries marked `isolate` (same bytes either way). A method, not
    // an arrow: tsx (esbuild keepNames) names every arrow stored in a property with a defineProperty
    // call, which cost the unpaid 402 ~5 µs a request (--cpu-prof).
    async execute() {
      const { body, bytes, sha256 } = await runCapability(gate, cap, input);
      return { status: 200, contentType: 'application/json', body, bodySha256: sha256, bodyBytes: bytes };
    },
  };
  const outcome = await gate.handle(call);
  return outcome.kind === 'deliver' && opts.signer ? withReceipt(outcome, call, opts.signer) : outcome;
}

/**
 * A delivery with its signed receipt in `PAYMENT-RESPONSE`'s
 * `extensions["offer-receipt"]`. Every signed fact is stored in the ledger
 * (the settlement, the bound fingerprint and time, the response bytes), so a
 * redelivery of the same payment carries the same receipt.
 */
async function withReceipt(outcome: Extract<GateOutcome, { kind: 'deliver' }>, call: PaidCall, signer: CommitmentSigner): Promise<GateOutcome> {
  const settled = outcome.paymentResponse;
  const ext = await signer.receipt({
    resourceUrl: call.resourceUrl,
    network: settled.network,
    payer: settled.payer ?? '',
    transaction: settled.transaction,
    amount: settled.amount ?? call.priceAtomic,
    issuedAt: Math.floor(outcome.boundAt / 1000),
    requestFingerprint: call.fingerprint,
    responseBody: outcome.response.body,
    responseSha256: outcome.response.bodySha256,
  });
  return { ...outcome, paymentResponse: { ...settled, extensions: { ...settled.extensions, [OFFER_RECEIPT]: ext } } };
}
