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
 * filled in): one walk that writes the canonical form's UTF-8 bytes as it
 * goes (`prefix` first). Returns undefined, without a result, at anything
 * else (`__proto__` keys, objects that are not plain, functions, symbols,
 * bigints, a top-level `undefined`), so `Writer` handles those.
 *
 * Why bytes: the text is what gets hashed, and a string built from thousands
 * of small pieces must be flattened and then re-encoded before hashing, which
 * cost more than writing it. ASCII without escapes (most keys and values) is
 * copied code unit by code unit; any other string is written as
 * JSON.stringify writes it, encoded.
 *
 * Objects of one request usually share their key order (every descriptor of
 * a list has the same keys, in the same order), so the sorted order and the
 * quoted `"key":` heads of the last few key lists seen (across calls too) are
 * kept and reused when an object's keys are the same: no sort and no key
 * quoting per object.
 * Cheaper than scanning the value and then asking the native JSON.stringify
 * for the sorted form (a property list makes it look every listed key up on
 * every object).
 */
function canonicalBytes<T>(prefix: string, value: unknown, use: (bytes: Uint8Array) => T): T | undefined {
  const w = new ByteWriter(takeScratch());
  try {
    w.text(prefix);
    return w.value(value) ? use(w.bytes()) : undefined;
  } finally {
    giveScratch(w.buf);
  }
}

const utf8 = new TextEncoder();
// ignoreBOM: a leading U+FEFF is text to keep (canonical text never starts with one, but decoding must not drop bytes).
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function canonicalText(value: unknown): string | undefined {
  return canonicalBytes('', value, (bytes) => utf8Decoder.decode(bytes));
}

/** One reusable output buffer; a nested call (a getter that canonicalizes) takes a fresh one. */
let scratch: Uint8Array | undefined;
const SCRATCH_BYTES = 64 * 1024;
/** A buffer grown past this is dropped after use rather than kept. */
const SCRATCH_KEEP_MAX = 1024 * 1024;

function takeScratch(): Uint8Array {
  const b = scratch ?? new Uint8Array(SCRATCH_BYTES);
  scratch = undefined;
  return b;
}

function giveScratch(b: Uint8Array): void {
  if (b.length <= SCRATCH_KEEP_MAX) scratch = b;
}

/** The sorted member order of one key list, with each member's `,"key":` head as bytes. */
interface KeyOrder {
  keys: string[];
  /** The same keys in sorted (UTF-16 code unit) order. */
  sorted: string[];
  /**
   * Per sorted key, a comma then `"key":` as JSON.stringify writes the key,
   * UTF-8 encoded (the comma is skipped before the first member written):
   * copied byte by byte, with no per-head string work.
   */
  heads: Uint8Array[];
  /** A key is `__proto__`: such an object is left to `Writer`. */
  proto: boolean;
}

function keyOrderOf(keys: string[]): KeyOrder {
  // Array.prototype.sort's default order is by UTF-16 code units.
  const sorted = [...keys].sort();
  const heads = sorted.map((k) => utf8.encode(',' + quote(k) + ':'));
  return { keys, sorted, heads, proto: keys.includes('__proto__') };
}

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether `obj`'s own enumerable keys are exactly `keys`, in that order,
 * without building the key array Object.keys would (one per object, ~8% of
 * the walk): for-in lists own keys first, in Object.keys order (integer-like
 * keys ascending, then the rest as created), so an exact match is Object.keys.
 * An enumerable key inherited from Object.prototype is listed after them,
 * which makes the count differ: then Object.keys decides, as before.
 */
function keysAre(obj: object, keys: string[]): boolean {
  let n = 0;
  for (const k in obj) if (keys[n++] !== k) return false;
  return n === keys.length;
}

/** The key orders used lately, across calls: requests of one kind repeat their few key lists. */
const recentOrders: KeyOrder[] = [];
const RECENT_ORDERS = 8;

function recentKeyOrder(keys: string[]): KeyOrder {
  for (const ko of recentOrders) if (sameKeys(keys, ko.keys)) return ko;
  const ko = keyOrderOf(keys);
  if (recentOrders.unshift(ko) > RECENT_ORDERS) recentOrders.pop();
  return ko;
}

const TRUE: readonly number[] = [0x74, 0x72, 0x75, 0x65];
const FALSE: readonly number[] = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL: readonly number[] = [0x6e, 0x75, 0x6c, 0x6c];
const QUOTE = 0x22;
/** From this many UTF-16 code units a string is scanned and copied natively (ByteWriter.longString). */
const LONG_STRING = 64;
const COMMA = 0x2c;

class ByteWriter {
  pos = 0;
  private last: KeyOrder | undefined;
  constructor(public buf: Uint8Array) {}

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes());
    this.buf = grown;
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  /** Any text, UTF-8 encoded (at most 3 bytes per UTF-16 code unit). */
  text(s: string): void {
    this.room(s.length * 3);
    this.pos += utf8.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  private literal(bytes: readonly number[]): void {
    this.room(bytes.length);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < bytes.length; i++) buf[pos++] = bytes[i]!;
    this.pos = pos;
  }

  /** Text known to be ASCII (numbers, key heads). */
  private ascii(s: string): void {
    this.room(s.length);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < s.length; i++) buf[pos++] = s.charCodeAt(i);
    this.pos = pos;
  }

  private string(s: string): void {
    if (s.length >= LONG_STRING) {
      this.longString(s);
      return;
    }
    this.room(s.length + 2);
    const buf = this.buf;
    const start = this.pos;
    let pos = start;
    buf[pos++] = QUOTE;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      // `"`, `\`, controls and anything non-ASCII: written the way JSON.stringify writes it, then encoded.
      if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) {
        this.pos = start;
        this.text(JSON.stringify(s));
        return;
      }
      buf[pos++] = c;
    }
    buf[pos++] = QUOTE;
    this.pos = pos;
  }

  /**
   * A long string: one native scan for anything JSON.stringify escapes, then
   * a native UTF-8 copy between the quotes (non-ASCII included, which
   * JSON.stringify writes as itself), instead of a loop per code unit.
   */
  private longString(s: string): void {
    if (NEEDS_ESCAPE.test(s)) {
      this.text(JSON.stringify(s));
      return;
    }
    this.room(s.length * 3 + 2);
    this.buf[this.pos++] = QUOTE;
    this.pos += utf8.encodeInto(s, this.buf.subarray(this.pos)).written;
    this.buf[this.pos++] = QUOTE;
  }

  /** Appends the canonical form of `v`; false when `v` holds something only `Writer` writes. */
  value(v: unknown): boolean {
    switch (typeof v) {
      case 'string':
        this.string(v);
        return true;
      case 'number':
        this.ascii(Number.isFinite(v) ? String(v) : 'null');
        return true;
      case 'boolean':
        this.literal(v ? TRUE : FALSE);
        return true;
      case 'object':
        if (v === null) {
          this.literal(NULL);
          return true;
        }
        return Array.isArray(v) ? this.array(v) : this.object(v);
      default:
        return false;
    }
  }

  private array(a: unknown[]): boolean {
    this.byte(0x5b);
    for (let i = 0; i < a.length; i++) {
      if (i) this.byte(COMMA);
      const x = a[i];
      // undefined (or a hole) is written as null.
      if (x === undefined) this.literal(NULL);
      else if (!this.value(x)) return false;
    }
    this.byte(0x5d);
    return true;
  }

  private object(v: object): boolean {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    const obj = v as Record<string, unknown>;
    const ko = this.orderOf(obj);
    if (ko.proto) return false;
    this.byte(0x7b);
    // 1 until a member is written: where the head's bytes start (past its comma).
    let from = 1;
    const sortedKeys = ko.sorted;
    const heads = ko.heads;
    for (let j = 0; j < sortedKeys.length; j++) {
      const x = obj[sortedKeys[j]!];
      // A member whose value is undefined is omitted.
      if (x === undefined) continue;
      const head = heads[j]!;
      this.room(head.length);
      const buf = this.buf;
      let pos = this.pos;
      for (let i = from; i < head.length; i++) buf[pos++] = head[i]!;
      this.pos = pos;
      from = 0;
      // Strings and booleans (most member values) written here: a call through value() for each one cost ~8% of the walk.
      if (typeof x === 'string') this.string(x);
      else if (x === true) this.literal(TRUE);
      else if (x === false) this.literal(FALSE);
      else if (!this.value(x)) return false;
    }
    this.byte(0x7d);
    return true;
  }

  private orderOf(obj: Record<string, unknown>): KeyOrder {
    const last = this.last;
    if (last !== undefined && keysAre(obj, last.keys)) return last;
    return (this.last = recentKeyOrder(Object.keys(obj)));
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
  const fast = canonicalBytes(resource + '\n', input, sha256Hex);
  if (fast !== undefined) return fast;
  const hash = createHash('sha256');
  const w = new Writer(hash);
  w.out = resource + '\n';
  w.value(input);
  w.finish();
  return hash.digest('hex');
}
