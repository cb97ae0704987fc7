/**
 * The EIP-3009 `transferWithAuthorization` inside an x402 "exact" payment:
 * its shape, the local checks made before anything is written or sent, and
 * the bounded form of the payload that is stored, compared and settled.
 *
 * Why local checks: "bind before verify" writes a ledger row for the payment
 * before the facilitator is asked. Without a local signature check, anyone
 * could fill the ledger and burn facilitator quota with unsigned payloads
 * under random payers.
 */
import { bytesToHex, isAddress, type Hex } from 'viem';
import { typedDataDigest } from '../crypto/eip712.js';
import { signedBy, signatureParts } from './signer-check.js';
import { boundPayload } from './chains/payment-chain.js';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';

export interface Eip3009Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

/** A bound payment: what is stored, compared on replay and sent to settle. */
export interface BoundPayment {
  payload: PaymentPayload;
  authorization: Eip3009Authorization;
  signature: Hex;
}

/** ERC-6492 / ERC-1271 signatures of smart wallets are longer than 65 bytes; bound what we store. */
const MAX_SIGNATURE_HEX_CHARS = 2 + 2 * 4096;
/** Clock skew tolerated between a client's clock and ours when checking the authorization's window. */
const CLOCK_SKEW_SECONDS = 600;

const UINT = /^[0-9]{1,78}$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;
const UINT256_MAX = (1n << 256n) - 1n;

/** A uint256 as a decimal string; 78 digits can still exceed 2^256 − 1, which no EIP-712 encoder accepts. */
function uint(v: unknown): string | undefined {
  if (typeof v === 'string' && UINT.test(v)) {
    const n = BigInt(v);
    return n <= UINT256_MAX ? n.toString() : undefined;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  return undefined;
}

/**
 * 40 hex digits, and when the case is mixed, a correct EIP-55 checksum: a
 * mistyped checksum is a malformed address (EIP-55), and the EIP-712 encoder
 * refuses it, so it must be refused here, before anything is signed-checked.
 */
function address(v: unknown): v is Hex {
  return typeof v === 'string' && isAddress(v, { strict: true });
}

/** The authorization and signature of an x402 exact EVM payload, or undefined when it is not one. */
export function authorizationOf(payload: PaymentPayload): { authorization: Eip3009Authorization; signature: Hex } | undefined {
  const inner = payload.payload as { authorization?: unknown; signature?: unknown } | undefined;
  const a = inner?.authorization;
  if (!a || typeof a !== 'object') return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = a as Record<string, unknown>;
  const v = uint(value);
  const after = uint(validAfter);
  const before = uint(validBefore);
  if (!address(from) || !address(to)) return undefined;
  if (v === undefined || after === undefined || before === undefined) return undefined;
  if (typeof nonce !== 'string' || !NONCE.test(nonce)) return undefined;
  const sig = inner?.signature;
  if (typeof sig !== 'string' || !/^0x([0-9a-fA-F]{2})+$/.test(sig) || sig.length > MAX_SIGNATURE_HEX_CHARS) return undefined;
  return {
    authorization: { from: from as Hex, to: to as Hex, value: v, validAfter: after, validBefore: before, nonce: nonce.toLowerCase() as Hex },
    signature: sig.toLowerCase() as Hex,
  };
}

export type LocalCheck =
  | {
      ok: true;
      bound: BoundPayment;
      /**
       * Why a *new* attempt may not start with this authorization (its window).
       * A retry of an attempt already bound to it is still served: its stored
       * result must stay fetchable after validBefore, and its settlement may
       * still be pending.
       */
      notNew?: { code: 'payment_invalid' | 'payment_expired'; message: string };
    }
  | { ok: false; code: 'payment_invalid'; message: string };

/**
 * Everything that can be checked without the ledger, the facilitator or the
 * chain: the payload is an EIP-3009 authorization that pays exactly these
 * requirements, and (for a new attempt) within a window that can be settled.
 */
export function checkAuthorization(
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  nowSeconds: number,
  limits: { settleMarginSeconds: number; maxTimeoutSeconds: number },
): LocalCheck {
  const parsed = authorizationOf(payment);
  if (!parsed) {
    return { ok: false, code: 'payment_invalid', message: 'The payment payload is not an EIP-3009 authorization (payload.authorization with from, to, value, validAfter, validBefore, nonce, and a hex payload.signature).' };
  }
  const { authorization: auth, signature } = parsed;
  if (auth.to.toLowerCase() !== requirements.payTo.toLowerCase() || auth.value !== BigInt(requirements.amount).toString()) {
    return { ok: false, code: 'payment_invalid', message: 'The signed authorization does not pay this resource\'s amount to its payTo.' };
  }
  const payload = boundPayload(payment, requirements, { signature, authorization: { ...auth } });
  return { ok: true, bound: { payload, authorization: auth, signature }, notNew: windowProblem(auth, nowSeconds, limits) };
}

function windowProblem(auth: Eip3009Authorization, nowSeconds: number, limits: { settleMarginSeconds: number; maxTimeoutSeconds: number }) {
  if (Number(auth.validAfter) > nowSeconds + CLOCK_SKEW_SECONDS) {
    return { code: 'payment_invalid' as const, message: 'The authorization is not valid yet (validAfter is in the future).' };
  }
  const validBefore = Number(auth.validBefore);
  if (validBefore < nowSeconds + limits.settleMarginSeconds) {
    return { code: 'payment_expired' as const, message: 'The authorization expires too soon to be settled; sign a new one.' };
  }
  // An authorization's fate stays open until validBefore: a lifetime far beyond
  // what the requirements ask for would keep a refused settlement pending for it.
  if (validBefore > nowSeconds + limits.maxTimeoutSeconds + CLOCK_SKEW_SECONDS) {
    return { code: 'payment_invalid' as const, message: `The authorization is valid for longer than maxTimeoutSeconds (${limits.maxTimeoutSeconds}); sign one that expires sooner.` };
  }
  return undefined;
}

/** EIP-3009's TransferWithAuthorization, as USDC defines it. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** The EIP-712 typed data the payer signed (USDC's TransferWithAuthorization). */
export function authorizationTypedData(auth: Eip3009Authorization, requirements: PaymentRequirements) {
  // The rail always names the token's EIP-712 domain in `extra`.
  const extra = requirements.extra as { name: string; version: string };
  return {
    domain: {
      name: extra.name,
      version: extra.version,
      chainId: chainIdOf(requirements.network),
      verifyingContract: requirements.asset as Hex,
    },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: auth.from,
      to: auth.to,
      value: BigInt(auth.value),
      validAfter: BigInt(auth.validAfter),
      validBefore: BigInt(auth.validBefore),
      nonce: auth.nonce,
    },
  } as const;
}

export function chainIdOf(network: string): number {
  const m = /^eip155:([0-9]+)$/.exec(network);
  return m ? Number(m[1]) : 0;
}

/**
 * 'valid' when a 65-byte ECDSA signature recovers to `from` (low-`s` only: a
 * malleated copy is 'invalid'); 'invalid' when it recovers to anyone else or
 * is malformed; 'contract' for longer signatures (ERC-1271 / ERC-6492 smart
 * wallets), which only the chain can check.
 */
export async function ecdsaSignatureCheck(bound: BoundPayment, requirements: PaymentRequirements): Promise<'valid' | 'invalid' | 'contract'> {
  const sig = bound.signature;
  if (sig.length !== 132) return sig.length > 132 ? 'contract' : 'invalid';
  if (!signatureParts(sig)) return 'invalid';
  const t = authorizationTypedData(bound.authorization, requirements);
  const digest = bytesToHex(typedDataDigest(t.domain, t.types, t.primaryType, t.message));
  return signedBy(digest, sig, bound.authorization.from) ? 'valid' : 'invalid';
}

/**
 * The exact signed content of a bound payment: equal for two payloads only
 * when they carry the same signed authorization. A stored result is only
 * handed to a caller presenting exactly what was bound: payer and nonce are
 * public on chain, so they prove nothing.
 */
export function signedContent(bound: Pick<BoundPayment, 'authorization' | 'signature'>): string {
  const x = bound.authorization;
  return [x.from.toLowerCase(), x.to.toLowerCase(), x.value, x.validAfter, x.validBefore, x.nonce, bound.signature].join('|');
}
