/**
 * The one paid flow, made once per service at composition (service.ts) from
 * what it needs: the gate, an executor, the receipt hook, the signed-offer
 * check and a clock. Every transport (HTTP, MCP, A2A) hands it a validated
 * input and whatever payment came on its wire, and translates the answer into
 * its own wire format; the price, the fingerprint, the offer's honouring and
 * the receipt are decided here, the same way for all of them.
 *
 * The call path only goes down: transport → flow → gate → ledger and rail →
 * executor → receipt hook. Executor and hooks are interfaces declared here and
 * implemented by higher folders (src/isolation, src/commitments), so nothing
 * in payments/ imports them.
 */
import type { Capability } from '../catalog/capability.js';
import { parseJsonBody, type BodyResult, type JsonLimits } from '../catalog/json-input.js';
import type { makeInputReader } from '../catalog/input-reader.js';
import { requestFingerprint } from '../foundation/canonical-json.js';
import type { GateOutcome, PaidCall, PaymentGate } from './gate.js';
import type { MppCharge, MppCredential } from './mpp.js';
import type { PaymentPayload } from './rail.js';

export { HOW_TO_PAY } from './how-to-pay.js';

/** What a transport knows about an entry besides the catalog: its 402 description and advertised extensions (built once). */
export interface PaidOffer {
  cap: Capability;
  /** One sentence for the 402's `resource.description`. */
  summary: string;
  /** Extensions for the 402 (Bazaar discovery), richest first. */
  extensionCandidates: Array<Record<string, unknown>>;
}

/** An input reader's verdict on a body: the input, or the error answer (status and body). */
export type BodyVerdict = ReturnType<ReturnType<typeof makeInputReader>['fromBody']>;

/** A body read off the event loop: the verdict and, when asked for a valid input, `callFingerprint(cap, input)`. */
export interface BodyRead {
  verdict: BodyVerdict;
  fingerprint?: string;
}

/** A response body, and its UTF-8 bytes and SHA-256 (hex) when they were made where the body was. */
export interface ExecutedBody {
  body: string;
  bytes?: Uint8Array;
  sha256?: string;
}

/**
 * Where the work of a call runs, chosen per catalog entry when the service is
 * assembled (src/isolation: inline, or on the worker pool under the service's
 * budget). The flow never knows which.
 */
export interface Executor {
  /** The response body of one call: byte-identical wherever it runs. */
  run(cap: Capability, input: unknown): Promise<ExecutedBody>;
  /**
   * A request body of `cap` read off the event loop: the inline reader's
   * verdict and, when `paid`, the call's fingerprint. Undefined (decided
   * synchronously, so the small bodies of the 402 path pay no promise): read it inline.
   */
  readBody(cap: Capability, contentType: string | undefined, body: Uint8Array, paid: boolean): Promise<BodyRead | undefined> | undefined;
  /** A free surface's JSON message (MCP, A2A, a router quote): parseJsonBody's verdict, wherever it is computed. */
  parseMessage(body: Uint8Array, limits: JsonLimits): Promise<BodyResult<unknown>>;
}

/** What a delivery's receipt is made from: every fact stored in the ledger, so a redelivery gets the same receipt. */
export interface DeliveryFacts {
  resourceUrl: string;
  network: string;
  payer: string;
  transaction: string;
  amount: string;
  /** Unix seconds: when the payment was bound to this request. */
  issuedAt: number;
  /** Hex SHA-256 the ledger bound the payment to. */
  requestFingerprint: string;
  /** The exact response body. */
  responseBody: string | Uint8Array;
  /** Its SHA-256 (hex), when already computed where the body was made; else hashed by the hook. */
  responseSha256?: string;
}

/** Adds a delivery's receipt: the extensions to merge into its PAYMENT-RESPONSE (src/commitments signs them). */
export type ReceiptHook = (delivery: DeliveryFacts) => Promise<Record<string, unknown>>;

/** A signed quote offer's terms, once checked authentic and for this route and body. */
export interface HonouredOffer {
  amount: string;
  validUntil: number;
}

/** The check of a signed offer (src/commitments): its terms, or why it cannot be honoured (with its terms when it only expired). */
export type OfferVerifier = (
  signed: unknown,
  against: { body: unknown; resourceUrl: string; nowSeconds: number },
) => Promise<{ ok: true; offer: HonouredOffer } | { ok: false; problem: string; expired?: HonouredOffer }>;

export interface PaidFlowDeps {
  gate: PaymentGate;
  executor: Executor;
  /** The entry's paid face (402 summary, extensions); asked once per entry. */
  describe: (cap: Capability) => PaidOffer;
  /** Signs each delivery's receipt; none when the operator configured no key. */
  receipts?: ReceiptHook;
  /** Checks signed quote offers; none when this service signs no offers. */
  offers?: OfferVerifier;
  /** Milliseconds since the epoch: the same clock the gate judges expiry by. */
  clock: () => number;
}

/** One paid request, as a transport read it off its wire. */
export interface PaidRequest {
  /** The validated input. */
  input: unknown;
  /** The origin the caller reached the service at (PUBLIC_BASE_URL when set): the resource URL's base. */
  origin: string;
  payment?: PaymentPayload;
  /** The payment as an MPP credential instead of `payment` (see PaidCall.mpp). */
  mpp?: MppCredential;
  /** The caller's sign-in proof (SIGN-IN-WITH-X, base64 JSON) for a redelivery. */
  signIn?: string;
  /** Who sent it: the transport's client key (see PaidCall.client); needed only with a payment. */
  client?: string;
  /** A signed quote offer the buyer sent, and the body it must have been signed for (as sent, before defaults). */
  offer?: { signed: unknown; body: unknown };
  /** `callFingerprint(cap, input)` when the executor already computed it reading the body. */
  fingerprint?: string;
  /** The transport's request id, for the gate's log lines about this call. */
  requestId?: string;
}

/** The flow's answer: the gate's outcome, or a signed offer refused before any payment step; and the price asked. */
export interface PaidAnswer {
  outcome: GateOutcome | { kind: 'offer-refused'; message: string };
  priceAtomic: string;
}

export interface PaidFlow {
  /** The service's MPP (undefined when off): transports read its credentials and issue its challenges. */
  readonly mpp: MppCharge | undefined;
  readonly executor: Executor;
  /** The entry's paid face (402 summary, extension candidates), made once per entry. */
  describe(cap: Capability): PaidOffer;
  pay(cap: Capability, req: PaidRequest): Promise<PaidAnswer>;
  /**
   * The challenge for a request that brings no input at all (a discovery
   * probe): the entry's base price. Nothing can be bought with it: there is no
   * input, so no fingerprint and nothing to run (the transport refuses a
   * payment sent without input before asking).
   */
  probe(cap: Capability, origin: string): Promise<PaidAnswer & { outcome: GateOutcome }>;
}

/** The fingerprint a paid call is bound to: the entry's own, else RFC 8785 canonical JSON + SHA-256 (canonical-json.ts). */
export function callFingerprint(cap: Pick<Capability, 'id' | 'fingerprintOf'>, input: unknown): string {
  return cap.fingerprintOf ? cap.fingerprintOf(input) : requestFingerprint(cap.id, input);
}

/** The entry's own price for this input: fixed, or a function of the input (the composite router). */
export function entryPrice(cap: Capability, input: unknown): string {
  return cap.priceOf ? cap.priceOf(input) : cap.priceAtomic;
}

export function createPaidFlow(deps: PaidFlowDeps): PaidFlow {
  const { gate, executor, receipts, offers, clock } = deps;
  const described = new Map<Capability, PaidOffer>();
  const offerOf = (cap: Capability) => {
    let o = described.get(cap);
    if (!o) described.set(cap, (o = deps.describe(cap)));
    return o;
  };

  /**
   * A signed offer checked against this route and body: its terms, or why it
   * cannot be honoured. An authentic offer that has expired is passed on: the
   * gate honours it only for an authorization bound before validUntil (a
   * redelivery), never for a new payment.
   */
  async function honour(signed: unknown, body: unknown, resourceUrl: string): Promise<HonouredOffer | string> {
    if (!offers) return 'this service signs no offers (no signing key configured)';
    const check = await offers(signed, { body, resourceUrl, nowSeconds: Math.floor(clock() / 1000) });
    if (check.ok) return check.offer;
    return check.expired ?? check.problem;
  }

  async function pay(cap: Capability, req: PaidRequest): Promise<PaidAnswer> {
    const described = offerOf(cap);
    const resourceUrl = req.origin + cap.path;
    let honoured: HonouredOffer | undefined;
    if (req.offer) {
      const h = await honour(req.offer.signed, req.offer.body, resourceUrl);
      if (typeof h === 'string') return { outcome: { kind: 'offer-refused', message: `The signed offer cannot be honoured: ${h}.` }, priceAtomic: entryPrice(cap, req.input) };
      honoured = h;
    }
    // A signed offer for this route and body is the price, whatever the entry says now.
    const priceAtomic = honoured ? honoured.amount : entryPrice(cap, req.input);
    if (!req.payment && !req.mpp && !honoured) {
      // The unpaid 402, once built for this resource and price: answered without building a call.
      const cached = gate.cachedChallenge(resourceUrl, priceAtomic);
      if (cached) return { outcome: cached, priceAtomic };
    }
    let fingerprint = req.fingerprint;
    const input = req.input;
    const call: PaidCall = {
      resource: cap.id,
      description: described.summary,
      priceAtomic,
      resourceUrl,
      // Only a paid request is bound to its fingerprint: an unpaid 402 never computes it.
      get fingerprint() {
        return (fingerprint ??= callFingerprint(cap, input));
      },
      payment: req.payment,
      requestId: req.requestId,
      signIn: req.signIn,
      client: req.client,
      mpp: req.mpp,
      offerValidUntil: honoured?.validUntil,
      extensions: described.extensionCandidates[0],
      // A method, not an arrow property: tsx names every arrow stored in a property (esbuild keepNames), a cost on each 402.
      async execute() {
        const out = await executor.run(cap, input);
        // The text is read through `out` only when something asks for it: a result made on the pool travels as its bytes.
        return {
          status: 200,
          contentType: 'application/json',
          get body() {
            return out.body;
          },
          bodySha256: out.sha256,
          bodyBytes: out.bytes,
        };
      },
    };
    const outcome = await gate.handle(call);
    if (outcome.kind !== 'deliver' || !receipts) return { outcome, priceAtomic };
    const settled = outcome.paymentResponse;
    const extensions = await receipts({
      resourceUrl,
      network: settled.network,
      payer: settled.payer ?? '',
      transaction: settled.transaction,
      amount: settled.amount ?? priceAtomic,
      issuedAt: Math.floor(outcome.boundAt / 1000),
      requestFingerprint: call.fingerprint,
      // The hash when the pool made it, else the text to hash: the body's text is not made just for this.
      get responseBody() {
        return outcome.response.body;
      },
      responseSha256: outcome.response.bodySha256,
    });
    return { outcome: { ...outcome, paymentResponse: { ...settled, extensions: { ...settled.extensions, ...extensions } } }, priceAtomic };
  }

  async function probe(cap: Capability, origin: string): Promise<PaidAnswer & { outcome: GateOutcome }> {
    const described = offerOf(cap);
    // The least this entry can cost: a probe has no input to price.
    const priceAtomic = cap.priceRange?.minAtomic ?? cap.priceAtomic;
    const outcome = await gate.handle({
      resource: cap.id,
      description: described.summary,
      priceAtomic,
      resourceUrl: origin + cap.path,
      get fingerprint(): string {
        throw new Error(`${cap.id}: a call without input has no fingerprint and cannot be paid`);
      },
      payment: undefined,
      extensions: described.extensionCandidates[0],
      execute: () => {
        throw new Error(`${cap.id}: a call without input cannot be executed`);
      },
    });
    return { outcome, priceAtomic };
  }

  return { mpp: gate.mpp, executor, describe: offerOf, pay, probe };
}

/** The executor of a service without a worker pool (and of unit tests): everything on the event loop. */
export const INLINE_EXECUTOR: Executor = {
  async run(cap, input) {
    return { body: JSON.stringify(await cap.run(input)) };
  },
  readBody: () => undefined,
  parseMessage: async (body, limits) => parseJsonBody(body, limits),
};
