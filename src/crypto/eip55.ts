/**
 * EIP-55 mixed-case checksums of EVM addresses. The case of each letter of
 * the hex is set by the matching nibble of keccak256(the lower-case hex): a
 * mistyped character in an address written in mixed case breaks the case
 * pattern, so the typo is caught before anyone pays to the wrong address.
 * An address all in lower case or all in upper case carries no checksum.
 */
import { keccak256Bytes } from './keccak.js';

/** `0x` + 40 hex digits in EIP-55 case. `address` must be `0x` + 40 hex digits, in any case. */
export function eip55Address(address: string): `0x${string}` {
  const hex = address.slice(2).toLowerCase();
  const hash = keccak256Bytes(Buffer.from(hex, 'ascii'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out as `0x${string}`;
}

/** Whether the case of `address` (`0x` + 40 hex digits) is acceptable: one case throughout, or exactly the EIP-55 checksum. */
export function hasValidEip55Case(address: string): boolean {
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return eip55Address(address) === address;
}
