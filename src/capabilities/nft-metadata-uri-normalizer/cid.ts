/**
 * CID and multibase handling for the NFT metadata URI normalizer.
 *
 * Everything here is written for this module: every encoding of the
 * multiformats multibase table (big-number bases, RFC 4648 bases, base45,
 * proquint, base256emoji), unsigned varints, and the structural check of a CID
 * (version, codec, multihash). Nothing is
 * hashed or fetched: a CID is "valid" when it is well-formed, not when content
 * exists for it.
 */

/** Longest CID / key string we try to decode (guards the quadratic big-base decoders). */
const MAX_CID_CHARS = 1024;

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE36_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE16_ALPHABET = '0123456789abcdef';
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// ---------------------------------------------------------------------------
// Big-number bases (base58btc, base36): leading "zero digits" are zero bytes.

function indexTable(alphabet: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < alphabet.length; i++) m.set(alphabet[i], i);
  return m;
}

const BASE58_INDEX = indexTable(BASE58_ALPHABET);
const BASE36_INDEX = indexTable(BASE36_ALPHABET);

function decodeBigBase(text: string, alphabet: string, index: Map<string, number>): Uint8Array | undefined {
  const base = alphabet.length;
  let zeros = 0;
  while (zeros < text.length && text[zeros] === alphabet[0]) zeros++;
  // Little-endian byte accumulator, multiplied by `base` per digit.
  const acc: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    const digit = index.get(text[i]);
    if (digit === undefined) return undefined;
    let carry = digit;
    for (let j = 0; j < acc.length; j++) {
      carry += acc[j] * base;
      acc[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      acc.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + acc.length);
  for (let i = 0; i < acc.length; i++) out[zeros + i] = acc[acc.length - 1 - i];
  return out;
}

function encodeBigBase(bytes: Uint8Array, alphabet: string): string {
  const base = alphabet.length;
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Little-endian digit accumulator, multiplied by 256 per byte.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % base;
      carry = Math.floor(carry / base);
    }
    while (carry > 0) {
      digits.push(carry % base);
      carry = Math.floor(carry / base);
    }
  }
  let out = alphabet[0].repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) out += alphabet[digits[i]];
  return out;
}

export function decodeBase58btc(text: string): Uint8Array | undefined {
  return decodeBigBase(text, BASE58_ALPHABET, BASE58_INDEX);
}

export function encodeBase58btc(bytes: Uint8Array): string {
  return encodeBigBase(bytes, BASE58_ALPHABET);
}

function decodeBase36(lowercaseText: string): Uint8Array | undefined {
  return decodeBigBase(lowercaseText, BASE36_ALPHABET, BASE36_INDEX);
}

export function encodeBase36(bytes: Uint8Array): string {
  return encodeBigBase(bytes, BASE36_ALPHABET);
}

// ---------------------------------------------------------------------------
// RFC 4648 bases (power-of-two alphabets). Unpadded input; leftover bits must
// be fewer than one character's worth and all zero, as multibase requires.

function decodeRfc4648(text: string, alphabet: string, bitsPerChar: number): Uint8Array | undefined {
  const index = new Map<string, number>();
  for (let i = 0; i < alphabet.length; i++) index.set(alphabet[i], i);
  const out = new Uint8Array(Math.floor((text.length * bitsPerChar) / 8));
  let bits = 0;
  let buffer = 0;
  let written = 0;
  for (let i = 0; i < text.length; i++) {
    const v = index.get(text[i]);
    if (v === undefined) return undefined;
    buffer = ((buffer << bitsPerChar) | v) & 0xffffff;
    bits += bitsPerChar;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = (buffer >> bits) & 0xff;
    }
  }
  if (bits >= bitsPerChar) return undefined;
  if (((buffer << (8 - bits)) & 0xff) !== 0) return undefined;
  return out.subarray(0, written);
}

function encodeRfc4648(bytes: Uint8Array, alphabet: string, bitsPerChar: number): string {
  const mask = (1 << bitsPerChar) - 1;
  let out = '';
  let bits = 0;
  let buffer = 0;
  for (const b of bytes) {
    buffer = ((buffer << 8) | b) & 0xffffff;
    bits += 8;
    while (bits >= bitsPerChar) {
      bits -= bitsPerChar;
      out += alphabet[(buffer >> bits) & mask];
    }
  }
  if (bits > 0) out += alphabet[(buffer << (bitsPerChar - bits)) & mask];
  return out;
}

export function encodeBase32(bytes: Uint8Array): string {
  return encodeRfc4648(bytes, BASE32_ALPHABET, 5);
}

function decodeBase32(lowercaseText: string): Uint8Array | undefined {
  return decodeRfc4648(lowercaseText, BASE32_ALPHABET, 5);
}

/** The last character of a 43-character base64url string must leave its 2 spare bits zero. */
export function isCanonicalBase64Url43(id: string): boolean {
  return id.length === 43 && decodeRfc4648(id, BASE64URL_ALPHABET, 6)?.length === 32;
}

// ---------------------------------------------------------------------------
// Unsigned varint (LEB128), as used by multiformats. At most 9 bytes.

function readVarint(bytes: Uint8Array, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 9; i++) {
    const at = offset + i;
    if (at >= bytes.length) return undefined;
    const b = bytes[at];
    value += (b & 0x7f) * scale;
    if (b < 0x80) {
      // Reject non-minimal encodings (a trailing zero byte after the first).
      if (i > 0 && b === 0) return undefined;
      if (!Number.isSafeInteger(value)) return undefined;
      return { value, next: at + 1 };
    }
    scale *= 128;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Multicodec / multihash names for the codes seen on NFT metadata.

const CODEC_NAMES: ReadonlyMap<number, string> = new Map([
  [0x51, 'cbor'],
  [0x55, 'raw'],
  [0x70, 'dag-pb'],
  [0x71, 'dag-cbor'],
  [0x72, 'libp2p-key'],
  [0x78, 'git-raw'],
  [0x85, 'dag-jose'],
  [0x0129, 'dag-json'],
  [0x0200, 'json'],
]);

const MULTIHASH_NAMES: ReadonlyMap<number, string> = new Map([
  [0x00, 'identity'],
  [0x11, 'sha1'],
  [0x12, 'sha2-256'],
  [0x13, 'sha2-512'],
  [0x14, 'sha3-512'],
  [0x15, 'sha3-384'],
  [0x16, 'sha3-256'],
  [0x17, 'sha3-224'],
  [0x1b, 'keccak-256'],
  [0x1e, 'blake3'],
  [0xb220, 'blake2b-256'],
  [0x1012, 'sha2-256-trunc254-padded'],
]);

export interface Multihash {
  code: number;
  name: string | null;
  digestLength: number;
}

/** Parses bytes that must be exactly one multihash. */
function parseMultihash(bytes: Uint8Array, offset = 0): Multihash | string {
  const code = readVarint(bytes, offset);
  if (!code) return 'the multihash function code is not a valid varint';
  const len = readVarint(bytes, code.next);
  if (!len) return 'the multihash digest length is not a valid varint';
  const remaining = bytes.length - len.next;
  if (remaining !== len.value) {
    return `the multihash declares a ${len.value}-byte digest but ${remaining} byte(s) follow`;
  }
  if (code.value === 0x12 && len.value > 32) return 'a sha2-256 digest cannot be longer than 32 bytes';
  return { code: code.value, name: MULTIHASH_NAMES.get(code.value) ?? null, digestLength: len.value };
}

// ---------------------------------------------------------------------------
// Multibase: every encoding of the multiformats multibase table
// (github.com/multiformats/multibase, multibase.csv). The table reserves NUL,
// '1', 'Q' and '/' without an encoding; those are refused.

export type Multibase =
  | 'base2'
  | 'base8'
  | 'base10'
  | 'base16'
  | 'base16upper'
  | 'base32hex'
  | 'base32hexupper'
  | 'base32hexpad'
  | 'base32hexpadupper'
  | 'base32'
  | 'base32upper'
  | 'base32pad'
  | 'base32padupper'
  | 'base32z'
  | 'base36'
  | 'base36upper'
  | 'base45'
  | 'base58btc'
  | 'base58flickr'
  | 'base64'
  | 'base64pad'
  | 'base64url'
  | 'base64urlpad'
  | 'proquint'
  | 'base256emoji';

const BASE10_ALPHABET = '0123456789';
const BASE58FLICKR_ALPHABET = '123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';
const BASE32HEX_ALPHABET = '0123456789abcdefghijklmnopqrstuv';
const BASE32Z_ALPHABET = 'ybndrfg8ejkmcpqxot1uwisza345h769';
const BASE45_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';
const PROQUINT_CONSONANTS = 'bdfghjklmnprstvz';
const PROQUINT_VOWELS = 'aiou';
/** base256emoji: the code point of each byte value 0..255 (multibase rfcs/Base256Emoji.md). */
const BASE256_EMOJI: readonly number[] = [
  0x1f680, 0x1fa90, 0x2604, 0x1f6f0, 0x1f30c, 0x1f311, 0x1f312, 0x1f313, 0x1f314, 0x1f315, 0x1f316, 0x1f317,
  0x1f318, 0x1f30d, 0x1f30f, 0x1f30e, 0x1f409, 0x2600, 0x1f4bb, 0x1f5a5, 0x1f4be, 0x1f4bf, 0x1f602, 0x2764,
  0x1f60d, 0x1f923, 0x1f60a, 0x1f64f, 0x1f495, 0x1f62d, 0x1f618, 0x1f44d, 0x1f605, 0x1f44f, 0x1f601, 0x1f525,
  0x1f970, 0x1f494, 0x1f496, 0x1f499, 0x1f622, 0x1f914, 0x1f606, 0x1f644, 0x1f4aa, 0x1f609, 0x263a, 0x1f44c,
  0x1f917, 0x1f49c, 0x1f614, 0x1f60e, 0x1f607, 0x1f339, 0x1f926, 0x1f389, 0x1f49e, 0x270c, 0x2728, 0x1f937,
  0x1f631, 0x1f60c, 0x1f338, 0x1f64c, 0x1f60b, 0x1f497, 0x1f49a, 0x1f60f, 0x1f49b, 0x1f642, 0x1f493, 0x1f929,
  0x1f604, 0x1f600, 0x1f5a4, 0x1f603, 0x1f4af, 0x1f648, 0x1f447, 0x1f3b6, 0x1f612, 0x1f92d, 0x2763, 0x1f61c,
  0x1f48b, 0x1f440, 0x1f62a, 0x1f611, 0x1f4a5, 0x1f64b, 0x1f61e, 0x1f629, 0x1f621, 0x1f92a, 0x1f44a, 0x1f973,
  0x1f625, 0x1f924, 0x1f449, 0x1f483, 0x1f633, 0x270b, 0x1f61a, 0x1f61d, 0x1f634, 0x1f31f, 0x1f62c, 0x1f643,
  0x1f340, 0x1f337, 0x1f63b, 0x1f613, 0x2b50, 0x2705, 0x1f97a, 0x1f308, 0x1f608, 0x1f918, 0x1f4a6, 0x2714,
  0x1f623, 0x1f3c3, 0x1f490, 0x2639, 0x1f38a, 0x1f498, 0x1f620, 0x261d, 0x1f615, 0x1f33a, 0x1f382, 0x1f33b,
  0x1f610, 0x1f595, 0x1f49d, 0x1f64a, 0x1f639, 0x1f5e3, 0x1f4ab, 0x1f480, 0x1f451, 0x1f3b5, 0x1f91e, 0x1f61b,
  0x1f534, 0x1f624, 0x1f33c, 0x1f62b, 0x26bd, 0x1f919, 0x2615, 0x1f3c6, 0x1f92b, 0x1f448, 0x1f62e, 0x1f646,
  0x1f37b, 0x1f343, 0x1f436, 0x1f481, 0x1f632, 0x1f33f, 0x1f9e1, 0x1f381, 0x26a1, 0x1f31e, 0x1f388, 0x274c,
  0x270a, 0x1f44b, 0x1f630, 0x1f928, 0x1f636, 0x1f91d, 0x1f6b6, 0x1f4b0, 0x1f353, 0x1f4a2, 0x1f91f, 0x1f641,
  0x1f6a8, 0x1f4a8, 0x1f92c, 0x2708, 0x1f380, 0x1f37a, 0x1f913, 0x1f619, 0x1f49f, 0x1f331, 0x1f616, 0x1f476,
  0x1f974, 0x25b6, 0x27a1, 0x2753, 0x1f48e, 0x1f4b8, 0x2b07, 0x1f628, 0x1f31a, 0x1f98b, 0x1f637, 0x1f57a,
  0x26a0, 0x1f645, 0x1f61f, 0x1f635, 0x1f44e, 0x1f932, 0x1f920, 0x1f927, 0x1f4cc, 0x1f535, 0x1f485, 0x1f9d0,
  0x1f43e, 0x1f352, 0x1f617, 0x1f911, 0x1f30a, 0x1f92f, 0x1f437, 0x260e, 0x1f4a7, 0x1f62f, 0x1f486, 0x1f446,
  0x1f3a4, 0x1f647, 0x1f351, 0x2744, 0x1f334, 0x1f4a3, 0x1f438, 0x1f48c, 0x1f4cd, 0x1f940, 0x1f922, 0x1f445,
  0x1f4a1, 0x1f4a9, 0x1f450, 0x1f4f8, 0x1f47b, 0x1f910, 0x1f92e, 0x1f3bc, 0x1f975, 0x1f6a9, 0x1f34e, 0x1f34a,
  0x1f47c, 0x1f48d, 0x1f4e3, 0x1f942
];

const BASE10_INDEX = indexTable(BASE10_ALPHABET);
const BASE58FLICKR_INDEX = indexTable(BASE58FLICKR_ALPHABET);
const BASE45_INDEX = indexTable(BASE45_ALPHABET);
const BASE256_EMOJI_INDEX: ReadonlyMap<number, number> = new Map(BASE256_EMOJI.map((cp, i) => [cp, i]));

/** RFC 4648 with `=` padding: the pad count must be exactly what the length needs. */
function decodePaddedRfc4648(body: string, alphabet: string, bitsPerChar: number): Uint8Array | undefined {
  const block = bitsPerChar === 5 ? 8 : 4;
  if (body.length % block !== 0) return undefined;
  let end = body.length;
  while (end > 0 && body[end - 1] === '=') end--;
  const data = body.slice(0, end);
  const expected = data.length % block === 0 ? 0 : block - (data.length % block);
  if (body.length - end !== expected) return undefined;
  return decodeRfc4648(data, alphabet, bitsPerChar);
}

/** RFC 9285: three characters per two bytes (c + 45d + 2025e), two for a final byte. */
function decodeBase45(body: string): Uint8Array | undefined {
  if (body.length % 3 === 1) return undefined;
  const out: number[] = [];
  for (let i = 0; i < body.length; i += 3) {
    const chunk = body.slice(i, i + 3);
    let n = 0;
    let scale = 1;
    for (const ch of chunk) {
      const v = BASE45_INDEX.get(ch);
      if (v === undefined) return undefined;
      n += v * scale;
      scale *= 45;
    }
    if (chunk.length === 3) {
      if (n > 0xffff) return undefined;
      out.push(n >> 8, n & 0xff);
    } else {
      if (n > 0xff) return undefined;
      out.push(n);
    }
  }
  return Uint8Array.from(out);
}

/**
 * Proquint with the multibase "ro-" lead-in: 16-bit words as consonant-vowel-
 * consonant-vowel-consonant, joined by "-". An odd final byte is a 3-letter
 * word whose 2 spare bits are zero (the convention of the implementations that
 * handle odd lengths at all).
 */
function decodeProquint(body: string): Uint8Array | undefined {
  if (!body.startsWith('ro-')) return undefined;
  const words = body.slice(3).split('-');
  const out: number[] = [];
  for (let w = 0; w < words.length; w++) {
    const word = words[w];
    const last = w === words.length - 1;
    if (word.length !== 5 && !(last && word.length === 3)) return undefined;
    let n = 0;
    for (let i = 0; i < word.length; i++) {
      const v = (i % 2 === 0 ? PROQUINT_CONSONANTS : PROQUINT_VOWELS).indexOf(word[i]);
      if (v < 0) return undefined;
      n = n * (i % 2 === 0 ? 16 : 4) + v;
    }
    if (word.length === 5) out.push(n >> 8, n & 0xff);
    else if ((n & 3) !== 0) return undefined;
    else out.push(n >> 2);
  }
  return Uint8Array.from(out);
}

function decodeBase256Emoji(body: string): Uint8Array | undefined {
  const out: number[] = [];
  for (const ch of body) {
    const v = BASE256_EMOJI_INDEX.get(ch.codePointAt(0)!);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return Uint8Array.from(out);
}

interface MultibaseDef {
  name: Multibase;
  /** Letter case carries no information: the body is decoded lowercased. */
  caseInsensitive: boolean;
  decode: (body: string) => Uint8Array | undefined;
  /** What the body must look like, for error messages. */
  shape: string;
}

function def(name: Multibase, caseInsensitive: boolean, shape: string, decode: (body: string) => Uint8Array | undefined): MultibaseDef {
  return { name, caseInsensitive, shape, decode };
}

const b2 = (s: string) => decodeRfc4648(s, '01', 1);
const b8 = (s: string) => decodeRfc4648(s, '01234567', 3);
const b10 = (s: string) => decodeBigBase(s, BASE10_ALPHABET, BASE10_INDEX);
const b16 = (s: string) => decodeRfc4648(s, BASE16_ALPHABET, 4);
const b32hex = (s: string) => decodeRfc4648(s, BASE32HEX_ALPHABET, 5);
const b32hexpad = (s: string) => decodePaddedRfc4648(s, BASE32HEX_ALPHABET, 5);
const b32pad = (s: string) => decodePaddedRfc4648(s, BASE32_ALPHABET, 5);
const b58flickr = (s: string) => decodeBigBase(s, BASE58FLICKR_ALPHABET, BASE58FLICKR_INDEX);

/** Prefix character (one code point) → encoding. */
const MULTIBASES: ReadonlyMap<string, MultibaseDef> = new Map([
  ['0', def('base2', false, 'binary digits 0-1, a multiple of 8', b2)],
  ['7', def('base8', false, 'octal digits 0-7, MSB first', b8)],
  ['9', def('base10', false, 'decimal digits', b10)],
  ['f', def('base16', true, 'an even number of hex digits', b16)],
  ['F', def('base16upper', true, 'an even number of hex digits', b16)],
  ['v', def('base32hex', true, '0-9 a-v, unpadded', b32hex)],
  ['V', def('base32hexupper', true, '0-9 A-V, unpadded', b32hex)],
  ['t', def('base32hexpad', true, '0-9 a-v, padded with =', b32hexpad)],
  ['T', def('base32hexpadupper', true, '0-9 A-V, padded with =', b32hexpad)],
  ['b', def('base32', true, 'a-z 2-7, unpadded', decodeBase32)],
  ['B', def('base32upper', true, 'A-Z 2-7, unpadded', decodeBase32)],
  ['c', def('base32pad', true, 'a-z 2-7, padded with =', b32pad)],
  ['C', def('base32padupper', true, 'A-Z 2-7, padded with =', b32pad)],
  ['h', def('base32z', false, 'z-base-32 (ybndrfg8ejkmcpqxot1uwisza345h769)', (s) => decodeRfc4648(s, BASE32Z_ALPHABET, 5))],
  ['k', def('base36', true, '0-9 a-z', decodeBase36)],
  ['K', def('base36upper', true, '0-9 A-Z', decodeBase36)],
  ['R', def('base45', false, 'RFC 9285 base45 (0-9 A-Z space $%*+-./:)', decodeBase45)],
  ['z', def('base58btc', false, 'the base58btc alphabet', decodeBase58btc)],
  ['Z', def('base58flickr', false, 'the base58flickr alphabet', b58flickr)],
  ['m', def('base64', false, 'unpadded base64', (s) => decodeRfc4648(s, BASE64_ALPHABET, 6))],
  ['M', def('base64pad', false, 'padded base64', (s) => decodePaddedRfc4648(s, BASE64_ALPHABET, 6))],
  ['u', def('base64url', false, 'unpadded base64url', (s) => decodeRfc4648(s, BASE64URL_ALPHABET, 6))],
  ['U', def('base64urlpad', false, 'padded base64url', (s) => decodePaddedRfc4648(s, BASE64URL_ALPHABET, 6))],
  ['p', def('proquint', false, '"pro-" and 5-letter proquint words', decodeProquint)],
  ['\u{1F680}', def('base256emoji', false, 'base256emoji code points', decodeBase256Emoji)],
]);

/** Every encoding name, in table order (for the output schema). */
export const MULTIBASE_NAMES: readonly Multibase[] = [...MULTIBASES.values()].map((d) => d.name);

/** Prefixes whose strings survive lowercasing (what a host name does to them). */
const HOST_SAFE_PREFIXES = new Set(['0', '7', '9', 'f', 'v', 't', 'b', 'c', 'h', 'k', 'p']);

/** True when a lowercased string with this first character can still be a CID or key in a host label. */
export function isHostSafeMultibase(lowercased: string): boolean {
  return HOST_SAFE_PREFIXES.has(lowercased[0] ?? '');
}

// ---------------------------------------------------------------------------
// CIDs

export interface ParsedCid {
  ok: true;
  /** Canonical text: a CIDv0 exactly as given, a CIDv1 as lowercase base32 ("b…"). */
  cid: string;
  /** The text as given, with a case-insensitive multibase (prefix and body) lowercased. */
  caseFolded: string;
  version: 0 | 1;
  /** The multibase the input was written in (a CIDv0 is base58btc without a prefix). */
  multibase: Multibase;
  /** Multibase prefix character as it appeared in the input (`null` for CIDv0). */
  inputPrefix: string | null;
  /** True when the input was not already lowercase in a case-insensitive base. */
  lowercased: boolean;
  codec: string | null;
  codecCode: number;
  multihash: string | null;
  multihashCode: number;
  digestLength: number;
  /** The same CID as CIDv1 in lowercase base32 (what a subdomain gateway needs). */
  v1Base32: string;
  /** The binary CID (CIDv0: the bare multihash). */
  bytes: Uint8Array;
}

export interface CidFailure {
  ok: false;
  reason: string;
  /** A likely cause, e.g. a CIDv0 that was lowercased somewhere upstream. */
  mangledV0: boolean;
}

function fail(reason: string, mangledV0 = false): CidFailure {
  return { ok: false, reason, mangledV0 };
}

interface Decoded {
  bytes: Uint8Array;
  base: MultibaseDef;
  /** prefix + body, lowercased when the base is case-insensitive. */
  caseFolded: string;
  lowercased: boolean;
}

function decodeMultibase(text: string): Decoded | string {
  const prefix = String.fromCodePoint(text.codePointAt(0)!);
  const body = text.slice(prefix.length);
  const base = MULTIBASES.get(prefix);
  if (base === undefined) {
    const shown = /^[\x21-\x7e]$/.test(prefix) ? `"${prefix}"` : `U+${prefix.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `${shown} is not a multibase prefix (the multiformats multibase table defines 0 7 9 f F v V t T b B c C h k K R z Z m M u U p and U+1F680)`;
  }
  const folded = base.caseInsensitive ? body.toLowerCase() : body;
  const bytes = base.decode(folded);
  if (!bytes) return `not valid ${base.name} (${base.shape})`;
  const foldedPrefix = base.caseInsensitive ? prefix.toLowerCase() : prefix;
  return { bytes, base, caseFolded: foldedPrefix + folded, lowercased: foldedPrefix + folded !== text };
}

function v1Bytes(codec: number, multihash: Uint8Array): Uint8Array {
  const head = [0x01, ...varintBytes(codec)];
  const out = new Uint8Array(head.length + multihash.length);
  out.set(head, 0);
  out.set(multihash, head.length);
  return out;
}

function varintBytes(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

/** Looks like a CIDv0 that lost its case (e.g. went through a URL host or a lowercasing step). */
function looksLikeMangledV0(text: string): boolean {
  return text.length === 46 && /^qm[a-z0-9]{44}$/i.test(text) && text !== text.replace(/^qm/i, 'Qm');
}

/**
 * Parses a CID string. CIDv0 (`Qm…`, 46 characters, base58btc) is
 * case-sensitive and is returned exactly as given; CIDv1 must carry a
 * multibase prefix and decode to version 1, a codec, and one multihash.
 */
export function parseCid(text: string): ParsedCid | CidFailure {
  if (text.length === 0) return fail('the CID is empty');
  if (text.length > MAX_CID_CHARS) return fail(`the CID is longer than ${MAX_CID_CHARS} characters`);

  if (text.length === 46 && text.startsWith('Qm')) {
    const bytes = decodeBase58btc(text);
    if (!bytes) {
      return fail('a 46-character "Qm…" CIDv0 must use the base58btc alphabet (no 0, O, I or l)', /[0OIl]/.test(text));
    }
    if (bytes.length !== 34 || bytes[0] !== 0x12 || bytes[1] !== 0x20) {
      return fail('a CIDv0 must decode to a 34-byte sha2-256 multihash (0x12 0x20 + 32-byte digest)');
    }
    return {
      ok: true,
      cid: text,
      caseFolded: text,
      version: 0,
      multibase: 'base58btc',
      inputPrefix: null,
      lowercased: false,
      codec: 'dag-pb',
      codecCode: 0x70,
      multihash: 'sha2-256',
      multihashCode: 0x12,
      digestLength: 32,
      v1Base32: 'b' + encodeBase32(v1Bytes(0x70, bytes)),
      bytes,
    };
  }
  if (looksLikeMangledV0(text)) {
    return fail('this looks like a CIDv0 whose letter case was changed; CIDv0 is case-sensitive and cannot be recovered', true);
  }
  if (text.startsWith('Qm')) {
    return fail(`a "Qm…" CIDv0 is exactly 46 characters, this one has ${text.length}`);
  }

  const decoded = decodeMultibase(text);
  if (typeof decoded === 'string') return fail(`the CID is ${decoded}`);
  const { bytes } = decoded;
  const version = readVarint(bytes, 0);
  if (!version) return fail('the CID has no valid version varint');
  if (version.value === 0x12 && bytes[1] === 0x20) {
    return fail('a CIDv0 (a bare sha2-256 multihash) may only be written in base58btc without a multibase prefix');
  }
  if (version.value !== 1) return fail(`the CID version is ${version.value}; only 1 is defined with a multibase prefix`);
  const codec = readVarint(bytes, version.next);
  if (!codec) return fail('the CID has no valid codec varint');
  const mh = parseMultihash(bytes, codec.next);
  if (typeof mh === 'string') return fail(mh.replace(/^the multihash/, 'the CID multihash'));

  const v1Base32 = 'b' + encodeBase32(bytes);
  return {
    ok: true,
    cid: v1Base32,
    caseFolded: decoded.caseFolded,
    version: 1,
    multibase: decoded.base.name,
    inputPrefix: String.fromCodePoint(text.codePointAt(0)!),
    lowercased: decoded.lowercased,
    codec: CODEC_NAMES.get(codec.value) ?? null,
    codecCode: codec.value,
    multihash: mh.name,
    multihashCode: mh.code,
    digestLength: mh.digestLength,
    v1Base32,
    bytes,
  };
}

// ---------------------------------------------------------------------------
// IPNS keys

export interface ParsedIpnsKey {
  ok: true;
  /** Name to use in the canonical URI (case-insensitive bases lowercased). */
  name: string;
  lowercased: boolean;
  /** CIDv1 libp2p-key in base36 (`k…`): the form a subdomain gateway needs. */
  base36: string;
}

/**
 * Parses an IPNS key name: a CIDv1 with the libp2p-key codec in any multibase,
 * or a legacy base58btc peer ID (`12D3KooW…`, `Qm…`) that is a bare multihash.
 */
export function parseIpnsKey(text: string): ParsedIpnsKey | CidFailure {
  if (text.length === 0) return fail('the IPNS name is empty');
  if (text.length > MAX_CID_CHARS) return fail(`the IPNS name is longer than ${MAX_CID_CHARS} characters`);
  if (/^(?:1|Qm)/.test(text)) {
    const bytes = decodeBase58btc(text);
    if (!bytes) return fail('a legacy peer ID must be base58btc');
    const mh = parseMultihash(bytes);
    if (typeof mh === 'string') return fail(`a legacy peer ID must be one multihash: ${mh}`);
    if (mh.code !== 0x00 && mh.code !== 0x12) return fail('a legacy peer ID uses an identity or sha2-256 multihash');
    return { ok: true, name: text, lowercased: false, base36: 'k' + encodeBase36(v1Bytes(0x72, bytes)) };
  }
  const cid = parseCid(text);
  if (!cid.ok) return cid;
  if (cid.codecCode !== 0x72) {
    return fail(`an IPNS key CID uses the libp2p-key codec (0x72), this one uses ${cid.codec ?? '0x' + cid.codecCode.toString(16)}`);
  }
  // Keys keep the multibase they were written in; only letter case is folded.
  return { ok: true, name: cid.caseFolded, lowercased: cid.lowercased, base36: 'k' + encodeBase36(cid.bytes) };
}
