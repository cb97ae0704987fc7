/**
 * Who may receive a stored result: the rule behind every redelivery.
 *
 * Once settled, an EIP-3009 authorization and its signature are calldata of
 * a public transaction, so presenting the bound PAYMENT-SIGNATURE again
 * proves nothing. A caller proves it is the buyer with something that never
 * went on chain: the x402 payment-identifier the attempt was bound with, or
 * a sign-in by the payer's key over our fresh challenge (sign-in.ts), or the
 * MPP challenge the authorization was signed for (mpp.ts: only its hash, the
 * nonce, is on chain; its HMAC id went to the buyer alone). The
 * identifier is a secret that could be guessed at request rate, so unproven
 * tries per authorization are counted; past the limit the identifier is no
 * longer compared, while a sign-in (nothing to guess) always is.
 */
import { extractPaymentIdentifier } from '@x402/extensions/payment-identifier';
import { sha256Hex } from '../foundation/canonical-json.js';
import type { MppChallenge, MppCharge } from './mpp.js';
import type { PaymentPayload } from './rail.js';
import type { SignInWithX } from './sign-in.js';

/** Unproven tries allowed per authorization and window. */
export const UNPROVEN_TRIES = 10;
const UNPROVEN_WINDOW_MS = 10 * 60_000;
/** Authorizations whose tries are tracked at once (per instance): an attacker cycling them cannot grow memory. */
const UNPROVEN_TRACKED = 10_000;

/** The ledger's payer-scoped key of a payment-identifier (what `PaymentAttempt.paymentKey` holds). */
export function paymentKeyOf(payer: string, paymentId: string): string {
  return sha256Hex(`${payer}|${paymentId}`);
}

export type RedeliveryVerdict =
  | { kind: 'proven' }
  /** No proof: answer with this sign-in challenge (PaymentRequired extensions), the same whatever the request. */
  | { kind: 'unproven'; signInChallenge: Record<string, unknown> }
  /** An identifier was offered after the tries were spent: not compared. */
  | { kind: 'limited'; retryAfterSeconds: number };

export interface BoundAttempt {
  id: string;
  /** The network it was paid on: a sign-in proves the payer there. */
  network: string;
  /** The payer as the ledger keys it (EVM lower case, Solana base58). */
  payer: string;
  paymentKey: string | null;
  /** The bound authorization's EIP-3009 nonce (what an MPP challenge must hash to). */
  nonce?: string;
}

export class RedeliveryGuard {
  private readonly tries = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly signIn: SignInWithX,
    /** Checks MPP challenges; none when MPP is off. */
    private readonly mpp?: MppCharge,
  ) {}

  /** `signIn`: the SIGN-IN-WITH-X value; `mppChallenge`: the challenge of the MPP credential that carried the payment. */
  async check(attempt: BoundAttempt, payment: PaymentPayload, signIn: string | undefined, resourceUrl: string, now: number, mppChallenge?: MppChallenge): Promise<RedeliveryVerdict> {
    // Nothing to guess and so never counted: a challenge's id is an HMAC under our secret.
    if (mppChallenge !== undefined && attempt.nonce !== undefined && this.mpp?.proves(mppChallenge, attempt.nonce)) return { kind: 'proven' };
    if (signIn !== undefined) {
      const signedIn = await this.signIn.check(signIn, resourceUrl, now);
      if (signedIn.ok && signedIn.network === attempt.network && signedIn.address === attempt.payer) return { kind: 'proven' };
    }
    const tries = this.triesOf(attempt.id, now);
    const id = extractPaymentIdentifier(payment, true);
    if (id !== null && tries.count >= UNPROVEN_TRIES) {
      return { kind: 'limited', retryAfterSeconds: Math.ceil((tries.since + UNPROVEN_WINDOW_MS - now) / 1000) };
    }
    if (id !== null && attempt.paymentKey !== null && paymentKeyOf(attempt.payer, id) === attempt.paymentKey) return { kind: 'proven' };
    tries.count++;
    return { kind: 'unproven', signInChallenge: this.signIn.challenge(resourceUrl, now) };
  }

  private triesOf(attemptId: string, now: number): { count: number; since: number } {
    let t = this.tries.get(attemptId);
    if (!t || now - t.since >= UNPROVEN_WINDOW_MS) {
      if (this.tries.size >= UNPROVEN_TRACKED) this.forget(now);
      t = { count: 0, since: now };
      this.tries.set(attemptId, t);
    }
    return t;
  }

  private forget(now: number): void {
    for (const [k, v] of this.tries) if (now - v.since >= UNPROVEN_WINDOW_MS) this.tries.delete(k);
    // Still full: drop the oldest half (insertion order).
    if (this.tries.size >= UNPROVEN_TRACKED) {
      let n = this.tries.size / 2;
      for (const k of this.tries.keys()) {
        if (n-- <= 0) break;
        this.tries.delete(k);
      }
    }
  }
}
