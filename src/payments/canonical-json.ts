import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace,
 * numbers and strings as JSON.stringify writes them. Two requests that mean
 * the same JSON value produce the same bytes, whatever their key order or
 * spacing, so the fingerprint binds the meaning rather than the formatting.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i) out.push(',');
      write(value[i] === undefined ? null : value[i], out);
    }
    out.push(']');
    return;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  // Most bodies arrive with few keys; sort only when needed.
  let sorted = true;
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) { sorted = false; break; }
  if (!sorted) keys.sort();
  out.push('{');
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    write(v, out);
  }
  out.push('}');
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The fingerprint an authorization is bound to: the resource and its canonical request. */
export function requestFingerprint(resource: string, input: unknown): string {
  return sha256Hex(resource + '\n' + canonicalJson(input));
}
