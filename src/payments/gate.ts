/**
 * The payment gate: the only code that touches money.
 *
 *   challenge ─ or ─ admit (local checks) → bind (reserve) → verify → run → store → settle → record → deliver
 *
 * It knows nothing about what a capability does and nothing about HTTP: it
 * returns a `GateOutcome` that the HTTP route and the MCP tool translate.
 *
 * Rules it keeps (each has a test named after the attack or fault):
 * - Nothing is written or sent for a payment that fails the local checks
 *   of its chain (chains/: shape, amount, payee, window, the payer's signature).
 * - One authorization (payer + its identity on its chain: the EIP-3009 nonce,
 *   a Solana transaction's signed message) is bound, durably and before
 *   the facilitator is asked, to one resource and one request fingerprint;
 *   only the bound payload is ever settled.
 * - A stored result is handed only to a caller presenting exactly the signed
 *   authorization that was bound AND a proof that never went on chain (the
 *   payment-identifier it was bound with, or a fresh sign-in by the payer's
 *   key): after settlement the signature is public calldata. Without that
 *   proof the answer is the same whatever the body, and such tries per
 *   authorization are limited.
 * - Nothing is delivered unless the chain transfer is confirmed; nothing is
 *   settled unless the result is stored and deliverable.
 * - An attempt becomes `failed` only when no transfer can happen any more;
 *   a refused or unanswered settlement stays `unknown` until the chain says.
 * - The lease on an attempt is renewed while a request drives it, so a
 *   duplicate never takes over a settlement in flight.
 */
import { randomUUID } from 'node:crypto';
import { extractPaymentIdentifier } from '@x402/extensions/payment-identifier';
import type { AssetConfig } from '../config.js';
import { ServiceError, type ErrorCode } from '../errors.js';
import { LedgerUnavailableError, responseToStore, type AttemptState, type Ledger, type LedgerArgs, type PaymentAttempt, type StoredResponse, type TransitionPatch } from '../store/ledger.js';
import type { Authorization, ChainFate, NotNew, PaymentChain } from './chains/payment-chain.js';
import type { RailOffer } from './rails.js';
export type { RailOffer };
import { HOW_TO_PAY, RESEND_PROOF } from './how-to-pay.js';
import { sha256Hex } from '../foundation/canonical-json.js';
import type { CredentialField, MppCharge, MppCredential, MppProblem } from './mpp.js';
import { MIN_IDENTIFIER_BITS, RedeliveryGuard, paymentKeyOf } from './redelivery.js';
import { UNKNOWN_CLIENT } from '../foundation/client-key.js';
import { SignInWithX, stamped, type SignInCheck, type SignInStamp } from './sign-in.js';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleOutcome, SettleResponse, VerifyOutcome } from './rail.js';

/** A facilitator rejects authorizations that expire within 6 s; we refuse to start settling closer than this. */
export const SETTLE_MARGIN_SECONDS = 10;

/** Retry-After for a settlement whose transfer may still be mined. */
const PENDING_RETRY_SECONDS = 5;

/**
 * What the gate needs from the payment rail: the SDK's requirement and 402
 * building, the facilitator's verify and settle sorted into outcomes, and
 * each network's chain (chains/). `PaymentRail` is the real one; the unit
 * tests drive the gate through a scripted fake (test/support/).
 */
export interface GateRail {
  readonly ready: boolean;
  /** The EVM rail (always offered; MPP and sign-in speak it). */
  readonly payment: { network: string; payTo: string; asset: AssetConfig; maxTimeoutSeconds: number };
  /** Every chain the 402 offers, the EVM rail first. */
  readonly offers: readonly RailOffer[];
  chainFor(network: string): PaymentChain | undefined;
  requirements(priceAtomic: string): Promise<PaymentRequirements[]>;
  paymentRequired(
    requirements: PaymentRequirements[],
    resource: { url: string; description: string; mimeType: string } & ServiceMetadata,
    error?: string,
    extra?: Record<string, unknown>,
  ): Promise<PaymentRequired>;
  match(requirements: PaymentRequirements[], payload: PaymentPayload): PaymentRequirements | undefined;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyOutcome>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleOutcome>;
}

/**
 * Bazaar's service metadata, which x402 v2 carries on the 402's `resource`
 * beside its URL (not in `extensions.bazaar`): a buyer's client echoes
 * `resource` in its payment, and the facilitator catalogues these fields from
 * there (the SDK's `sanitizeResourceServiceMetadata`).
 */
export interface ServiceMetadata {
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
}
/** Every field of ServiceMetadata: what a transport short of room may leave out of `resource`, and nothing else. */
export const SERVICE_METADATA_KEYS = ['serviceName', 'tags', 'iconUrl'] as const satisfies ReadonlyArray<keyof ServiceMetadata>;

export interface PaidCall {
  /** Capability id; the resource an authorization is bound to. */
  resource: string;
  description: string;
  priceAtomic: string;
  resourceUrl: string;
  /** SHA-256 of the resource and its canonical request. */
  fingerprint: string;
  payment: PaymentPayload | undefined;
  /** The transport's request id: named in every log line about this call. */
  requestId?: string;
  /**
   * The caller's `sign-in-with-x` proof (base64 JSON, as the SIGN-IN-WITH-X
   * header carries it), if any. With a payment it proves who may receive what
   * that payment bought; without one, it asks for the result its signer
   * already paid for with this very request.
   */
  signIn?: string;
  /**
   * The chain the caller would rather pay (and sign in) on, when it said so:
   * a CAIP-2 network, or a namespace (`eip155`, `solana`). Its requirement is
   * listed first, as clients that read only `accepts[0]` need.
   */
  preferNetwork?: string;
  /**
   * A discovery probe (a request without input): nothing can be paid for or
   * got again with it, so its 402 declares no sign-in (discovery clients,
   * x402scan's among them, read a sign-in declaration as a route gated by
   * sign-in rather than sold).
   */
  discovery?: true;
  /**
   * Who is asking: the key every per-client limit counts by (the transport's
   * clientKey). Wrong payment-identifiers are limited per client; callers
   * that cannot tell share one key.
   */
  client?: string;
  /**
   * The payment as an MPP credential (`Authorization: Payment`,
   * `Payment-Authorization: Payment`, or MCP's `org.paymentauth/credential`)
   * instead of `payment`: checked against the challenge we issued, then paid
   * exactly like the x402 payload it maps to.
   */
  mpp?: MppCredential;
  /** The HTTP field `mpp` came in (none: MCP's `_meta`): it counts only in the one its challenge selected. */
  mppField?: CredentialField;
  /**
   * When the price comes from a signed quote offer: its `validUntil` (unix
   * seconds). Past it the offer is honoured only for an authorization bound
   * before it expired (a redelivery), never for a new one.
   */
  offerValidUntil?: number;
  /** Extensions to advertise on the 402 (Bazaar discovery); a transport with a size budget trims them (src/http). */
  extensions?: Record<string, unknown>;
  /** Bazaar's service metadata for the 402's `resource`, at this request's origin; a transport with a size budget trims it too. */
  serviceMetadata?: ServiceMetadata;
  /** Produce the deliverable; must be deterministic for the fingerprint. Throwing means "cannot deliver". */
  execute: () => StoredResponse | Promise<StoredResponse>;
}

export interface Timings {
  ledgerMs: number;
  verifyMs: number;
  handlerMs: number;
  settleMs: number;
  chainMs: number;
}

type ChallengeCode = Extract<ErrorCode, 'payment_required' | 'payment_invalid' | 'payment_fee_too_high' | 'payment_expired' | 'settlement_failed' | 'redelivery_proof_required'>;

export type GateOutcome =
  | {
      kind: 'challenge';
      code: ChallengeCode;
      message: string;
      /**
       * payment_required only: the price and payee in one sentence, without
       * the HTTP instructions `message` ends with, for a transport that says
       * how to pay its own way (A2A sends the payment as task metadata).
       */
      price?: string;
      /** With this 402's own sign-in message (`signInStamp`) in its `sign-in-with-x` declaration. */
      paymentRequired: PaymentRequired;
      /**
       * The same PaymentRequired with the placeholder stamp: what a transport
       * that caches its encodings (`encoded`) encodes once, writing each
       * answer's stamp into the encoding (src/http/stamped-encoding.ts).
       */
      template: PaymentRequired;
      /** The sign-in message's fresh part in this 402 (nonce and times). */
      signInStamp: SignInStamp;
      /** Present when a settlement was attempted and failed. */
      paymentResponse?: SettleResponse;
      /** Set when an MPP credential failed its own checks: the draft's problem type to answer with. */
      mppProblem?: MppProblem;
      /**
       * The plain 402 only (built once per resource URL and price, then
       * answered from the gate's cache): room for each transport's encoding
       * of it (HTTP's header fitted to a budget, its body bytes), kept and
       * dropped with the challenge itself, so the unpaid 402 is cached once.
       */
      encoded?: Map<string, unknown>;
    }
  | {
      kind: 'deliver';
      response: StoredResponse;
      paymentResponse: SettleResponse;
      /** True when this is a stored result served again for the same payment. */
      replayed: boolean;
      attemptId: string;
      /** When the payment was bound to this request (ms): stored, so a redelivery's signed receipt is the same. */
      boundAt: number;
      timings: Timings;
    }
  | { kind: 'refuse'; code: ErrorCode; message: string; retryAfterSeconds?: number };

/** What the gate asks the ledger: claim, lease and move the attempt it drives, and read it back. */
export type GateLedger = Pick<Ledger, 'reserve' | 'get' | 'acquire' | 'renew' | 'advance' | 'release' | 'paidFor' | 'spendSignIn'>;

export interface GateDeps {
  ledger: GateLedger;
  rail: GateRail;
  now?: () => number;
  leaseMs: number;
  /**
   * Issues and checks sign-in challenges (redelivery proofs). Instances behind
   * one load balancer need the same secret; default: a random one per gate.
   */
  signIn?: SignInWithX;
  /** MPP's evm charge (challenges, credentials); undefined when MPP_SECRET_KEY is not set: MPP is off. */
  mpp?: MppCharge;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** After every paid call, whatever its outcome: an attempt it left unfinished is the reconciler's to look at. */
  afterPaidCall?: () => void;
}

const noopLog = { warn() {}, error() {}, info() {} };

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What every log line about a driven attempt names: the request and the attempt. */
const about = (d: Drive) => ({ reqId: d.call.requestId, attempt: d.attempt.id });

/** One request driving one attempt: what the steps share. */
interface Drive {
  call: PaidCall;
  all: PaymentRequirements[];
  attempt: PaymentAttempt;
  /** The bound payload and requirements, read back from the ledger: the only ones ever settled. */
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  chain: PaymentChain;
  /** The payer as the payment names it (receipts). */
  payer: string;
  response: StoredResponse | null;
  /** Transitions not yet written: verify, run and store become durable in one write with `settling`. */
  pending: Array<{ to: AttemptState; patch: TransitionPatch }>;
  /** The facilitator refused a settle sent by this request (its answer, for the buyer), and a one-line summary of it. */
  refusal?: SettleResponse;
  refusalText: string;
  settleSent: boolean;
  /** The facilitator this request's settle was sent to: every later write of the drive records it. */
  sentTo?: string;
  timings: Timings;
}

type StepResult = { next: AttemptState } | { outcome: GateOutcome };
type Step = (d: Drive) => Promise<StepResult>;

export class PaymentGate {
  private readonly ledger: GateLedger;
  private readonly rail: GateRail;
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly log: NonNullable<GateDeps['log']>;
  private readonly afterPaidCall: () => void;
  private readonly redelivery: RedeliveryGuard;
  private readonly signIn: SignInWithX;
  /** One lease owner per gate instance (per process). */
  readonly instanceId = randomUUID();
  /** MPP's challenges and credentials, for the transports; undefined when MPP is off. */
  readonly mpp: MppCharge | undefined;

  /** The state machine: one step per unfinished state. */
  private readonly steps: Partial<Record<AttemptState, Step>> = {
    reserved: (d) => this.verifyStep(d),
    verified: (d) => this.executeStep(d),
    executed: (d) => this.settleStep(d),
    settling: (d) => this.chainStep(d),
    unknown: (d) => this.chainStep(d),
  };

  constructor(deps: GateDeps) {
    this.ledger = deps.ledger;
    this.rail = deps.rail;
    this.now = deps.now ?? Date.now;
    this.leaseMs = deps.leaseMs;
    this.log = deps.log ?? noopLog;
    this.afterPaidCall = deps.afterPaidCall ?? (() => {});
    this.mpp = deps.mpp;
    this.signIn = deps.signIn ?? new SignInWithX(deps.rail.offers.map((o) => o.network));
    this.redelivery = new RedeliveryGuard(this.signIn, (signedIn, attemptId) => this.spendSignIn(signedIn, attemptId), deps.mpp);
  }

  async handle(call: PaidCall): Promise<GateOutcome> {
    if (!this.rail.ready) return { kind: 'refuse', code: 'facilitator_unavailable', message: 'The payment facilitator has not answered yet; nothing was charged. Retry shortly.', retryAfterSeconds: 5 };
    let requirements: PaymentRequirements[];
    try {
      requirements = preferred(await this.rail.requirements(call.priceAtomic), this.chainFirst(call.preferNetwork));
    } catch {
      return { kind: 'refuse', code: 'facilitator_unavailable', message: 'Payment requirements could not be built; nothing was charged.' };
    }
    let payment = call.payment;
    if (call.mpp) {
      if (!this.mpp) return { kind: 'refuse', code: 'invalid_payment_header', message: 'MPP payments are not accepted here (MPP_SECRET_KEY is not set); pay with x402 (PAYMENT-SIGNATURE). Nothing was verified or charged.' };
      const admitted = this.mpp.admit(call.mpp, call.resourceUrl, call.priceAtomic, requirements, call.mppField);
      if (!admitted.ok) return { ...(await this.challenge(call, requirements, admitted.code, admitted.message)), mppProblem: admitted.problem } as GateOutcome;
      payment = admitted.payment;
    }
    if (!payment && call.signIn === undefined) {
      // An expired offer quotes no price for a new payment; nothing can be bound without a payment.
      if (call.offerValidUntil !== undefined && this.now() / 1000 > call.offerValidUntil) return this.offerExpired(call.offerValidUntil);
      return this.challenge(call, requirements, 'payment_required', this.priceSentence(call));
    }
    try {
      return await (payment ? this.paid(call, payment, requirements) : this.signedIn(call, call.signIn!, requirements));
    } catch (e) {
      if (e instanceof LedgerUnavailableError) {
        this.log.error({ reqId: call.requestId, err: e.message, resource: call.resource }, 'ledger unavailable: failing closed');
        return { kind: 'refuse', code: 'ledger_unavailable', message: 'The payment ledger is unavailable; nothing was delivered and nothing was settled. Retry later with the same payment.', retryAfterSeconds: 5 };
      }
      throw e;
    } finally {
      this.afterPaidCall();
    }
  }

  private priceSentence(call: PaidCall): string {
    const where = this.rail.offers.map((o) => `on ${o.network} to ${o.payTo}`).join(', or ');
    const a = this.rail.payment.asset;
    const whole = Number(call.priceAtomic) / 10 ** a.decimals;
    return `Payment required: ${call.priceAtomic} atomic units of ${a.symbol} (${whole} ${a.symbol}) ${where}.`;
  }

  /**
   * Plain 402s by resource URL, price and preferred chain: the PaymentRequired
   * (with the placeholder sign-in stamp), its price sentence, and the
   * transports' encodings of it.
   */
  private readonly plainChallenges = new Map<string, { template: PaymentRequired; message: string; price: string; encoded: Map<string, unknown> }>();

  /**
   * The plain 402 for an unpaid call, when it was already built: the hot path,
   * answered without an await. It depends only on the resource URL, the price
   * and the preferred chain; each answer gets a sign-in message of its own.
   */
  cachedChallenge(resourceUrl: string, priceAtomic: string, preferNetwork?: string): GateOutcome | undefined {
    if (!this.rail.ready) return undefined;
    const hit = this.plainChallenges.get(plainKey(resourceUrl, priceAtomic, this.chainFirst(preferNetwork)));
    if (!hit) return undefined;
    const stamp = this.signIn.stamp(resourceUrl, this.now());
    return { kind: 'challenge', code: 'payment_required', message: hit.message, price: hit.price, paymentRequired: stamped(hit.template, stamp), template: hit.template, signInStamp: stamp, encoded: hit.encoded };
  }

  /**
   * The offered network a caller's preference moves to the front of `accepts`,
   * or undefined when it names none of them, or the one already first: the
   * caller's words never make a cache key of their own.
   */
  private chainFirst(preferNetwork: string | undefined): string | undefined {
    if (preferNetwork === undefined) return undefined;
    const offer = this.rail.offers.find((o) => o.network === preferNetwork || o.network.startsWith(`${preferNetwork}:`));
    return offer && offer !== this.rail.offers[0] ? offer.network : undefined;
  }

  private async challenge(call: PaidCall, requirements: PaymentRequirements[], code: ChallengeCode, message: string, paymentResponse?: SettleResponse): Promise<GateOutcome> {
    // A plain 402 says the price, then how to pay over HTTP.
    const price = code === 'payment_required' ? message : undefined;
    if (price) message = `${price} ${HOW_TO_PAY}`;
    // The plain 402 is the hot path and depends only on resource URL, price, chain order and transport: build it once.
    const key = plainKey(call.resourceUrl, call.priceAtomic, this.chainFirst(call.preferNetwork), call.discovery);
    const cached = code === 'payment_required' ? this.plainChallenges.get(key) : undefined;
    let template = cached?.template;
    let encoded = cached?.encoded;
    if (!template) {
      const resource = { url: call.resourceUrl, description: call.description, mimeType: 'application/json', ...call.serviceMetadata };
      const error = code === 'payment_required' ? undefined : message;
      // Every 402 to a request with input declares sign-in-with-x: the payer of this request gets its result again by signing in.
      template = await this.rail.paymentRequired(requirements, resource, error, call.discovery ? call.extensions : { ...call.extensions, ...this.signIn.declare(call.resourceUrl) });
      if (code === 'payment_required') {
        // Bounded: Host headers are caller-controlled and must not grow memory without limit.
        if (this.plainChallenges.size >= 256) this.plainChallenges.clear();
        encoded = new Map();
        this.plainChallenges.set(key, { template, message, price: price!, encoded });
      }
    }
    const stamp = this.signIn.stamp(call.resourceUrl, this.now());
    return { kind: 'challenge', code, message, ...(price && { price }), paymentRequired: stamped(template, stamp), template, signInStamp: stamp, paymentResponse, ...(encoded && { encoded }) };
  }

  // ------------------------------------------------------------------ sign-in: a result paid for, again

  /**
   * A request without a payment that signs in: the stored result of this very
   * request (its fingerprint binds the resource and the body) when the signer
   * paid for it on the chain it signed in on, and the sign-in has never been
   * used. Otherwise the ordinary 402, with the reason the sign-in got nothing
   * added: nothing is charged, run or bound either way.
   */
  private async signedIn(call: PaidCall, header: string, requirements: PaymentRequirements[]): Promise<GateOutcome> {
    const signedIn = await this.signIn.check(header, call.resourceUrl, this.now());
    if (!signedIn.ok) return this.signInRefused(call, requirements, signedIn.reason);
    const timings: Timings = { ledgerMs: 0, verifyMs: 0, handlerMs: 0, settleMs: 0, chainMs: 0 };
    const t = performance.now();
    const paid = await this.ledger.paidFor({ payer: signedIn.address, network: signedIn.network, requestFingerprint: call.fingerprint });
    timings.ledgerMs += performance.now() - t;
    if (!paid || paid.resource !== call.resource || paid.state === 'failed') {
      return this.signInRefused(call, requirements, 'this wallet has no settled payment on this chain for this resource and request body (a sign-in gets again only what its wallet paid for)');
    }
    // Not settled yet: its settlement is being driven (by a retry or the reconciler); the sign-in stays unused for later.
    if (paid.state !== 'settled') return this.inProgress(paid);
    if (!(await this.spendSignIn(signedIn, paid.id))) return this.signInRefused(call, requirements, 'this sign-in message was already used; sign the sign-in-with-x challenge of this 402, once');
    this.log.info({ reqId: call.requestId, attempt: paid.id, payer: signedIn.address }, 'redelivered to a sign-in');
    return this.replay(paid, timings);
  }

  /** The ordinary 402, saying why the sign-in that came with it got nothing. */
  private async signInRefused(call: PaidCall, requirements: PaymentRequirements[], reason: string): Promise<GateOutcome> {
    if (call.offerValidUntil !== undefined && this.now() / 1000 > call.offerValidUntil) return this.offerExpired(call.offerValidUntil);
    const plain = await this.challenge(call, requirements, 'payment_required', this.priceSentence(call));
    // Its own message: the cached encodings are the plain 402's, so they are not shared with it.
    return plain.kind === 'challenge' ? { ...plain, message: `${plain.message} The sign-in was not accepted: ${reason}.`, encoded: undefined } : plain;
  }

  /** Records a sign-in as used for the attempt it recovers: false when any instance used it before. */
  private spendSignIn(signedIn: Extract<SignInCheck, { ok: true }>, attemptId: string): Promise<boolean> {
    return this.ledger.spendSignIn({ nonce: signedIn.nonce, attemptId, signer: signedIn.address, network: signedIn.network, now: this.now(), expiresAt: signedIn.expiresAt });
  }

  // ------------------------------------------------------------------ admission and binding

  /** Local checks, then the signature: nothing is written or sent for a payment that fails them. */
  private async admit(
    call: PaidCall,
    payment: PaymentPayload,
    all: PaymentRequirements[],
  ): Promise<{ bound: Authorization; chain: PaymentChain; requirements: PaymentRequirements; notNew?: NotNew } | { outcome: GateOutcome }> {
    const invalid = async (message: string, code: ChallengeCode = 'payment_invalid') => ({ outcome: await this.challenge(call, all, code, message) });
    if (payment.x402Version !== 2) return invalid(`Only x402Version 2 payments are accepted (got ${String(payment.x402Version)}).`);
    const requirements = this.rail.match(all, payment);
    const chain = requirements && this.rail.chainFor(requirements.network);
    if (!requirements || !chain) return invalid('The payment does not match this resource\'s requirements (scheme, network, asset, amount and payTo must equal one of accepts).');
    const checked = await chain.check(payment, requirements, this.now() / 1000, {
      settleMarginSeconds: SETTLE_MARGIN_SECONDS,
      maxTimeoutSeconds: Math.max(requirements.maxTimeoutSeconds, this.rail.payment.maxTimeoutSeconds),
    });
    if (!checked.ok && checked.code === 'service_unavailable') return { outcome: { kind: 'refuse', code: 'service_unavailable', message: checked.message, retryAfterSeconds: 5 } };
    if (!checked.ok) return invalid(checked.message, checked.code);
    return { bound: checked.authorization, chain, requirements, notNew: checked.notNew };
  }

  private async paid(call: PaidCall, payment: PaymentPayload, all: PaymentRequirements[]): Promise<GateOutcome> {
    const admitted = await this.admit(call, payment, all);
    if ('outcome' in admitted) return admitted.outcome;
    const { bound, chain, requirements, notNew } = admitted;
    const payer = bound.ledgerPayer;
    const asset = chain.ledgerForm(requirements.asset);
    const paymentId = extractPaymentIdentifier(payment, true);
    const id = sha256Hex([requirements.network, asset, payer, bound.nonce].join('|'));
    const timings: Timings = { ledgerMs: 0, verifyMs: 0, handlerMs: 0, settleMs: 0, chainMs: 0 };

    let t = performance.now();
    // A signed offer past its validUntil prices only what was bound before it expired.
    const offerExpired = call.offerValidUntil !== undefined && this.now() / 1000 > call.offerValidUntil;
    // Outside its window an authorization may not start an attempt, but the
    // one already bound to it is still served (a read, never a write).
    const reserved = notNew || offerExpired
      ? { created: false as const, attempt: await this.ledger.get({ id }) }
      : await this.ledger.reserve({
      attempt: {
        id,
        network: requirements.network,
        asset,
        payer,
        nonce: bound.nonce,
        payTo: chain.ledgerForm(requirements.payTo),
        amount: requirements.amount,
        resource: call.resource,
        requestFingerprint: call.fingerprint,
        paymentKey: paymentId ? paymentKeyOf(payer, paymentId) : null,
        validBefore: bound.validBefore,
        payload: JSON.stringify(bound.payload),
        requirements: JSON.stringify(requirements),
      },
      lease: this.lease(),
      now: this.now(),
    });
    timings.ledgerMs += performance.now() - t;

    let attempt: PaymentAttempt;
    if (reserved.created) {
      attempt = reserved.attempt;
    } else {
      const existing = reserved.attempt;
      if (!existing && notNew) return this.challenge(call, all, notNew.code, notNew.message);
      if (offerExpired && (!existing || existing.createdAt > call.offerValidUntil! * 1000)) return this.offerExpired(call.offerValidUntil!);
      if (!existing) return { kind: 'refuse', code: 'service_unavailable', message: 'The payment record could not be read back; retry.' };
      if (existing.id !== id) return this.samePaymentIdentifier(call, bound.payload, requirements, all, existing, timings);
      // Payer and nonce are public once settled: only the exact signed authorization that was bound proves the caller paid.
      if (existing.network !== requirements.network || chain.stored(existing.payload).signed !== bound.signed) {
        return this.challenge(call, all, 'payment_invalid', 'This payer and nonce are already bound to a different signed authorization; present the one that was bound, or sign a new one.');
      }
      // ...and even that signature is public calldata once settled: before anything
      // that depends on the bound request or the attempt's state, the caller proves
      // something that never went on chain.
      const unproven = await this.redeliveryProof(call, payment, payer, existing, all);
      if (unproven) return unproven;
      if (existing.resource !== call.resource || existing.requestFingerprint !== call.fingerprint) {
        return {
          kind: 'refuse',
          code: 'payment_bound_to_other_request',
          message: 'This payment authorization is already bound to a different resource or request body. One authorization buys one delivery; sign a new one for this request.',
        };
      }
      if (existing.state === 'settled') return this.replay(existing, timings);
      if (existing.state === 'failed') return this.failedAgain(call, all, existing);
      t = performance.now();
      const got = await this.ledger.acquire({ id, lease: this.lease(), now: this.now() });
      timings.ledgerMs += performance.now() - t;
      if (!got) return this.lost(id, timings);
      attempt = (await this.ledger.get({ id }))!;
    }
    // The presented authorization is the bound one (created now, or compared above): its payer names the receipt.
    return this.drive(call, all, attempt, timings, bound.payer);
  }

  private offerExpired(validUntil: number): GateOutcome {
    return {
      kind: 'refuse',
      code: 'invalid_request',
      message: `The signed offer expired at ${new Date(validUntil * 1000).toISOString()} and prices only payments bound before then; ask for a new quote.`,
    };
  }

  /**
   * undefined when the caller proved it is the buyer of `existing` (redelivery.ts).
   * Otherwise one answer, whatever the body or the attempt's state, that
   * carries a sign-in challenge (the SDK's SIWx clients answer it).
   */
  private async redeliveryProof(call: PaidCall, payment: PaymentPayload, payer: string, existing: PaymentAttempt, all: PaymentRequirements[]): Promise<GateOutcome | undefined> {
    const verdict = await this.redelivery.check(
      { id: existing.id, network: existing.network, payer, paymentKey: existing.paymentKey, nonce: existing.nonce },
      { payment, signIn: call.signIn, mppChallenge: call.mpp?.challenge, client: call.client ?? UNKNOWN_CLIENT },
      call.resourceUrl,
      this.now(),
    );
    switch (verdict.kind) {
      case 'proven':
        return undefined;
      case 'limited':
        return {
          kind: 'refuse',
          code: 'rate_limited',
          message: 'Too many wrong payment-identifiers from this client: until Retry-After, a payment-identifier it sends is not compared. A sign-in by the paying wallet (SIGN-IN-WITH-X, signed over the sign-in-with-x declaration of any 402 of this resource) or the same MPP credential is never limited.',
          retryAfterSeconds: verdict.retryAfterSeconds,
        };
      case 'unproven':
        return this.challenge(
          call,
          all,
          'redelivery_proof_required',
          `This payment authorization is already bound, and its signature is public once settled, so it alone proves nothing. To receive the stored result: ${RESEND_PROOF}.` +
            (verdict.weakIdentifier ? ` The payment-identifier sent is too short or too simple to be a secret (under ${MIN_IDENTIFIER_BITS} bits), so it is not accepted as proof: sign in instead.` : ''),
        );
    }
  }

  private lease() {
    return { owner: this.instanceId, until: this.now() + this.leaseMs };
  }

  private inProgress(a: PaymentAttempt | undefined): GateOutcome {
    const wait = a ? Math.max(1, Math.ceil((a.leaseUntil - this.now()) / 1000)) : 1;
    return {
      kind: 'refuse',
      code: 'payment_in_progress',
      message: 'This payment is being processed by another request. Retry the same request with the same payment after Retry-After seconds to get the result.',
      retryAfterSeconds: Math.min(wait, 120),
    };
  }

  /** Someone else holds (or took) the attempt: its stored result if settled, else "in progress". */
  private async lost(id: string, timings: Timings): Promise<GateOutcome> {
    const a = await this.ledger.get({ id });
    if (a?.state === 'settled') return this.replay(a, timings);
    return this.inProgress(a);
  }

  private replay(a: PaymentAttempt, timings: Timings): GateOutcome {
    if (!a.response || !a.settleResponse) {
      return { kind: 'refuse', code: 'service_unavailable', message: 'The stored result for this payment is incomplete; retry later.' };
    }
    return { kind: 'deliver', response: a.response, paymentResponse: JSON.parse(a.settleResponse) as SettleResponse, replayed: true, attemptId: a.id, boundAt: a.createdAt, timings };
  }

  private failedAgain(call: PaidCall, all: PaymentRequirements[], a: PaymentAttempt): Promise<GateOutcome> {
    const code = a.failureCode === 'settlement_failed' ? 'settlement_failed' : a.failureCode === 'payment_expired' ? 'payment_expired' : 'payment_invalid';
    const response = a.settleResponse ? (JSON.parse(a.settleResponse) as SettleResponse) : undefined;
    const why = [a.failureCode, a.failureDetail].filter(Boolean).join(': ');
    return this.challenge(call, all, code, `This authorization was already refused (${why}); sign a new one.`, response);
  }

  /**
   * x402 `payment-identifier`: the same id with the same request returns the
   * cached result; with another request it is a conflict. The new
   * authorization has passed the local signature check and is verified by
   * the facilitator (the payer holds the key and it is unused), but is never
   * settled, so a retry after a lost response never pays twice.
   */
  private async samePaymentIdentifier(
    call: PaidCall,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    all: PaymentRequirements[],
    existing: PaymentAttempt,
    timings: Timings,
  ): Promise<GateOutcome> {
    if (existing.resource !== call.resource || existing.requestFingerprint !== call.fingerprint) {
      return { kind: 'refuse', code: 'payment_identifier_conflict', message: 'This payment identifier was already used for a different resource or request body; use a new identifier.' };
    }
    if (existing.state === 'failed') {
      return { kind: 'refuse', code: 'payment_identifier_conflict', message: 'The earlier payment under this identifier failed; use a new payment identifier.' };
    }
    if (existing.state !== 'settled') return this.inProgress(existing);
    const t = performance.now();
    const v = await this.rail.verify(payload, requirements);
    timings.verifyMs += performance.now() - t;
    if (v.kind === 'unavailable') return { kind: 'refuse', code: 'facilitator_unavailable', message: 'The facilitator could not be reached to verify the payment; nothing was charged.', retryAfterSeconds: 5 };
    if (v.kind === 'invalid') return this.challenge(call, all, 'payment_invalid', `The payment was rejected: ${v.message}`);
    return this.replay(existing, timings);
  }

  // ------------------------------------------------------------------ the state machine

  /** Move an attempt we hold the lease of as far as it can go, renewing the lease meanwhile. */
  private async drive(call: PaidCall, all: PaymentRequirements[], attempt: PaymentAttempt, timings: Timings, payer: string): Promise<GateOutcome> {
    const payload = JSON.parse(attempt.payload) as PaymentPayload;
    const chain = this.rail.chainFor(attempt.network);
    // An attempt bound on a network this instance no longer offers: its retry waits for an instance that does.
    if (!chain) return { kind: 'refuse', code: 'service_unavailable', message: `This payment was made on ${attempt.network}, which this service does not take now; nothing was charged by this request. Retry later with the same payment.`, retryAfterSeconds: 30 };
    const d: Drive = {
      call,
      all,
      attempt,
      payload,
      requirements: JSON.parse(attempt.requirements) as PaymentRequirements,
      chain,
      payer,
      response: attempt.response,
      pending: [],
      refusalText: '',
      settleSent: false,
      timings,
    };
    const stopHeartbeat = this.heartbeat(attempt.id);
    try {
      let state = attempt.state;
      // Each step either finishes the request or moves to a later state; a
      // chain check may send the attempt back to `executed` once (re-settle):
      // settleStep always marks the settle sent, and chainStep never loops
      // back after that.
      for (;;) {
        const r = await this.steps[state]!(d);
        if ('outcome' in r) return r.outcome;
        state = r.next;
      }
    } catch (e) {
      // A ledger write failed mid-way. Letting go of the lease is always safe
      // (whoever resumes asks the chain before settling again) and lets the
      // buyer's retry proceed as soon as the ledger is back.
      await this.release(d);
      throw e;
    } finally {
      stopHeartbeat();
    }
  }

  /**
   * Renew the lease while this request drives the attempt, so a slow
   * facilitator cannot let a duplicate take over a settlement in flight, and
   * a crashed instance's lease still lapses within `leaseMs`.
   */
  private heartbeat(id: string): () => void {
    const every = Math.max(100, Math.floor(this.leaseMs / 3));
    const timer = setInterval(() => {
      this.ledger.renew({ id, owner: this.instanceId, until: this.now() + this.leaseMs }).catch((e: unknown) => {
        this.log.warn({ attempt: id, err: errText(e) }, 'lease renewal failed');
      });
    }, every);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async write(d: Drive, to: AttemptState, patch: TransitionPatch, opts: Pick<LedgerArgs<'advance'>, 'durable'> = {}): Promise<boolean> {
    const t = performance.now();
    const steps = [...d.pending, { to, patch: d.sentTo ? { facilitator: d.sentTo, ...patch } : patch }];
    const ok = await this.ledger.advance({ id: d.attempt.id, owner: this.instanceId, steps, now: this.now(), ...opts });
    d.pending = [];
    d.timings.ledgerMs += performance.now() - t;
    return ok;
  }

  private async release(d: Drive): Promise<void> {
    await this.ledger.release({ id: d.attempt.id, owner: this.instanceId }).catch(() => {});
  }

  private async refuseAndRelease(d: Drive, code: ErrorCode, message: string, retryAfterSeconds: number): Promise<StepResult> {
    await this.release(d);
    return { outcome: { kind: 'refuse', code, message, retryAfterSeconds } };
  }

  /** reserved → verified, or failed when the facilitator refuses the payment (nothing was broadcast). */
  private async verifyStep(d: Drive): Promise<StepResult> {
    const t = performance.now();
    const v = await this.rail.verify(d.payload, d.requirements);
    const ms = performance.now() - t;
    d.timings.verifyMs += ms;
    const outcome = v.kind === 'unavailable' ? 'error' : v.kind;
    this.log.info({ ...about(d), op: 'verify', outcome, reason: v.kind === 'invalid' ? v.reason : undefined, ms: Math.round(ms) }, 'facilitator verify');
    if (v.kind === 'unavailable') {
      this.log.warn({ ...about(d), err: v.message }, 'verify: facilitator unavailable');
      return this.refuseAndRelease(d, 'facilitator_unavailable', 'The payment facilitator could not be reached to verify the payment; nothing was delivered or charged. Retry with the same payment.', 5);
    }
    if (v.kind === 'invalid') {
      await this.write(d, 'failed', { failureCode: 'payment_invalid', failureDetail: `${v.reason}: ${v.message}` });
      return { outcome: await this.challenge(d.call, d.all, 'payment_invalid', `The payment was rejected by the facilitator (${v.reason}); nothing was charged.`) };
    }
    d.pending.push({ to: 'verified', patch: { note: v.response.payer ? `payer ${v.response.payer}` : undefined } });
    return { next: 'verified' };
  }

  /** verified → executed: the deliverable exists before anything is sent to settle. */
  private async executeStep(d: Drive): Promise<StepResult> {
    const t = performance.now();
    try {
      d.response = await d.call.execute();
    } catch (e) {
      const err = errText(e);
      // The worker pool stops a call past its budget (src/isolation): same rule, its own stable code.
      const overBudget = e instanceof ServiceError && e.code === 'handler_over_budget';
      this.log.error({ ...about(d), err }, 'handler failed; payment will not be settled');
      await this.write(d, 'failed', { failureCode: overBudget ? 'handler_over_budget' : 'handler_failed', failureDetail: err });
      if (overBudget) return { outcome: { kind: 'refuse', code: 'handler_over_budget', message: err } };
      return { outcome: { kind: 'refuse', code: 'handler_failed', message: 'The result could not be produced; the payment was not settled and nothing was charged.' } };
    } finally {
      d.timings.handlerMs += performance.now() - t;
    }
    // Stored: status, type and body, as the bytes the worker made when it did (never the transient hash).
    d.pending.push({ to: 'executed', patch: { response: responseToStore(d.response) } });
    return { next: 'executed' };
  }

  /** executed → settling → settled, or to the chain check when the facilitator refuses. */
  private async settleStep(d: Drive): Promise<StepResult> {
    if (d.attempt.validBefore < this.now() / 1000 + SETTLE_MARGIN_SECONDS) {
      // Never sent to settle. Not written `failed` here: the reconciler does
      // that once the chain shows the authorization dead.
      if (d.pending.length) await this.write(d, 'executed', { note: 'too close to validBefore to settle' });
      await this.release(d);
      return { outcome: await this.challenge(d.call, d.all, 'payment_expired', 'The authorization expires too soon to be settled; nothing was charged. Sign a new one.') };
    }
    // The response is durably stored (in this write at the latest) before settle is sent.
    if (!(await this.write(d, 'settling', {}))) return { outcome: await this.lost(d.attempt.id, d.timings) };
    const t = performance.now();
    const s = await this.rail.settle(d.payload, d.requirements);
    const ms = performance.now() - t;
    d.timings.settleMs += ms;
    d.settleSent = true;
    if (s.kind !== 'not-sent') d.sentTo = s.facilitator;
    const tx = s.kind === 'settled' || s.kind === 'failed' ? s.response.transaction || undefined : undefined;
    this.log.info({ ...about(d), op: 'settle', facilitator: d.sentTo, outcome: s.kind, tx, ms: Math.round(ms) }, 'facilitator settle');
    switch (s.kind) {
      case 'settled': {
        const receipt: SettleResponse = { ...s.response, payer: s.response.payer || d.payer };
        try {
          // The one write per call that is not flushed before it returns (every
          // other write is). Losing it (only an OS/database-server crash can)
          // leaves the attempt `settling` with its response durably stored,
          // exactly like the failed write below: a retry or the reconciler asks
          // the chain and records it with its transaction. Never paid twice, never lost.
          await this.write(d, 'settled', { settleResponse: JSON.stringify(receipt), txHash: receipt.transaction }, { durable: false });
        } catch (e) {
          // Money has moved and the result is stored: deliver it. The attempt
          // stays `settling`; the reconciler records it from the chain.
          this.log.error({ ...about(d), tx: receipt.transaction, err: errText(e) }, 'settled but not recorded; reconciler will record it');
          await this.release(d);
        }
        return { outcome: { kind: 'deliver', response: d.response!, paymentResponse: receipt, replayed: false, attemptId: d.attempt.id, boundAt: d.attempt.createdAt, timings: d.timings } };
      }
      case 'failed':
        // A refusal does not prove nothing was broadcast ("settlement_pending"): the chain decides.
        this.log.warn({ ...about(d), reason: s.response.errorReason, tx: s.response.transaction }, 'settle refused; asking the chain');
        d.refusal = s.response;
        d.refusalText = [s.response.errorReason, s.response.errorMessage, s.response.transaction].filter(Boolean).join(' ');
        return { next: 'settling' };
      case 'not-sent':
        await this.write(d, 'executed', { note: 'settle not sent: facilitator unreachable' });
        return this.refuseAndRelease(d, 'facilitator_unavailable', 'The facilitator could not be reached to settle; nothing was delivered or charged. Retry with the same payment.', 5);
      case 'unknown':
        this.log.warn({ ...about(d), err: s.message }, 'settle outcome unknown');
        await this.write(d, 'unknown', { failureDetail: s.message });
        return this.refuseAndRelease(d, 'settlement_unknown', `The settlement outcome is not known yet; nothing was delivered. Retry later with the same payment and one proof that you are its buyer (${RESEND_PROOF}): you will get the result if it settled, and will not be charged twice.`, 10);
    }
  }

  /**
   * settling | unknown: a settle may have been sent. The chain decides
   * (chains/): used → settled; can never happen any more → failed;
   * otherwise it may still land, so it stays unknown (or is settled again:
   * one authorization can only ever transfer once).
   */
  private async chainStep(d: Drive): Promise<StepResult> {
    const a = d.attempt;
    const t = performance.now();
    let fate: ChainFate;
    try {
      fate = await d.chain.fate({ asset: a.asset, payer: a.payer, nonce: a.nonce, validBefore: a.validBefore, createdAt: a.createdAt, payload: a.payload });
    } catch (e) {
      this.log.warn({ ...about(d), err: errText(e) }, 'chain unreadable');
      return this.pendingOutcome(d, 'The settlement outcome could not be confirmed (chain unreadable); nothing was delivered. Retry later with the same payment.');
    } finally {
      d.timings.chainMs += performance.now() - t;
    }
    if (fate.kind === 'used') return this.settledFromChain(d, fate.transaction);
    if (fate.kind === 'dead') {
      const code = d.refusal ? 'settlement_failed' : 'payment_expired';
      const detail = `not used on chain before it expired ${d.refusalText}`.trim();
      if (!(await this.write(d, 'failed', { failureCode: code, failureDetail: detail, settleResponse: d.refusal && JSON.stringify(d.refusal) }))) {
        return { outcome: await this.lost(d.attempt.id, d.timings) };
      }
      return { outcome: await this.challenge(d.call, d.all, code, `The authorization expired unused (${detail}); nothing was delivered and nothing was charged. Sign a new one.`, d.refusal) };
    }
    if (d.settleSent || a.validBefore < this.now() / 1000 + SETTLE_MARGIN_SECONDS) {
      return this.pendingOutcome(d, `The settlement is not confirmed yet: the transfer may still be mined; nothing was delivered. Retry later with the same payment and one proof that you are its buyer (${RESEND_PROOF}): you will get the result if it is mined, and will not be charged twice.`);
    }
    // Still valid and not sent by this request: send the bound payload again.
    return { next: 'executed' };
  }

  /** Record `unknown` (a transfer may still happen) and tell the buyer to come back. */
  private async pendingOutcome(d: Drive, message: string): Promise<StepResult> {
    await this.write(d, 'unknown', { failureDetail: `awaiting the chain ${d.refusalText}`.trim(), settleResponse: d.refusal && JSON.stringify(d.refusal) });
    return this.refuseAndRelease(d, 'settlement_unknown', message, PENDING_RETRY_SECONDS);
  }

  /** The chain says the authorization was used: record the settlement with its transaction and deliver the stored result. */
  private async settledFromChain(d: Drive, tx: string | undefined): Promise<StepResult> {
    const { requirements } = d;
    // A receipt always carries its transaction. (A response is always stored
    // before `settling` is written, so an attempt here always has one.)
    if (!tx || !d.response) {
      return this.pendingOutcome(d, 'The payment is on chain but its transaction could not be found yet; nothing was delivered. Retry shortly with the same payment.');
    }
    const receipt: SettleResponse = { success: true, transaction: tx, network: requirements.network as `${string}:${string}`, payer: d.payer, amount: requirements.amount };
    if (!(await this.write(d, 'settled', { settleResponse: JSON.stringify(receipt), txHash: tx, note: 'recorded from chain' }))) {
      return { outcome: await this.lost(d.attempt.id, d.timings) };
    }
    return { outcome: { kind: 'deliver', response: d.response, paymentResponse: receipt, replayed: !d.settleSent, attemptId: d.attempt.id, boundAt: d.attempt.createdAt, timings: d.timings } };
  }
}

/** The plain-challenge cache's key: one per resource URL, price, chain order, and discovery or not. */
function plainKey(resourceUrl: string, priceAtomic: string, preferNetwork: string | undefined, discovery?: true): string {
  const key = preferNetwork === undefined ? `${resourceUrl}|${priceAtomic}` : `${resourceUrl}|${priceAtomic}|${preferNetwork}`;
  return discovery ? `${key}|discovery` : key;
}

/** `requirements` with those of `network` first, else as they are: the offer is the same, only its order changes. */
export function preferred(requirements: PaymentRequirements[], network: string | undefined): PaymentRequirements[] {
  if (network === undefined) return requirements;
  const i = requirements.findIndex((r) => r.network === network);
  return i <= 0 ? requirements : [requirements[i]!, ...requirements.slice(0, i), ...requirements.slice(i + 1)];
}
