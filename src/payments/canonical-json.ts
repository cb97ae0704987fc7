import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace,
 * numbers and strings as JSON.stringify writes them. Two requests that mean
 * the same JSON value produce the same bytes, whatever their key order or
 * spacing, so the fingerprint binds the meaning rather than the formatting.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    return s === undefined ? 'null' : s;
  }
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k])).join(',') + '}';
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The fingerprint an authorization is bound to: the resource and its canonical request. */
export function requestFingerprint(resource: string, input: unknown): string {
  return sha256Hex(resource + '\n' + canonicalJson(input));
}
