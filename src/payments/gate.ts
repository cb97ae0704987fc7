/**
 * The payment gate: the only code that touches money.
 *
 *   challenge ─ or ─ bind (reserve) → verify → run → store (executed) → settle → mark settled → deliver
 *
 * It knows nothing about what a capability does and nothing about HTTP: it
 * returns a `GateOutcome` that the HTTP route and the MCP tool translate.
 *
 * Rules it keeps (each has a test named after the attack or fault):
 * - One authorization (payer + EIP-3009 nonce) is bound, durably and before
 *   the facilitator is asked, to one resource and one request fingerprint.
 * - Nothing is delivered unless the chain transfer is confirmed; nothing is
 *   settled unless the result is stored and deliverable.
 * - A fault before settlement answers 503 and settles nothing; a settlement
 *   whose outcome is unknown stays `unknown` until the chain says otherwise.
 * - The same payment and the same request always get the same stored bytes.
 */
import { randomUUID } from 'node:crypto';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { extractPaymentIdentifier } from '@x402/extensions/payment-identifier';
import type { Hex } from 'viem';
import type { ErrorCode } from '../errors.js';
import { LedgerUnavailableError, type Ledger, type PaymentAttempt, type StoredResponse } from '../store/ledger.js';
import { sha256Hex } from './canonical-json.js';
import type { PaymentPayload, PaymentRail, PaymentRequired, PaymentRequirements, SettleResponse } from './rail.js';

/** Budget for the base64 PAYMENT-REQUIRED header value (under 2 KB; a production facilitator rejected ~3.5 KB). */
export const HEADER_BUDGET_BYTES = 2040;

/** A facilitator rejects authorizations that expire within 6 s; we refuse to start settling closer than this. */
export const SETTLE_MARGIN_SECONDS = 10;

export interface PaidCall {
  /** Capability id; the resource an authorization is bound to. */
  resource: string;
  description: string;
  priceAtomic: string;
  resourceUrl: string;
  /** SHA-256 of the resource and its canonical request. */
  fingerprint: string;
  payment: PaymentPayload | undefined;
  /**
   * Extensions to advertise on the 402 (e.g. Bazaar discovery), richest first:
   * the first whose encoded PAYMENT-REQUIRED header fits HEADER_BUDGET_BYTES is used.
   */
  extensionCandidates?: Array<Record<string, unknown>>;
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

export type GateOutcome =
  | {
      kind: 'challenge';
      status: 402;
      code: Extract<ErrorCode, 'payment_required' | 'payment_invalid' | 'payment_expired' | 'settlement_failed'>;
      message: string;
      paymentRequired: PaymentRequired;
      /** Present when a settlement was attempted and failed. */
      paymentResponse?: SettleResponse;
    }
  | {
      kind: 'deliver';
      response: StoredResponse;
      paymentResponse: SettleResponse;
      /** True when this is a stored result served again for the same payment. */
      replayed: boolean;
      attemptId: string;
      timings: Timings;
    }
  | { kind: 'refuse'; code: ErrorCode; message: string; retryAfterSeconds?: number };

export interface GateDeps {
  ledger: Ledger;
  rail: PaymentRail;
  now?: () => number;
  leaseMs: number;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

interface Eip3009Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

function authorizationOf(payload: PaymentPayload): Eip3009Authorization | undefined {
  const a = (payload.payload as { authorization?: Record<string, unknown> } | undefined)?.authorization;
  if (!a || typeof a !== 'object') return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = a as Record<string, unknown>;
  const addr = (v: unknown) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v);
  const uint = (v: unknown) => (typeof v === 'string' && /^[0-9]{1,78}$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
  if (!addr(from) || !addr(to) || !uint(value) || !uint(validAfter) || !uint(validBefore)) return undefined;
  if (typeof nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return undefined;
  return {
    from: from as Hex,
    to: to as Hex,
    value: String(value),
    validAfter: String(validAfter),
    validBefore: String(validBefore),
    nonce: (nonce as string).toLowerCase() as Hex,
  };
}

const noopLog = { warn() {}, error() {}, info() {} };

export class PaymentGate {
  private readonly ledger: Ledger;
  private readonly rail: PaymentRail;
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly log: NonNullable<GateDeps['log']>;
  /** One lease owner per gate instance (per process). */
  readonly instanceId = randomUUID();

  constructor(deps: GateDeps) {
    this.ledger = deps.ledger;
    this.rail = deps.rail;
    this.now = deps.now ?? Date.now;
    this.leaseMs = deps.leaseMs;
    this.log = deps.log ?? noopLog;
  }

  async handle(call: PaidCall): Promise<GateOutcome> {
    if (!this.rail.ready) return { kind: 'refuse', code: 'facilitator_unavailable', message: 'The payment facilitator has not answered yet; nothing was charged. Retry shortly.', retryAfterSeconds: 5 };
    let requirements: PaymentRequirements[];
    try {
      requirements = await this.rail.requirements(call.priceAtomic);
    } catch (e) {
      return { kind: 'refuse', code: 'facilitator_unavailable', message: 'Payment requirements could not be built; nothing was charged.' };
    }
    if (!call.payment) return this.challenge(call, requirements, 'payment_required', this.priceSentence(call));
    try {
      return await this.paid(call, call.payment, requirements);
    } catch (e) {
      if (e instanceof LedgerUnavailableError) {
        this.log.error({ err: e.message, resource: call.resource }, 'ledger unavailable: failing closed');
        return { kind: 'refuse', code: 'ledger_unavailable', message: 'The payment ledger is unavailable; nothing was delivered and nothing was settled. Retry later with the same payment.', retryAfterSeconds: 5 };
      }
      throw e;
    }
  }

  private priceSentence(call: PaidCall): string {
    const a = this.rail.payment.asset;
    const whole = Number(call.priceAtomic) / 10 ** a.decimals;
    return (
      `Payment required: ${call.priceAtomic} atomic units of ${a.symbol} (${whole} ${a.symbol}) on ${this.rail.payment.network} to ${this.rail.payment.payTo}. ` +
      'Sign one of the PAYMENT-REQUIRED header\'s accepts (x402 v2, scheme "exact", EIP-3009 transferWithAuthorization) and repeat the same request with the PAYMENT-SIGNATURE header.'
    );
  }

  private readonly plainChallenges = new Map<string, PaymentRequired>();

  private async challenge(
    call: PaidCall,
    requirements: PaymentRequirements[],
    code: Extract<GateOutcome, { kind: 'challenge' }>['code'],
    message: string,
    paymentResponse?: SettleResponse,
  ): Promise<GateOutcome> {
    // The plain 402 is the hot path and depends only on resource URL and price: build it once.
    const key = `${call.resourceUrl}|${call.priceAtomic}`;
    let paymentRequired = code === 'payment_required' ? this.plainChallenges.get(key) : undefined;
    if (!paymentRequired) {
      const resource = { url: call.resourceUrl, description: call.description, mimeType: 'application/json' };
      const error = code === 'payment_required' ? undefined : message;
      // Oversized 402 headers get payments rejected by production facilitators: keep it small.
      for (const extra of [...(call.extensionCandidates ?? []), {}]) {
        paymentRequired = await this.rail.paymentRequired(requirements, resource, error, extra);
        if (encodePaymentRequiredHeader(paymentRequired).length <= HEADER_BUDGET_BYTES) break;
      }
      paymentRequired = paymentRequired!;
      if (code === 'payment_required') {
        // Bounded: Host headers are caller-controlled and must not grow memory without limit.
        if (this.plainChallenges.size >= 256) this.plainChallenges.clear();
        this.plainChallenges.set(key, paymentRequired);
      }
    }
    return { kind: 'challenge', status: 402, code, message, paymentRequired, paymentResponse };
  }

  private async paid(call: PaidCall, payment: PaymentPayload, all: PaymentRequirements[]): Promise<GateOutcome> {
    if (payment.x402Version !== 2) {
      return this.challenge(call, all, 'payment_invalid', `Only x402Version 2 payments are accepted (got ${String(payment.x402Version)}).`);
    }
    const requirements = this.rail.match(all, payment);
    if (!requirements) {
      return this.challenge(call, all, 'payment_invalid', 'The payment does not match this resource\'s requirements (scheme, network, asset, amount and payTo must equal one of accepts).');
    }
    const auth = authorizationOf(payment);
    if (!auth) return this.challenge(call, all, 'payment_invalid', 'The payment payload is not an EIP-3009 authorization (payload.authorization with from, to, value, validAfter, validBefore, nonce).');
    if (auth.to.toLowerCase() !== requirements.payTo.toLowerCase() || auth.value !== requirements.amount) {
      return this.challenge(call, all, 'payment_invalid', 'The signed authorization does not pay this resource\'s amount to its payTo.');
    }
    const validBefore = Number(auth.validBefore);
    if (validBefore < this.now() / 1000 + SETTLE_MARGIN_SECONDS) {
      return this.challenge(call, all, 'payment_expired', 'The authorization expires too soon to be settled; sign a new one.');
    }

    const payer = auth.from.toLowerCase();
    const paymentId = extractPaymentIdentifier(payment, true);
    const id = sha256Hex([requirements.network, requirements.asset.toLowerCase(), payer, auth.nonce].join('|'));
    const timings: Timings = { ledgerMs: 0, verifyMs: 0, handlerMs: 0, settleMs: 0, chainMs: 0 };
    const lease = () => ({ owner: this.instanceId, until: this.now() + this.leaseMs });

    let t = performance.now();
    const reserved = await this.ledger.reserve(
      {
        id,
        network: requirements.network,
        asset: requirements.asset.toLowerCase(),
        payer,
        nonce: auth.nonce,
        payTo: requirements.payTo.toLowerCase(),
        amount: requirements.amount,
        resource: call.resource,
        requestFingerprint: call.fingerprint,
        paymentKey: paymentId ? sha256Hex(`${payer}|${paymentId}`) : null,
        validBefore,
        payload: JSON.stringify(payment),
        requirements: JSON.stringify(requirements),
      },
      lease(),
      this.now(),
    );
    timings.ledgerMs += performance.now() - t;

    let attempt: PaymentAttempt;
    if (reserved.created) {
      attempt = reserved.attempt;
    } else {
      const existing = reserved.attempt;
      if (!existing) return { kind: 'refuse', code: 'service_unavailable', message: 'The payment record could not be read back; retry.' };
      if (existing.id !== id) return this.samePaymentIdentifier(call, payment, requirements, all, existing, timings);
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
      const got = await this.ledger.acquire(id, lease(), this.now());
      timings.ledgerMs += performance.now() - t;
      if (!got) {
        const again = await this.ledger.get(id);
        if (again?.state === 'settled') return this.replay(again, timings);
        return this.inProgress(again);
      }
      attempt = (await this.ledger.get(id))!;
    }
    return this.drive(call, payment, requirements, all, attempt, timings);
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

  private replay(a: PaymentAttempt, timings: Timings): GateOutcome {
    if (!a.response || !a.settleResponse) {
      return { kind: 'refuse', code: 'service_unavailable', message: 'The stored result for this payment is incomplete; retry later.' };
    }
    return { kind: 'deliver', response: a.response, paymentResponse: JSON.parse(a.settleResponse) as SettleResponse, replayed: true, attemptId: a.id, timings };
  }

  private failedAgain(call: PaidCall, all: PaymentRequirements[], a: PaymentAttempt): Promise<GateOutcome> {
    const code = a.failureCode === 'settlement_failed' ? 'settlement_failed' : a.failureCode === 'payment_expired' ? 'payment_expired' : 'payment_invalid';
    const response = a.settleResponse ? (JSON.parse(a.settleResponse) as SettleResponse) : undefined;
    return this.challenge(call, all, code, `This authorization was already refused (${a.failureCode ?? 'failed'}: ${a.failureDetail ?? 'no detail'}); sign a new one.`, response);
  }

  /**
   * x402 `payment-identifier`: the same id with the same request returns the
   * cached result; with another request it is a conflict. The new
   * authorization is verified (proving the caller holds the payer's key) but
   * never settled, so a retry after a lost response never pays twice.
   */
  private async samePaymentIdentifier(
    call: PaidCall,
    payment: PaymentPayload,
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
    const v = await this.rail.verify(payment, requirements);
    timings.verifyMs += performance.now() - t;
    if (v.kind === 'unavailable') return { kind: 'refuse', code: 'facilitator_unavailable', message: 'The facilitator could not be reached to verify the payment; nothing was charged.', retryAfterSeconds: 5 };
    if (v.kind === 'invalid') return this.challenge(call, all, 'payment_invalid', `The payment was rejected: ${v.message}`);
    return this.replay(existing, timings);
  }

  /** Move an attempt we hold the lease of as far as it can go. */
  private async drive(
    call: PaidCall,
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    all: PaymentRequirements[],
    attempt: PaymentAttempt,
    timings: Timings,
  ): Promise<GateOutcome> {
    const id = attempt.id;
    const owner = this.instanceId;
    const auth = authorizationOf(payment)!;
    let state = attempt.state;
    let stored = attempt.response;
    const lost = async (): Promise<GateOutcome> => {
      const a = await this.ledger.get(id);
      if (a?.state === 'settled') return this.replay(a, timings);
      return this.inProgress(a);
    };
    const move = async (to: PaymentAttempt['state'], patch: Parameters<Ledger['transition']>[3]) => {
      const t = performance.now();
      const ok = await this.ledger.transition(id, owner, to, patch, this.now());
      timings.ledgerMs += performance.now() - t;
      return ok;
    };
    const release = () => this.ledger.release(id, owner).catch(() => {});

    // A settle that may have been sent earlier: the chain decides before anything is sent again.
    if (state === 'settling' || state === 'unknown') {
      const t = performance.now();
      let used: boolean;
      try {
        used = await this.rail.chain.authorizationUsed(requirements.asset as Hex, auth.from, auth.nonce);
      } catch (e) {
        await release();
        return { kind: 'refuse', code: 'settlement_unknown', message: 'The outcome of an earlier settlement of this payment is not known yet; nothing was delivered. Retry later with the same payment.', retryAfterSeconds: 10 };
      } finally {
        timings.chainMs += performance.now() - t;
      }
      if (used) return this.settledFromChain(attempt, requirements, auth, timings);
      state = stored ? 'executed' : 'verified';
    }

    // Verify, run and store are recorded in one durable write (one fsync) once
    // the result exists; the history still shows each state. Nothing before
    // that write has moved money, so a crash in between only repeats a verify.
    const steps: Array<{ to: PaymentAttempt['state']; patch: Parameters<Ledger['transition']>[3] }> = [];
    if (state === 'reserved') {
      const t = performance.now();
      const v = await this.rail.verify(payment, requirements);
      timings.verifyMs += performance.now() - t;
      if (v.kind === 'unavailable') {
        this.log.warn({ attempt: id, err: v.message }, 'verify: facilitator unavailable');
        await release();
        return { kind: 'refuse', code: 'facilitator_unavailable', message: 'The payment facilitator could not be reached to verify the payment; nothing was delivered or charged. Retry with the same payment.', retryAfterSeconds: 5 };
      }
      if (v.kind === 'invalid') {
        await move('failed', { failureCode: 'payment_invalid', failureDetail: `${v.reason}: ${v.message}` });
        return this.challenge(call, all, 'payment_invalid', `The payment was rejected by the facilitator (${v.reason}); nothing was charged.`);
      }
      steps.push({ to: 'verified', patch: { note: v.response.payer ? `payer ${v.response.payer}` : undefined } });
      state = 'verified';
    }

    if (state === 'verified') {
      const t = performance.now();
      try {
        stored = await call.execute();
      } catch (e) {
        timings.handlerMs += performance.now() - t;
        this.log.error({ attempt: id, err: e instanceof Error ? e.message : String(e) }, 'handler failed; payment will not be settled');
        await move('failed', { failureCode: 'handler_failed', failureDetail: e instanceof Error ? e.message : String(e) });
        return { kind: 'refuse', code: 'handler_failed', message: 'The result could not be produced; the payment was not settled and nothing was charged.' };
      }
      timings.handlerMs += performance.now() - t;
      steps.push({ to: 'executed', patch: { response: stored } });
      state = 'executed';
    }

    if (state === 'executed') {
      if (attempt.validBefore < this.now() / 1000 + SETTLE_MARGIN_SECONDS) {
        await move('failed', { failureCode: 'payment_expired', failureDetail: 'authorization expired before settlement' });
        return this.challenge(call, all, 'payment_expired', 'The authorization expired before it could be settled; nothing was charged. Sign a new one.');
      }
      // The response is durably stored (in this write at the latest) before settle is sent.
      steps.push({ to: 'settling', patch: {} });
      const tl = performance.now();
      const ok = await this.ledger.advance(id, owner, steps, this.now());
      timings.ledgerMs += performance.now() - tl;
      if (!ok) return lost();
      const t = performance.now();
      const s = await this.rail.settle(payment, requirements);
      timings.settleMs += performance.now() - t;
      switch (s.kind) {
        case 'settled': {
          const receipt: SettleResponse = { ...s.response, payer: s.response.payer ?? auth.from };
          const settleJson = JSON.stringify(receipt);
          try {
            await move('settled', { settleResponse: settleJson, txHash: receipt.transaction });
          } catch (e) {
            // Money has moved and the result is stored: deliver it. The reconciler
            // records the settlement from the chain when the ledger is back.
            this.log.error({ attempt: id, tx: receipt.transaction, err: e instanceof Error ? e.message : String(e) }, 'settled but not recorded; reconciler will record it');
          }
          return { kind: 'deliver', response: stored!, paymentResponse: receipt, replayed: false, attemptId: id, timings };
        }
        case 'failed': {
          // Before declaring failure, ask the chain: an earlier settle of this
          // authorization may have landed while this one was refused.
          const onChain = await this.rail.chain.authorizationUsed(requirements.asset as Hex, auth.from, auth.nonce).catch(() => undefined);
          if (onChain === true) return this.settledFromChain({ ...attempt, response: stored }, requirements, auth, timings);
          if (onChain === undefined) {
            await move('unknown', { failureDetail: `settle refused but chain unreadable: ${s.response.errorReason ?? ''}` });
            await release();
            return { kind: 'refuse', code: 'settlement_unknown', message: 'The settlement outcome could not be confirmed; nothing was delivered. Retry later with the same payment.', retryAfterSeconds: 10 };
          }
          await move('failed', { failureCode: 'settlement_failed', failureDetail: `${s.response.errorReason ?? ''} ${s.response.errorMessage ?? ''}`.trim(), settleResponse: JSON.stringify(s.response) });
          return this.challenge(call, all, 'settlement_failed', `Settlement failed (${s.response.errorReason ?? 'unknown reason'}); nothing was delivered and nothing was charged.`, s.response);
        }
        case 'not-sent': {
          await move('executed', { note: 'settle not sent: facilitator unreachable' });
          await release();
          return { kind: 'refuse', code: 'facilitator_unavailable', message: 'The facilitator could not be reached to settle; nothing was delivered or charged. Retry with the same payment.', retryAfterSeconds: 5 };
        }
        case 'unknown': {
          this.log.warn({ attempt: id, err: s.message }, 'settle outcome unknown');
          await move('unknown', { failureDetail: s.message });
          await release();
          return { kind: 'refuse', code: 'settlement_unknown', message: 'The settlement outcome is not known yet; nothing was delivered. Retry later with the same payment: you will get the result if it settled, and will not be charged twice.', retryAfterSeconds: 10 };
        }
      }
    }
    return lost();
  }

  /** The chain says the authorization was used: record the settlement and deliver the stored result. */
  private async settledFromChain(attempt: PaymentAttempt, requirements: PaymentRequirements, auth: Eip3009Authorization, timings: Timings): Promise<GateOutcome> {
    const tx = await this.rail.chain.authorizationTransaction(requirements.asset as Hex, auth.from, auth.nonce).catch(() => undefined);
    const receipt: SettleResponse = {
      success: true,
      transaction: tx ?? '',
      network: requirements.network as `${string}:${string}`,
      payer: auth.from,
      amount: requirements.amount,
    };
    if (!attempt.response) {
      // Paid but nothing stored (cannot happen: settle starts only after the store). Keep it visible.
      await this.ledger.transition(attempt.id, this.instanceId, 'unknown', { failureDetail: 'used on chain without a stored response' }, this.now());
      return { kind: 'refuse', code: 'settlement_unknown', message: 'This payment settled but its result is not stored; contact the operator.' };
    }
    await this.ledger.transition(attempt.id, this.instanceId, 'settled', { settleResponse: JSON.stringify(receipt), txHash: tx ?? '', note: 'recorded from chain' }, this.now());
    return { kind: 'deliver', response: attempt.response, paymentResponse: receipt, replayed: true, attemptId: attempt.id, timings };
  }
}
