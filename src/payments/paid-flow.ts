/**
 * The one paid flow, made once per service at composition (service.ts) from
 * what it needs: the gate, an executor, the receipt hook, the signed-offer
 * check and a clock. Every transport (HTTP, MCP, A2A) hands it, once per
 * request, the input and whatever payment came on its wire as it found them
 * (an x402 payment, an MPP credential, an x402 v1 one, none, or one that
 * cannot be read), and translates the one answer into its own wire format.
 * Which protocol pays, what a malformed credential gets, the price, the
 * fingerprint, the offer's honouring, MPP's challenges and the receipts are
 * decided here, the same way for all of them.
 *
 * The call path only goes down: transport → flow → gate → ledger and rail →
 * executor → receipt hook. Executor and hooks are interfaces declared here and
 * implemented by higher folders (src/isolation, src/commitments), so nothing
 * in payments/ imports them.
 */
import type { Capability } from '../catalog/capability.js';
import { parseJsonBody, type BodyResult, type JsonLimits } from '../catalog/json-input.js';
import { makeInputReader } from '../catalog/input-reader.js';
import { requestFingerprint } from '../foundation/canonical-json.js';
import { errorBody, type ErrorBody, type ErrorDetail } from '../errors.js';
import type { GateOutcome, PaidCall, PaymentGate, ServiceMetadata } from './gate.js';
import {
  MPP_PROBLEMS,
  PAYMENT_AUTHORIZATION,
  credentialFromHeader,
  credentialFromObject,
  mppProblemOf,
  paymentSchemes,
  receiptHeader,
  receiptOf,
  selectedField,
  type CredentialField,
  type MppChallenge,
  type MppCharge,
  type MppCredential,
  type MppProblem,
} from './mpp.js';
import type { PaymentPayload } from './rail.js';

export { HOW_TO_PAY } from './how-to-pay.js';

/**
 * One step of an entry's trade-down for room, richest first: the extensions
 * the 402 advertises (Bazaar discovery) and which of `resource`'s service
 * metadata fields it keeps. The first carries everything; a transport with a
 * size budget (HTTP's header) sends the first that fits.
 */
export interface OfferRung {
  extensions: Record<string, unknown>;
  keeps: ReadonlyArray<keyof ServiceMetadata>;
}

/** What a transport knows about an entry besides the catalog: its 402 description, service metadata and advertised extensions (built once). */
export interface PaidOffer {
  cap: Capability;
  /** One sentence for the 402's `resource.description`. */
  summary: string;
  /** Bazaar's service metadata for the 402's `resource`, at an origin (the icon's URL is absolute at it). */
  serviceMetadata(origin: string): ServiceMetadata;
  /** The 402's extensions and service metadata, richest first (never empty). */
  rungs: OfferRung[];
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

/** A refusal in a transport's own words: the message and where in its request the fault is. */
export interface Worded {
  message: string;
  details: ErrorDetail[];
}

/**
 * How one transport carries payments: whether it speaks MPP, and its words
 * for the refusals the flow decides (each names the transport's own header or
 * metadata key). A constant per transport: the flow decides, the transport
 * only says where things travel.
 */
export interface PaymentWire {
  /**
   * Set when it carries MPP's challenges, credentials and receipts (HTTP and
   * MCP do; A2A does not): its words for a request that pays with both
   * protocols (an x402 payment, or an x402 v1 one, beside an MPP credential),
   * for one that carries two different MPP credentials (HTTP's two fields),
   * and the detail of the draft's malformed-credential problem.
   */
  mpp?: { twoProtocols: Worded; twoCredentials?: Worded; unreadable: string };
  /** The x402 payment is not a PaymentPayload object (over HTTP: not base64 JSON). */
  x402Unreadable: Worded;
  /** Its form of that refusal offers the payment requirement again (A2A's task stays input-required). */
  requirementWithRefusal: boolean;
  /** Where a signed offer travels, as an error detail's path. */
  offerPath: string;
  /** Why a signed offer cannot even be read (over HTTP: X-Signed-Offer is not base64 JSON, or the body not JSON). */
  offerUnreadable?: string;
  /** A payment came with no input at all (an HTTP request without a body). */
  inputRequired?: (cap: Capability) => Worded;
}

/** An input as it came: a body's bytes (HTTP), or a value already parsed from the message (MCP, A2A). */
export type PresentedInput = { bytes: Uint8Array; contentType: string | undefined } | { value: unknown };

/** A signed quote offer as it came, with the body it must have been signed for (as sent, before defaults); or one that could not be read. */
export type PresentedOffer = { signed: unknown; body: unknown } | { unreadable: true };

/** One paid request, as a transport found it on its wire: the flow reads and decides the rest. */
export interface PaidRequest {
  wire: PaymentWire;
  /** The origin the caller reached the service at (PUBLIC_BASE_URL when set): the resource URL's base. */
  origin: string;
  /** The input; none at all for a discovery probe (HTTP's request without a body), which is answered with the entry's base challenge. */
  input: PresentedInput | undefined;
  /** The x402 v2 payment as decoded from the wire (should be a PaymentPayload object; anything else is unreadable). */
  x402?: unknown;
  /** An x402 v1 payment (X-PAYMENT) came: it is never read, only answered. */
  x402v1?: boolean;
  /** HTTP's Authorization header, whatever its scheme: read for MPP's `Payment` credential only while MPP is on. */
  authorization?: string;
  /** HTTP's Payment-Authorization header (the draft's alternate credential field): read like `authorization`. */
  paymentAuthorization?: string;
  /** An MPP credential object (MCP's `org.paymentauth/credential`). */
  mppCredential?: unknown;
  /**
   * The caller's sign-in (SIGN-IN-WITH-X, base64 JSON): with a payment, the
   * proof that it is that payment's buyer; without one, a request for the
   * result its wallet already paid for with this very request.
   */
  signIn?: unknown;
  /** The chain the caller would rather pay and sign in on (a CAIP-2 network or namespace): listed first in `accepts`. */
  preferNetwork?: string;
  /** Who sent it (the transport's client key): asked only when a payment came. */
  client?: () => string;
  offer?: PresentedOffer;
  /** The transport's request id, for the gate's log lines about this call. */
  requestId?: string;
}

type Challenge = Extract<GateOutcome, { kind: 'challenge' }>;
type Deliver = Extract<GateOutcome, { kind: 'deliver' }>;
type Refuse = Extract<GateOutcome, { kind: 'refuse' }>;

/** The draft's problem for a refused MPP credential (RFC 9457), our code in `error` as on every other error. */
export type MppProblemBody = (typeof MPP_PROBLEMS)[MppProblem] & { detail: string; challengeId: string } & ErrorBody;

/** MPP's side of a challenge: a fresh challenge of its own, and the problem when an MPP credential was refused. */
export interface MppChallengeAnswer {
  /** The WWW-Authenticate value (HTTP). */
  header: string;
  /** The same challenge as an object (MCP's `org.paymentauth/payment-required`). */
  readonly challenge: MppChallenge;
  /** An upper bound of `header`'s length for this resource and price (what a header budget leaves room for). */
  readonly headerBytes: number;
  problem?: MppProblemBody;
}

/**
 * The flow's one answer to a request, in terms every transport translates:
 * - `invalid`: refused before any payment step (status and error body); for a
 *   payment that could not be read, with the requirement when the transport's
 *   form offers it again;
 * - `challenge`: the gate's 402, at `priceAtomic`, with MPP's challenge (and
 *   problem) beside it; `v1` when it answers an x402 v1 payment;
 * - `deliver`: the result and its receipts (MPP's when it paid with MPP);
 * - `refuse`: the gate's refusal; `mpp` when it refuses an MPP credential.
 */
export type PaidAnswer =
  | { kind: 'invalid'; about: 'input' | 'payment'; status: number; body: ErrorBody; requirement?: GateOutcome }
  | (Challenge & { priceAtomic: string; v1?: true; mpp?: MppChallengeAnswer })
  | (Deliver & { priceAtomic: string; mpp?: { receiptHeader: string; receipt: Record<string, unknown> } })
  | (Refuse & { priceAtomic: string; mpp?: true });

export interface PaidFlow {
  /** MPP is offered (MPP_SECRET_KEY is set). */
  readonly takesMpp: boolean;
  /** Where free surfaces parse their large messages (the same executor the flow runs entries on). */
  readonly executor: Executor;
  /** The entry's paid face (402 summary, extension candidates), made once per entry. */
  describe(cap: Capability): PaidOffer;
  /** The most bytes an input of `cap` may take: a transport refuses a larger one before reading it. */
  inputLimit(cap: Capability): number;
  /** Reads the request's input and whatever payment came, decides, and answers once. */
  answer(cap: Capability, req: PaidRequest): Promise<PaidAnswer>;
}

/** The fingerprint a paid call is bound to: the entry's own, else RFC 8785 canonical JSON + SHA-256 (canonical-json.ts). */
export function callFingerprint(cap: Pick<Capability, 'id' | 'fingerprintOf'>, input: unknown): string {
  return cap.fingerprintOf ? cap.fingerprintOf(input) : requestFingerprint(cap.id, input);
}

/** The entry's own price for this input: fixed, or a function of the input (the composite router). */
export function entryPrice(cap: Capability, input: unknown): string {
  return cap.priceOf ? cap.priceOf(input) : cap.priceAtomic;
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An entry as the flow meets it, made once: its paid face and its input reader. */
interface Entry {
  offer: PaidOffer;
  reader: ReturnType<typeof makeInputReader>;
}

export function createPaidFlow(deps: PaidFlowDeps): PaidFlow {
  const { gate, executor, receipts, offers, clock } = deps;
  const mpp = gate.mpp;
  const entries = new Map<Capability, Entry>();
  const entryOf = (cap: Capability) => {
    let e = entries.get(cap);
    if (!e) entries.set(cap, (e = { offer: deps.describe(cap), reader: makeInputReader(cap) }));
    return e;
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

  /**
   * The input's verdict, and the fingerprint when the executor computed it
   * reading the body (a paid request's, off the event loop). Synchronous when
   * read inline, so the small bodies of the 402 path wait for no promise.
   */
  function readInput(cap: Capability, reader: Entry['reader'], input: PresentedInput, paid: boolean): BodyRead | Promise<BodyRead> {
    // A value is validated on a copy: defaults are filled in, and the caller's message stays as it came.
    if ('value' in input) return { verdict: reader.fromValue(structuredClone(input.value)) };
    // Where the body is read (inline, or off the event loop for a large body) is the executor's choice; the verdict is the inline one.
    const offThread = executor.readBody(cap, input.contentType, input.bytes, paid);
    if (!offThread) return { verdict: reader.fromBody(input.contentType, input.bytes) };
    return offThread.then((read) => read ?? { verdict: reader.fromBody(input.contentType, input.bytes) });
  }

  /**
   * The MPP credential that came (null: one that cannot be read) and, over
   * HTTP, the field it came in; TWO_CREDENTIALS when a request carries two
   * different ones (in Authorization and Payment-Authorization, or a field
   * sent twice); undefined when none came or MPP is off here. The same value
   * in both fields is one credential, in the field its challenge selected.
   */
  function mppCredentialOf(req: PaidRequest): PresentedMpp {
    if (!mpp || !req.wire.mpp) return undefined;
    if (req.mppCredential !== undefined) return { credential: credentialFromObject(req.mppCredential) ?? null };
    // The unpaid 402 (the hot path) carries neither field.
    if (req.authorization === undefined && req.paymentAuthorization === undefined) return undefined;
    const inAuthorization = paymentSchemes(req.authorization);
    const inPaymentAuthorization = paymentSchemes(req.paymentAuthorization);
    const value = inAuthorization[0] ?? inPaymentAuthorization[0];
    if (value === undefined) return undefined;
    for (const other of [...inAuthorization, ...inPaymentAuthorization]) if (other !== value) return TWO_CREDENTIALS;
    const credential = credentialFromHeader(value) ?? null;
    if (inPaymentAuthorization.length === 0) return { credential, field: 'Authorization' };
    if (inAuthorization.length === 0) return { credential, field: PAYMENT_AUTHORIZATION };
    // In both fields: it came in the one its challenge selected.
    return { credential, field: credential && selectedField(credential.challenge) === PAYMENT_AUTHORIZATION ? PAYMENT_AUTHORIZATION : 'Authorization' };
  }

  function callOf(cap: Capability, offer: PaidOffer, input: unknown, resourceUrl: string, priceAtomic: string, fingerprint: string | undefined, req: PaidRequest, honoured?: HonouredOffer): PaidCall {
    return {
      resource: cap.id,
      description: offer.summary,
      priceAtomic,
      resourceUrl,
      // Only a paid request is bound to its fingerprint: an unpaid 402 never computes it.
      get fingerprint() {
        return (fingerprint ??= callFingerprint(cap, input));
      },
      payment: undefined,
      requestId: req.requestId,
      preferNetwork: req.preferNetwork,
      offerValidUntil: honoured?.validUntil,
      extensions: offer.rungs[0]?.extensions,
      serviceMetadata: offer.serviceMetadata(req.origin),
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
  }

  /** The gate's answer to the call unpaid: the plain 402 (built once per resource, price and chain order) unless a signed offer prices it. */
  async function unpaid(call: PaidCall, honoured: HonouredOffer | undefined): Promise<GateOutcome> {
    return (!honoured && gate.cachedChallenge(call.resourceUrl, call.priceAtomic, call.preferNetwork)) || gate.handle(call);
  }

  /** The gate's outcome as the flow answers it: MPP's challenge beside a 402 (and its problem to an MPP credential), MPP's receipt to an MPP payment. */
  function finish(outcome: GateOutcome, priceAtomic: string, req: PaidRequest, credential: MppCredential | null | undefined): PaidAnswer {
    switch (outcome.kind) {
      case 'challenge': {
        // One literal of one shape (not a spread): the unpaid 402 is the hot path, and every reader of the answer sees the same shape.
        const o = outcome;
        const m = mpp && req.wire.mpp ? mppChallenge(mpp, o, priceAtomic, credential !== undefined, challengeField(req)) : undefined;
        return {
          kind: 'challenge',
          code: o.code,
          message: o.message,
          price: o.price,
          paymentRequired: o.paymentRequired,
          template: o.template,
          signInStamp: o.signInStamp,
          paymentResponse: o.paymentResponse,
          mppProblem: o.mppProblem,
          encoded: o.encoded,
          priceAtomic,
          v1: undefined,
          mpp: m,
        };
      }
      case 'deliver':
        return credential ? { ...outcome, priceAtomic, mpp: mppReceipt(outcome, credential) } : { ...outcome, priceAtomic };
      case 'refuse':
        return credential !== undefined ? { ...outcome, priceAtomic, mpp: true } : { ...outcome, priceAtomic };
    }
  }

  async function answer(cap: Capability, req: PaidRequest): Promise<PaidAnswer> {
    const { offer, reader } = entryOf(cap);
    const { wire } = req;
    const resourceUrl = req.origin + cap.path;
    const presented = mppCredentialOf(req);
    const credential = presented === TWO_CREDENTIALS ? undefined : presented?.credential;
    const paying = req.x402 !== undefined || req.x402v1 === true || presented !== undefined;
    if (req.input === undefined) {
      // No input: with a payment there is nothing to deliver for, so it is refused before any payment step; unpaid it is a discovery probe.
      if (paying) return invalid('input', 'invalid_request', wire.inputRequired!(cap));
      return finish(await probe(cap, offer, resourceUrl, req), cap.priceRange?.minAtomic ?? cap.priceAtomic, req, undefined);
    }
    // A sign-in (a string; anything else is no sign-in) asks for what this request bought: it needs the fingerprint, as a payment does.
    const signIn = typeof req.signIn === 'string' ? req.signIn : undefined;
    const reading = readInput(cap, reader, req.input, req.x402 !== undefined || signIn !== undefined);
    const read = reading instanceof Promise ? await reading : reading;
    if (!read.verdict.ok) return { kind: 'invalid', about: 'input', status: read.verdict.status, body: read.verdict.body as ErrorBody };
    const input = read.verdict.input;
    if (presented !== undefined && (req.x402 !== undefined || req.x402v1)) return invalid('payment', 'invalid_payment_header', wire.mpp!.twoProtocols);
    if (presented === TWO_CREDENTIALS) return invalid('payment', 'invalid_payment_header', wire.mpp!.twoCredentials!);
    const listPrice = entryPrice(cap, input);
    if (req.x402v1 && req.x402 === undefined) {
      // An x402 v1 payment: never decoded, verified or bound. The answer names v2 and carries its challenge.
      const refused = finish(await unpaid(callOf(cap, offer, input, resourceUrl, listPrice, undefined, req), undefined), listPrice, req, undefined);
      if (refused.kind === 'challenge') refused.v1 = true;
      return refused;
    }
    if (credential === null) {
      // The draft's malformed-credential problem, with fresh challenges: nothing was verified, bound or charged.
      const outcome = await unpaid(callOf(cap, offer, input, resourceUrl, listPrice, undefined, req), undefined);
      const malformed: GateOutcome = outcome.kind === 'challenge' ? { ...outcome, code: 'payment_invalid', message: wire.mpp!.unreadable, mppProblem: 'malformed' } : outcome;
      return finish(malformed, listPrice, req, null);
    }
    let honoured: HonouredOffer | undefined;
    if (req.offer) {
      const h = 'unreadable' in req.offer ? wire.offerUnreadable! : await honour(req.offer.signed, req.offer.body, resourceUrl);
      if (typeof h === 'string') return invalid('payment', 'invalid_request', { message: `The signed offer cannot be honoured: ${h}.`, details: [{ path: wire.offerPath, rule: 'signed-offer' }] });
      honoured = h;
    }
    // A signed offer for this route and body is the price, whatever the entry says now.
    const priceAtomic = honoured ? honoured.amount : listPrice;
    if (req.x402 === undefined && !credential && !honoured && signIn === undefined) {
      // The unpaid 402, once built for this resource and price: answered without building a call (the hot path).
      const cached = gate.cachedChallenge(resourceUrl, priceAtomic, req.preferNetwork);
      if (cached) return finish(cached, priceAtomic, req, undefined);
    }
    const call = callOf(cap, offer, input, resourceUrl, priceAtomic, read.fingerprint, req, honoured);
    if (req.x402 !== undefined && !isObject(req.x402)) {
      const requirement = wire.requirementWithRefusal ? await unpaid(call, honoured) : undefined;
      return { ...invalid('payment', 'invalid_payment_header', wire.x402Unreadable), ...(requirement && { requirement }) };
    }
    if (req.x402 === undefined && !credential && signIn === undefined) return finish(await unpaid(call, honoured), priceAtomic, req, undefined);
    call.payment = req.x402 as PaymentPayload | undefined;
    call.mpp = credential ?? undefined;
    call.mppField = presented?.field;
    call.signIn = signIn;
    call.client = req.client?.();
    const outcome = await gate.handle(call);
    if (outcome.kind !== 'deliver' || !receipts) return finish(outcome, priceAtomic, req, credential);
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
    return finish({ ...outcome, paymentResponse: { ...settled, extensions: { ...settled.extensions, ...extensions } } }, priceAtomic, req, credential);
  }

  /**
   * The challenge for a request that brings no input at all (a discovery
   * probe): the entry's base price. Nothing can be bought with it: there is no
   * input, so no fingerprint and nothing to run.
   */
  async function probe(cap: Capability, offer: PaidOffer, resourceUrl: string, req: PaidRequest): Promise<GateOutcome> {
    // The least this entry can cost: a probe has no input to price.
    const priceAtomic = cap.priceRange?.minAtomic ?? cap.priceAtomic;
    return gate.handle({
      resource: cap.id,
      description: offer.summary,
      priceAtomic,
      resourceUrl,
      get fingerprint(): string {
        throw new Error(`${cap.id}: a call without input has no fingerprint and cannot be paid`);
      },
      payment: undefined,
      requestId: req.requestId,
      preferNetwork: req.preferNetwork,
      discovery: true,
      extensions: offer.rungs[0]?.extensions,
      serviceMetadata: offer.serviceMetadata(req.origin),
      execute: () => {
        throw new Error(`${cap.id}: a call without input cannot be executed`);
      },
    });
  }

  return { takesMpp: mpp !== undefined, executor, describe: (cap) => entryOf(cap).offer, inputLimit: (cap) => entryOf(cap).reader.limit, answer };
}

/** A 400 before any payment step, about the input itself or about the payment (and signed offer) that came with it. */
function invalid(about: 'input' | 'payment', code: 'invalid_request' | 'invalid_payment_header', w: Worded): Extract<PaidAnswer, { kind: 'invalid' }> {
  return { kind: 'invalid', about, status: 400, body: errorBody(code, w.message, w.details) };
}

/** What MPP credential a request presented (see mppCredentialOf). */
type PresentedMpp = { credential: MppCredential | null; field?: CredentialField } | typeof TWO_CREDENTIALS | undefined;
const TWO_CREDENTIALS = 'two-credentials';

/**
 * The field a 402's MPP challenge selects for its credential:
 * Payment-Authorization when the request's Authorization holds another
 * scheme (a proxy's or the client's own authentication, which the credential
 * must not displace), or when it already used Payment-Authorization; else
 * the default, Authorization (undefined).
 */
function challengeField(req: PaidRequest): CredentialField | undefined {
  if (req.paymentAuthorization !== undefined) return PAYMENT_AUTHORIZATION;
  return req.authorization !== undefined && paymentSchemes(req.authorization).length === 0 ? PAYMENT_AUTHORIZATION : undefined;
}

/** A fresh MPP challenge for this 402 (its hash is the nonce the buyer signs), its credential to come in `field`, and, to an MPP credential, the draft's problem. */
function mppChallenge(mpp: MppCharge, outcome: Challenge, priceAtomic: string, toCredential: boolean, field: CredentialField | undefined): MppChallengeAnswer {
  const url = outcome.paymentRequired.resource.url;
  const issued = mpp.issue(url, priceAtomic, field);
  const answer: MppChallengeAnswer = {
    header: issued.header,
    get challenge() {
      return issued.challenge;
    },
    get headerBytes() {
      return mpp.headerBytes(url, priceAtomic, field);
    },
  };
  if (toCredential) {
    const p = MPP_PROBLEMS[mppProblemOf(outcome)];
    answer.problem = { type: p.type, title: p.title, status: p.status, detail: outcome.message, challengeId: issued.challenge.id, ...errorBody(outcome.code, outcome.message) } as MppProblemBody;
  }
  return answer;
}

/** MPP's receipt for a delivery paid with an MPP credential: the Payment-Receipt value, and the object (with its challenge's id) MCP carries. */
function mppReceipt(outcome: Deliver, credential: MppCredential): { receiptHeader: string; receipt: Record<string, unknown> } {
  const { transaction } = outcome.paymentResponse;
  return { receiptHeader: receiptHeader(transaction, outcome.boundAt), receipt: { ...receiptOf(transaction, outcome.boundAt), challengeId: credential.challenge.id } };
}

/** The executor of a service without a worker pool (and of unit tests): everything on the event loop. */
export const INLINE_EXECUTOR: Executor = {
  async run(cap, input) {
    return { body: JSON.stringify(await cap.run(input)) };
  },
  readBody: () => undefined,
  parseMessage: async (body, limits) => parseJsonBody(body, limits),
};
