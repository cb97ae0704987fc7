import * as crypto from 'node:crypto';
import { createHash, type Hash } from 'node:crypto';

/**
 * Canonical JSON ("RFC 8785-style canonical JSON + SHA-256" for fingerprints).
 *
 * The exact form, so a buyer can reproduce a fingerprint:
 * - no whitespace anywhere;
 * - object members sorted by key, comparing the keys' UTF-16 code units
 *   (JavaScript's default `Array.prototype.sort`), a member whose value is
 *   `undefined` omitted;
 * - array elements in order, `undefined` (or a hole) written as `null`;
 * - strings and keys exactly as ECMAScript `JSON.stringify` writes them:
 *   `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other U+0000–U+001F as `\u00xx`
 *   (lowercase hex), a lone surrogate as `\udxxx` (lowercase hex), every other
 *   character, non-ASCII included, as itself; encoded as UTF-8 for hashing;
 * - numbers as ECMAScript `Number.prototype.toString` writes them
 *   (`JSON.stringify`: shortest round-trip digits, `1e+21`, `5e-7`, `-0` → `0`);
 *   `true`, `false`, `null`.
 *
 * How it relates to RFC 8785 (JCS): for any value JSON.parse produces from
 * I-JSON (RFC 7493: no duplicate keys, no lone surrogates) the output is
 * byte for byte JCS: JCS also sorts by UTF-16 code units, uses ECMAScript
 * number serialization and the same minimal string escaping. Where the input
 * is not I-JSON it differs rather than refusing: a lone surrogate is written
 * as its `\udxxx` escape (JCS rejects such input), and duplicate keys are
 * resolved by JSON.parse first (the last one wins). Numbers are JavaScript
 * doubles, so integers past 2^53 are rounded by JSON.parse before
 * canonicalization (as in every JavaScript JCS implementation).
 *
 * These bytes are bound into payments (the request fingerprint below), so the
 * form must never change: `canonical-json.test.ts` holds the original
 * implementation and checks this one against it.
 */
export function canonicalJson(value: unknown): string {
  return canonicalText(value) ?? written(value);
}

function written(value: unknown): string {
  const w = new Writer(undefined);
  w.value(value);
  return w.out;
}

/** Below this many object members an unsorted value is written by `Writer` (cheaper than a property list). */
const SMALL_MEMBERS = 64;

/**
 * The fast path, for plain JSON data (small unsorted values are simply written) (what JSON.parse returns): the native
 * `JSON.stringify` writes the canonical bytes when every object's keys
 * already come in order, and otherwise when given the sorted list of every
 * key in the value as its property list (the spec then writes each object's
 * members in that list's order, skipping keys the object lacks; inherited
 * names like `constructor` are functions and skipped too). Returns undefined
 * where the two could differ, so `Writer` streams it instead: `__proto__`
 * keys, objects that are not plain, functions, symbols, bigints, a top-level
 * `undefined`, or a key list so long compared with the members that the
 * property-list walk would cost more than writing.
 */
function canonicalText(value: unknown): string | undefined {
  const s: Scan = { sorted: true, keys: new Set(), objects: 0, members: 0 };
  if (!scan(value, s)) return undefined;
  if (s.sorted) return JSON.stringify(value);
  if (s.members <= SMALL_MEMBERS) return written(value);
  if (s.objects * s.keys.size > 8 * s.members + 1024) return undefined;
  return JSON.stringify(value, [...s.keys].sort());
}

/** What one walk over a value found: whether every object's keys are already in order, and every key used. */
interface Scan {
  sorted: boolean;
  keys: Set<string>;
  objects: number;
  members: number;
}

function scan(v: unknown, s: Scan): boolean {
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      // undefined (or a hole) is written as null by both.
      if (x !== undefined && !scan(x, s)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj);
  s.objects++;
  s.members += keys.length;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k === '__proto__') return false;
    // Object.keys lists integer-like keys first, in numeric order: "2" before "10" is caught here as unsorted.
    if (i && keys[i - 1]! > k) s.sorted = false;
    s.keys.add(k);
    const x = obj[k];
    // An undefined member is omitted by both.
    if (x !== undefined && !scan(x, s)) return false;
  }
  return true;
}

/** Flush the pending text into the hash past this many UTF-16 code units. */
const FLUSH_AT = 32 * 1024;

/** Characters JSON.stringify escapes: `"`, `\`, U+0000–U+001F, and surrogates (a lone one is escaped). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(s: string): string {
  // Fast path: most keys and values need no escaping, and `"` + s + `"` is then what JSON.stringify writes.
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/**
 * Writes the canonical form as one growing string, or, with a hash, streams
 * it into the hash in chunks of whole tokens (never a split surrogate pair,
 * since strings are written whole and lone surrogates are escaped), so no
 * array of pieces is built and joined.
 */
class Writer {
  out = '';
  constructor(private readonly hash: Hash | undefined) {}

  finish(): void {
    if (this.hash && this.out.length) this.hash.update(this.out, 'utf8');
    this.out = '';
  }

  private maybeFlush(): void {
    if (this.hash && this.out.length >= FLUSH_AT) {
      this.hash.update(this.out, 'utf8');
      this.out = '';
    }
  }

  value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.out += quote(value);
        return;
      case 'number':
        this.out += Number.isFinite(value) ? String(value) : 'null';
        return;
      case 'boolean':
        this.out += value ? 'true' : 'false';
        return;
      case 'object':
        if (value === null) {
          this.out += 'null';
          return;
        }
        if (Array.isArray(value)) this.array(value);
        else this.object(value as Record<string, unknown>);
        this.maybeFlush();
        return;
      default:
        // undefined, functions and symbols: 'null' (JSON.stringify's undefined); bigint throws as JSON.stringify does.
        this.out += JSON.stringify(value) ?? 'null';
    }
  }

  private array(value: unknown[]): void {
    this.out += '[';
    for (let i = 0; i < value.length; i++) {
      if (i) this.out += ',';
      const v = value[i];
      this.value(v === undefined ? null : v);
    }
    this.out += ']';
  }

  private object(obj: Record<string, unknown>): void {
    const keys = Object.keys(obj);
    // Most bodies arrive with keys already in order; sort only when needed.
    for (let i = 1; i < keys.length; i++) {
      if (keys[i - 1]! > keys[i]!) {
        keys.sort();
        break;
      }
    }
    this.out += '{';
    let first = true;
    for (const k of keys) {
      const v = obj[k];
      if (v === undefined) continue;
      this.out += first ? quote(k) + ':' : ',' + quote(k) + ':';
      first = false;
      this.value(v);
    }
    this.out += '}';
  }
}

/** One-shot `crypto.hash` (Node ≥ 20.12) skips creating a Hash object; same digest. */
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function sha256Hex(data: string | Uint8Array): string {
  return oneShot ? oneShot('sha256', data, 'hex') : createHash('sha256').update(data).digest('hex');
}

/**
 * The fingerprint an authorization is bound to: hex SHA-256 of the UTF-8
 * bytes of `resource`, a line feed, then `canonicalJson(input)` (RFC
 * 8785-style canonical JSON + SHA-256, see above). Equal to
 * `sha256Hex(resource + '\n' + canonicalJson(input))`, computed without
 * building that string.
 */
export function requestFingerprint(resource: string, input: unknown): string {
  const text = canonicalText(input);
  if (text !== undefined) return sha256Hex(resource + '\n' + text);
  const hash = createHash('sha256');
  const w = new Writer(hash);
  w.out = resource + '\n';
  w.value(input);
  w.finish();
  return hash.digest('hex');
}
