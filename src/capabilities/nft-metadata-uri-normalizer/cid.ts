/**
 * CID and multibase handling for the NFT metadata URI normalizer.
 *
 * Everything here is written for this module: base58btc / base36 (big-number
 * bases), RFC 4648 bases (base16, base32, base64, base64url), unsigned varints,
 * and the structural check of a CID (version, codec, multihash). Nothing is
 * hashed or fetched: a CID is "valid" when it is well-formed, not when content
 * exists for it.
 */

/** Longest CID / key string we try to decode (guards the quadratic big-base decoders). */
export const MAX_CID_CHARS = 1024;

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

export function decodeBase36(lowercaseText: string): Uint8Array | undefined {
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

export function decodeBase32(lowercaseText: string): Uint8Array | undefined {
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
export function parseMultihash(bytes: Uint8Array, offset = 0): Multihash | string {
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
// CIDs

export type Multibase =
  | 'base58btc'
  | 'base32'
  | 'base36'
  | 'base16'
  | 'base64'
  | 'base64url'
  | 'base64pad'
  | 'base64urlpad';

export interface ParsedCid {
  ok: true;
  /** The CID string to use in a canonical URI (case-insensitive bases lowercased). */
  cid: string;
  version: 0 | 1;
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

function decodeMultibase(body: string, prefix: string): { bytes: Uint8Array; multibase: Multibase; lowercased: boolean } | string {
  switch (prefix) {
    case 'z': {
      const b = decodeBase58btc(body);
      return b ? { bytes: b, multibase: 'base58btc', lowercased: false } : 'not valid base58btc';
    }
    case 'b':
    case 'B': {
      const lower = body.toLowerCase();
      const b = decodeBase32(lower);
      return b
        ? { bytes: b, multibase: 'base32', lowercased: prefix === 'B' || lower !== body }
        : 'not valid base32 (alphabet a-z, 2-7, unpadded)';
    }
    case 'k':
    case 'K': {
      const lower = body.toLowerCase();
      const b = decodeBase36(lower);
      return b ? { bytes: b, multibase: 'base36', lowercased: prefix === 'K' || lower !== body } : 'not valid base36';
    }
    case 'f':
    case 'F': {
      const lower = body.toLowerCase();
      const b = lower.length % 2 === 0 ? decodeRfc4648(lower, BASE16_ALPHABET, 4) : undefined;
      return b ? { bytes: b, multibase: 'base16', lowercased: prefix === 'F' || lower !== body } : 'not valid base16';
    }
    case 'm': {
      const b = decodeRfc4648(body, BASE64_ALPHABET, 6);
      return b ? { bytes: b, multibase: 'base64', lowercased: false } : 'not valid unpadded base64';
    }
    case 'M': {
      const b = decodePadded(body, BASE64_ALPHABET);
      return b ? { bytes: b, multibase: 'base64pad', lowercased: false } : 'not valid padded base64';
    }
    case 'u': {
      const b = decodeRfc4648(body, BASE64URL_ALPHABET, 6);
      return b ? { bytes: b, multibase: 'base64url', lowercased: false } : 'not valid unpadded base64url';
    }
    case 'U': {
      const b = decodePadded(body, BASE64URL_ALPHABET);
      return b ? { bytes: b, multibase: 'base64urlpad', lowercased: false } : 'not valid padded base64url';
    }
    default:
      return `"${prefix}" is not a multibase prefix this service decodes (b, B, z, k, K, f, F, m, M, u, U)`;
  }
}

function decodePadded(body: string, alphabet: string): Uint8Array | undefined {
  if (body.length % 4 !== 0) return undefined;
  const stripped = body.replace(/={1,2}$/, '');
  if (stripped.includes('=')) return undefined;
  return decodeRfc4648(stripped, alphabet, 6);
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

  const prefix = text[0];
  const decoded = decodeMultibase(text.slice(1), prefix);
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

  const body = decoded.lowercased ? text.slice(1).toLowerCase() : text.slice(1);
  const canonicalPrefix = prefix === 'B' || prefix === 'K' || prefix === 'F' ? prefix.toLowerCase() : prefix;
  return {
    ok: true,
    cid: canonicalPrefix + body,
    version: 1,
    multibase: decoded.multibase,
    inputPrefix: prefix,
    lowercased: decoded.lowercased,
    codec: CODEC_NAMES.get(codec.value) ?? null,
    codecCode: codec.value,
    multihash: mh.name,
    multihashCode: mh.code,
    digestLength: mh.digestLength,
    v1Base32: 'b' + encodeBase32(bytes),
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
  return { ok: true, name: cid.cid, lowercased: cid.lowercased, base36: 'k' + encodeBase36(cid.bytes) };
}
