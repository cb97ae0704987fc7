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

/**
 * The fast path, for plain JSON data (what JSON.parse returns, plus defaults
 * filled in): one walk that writes the canonical text as it goes. Returns
 * undefined, without a result, at anything else (`__proto__` keys, objects
 * that are not plain, functions, symbols, bigints, a top-level `undefined`),
 * so `Writer` handles those.
 *
 * Objects of one request usually share their key order (every descriptor of
 * a list has the same keys, in the same order), so the sorted order and the
 * quoted `"key":` heads of the last key list seen are kept and reused when the
 * next object's keys are the same: no sort and no key quoting per object.
 * Cheaper than scanning the value and then asking the native JSON.stringify
 * for the sorted form (a property list makes it look every listed key up on
 * every object).
 */
function canonicalText(value: unknown): string | undefined {
  const w = new FastWriter();
  return w.value(value) ? w.out : undefined;
}

/** The sorted member order of one key list, with each member's `"key":` head. */
interface KeyOrder {
  keys: string[];
  /** Indexes into `keys`, in sorted (UTF-16 code unit) order. */
  order: number[];
  heads: string[];
}

function keyOrderOf(keys: string[]): KeyOrder {
  const order = keys.map((_, i) => i);
  let sorted = true;
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) sorted = false;
  // Keys of one object are distinct, so this comparison is Array.prototype.sort's default order.
  if (!sorted) order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
  return { keys, order, heads: order.map((i) => quote(keys[i]!) + ':') };
}

class FastWriter {
  out = '';
  private last: KeyOrder | undefined;

  /** Appends the canonical form of `v`; false when `v` holds something only `Writer` writes. */
  value(v: unknown): boolean {
    switch (typeof v) {
      case 'string':
        this.out += quote(v);
        return true;
      case 'number':
        this.out += Number.isFinite(v) ? String(v) : 'null';
        return true;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return true;
      case 'object':
        if (v === null) {
          this.out += 'null';
          return true;
        }
        return Array.isArray(v) ? this.array(v) : this.object(v);
      default:
        return false;
    }
  }

  private array(a: unknown[]): boolean {
    this.out += '[';
    for (let i = 0; i < a.length; i++) {
      if (i) this.out += ',';
      const x = a[i];
      // undefined (or a hole) is written as null.
      if (x === undefined) this.out += 'null';
      else if (!this.value(x)) return false;
    }
    this.out += ']';
    return true;
  }

  private object(v: object): boolean {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    const ko = this.orderOf(keys);
    this.out += '{';
    let first = true;
    for (let j = 0; j < ko.order.length; j++) {
      const k = keys[ko.order[j]!]!;
      if (k === '__proto__') return false;
      const x = obj[k];
      // A member whose value is undefined is omitted.
      if (x === undefined) continue;
      this.out += first ? ko.heads[j] : ',' + ko.heads[j];
      first = false;
      if (!this.value(x)) return false;
    }
    this.out += '}';
    return true;
  }

  private orderOf(keys: string[]): KeyOrder {
    const last = this.last;
    if (last !== undefined && last.keys.length === keys.length) {
      let i = 0;
      while (i < keys.length && keys[i] === last.keys[i]) i++;
      if (i === keys.length) return last;
    }
    return (this.last = keyOrderOf(keys));
  }
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
