/**
 * EIP-712 signing for the flat types of formats.ts: the digest with each
 * domain separator and type hash computed once (../crypto/eip712.ts; viem's
 * `signTypedData` recomputed them on every call, half the cost of a
 * delivery's two receipt signatures), signed in viem's own form (RFC 6979,
 * low s, r ‖ s ‖ v with v = 27 + y parity; ../crypto/secp256k1.ts), byte for
 * byte (typed-signer.test.ts checks it against viem).
 */
import { hexToBytes } from 'viem';
import { typedDataDigest, type Domain, type Field } from '../crypto/eip712.js';
import { signDigest } from '../crypto/secp256k1.js';
import type { Hex } from './formats.js';

export interface TypedSigner {
  /** The EIP-712 signature of `message` as `primaryType` of `types` under `domain`. */
  sign(domain: Domain, types: Record<string, readonly Field[]>, primaryType: string, message: Record<string, unknown>): Hex;
}

export function createTypedSigner(privateKey: Hex): TypedSigner {
  const key = hexToBytes(privateKey);
  return {
    sign: (domain, types, primaryType, message) => signDigest(typedDataDigest(domain, types, primaryType, message), key),
  };
}
