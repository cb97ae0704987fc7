/**
 * EIP-712 hashing for flat types, with what is constant computed once (each
 * domain separator, each type hash): viem's `hashTypedData` validates the
 * types and hashes the domain and the type string again on every call
 * (decision 0014). The digest is EIP-712's
 * keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)), byte for byte
 * viem's (commitments/typed-signer.test.ts and eip712.test.ts check it).
 *
 * Only flat types: domains of {name, version, chainId} and optionally
 * verifyingContract, structs of `string`, `uint256`, `bytes32` and `address`
 * fields; anything else is refused when the hasher for it is built. Used to
 * sign the service's own commitments and to check a buyer's EIP-3009
 * authorization.
 */
import { hexToBytes, isAddress, stringToBytes, type Hex } from 'viem';
import { keccak256Bytes } from './keccak.js';

type FieldType = 'string' | 'uint256' | 'bytes32' | 'address';
export interface Field {
  readonly name: string;
  readonly type: string;
}
export interface Domain {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
  readonly verifyingContract?: string;
}

const UINT256_MAX = (1n << 256n) - 1n;

const hash = keccak256Bytes;

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

/** Left-padded to 32 bytes; refused where viem refuses it (mixed case with a wrong EIP-55 checksum). */
function addressWord(value: unknown): Uint8Array {
  if (typeof value !== 'string' || !isAddress(value)) throw new TypeError(`not an address: ${String(value)}`);
  const word = new Uint8Array(32);
  word.set(hexToBytes(value as Hex), 12);
  return word;
}

const WORD: Record<FieldType, (v: unknown) => Uint8Array> = { string: stringWord, uint256: uint256Word, bytes32: bytes32Word, address: addressWord };

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
const hashContractDomain = structHasher('EIP712Domain', [...DOMAIN_FIELDS, { name: 'verifyingContract', type: 'address' }]);

function domainSeparator(domain: Domain): Uint8Array {
  const fields = { name: domain.name, version: domain.version, chainId: BigInt(domain.chainId) };
  return domain.verifyingContract === undefined ? hashDomain(fields) : hashContractDomain({ ...fields, verifyingContract: domain.verifyingContract });
}

/** keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)). */
function eip712Digest(separator: Uint8Array, structHash: Uint8Array): Uint8Array {
  const digest = new Uint8Array(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  digest.set(separator, 2);
  digest.set(structHash, 34);
  return hash(digest);
}

function singleStruct(types: Record<string, readonly Field[]>, primaryType: string): readonly Field[] {
  const fields = types[primaryType];
  if (!fields || Object.keys(types).length !== 1) throw new TypeError(`${primaryType}: only single flat struct types are handled here`);
  return fields;
}

/**
 * Domain separators and type hashers, kept by their text (a buyer's
 * authorization arrives as objects built per request). Bounded: a domain
 * comes from the service's own formats or payment requirements, a type from
 * its code, so there are a handful; past the bound the oldest goes.
 */
const MAX_KEPT = 64;
const keptSeparators = new Map<string, Uint8Array>();
const keptHashers = new Map<string, ReturnType<typeof structHasher>>();
function kept<V>(map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    if (map.size >= MAX_KEPT) map.delete(map.keys().next().value!);
    map.set(key, v);
  }
  return v;
}

/** viem's `hashTypedData` (same bytes), for the flat types above. */
export function typedDataDigest(domain: Domain, types: Record<string, readonly Field[]>, primaryType: string, message: Record<string, unknown>): Uint8Array {
  const fields = singleStruct(types, primaryType);
  const separator = kept(keptSeparators, JSON.stringify([domain.name, domain.version, domain.chainId, domain.verifyingContract]), () => domainSeparator(domain));
  const hasher = kept(keptHashers, `${primaryType}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`, () => structHasher(primaryType, fields));
  return eip712Digest(separator, hasher(message));
}

