import { createHash } from 'node:crypto';

/**
 * Canonical JSON (RFC 8785, JCS) and the request fingerprint built on it.
 *
 * These bytes are bound into payments, receipts and signed offers, so the
 * form never changes (`canonical-json.test.ts` pins fingerprints made before
 * this implementation existed):
 * - no whitespace; object members sorted by key, comparing UTF-16 code units
 *   (the default `Array.prototype.sort`); array elements in order;
 * - strings, keys and numbers exactly as `JSON.stringify` writes them
 *   (minimal escapes, non-ASCII as itself, shortest round-trip numbers,
 *   `-0` as `0`).
 *
 * For I-JSON (what JSON.parse returns from text without duplicate keys or
 * lone surrogates) this is byte for byte JCS. Beyond it, it writes rather
 * than refuses, as it always has: a lone surrogate as its `\udxxx` escape, a
 * non-finite number as `null`, a member whose value is `undefined` omitted,
 * `undefined` in an array (or at the top) as `null`, a function or symbol as
 * `null`, any other object by its own enumerable keys (`toJSON` is not
 * called); a bigint throws, as in JSON.stringify.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(value) ?? 'null';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  let out = '';
  for (const key of Object.keys(obj).sort()) {
    const member = obj[key];
    if (member !== undefined) out += (out ? ',' : '') + quoted(key) + ':' + canonicalJson(member);
  }
  return '{' + out + '}';
}

/** What JSON.stringify escapes: `"`, `\`, U+0000–U+001F, and surrogates (a lone one is escaped, a pair is not). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quoted(s: string): string {
  // Most keys and values need no escape; then this is what JSON.stringify writes, without a call into it.
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The fingerprint an authorization is bound to: hex SHA-256 of the UTF-8
 * bytes of `resource`, a line feed, then `canonicalJson(input)`.
 */
export function requestFingerprint(resource: string, input: unknown): string {
  return sha256Hex(resource + '\n' + canonicalJson(input));
}
