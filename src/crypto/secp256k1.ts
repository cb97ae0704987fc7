/**
 * secp256k1 ECDSA for the service: the one place it signs a digest (receipts,
 * offers, steps) and recovers a signer (a buyer's EIP-3009 authorization).
 *
 * Why libsecp256k1 (the `secp256k1` package: a prebuilt N-API binding, with
 * its pure-JavaScript fallback where no binding loads): a paid call does one
 * recovery and two signatures before its answer leaves, and the binding does
 * each an order of magnitude faster than @noble/curves (decision 0014).
 *
 * Same bytes as viem: the nonce is RFC 6979's (deterministic, so the same
 * facts always get the same signature and a redelivery the same receipt), `s`
 * is low, and the signature is r ‖ s ‖ v with v = 27 + the recovery bit
 * (typed-signer.test.ts compares with viem's `signTypedData`).
 */
import secp from 'secp256k1';
import type { Hex } from 'viem';
import { keccak256Bytes } from './keccak.js';

const V_OFFSET = 27;

/** r ‖ s ‖ v (65 bytes, hex) of `digest` (32 bytes) under `privateKey` (32 bytes). */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): Hex {
  const { signature, recid } = secp.ecdsaSign(digest, privateKey);
  return `0x${Buffer.from(signature.buffer, signature.byteOffset, 64).toString('hex')}${(V_OFFSET + recid).toString(16)}`;
}

/**
 * The address (lower-case hex) whose key made the 64-byte `r ‖ s` over
 * `digest` with recovery bit `parity`, as the chain's ecrecover computes it;
 * undefined when no key does (r or s out of range, no point with that x).
 */
export function recoverAddress(digest: Uint8Array, rs: Uint8Array, parity: 0 | 1): string | undefined {
  let key: Uint8Array;
  try {
    key = secp.ecdsaRecover(rs, parity, digest, false); // 0x04 ‖ X ‖ Y
  } catch {
    return undefined;
  }
  return `0x${Buffer.from(keccak256Bytes(key.subarray(1)).subarray(12)).toString('hex')}`;
}
