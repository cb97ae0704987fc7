/**
 * EIP-712 signing for the flat types of formats.ts, with what is constant
 * computed once: each domain separator and each type hash. viem's
 * `signTypedData` validated the types and hashed the domain and the type
 * string again on every call, which was half the cost of a delivery's two
 * receipt signatures. The digest is EIP-712's
 * keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)) and the
 * signature viem's own form (RFC 6979, low s, r ‖ s ‖ v with v = 27 + y
 * parity; ../crypto/secp256k1.ts), byte for byte (typed-signer.test.ts checks
 * both against viem).
 *
 * Only what formats.ts uses: domains of {name, version, chainId}, structs of
 * `string`, `uint256` and `bytes32` fields; anything else is refused when the
 * signer for it is built.
 */
import { hexToBytes, keccak256, stringToBytes } from 'viem';
import { signDigest } from '../crypto/secp256k1.js';
import type { Hex } from './formats.js';

type FieldType = 'string' | 'uint256' | 'bytes32';
interface Field {
  readonly name: string;
  readonly type: string;
}
interface Domain {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
}

const UINT256_MAX = (1n << 256n) - 1n;

const hash = (bytes: Uint8Array): Uint8Array => keccak256(bytes, 'bytes');

function typeHash(primaryType: string, fields: readonly Field[]): Uint8Array {
  return hash(stringToBytes(`${primaryType}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`));
}

function uint256Word(value: unknown): Uint8Array {
  const n = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (n === undefined || n < 0n || n > UINT256_MAX) throw new TypeError(`not a uint256: ${String(value)}`);
  return hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
}

function bytes32Word(value: unknown): Uint8Array {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) throw new TypeError(`not a bytes32: ${String(value)}`);
  return hexToBytes(value as Hex);
}

function stringWord(value: unknown): Uint8Array {
  if (typeof value !== 'string') throw new TypeError(`not a string: ${String(value)}`);
  return hash(stringToBytes(value));
}

const WORD: Record<FieldType, (v: unknown) => Uint8Array> = { string: stringWord, uint256: uint256Word, bytes32: bytes32Word };

/** hashStruct for one flat type: its type hash, then one 32-byte word per field. */
function structHasher(primaryType: string, fields: readonly Field[]): (message: Record<string, unknown>) => Uint8Array {
  for (const f of fields) if (!(f.type in WORD)) throw new TypeError(`${primaryType}.${f.name}: type ${f.type} is not supported here`);
  const head = typeHash(primaryType, fields);
  const words = fields.map((f) => WORD[f.type as FieldType]);
  return (message) => {
    const buf = new Uint8Array(32 * (fields.length + 1));
    buf.set(head, 0);
    for (let i = 0; i < fields.length; i++) buf.set(words[i]!(message[fields[i]!.name]), 32 * (i + 1));
    return hash(buf);
  };
}

const DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
] as const;
const hashDomain = structHasher('EIP712Domain', DOMAIN_FIELDS);

export interface TypedSigner {
  /** The EIP-712 signature of `message` as `primaryType` of `types` under `domain`. */
  sign(domain: Domain, types: Record<string, readonly Field[]>, primaryType: string, message: Record<string, unknown>): Hex;
}

export function createTypedSigner(privateKey: Hex): TypedSigner {
  const key = hexToBytes(privateKey);
  // Keyed by the (constant) objects formats.ts exports: one separator per domain, one hasher per type.
  const separators = new WeakMap<Domain, Uint8Array>();
  const hashers = new WeakMap<readonly Field[], ReturnType<typeof structHasher>>();
  return {
    sign(domain, types, primaryType, message) {
      let separator = separators.get(domain);
      if (!separator) separators.set(domain, (separator = hashDomain({ name: domain.name, version: domain.version, chainId: BigInt(domain.chainId) })));
      const fields = types[primaryType];
      if (!fields || Object.keys(types).length !== 1) throw new TypeError(`${primaryType}: only single flat struct types are signed here`);
      let hasher = hashers.get(fields);
      if (!hasher) hashers.set(fields, (hasher = structHasher(primaryType, fields)));
      const digest = new Uint8Array(66);
      digest[0] = 0x19;
      digest[1] = 0x01;
      digest.set(separator, 2);
      digest.set(hasher(message), 34);
      return signDigest(hash(digest), key);
    },
  };
}
