/**
 * `buyer_metadata` is free-form "non-secret hints". Agents still paste
 * credentials into such bags, so every key that looks like a secret is
 * removed, at any depth, right after the body is parsed: the validator, the
 * planner, the logger and the ledger only ever see the cleaned value.
 */

/**
 * Key fragments that mark a secret, compared against the key lower-cased with
 * every non-alphanumeric character removed (`API-Key`, `api_key` and `apiKey`
 * all become `apikey`).
 */
const SECRET_FRAGMENTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'accesskey',
  'privatekey',
  'privkey',
  'signingkey',
  'mnemonic',
  'seed',
  'authorization',
  'bearer',
  'cookie',
  'session',
  'credential',
  'jwt',
  'cardnumber',
] as const;

/** Exact (normalized) keys that are secrets but too short to use as fragments (`pin` is in `shipping`). */
const SECRET_KEYS = new Set(['pwd', 'pass', 'key', 'sig', 'signature', 'sk', 'pk', 'auth', 'otp', 'pin', 'cvv', 'cvc', 'ssn']);

export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (SECRET_KEYS.has(k)) return true;
  return SECRET_FRAGMENTS.some((f) => k.includes(f));
}

export interface Stripped {
  value: unknown;
  /** How many secret-like keys were removed (each key counted once, wherever it was). */
  removed: number;
}

/**
 * A copy of `value` without secret-like keys. Arrays and nested objects are
 * walked; the input is not modified. Depth is bounded by JSON.parse itself,
 * but a guard keeps a hand-built cyclic value from looping.
 */
export function stripSecrets(value: unknown): Stripped {
  let removed = 0;
  const seen = new WeakSet<object>();
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return null;
    seen.add(v);
    if (Array.isArray(v)) return v.map(walk);
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v as Record<string, unknown>)) {
      if (isSecretKey(k)) {
        removed++;
        continue;
      }
      out[k] = walk(inner);
    }
    return out;
  };
  return { value: walk(value), removed };
}
