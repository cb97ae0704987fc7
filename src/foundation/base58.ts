/**
 * Base58 (Bitcoin's alphabet), as Solana writes addresses, signatures and
 * keys: a big number in base 58, each leading zero byte written as `1`.
 * Worked five base-58 digits at a time (58^5 < 2^30), so a 32-byte key is a
 * few hundred multiplications of small numbers, not a BigInt per digit; a
 * Solana payment's check reads a dozen of them (decision 0033).
 * base58.test.ts checks it against @solana/kit's codec.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Character code → digit, -1 for anything outside the alphabet. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** 58^5: one limb of five base-58 digits. */
const LIMB = 656_356_768;

export function toBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // The number in limbs of five base-58 digits, least significant first; each byte multiplies it by 256.
  const limbs: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < limbs.length; j++) {
      const v = limbs[j]! * 256 + carry;
      carry = Math.floor(v / LIMB);
      limbs[j] = v - carry * LIMB;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB);
      limbs.push(carry - q * LIMB);
      carry = q;
    }
  }
  let out = '';
  for (let j = 0; j < limbs.length; j++) {
    let v = limbs[j]!;
    // Every limb but the most significant has exactly five digits, leading zeros included.
    const last = j === limbs.length - 1;
    for (let k = 0; k < 5 && (!last || v > 0); k++) {
      out = ALPHABET[v % 58]! + out;
      v = Math.floor(v / 58);
    }
  }
  return '1'.repeat(zeros) + out;
}

/** The bytes of a base58 text, or undefined when it is not base58. */
export function fromBase58(s: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < s.length && s.charCodeAt(zeros) === 49) zeros++;
  // The number in 16-bit limbs, least significant first; each group of up to five digits multiplies it by 58^n.
  const limbs: number[] = [];
  for (let i = zeros; i < s.length; ) {
    let group = 0;
    let scale = 1;
    for (let k = 0; k < 5 && i < s.length; k++, i++) {
      const code = s.charCodeAt(i);
      const d = code < 128 ? DIGIT[code]! : -1;
      if (d < 0) return undefined;
      group = group * 58 + d;
      scale *= 58;
    }
    let carry = group;
    for (let j = 0; j < limbs.length; j++) {
      const v = limbs[j]! * scale + carry;
      carry = Math.floor(v / 65_536);
      limbs[j] = v - carry * 65_536;
    }
    while (carry > 0) {
      limbs.push(carry % 65_536);
      carry = Math.floor(carry / 65_536);
    }
  }
  // Bytes, most significant first, without the number's own leading zero bytes.
  const body: number[] = [];
  for (let j = limbs.length - 1; j >= 0; j--) body.push(limbs[j]! >> 8, limbs[j]! & 0xff);
  let lead = 0;
  while (lead < body.length && body[lead] === 0) lead++;
  const out = new Uint8Array(zeros + body.length - lead);
  out.set(body.slice(lead), zeros);
  return out;
}
