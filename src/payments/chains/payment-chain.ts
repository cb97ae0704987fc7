/**
 * What differs between the chains the gate takes payments on, behind one
 * small interface: what an authorization is, how it is checked locally, and
 * how the chain is asked about it. The gate's table of steps is the same for
 * every chain; it asks the `PaymentChain` of the payment's network.
 *
 * - EVM (`evm.ts`): an EIP-3009 `transferWithAuthorization` signed by the
 *   payer; identity payer + nonce; dead once a block at or past `validBefore`
 *   shows it unused.
 * - Solana (`svm.ts`): a transaction paying by `TransferChecked`, signed by
 *   the buyer and sent by the facilitator as fee payer; identity the buyer and
 *   the hash of the signed message; dead once its blockhash has expired and
 *   the transaction is not on chain.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';


/** A payment checked locally: what is bound, stored, compared on replay and settled. */
export interface Authorization {
  /** The payer as the payment names it (receipts say it this way). */
  payer: string;
  /** The payer as the ledger keys and compares it (EVM: lower case; Solana: base58 as is). */
  ledgerPayer: string;
  /** With the payer, the authorization's identity on its chain: one delivery per identity. */
  nonce: string;
  /**
   * Unix seconds past which the gate does not start a settlement. EVM: the
   * signed `validBefore`. Solana: an estimate of the blockhash's end; the
   * chain, not this number, says when the payment is dead.
   */
  validBefore: number;
  /** The bounded payload: only what the facilitator needs, so unsigned extras of any size are never stored. */
  payload: PaymentPayload;
  /** The exact signed content: equal for two payloads only when they carry the same signed authorization. */
  signed: string;
}

/** Why a new attempt may not start with an authorization that is otherwise well-formed (its window). */
export interface NotNew {
  code: 'payment_invalid' | 'payment_expired';
  message: string;
}

export type LocalCheck =
  | { ok: true; authorization: Authorization; notNew?: NotNew }
  | { ok: false; code: 'payment_invalid' | 'payment_fee_too_high'; message: string }
  /** The check needs the chain (a smart wallet's signature) and the chain did not answer: nothing was written. */
  | { ok: false; code: 'service_unavailable'; message: string };

export interface CheckLimits {
  settleMarginSeconds: number;
  maxTimeoutSeconds: number;
}

/** What the chain says about a bound authorization. */
export type ChainFate =
  /** The transfer happened; `transaction` when the node could name it. */
  | { kind: 'used'; transaction: string | undefined }
  /** The transfer can no longer happen, ever. */
  | { kind: 'dead' }
  /** Not (yet) on chain and still able to land. */
  | { kind: 'open' };

/** The stored attempt, as much of it as a chain needs to answer. */
export interface BoundAttempt {
  asset: string;
  payer: string;
  nonce: string;
  validBefore: number;
  /** When it was bound (ms): a Solana transaction is searched for among those that landed since shortly before. */
  createdAt: number;
  /** The bound payload (JSON), as `Authorization.payload` was stored. */
  payload: string;
}

export interface PaymentChain {
  /** CAIP-2 network id. */
  readonly network: string;
  /** Addresses as the ledger stores and compares them. */
  ledgerForm(address: string): string;
  /** Everything that can be checked before anything is written or sent; the signature included. */
  check(payment: PaymentPayload, requirements: PaymentRequirements, nowSeconds: number, limits: CheckLimits): Promise<LocalCheck>;
  /** Who signed the payload this chain stored when it was bound, and what (it always parses). */
  stored(payload: string): Pick<Authorization, 'payer' | 'signed'>;
  /** Ask the chain; throws when it cannot be read. */
  fate(attempt: BoundAttempt): Promise<ChainFate>;
}

/**
 * The payload as it is bound, stored and settled: the chain's signed part and
 * the payment-identifier (a redelivery's proof), nothing else. Unsigned
 * extras a client attaches, of any size, are dropped.
 */
export function boundPayload(payment: PaymentPayload, requirements: PaymentRequirements, signed: Record<string, unknown>): PaymentPayload {
  const identifier = (payment.extensions as Record<string, unknown> | undefined)?.['payment-identifier'];
  return {
    x402Version: payment.x402Version,
    accepted: requirements,
    payload: signed,
    ...(identifier !== undefined && JSON.stringify(identifier).length <= 512 ? { extensions: { 'payment-identifier': identifier } } : {}),
  } as PaymentPayload;
}
