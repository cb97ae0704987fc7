/**
 * Who may receive a stored result: the rule behind every redelivery.
 *
 * Once settled, an EIP-3009 authorization and its signature are calldata of
 * a public transaction, so presenting the bound PAYMENT-SIGNATURE again
 * proves nothing. A caller proves it is the buyer with something that never
 * went on chain: the x402 payment-identifier the attempt was bound with, or
 * a sign-in by the payer's key over our fresh challenge (sign-in.ts), or the
 * MPP challenge the authorization was signed for (mpp.ts: only its hash, the
 * nonce, is on chain; its HMAC id went to the buyer alone).
 *
 * A valid proof is always honoured, whoever else has been trying: counting
 * failures per authorization let anyone who read the chain lock the buyer
 * out (issue 41). The one proof that can be guessed is the identifier, so
 * wrong identifiers are counted per client (its host's key, as every
 * per-client limit counts it) and authorization, and a client that spent its
 * allowance on an authorization has its identifiers for it no longer
 * compared until the window ends: a guesser is slowed where it stands, a
 * correct identifier from anyone else is still compared, and a buyer sharing
 * the guesser's address (one NAT) loses only the identifier of the payment
 * being guessed, and can sign in. A try without an identifier has nothing
 * to guess and is never limited: its answer carries the sign-in challenge,
 * the way to the proof nobody can lock out. MIN_IDENTIFIER_BITS says why the
 * allowance suffices only for an identifier long enough to be a secret.
 */
import { extractPaymentIdentifier } from '@x402/extensions/payment-identifier';
import { sha256Hex } from '../foundation/canonical-json.js';
import type { MppChallenge, MppCharge } from './mpp.js';
import type { PaymentPayload } from './rail.js';
import type { SignInCheck, SignInWithX } from './sign-in.js';

/** Records a sign-in as used for the attempt it proves (the ledger's `spendSignIn`): false when it was used before. */
export type SpendSignIn = (signedIn: Extract<SignInCheck, { ok: true }>, attemptId: string) => Promise<boolean>;

/** Wrong payment-identifiers allowed per client, authorization and window. */
export const WRONG_IDENTIFIERS_PER_CLIENT = 10;
export const WRONG_IDENTIFIER_WINDOW_MS = 10 * 60_000;
/** Clients and authorizations whose wrong identifiers are tracked at once (per instance): an attacker cycling addresses or authorizations cannot grow memory. */
const CLIENTS_TRACKED = 10_000;

/**
 * The least an identifier must be able to hold, in bits, to count as a
 * proof. Why 64: with the allowance above, one client makes at most 10
 * guesses at one payment per 10 minutes; an attacker holding many clients
 * (addresses, or IPv6 /64s) or guessing at many payments multiplies that,
 * but never beyond the requests the service
 * answers, and forgetting clients when the table is full (CLIENTS_TRACKED)
 * gives it no more than that either. Even 10,000 guesses a second for a year
 * is under 2^39, so against 2^64 possible identifiers the chance of hitting
 * one is below 2^-25. The extension itself only asks for 16 characters of
 * [A-Za-z0-9_-]: 16 decimal digits (53 bits) or a counter behind a word
 * prefix is not a secret, so such an identifier still deduplicates a new
 * payment but proves nothing about a stored one (sign in instead).
 */
export const MIN_IDENTIFIER_BITS = 64;

/**
 * What an identifier can hold at most, judged by its characters, not by how
 * it was made: a leading word and its separator (`pay_`, `order-`) and the
 * separators themselves hold nothing; the rest counts at the smallest
 * alphabet its characters fit (digits, one-case hex, one-case alphanumeric,
 * mixed case). The SDK's `pay_` + 32 hex digits holds 128 bits, a UUID 128.
 */
export function identifierBits(id: string): number {
  const body = id.replace(/^[A-Za-z]+[-_]/, '').replace(/[-_]/g, '');
  const alphabet = /^[0-9]*$/.test(body) ? 10 : /^[0-9a-f]*$|^[0-9A-F]*$/.test(body) ? 16 : /^[0-9a-z]*$|^[0-9A-Z]*$/.test(body) ? 36 : 62;
  return body.length * Math.log2(alphabet);
}

function isSecretEnough(id: string): boolean {
  return identifierBits(id) >= MIN_IDENTIFIER_BITS;
}

/** The ledger's payer-scoped key of a payment-identifier (what `PaymentAttempt.paymentKey` holds). */
export function paymentKeyOf(payer: string, paymentId: string): string {
  return sha256Hex(`${payer}|${paymentId}`);
}

export type RedeliveryVerdict =
  | { kind: 'proven' }
  /**
   * No proof: answer with the 402 (it declares a sign-in, as every payable 402 does), the same
   * whatever the request. `weakIdentifier`: the identifier sent is too short
   * or too simple to be a secret and was not compared.
   */
  | { kind: 'unproven'; weakIdentifier: boolean }
  /** This client sent an identifier after spending its allowance of wrong ones for this authorization: not compared. */
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

/** What a caller presented with the bound authorization. */
export interface PresentedProof {
  payment: PaymentPayload;
  /** The SIGN-IN-WITH-X value, if any. */
  signIn?: string;
  /** The challenge of the MPP credential that carried the payment. */
  mppChallenge?: MppChallenge;
  /** Who is asking: the key every per-client limit counts by (src/foundation/client-key.ts). */
  client: string;
}

/** Wrong identifiers per key (client and authorization) in fixed windows, in bounded memory. */
class WrongIdentifiers {
  private readonly byKey = new Map<string, { count: number; since: number }>();

  /** Seconds until `key` may be compared again, or undefined while it has tries left. */
  spent(key: string, now: number): number | undefined {
    const t = this.byKey.get(key);
    if (!t || now - t.since >= WRONG_IDENTIFIER_WINDOW_MS || t.count < WRONG_IDENTIFIERS_PER_CLIENT) return undefined;
    return Math.max(1, Math.ceil((t.since + WRONG_IDENTIFIER_WINDOW_MS - now) / 1000));
  }

  count(key: string, now: number): void {
    const t = this.byKey.get(key);
    if (t && now - t.since < WRONG_IDENTIFIER_WINDOW_MS) {
      t.count++;
      return;
    }
    if (t) this.byKey.delete(key);
    else if (this.byKey.size >= CLIENTS_TRACKED) this.forget(now);
    this.byKey.set(key, { count: 1, since: now });
  }

  private forget(now: number): void {
    for (const [k, v] of this.byKey) if (now - v.since >= WRONG_IDENTIFIER_WINDOW_MS) this.byKey.delete(k);
    // Still full: drop the oldest half (insertion order). See MIN_IDENTIFIER_BITS for why that is safe.
    if (this.byKey.size >= CLIENTS_TRACKED) {
      let n = this.byKey.size / 2;
      for (const k of this.byKey.keys()) {
        if (n-- <= 0) break;
        this.byKey.delete(k);
      }
    }
  }

  get tracked(): number {
    return this.byKey.size;
  }
}

export class RedeliveryGuard {
  private readonly wrong = new WrongIdentifiers();

  constructor(
    private readonly signIn: SignInWithX,
    /** A sign-in proves once: this records it. */
    private readonly spend: SpendSignIn,
    /** Checks MPP challenges; none when MPP is off. */
    private readonly mpp?: MppCharge,
  ) {}

  async check(attempt: BoundAttempt, presented: PresentedProof, resourceUrl: string, now: number): Promise<RedeliveryVerdict> {
    // Nothing to guess and so never limited: a challenge's id is an HMAC under our secret.
    const { mppChallenge, signIn, client } = presented;
    if (mppChallenge !== undefined && attempt.nonce !== undefined && this.mpp?.proves(mppChallenge, attempt.nonce)) return { kind: 'proven' };
    if (signIn !== undefined) {
      const signedIn = await this.signIn.check(signIn, resourceUrl, now);
      // Used only when it proves this attempt's payer: another wallet's sign-in is not spent by failing here.
      if (signedIn.ok && signedIn.network === attempt.network && signedIn.address === attempt.payer && (await this.spend(signedIn, attempt.id))) return { kind: 'proven' };
    }
    const id = extractPaymentIdentifier(presented.payment, true);
    const weakIdentifier = id !== null && !isSecretEnough(id);
    if (id !== null && !weakIdentifier) {
      // The attempt id is a hash of public fields: fixed length, so no separator can be forged into another key.
      const key = `${attempt.id}|${client}`;
      const retryAfterSeconds = this.wrong.spent(key, now);
      if (retryAfterSeconds !== undefined) return { kind: 'limited', retryAfterSeconds };
      if (attempt.paymentKey !== null && paymentKeyOf(attempt.payer, id) === attempt.paymentKey) return { kind: 'proven' };
      this.wrong.count(key, now);
    }
    return { kind: 'unproven', weakIdentifier };
  }

  /** Clients (per authorization) with wrong identifiers counted now (bounded by CLIENTS_TRACKED). */
  get clientsTracked(): number {
    return this.wrong.tracked;
  }
}
