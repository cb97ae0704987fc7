/**
 * "Did `address` sign `digest`?" for a 65-byte ECDSA signature, answered
 * exactly as the chain's `ecrecover` would (EIP-3009 tokens recover the signer
 * with it), with one stricter rule the tokens share: a signature whose `s` is
 * above half the order is a malleated copy (EIP-2) and is refused.
 *
 * The recovery itself is libsecp256k1's (../crypto/secp256k1.ts). With it no
 * per-payer key or multiplication table needs keeping (decision 0014).
 */
import { hexToBytes, type Hex } from 'viem';
import { recoverAddress } from '../crypto/secp256k1.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** Signatures with s above half the order are malleated copies (EIP-2): refused, as the gate always has. */
export const HALF_N = N >> 1n;

/** The parts of a 65-byte `r ‖ s ‖ v` signature, or undefined when it is not a well-formed low-s one. */
export function signatureParts(signature: string): { r: bigint; s: bigint; parity: 0 | 1 } | undefined {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined;
  const r = BigInt('0x' + signature.slice(2, 66));
  const s = BigInt('0x' + signature.slice(66, 130));
  const v = parseInt(signature.slice(130, 132), 16);
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) return undefined;
  if (r === 0n || r >= N || s === 0n || s > HALF_N) return undefined;
  return { r, s, parity: (v >= 27 ? v - 27 : v) as 0 | 1 };
}

/** True when `signature` over the 32-byte `digest` recovers to `address` (case-insensitive). */
export function signedBy(digest: Hex, signature: Hex, address: string): boolean {
  const parts = signatureParts(signature);
  if (!parts || !/^0x[0-9a-fA-F]{64}$/.test(digest)) return false;
  const rs = hexToBytes(signature).subarray(0, 64);
  return recoverAddress(hexToBytes(digest), rs, parts.parity) === address.toLowerCase();
}
