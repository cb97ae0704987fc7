/**
 * Reading request bodies, shared by every surface that takes JSON (paid
 * routes, the router quote and composite, the admin API, MCP). A body is read
 * as bytes, decoded as strict UTF-8 and, for JSON, its nesting is bounded
 * before anything but JSON.parse walks it, so every rejection here is a 400
 * before any payment step and no later recursion (ajv, canonical JSON,
 * structuredClone, JSON.stringify) can overflow the stack.
 *
 * Framework-free: takes anything with `arrayBuffer()` (Hono's `c.req` caches it).
 */
import type { ErrorCode, ErrorDetail } from '../errors.js';
import { valuesIn } from './body-budget.js';

/**
 * Deepest nesting of arrays and objects accepted in a JSON body (`[[1]]` is 2).
 * Our deepest legitimate bodies (router inputs and buyer_metadata, admin
 * records, a JSON-RPC envelope around tool arguments) stay under 10.
 */
export const MAX_JSON_DEPTH = 64;

export interface BodyError {
  code: ErrorCode;
  message: string;
  details: ErrorDetail[];
}

export type BodyResult<T> = { ok: true; value: T } | { ok: false; error: BodyError };

function fail(code: ErrorCode, message: string, rule: string): { ok: false; error: BodyError } {
  return { ok: false, error: { code, message, details: [{ path: '', rule }] } };
}

/** The media type essence: lowercased, parameters dropped (`''` when absent). */
export function mediaTypeOf(contentType: string | undefined): string {
  // What nearly every agent sends, answered without splitting and lower-casing: every 402 asks (decision 0016).
  if (contentType === 'application/json') return contentType;
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** JSON bodies: no Content-Type, application/json or any +json type. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === '' || mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** The body's bytes, or 413 when there are more than `limit`. */
export async function readBodyBytes(req: { arrayBuffer(): Promise<ArrayBuffer> }, limit: number): Promise<BodyResult<Uint8Array>> {
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.byteLength > limit) return { ok: false, error: { code: 'payload_too_large', message: `The request body exceeds ${limit} bytes.`, details: [] } };
  return { ok: true, value: bytes };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 (a leading BOM is dropped); undefined for any invalid sequence instead of U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * True when `text` nests `[`/`{` (outside strings) more than `max` levels.
 * A loop, not recursion, so any input is safe. For valid JSON this is exactly
 * the depth of the parsed value, so checking the text bounds what JSON.parse
 * builds without building a million-level structure first.
 */
export function jsonNestingExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  return jsonShapeExceeds(text, max, Infinity) === 'max-depth';
}

/**
 * Which budget a JSON text breaks first, in text order, scanning once (a
 * loop, so any input is safe): nesting deeper than `maxDepth`, or more than
 * `maxValues` JSON values. A value is every object, array, string (a member
 * name too: the parser allocates each one) and number or literal; whitespace
 * is free. For valid JSON the count is exact, so a body is refused before
 * JSON.parse builds its millions of small values (decision 0002), and the
 * scan stops at the first value over the budget, so refusing one costs a
 * scan of the first `maxValues` values, not of the whole body.
 *
 * Works on the UTF-8 bytes (every byte of a multi-byte sequence is ≥ 0x80,
 * so none is mistaken for a quote or a bracket), so a refused body is never
 * decoded; string contents are skipped with indexOf (native), which keeps a
 * legitimately large body (one 2 MiB string of HTML) cheap to scan.
 */
export function jsonShapeExceeds(body: Uint8Array | string, maxDepth: number, maxValues: number): 'max-depth' | 'max-values' | undefined {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const n = bytes.length;
  let depth = 0;
  let values = 0;
  let inScalar = false;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0x22) {
      inScalar = false;
      if (++values > maxValues) return 'max-values';
      i = closingQuote(bytes, i);
    } else if (b === 0x5b || b === 0x7b) {
      inScalar = false;
      if (++depth > maxDepth) return 'max-depth';
      if (++values > maxValues) return 'max-values';
    } else if (b === 0x5d || b === 0x7d) {
      inScalar = false;
      if (depth > 0) depth--;
    } else if (b === 0x2c || b === 0x3a || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
      inScalar = false;
    } else if (!inScalar) {
      // The first byte of a number, true, false or null (or of junk JSON.parse will refuse).
      inScalar = true;
      if (++values > maxValues) return 'max-values';
    }
  }
  return undefined;
}

/** Index of the quote closing the string opened at `open` (one not preceded by an odd run of backslashes), or the end. */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open + 1;
  for (;;) {
    const q = bytes.indexOf(0x22, at);
    if (q < 0) return bytes.length;
    let k = q - 1;
    while (k > open && bytes[k] === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    at = q + 1;
  }
}

/** Budgets a surface sets on the JSON bodies it reads (see body-budget.ts for how each is derived). */
export interface JsonLimits {
  /** Most JSON values (objects, arrays, strings incl. member names, numbers, literals); default: no count. */
  maxValues?: number;
}

/**
 * A JSON body as text: strict UTF-8, nested at most MAX_JSON_DEPTH levels and
 * holding at most `limits.maxValues` values, else 400 invalid_json.
 */
export function jsonBodyText(body: Uint8Array | string, limits: JsonLimits = {}): BodyResult<string> {
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  if (text === undefined) return fail('invalid_json', 'The request body is not valid UTF-8.', 'utf-8');
  const broken = jsonShapeExceeds(typeof body === 'string' ? text : body, MAX_JSON_DEPTH, limits.maxValues ?? Infinity);
  if (broken) return broken === 'max-depth' ? tooDeep() : tooMany(limits.maxValues!);
  return { ok: true, value: text };
}

/**
 * True when a parsed JSON value nests arrays and objects more than `max`
 * levels (the same measure as jsonNestingExceeds on its text). Descends at
 * most `max + 1` levels, so the recursion is bounded whatever the value.
 */
export function valueNestingExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // The walk lists members with for-in (no key array per object), which would also list an enumerable name on
  // Object.prototype: then Object.keys instead.
  for (const _ in Object.prototype) return deeperThan(value, max, true);
  return deeperThan(value, max, false);
}

function deeperThan(container: object, room: number, ownKeys: boolean): boolean {
  if (room === 0) return true;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const x: unknown = container[i];
      if (typeof x === 'object' && x !== null && deeperThan(x, room - 1, ownKeys)) return true;
    }
    return false;
  }
  const obj = container as Record<string, unknown>;
  if (ownKeys) {
    const keys = Object.keys(obj);
    for (let i = 0; i < keys.length; i++) {
      const x = obj[keys[i]!];
      if (typeof x === 'object' && x !== null && deeperThan(x, room - 1, ownKeys)) return true;
    }
    return false;
  }
  for (const k in obj) {
    const x = obj[k];
    if (typeof x === 'object' && x !== null && deeperThan(x, room - 1, ownKeys)) return true;
  }
  return false;
}

/** Texts up to this many UTF-16 code units are parsed before their depth is checked (see parseJsonBody). */
export const PARSE_FIRST_MAX_CHARS = 64 * 1024;

function tooDeep(): { ok: false; error: BodyError } {
  return fail('invalid_json', `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`, 'max-depth');
}

function tooMany(max: number): { ok: false; error: BodyError } {
  return fail('invalid_json', `The request body holds more than ${max} JSON values (objects, arrays, strings, numbers and literals, member names included); no argument of this surface needs more.`, 'max-values');
}

/**
 * A JSON body's value: strict UTF-8, non-empty, JSON.parse, nested at most
 * MAX_JSON_DEPTH levels and holding at most `limits.maxValues` values; every
 * failure is 400 invalid_json, with the same rule as jsonBodyText then
 * JSON.parse would give (utf-8, max-depth or max-values, required, json, in
 * that order).
 *
 * Up to PARSE_FIRST_MAX_CHARS, and when the text is too short to hold more
 * than `maxValues` values, JSON.parse runs first and the depth is read from
 * the value (V8's JSON.parse does not recurse, and at that size the deepest
 * body builds at most 32 Ki arrays), which is cheaper than scanning every
 * character of a valid body; a body that does not parse is then scanned, so
 * a deep one is still reported as max-depth. Any other text is scanned
 * before it is parsed, so nothing large, deep or made of many values is ever
 * built.
 */
export function parseJsonBody(body: Uint8Array | string, limits: JsonLimits = {}): BodyResult<unknown> {
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  if (text === undefined) return fail('invalid_json', 'The request body is not valid UTF-8.', 'utf-8');
  const maxValues = limits.maxValues ?? Infinity;
  const scanFirst = text.length > PARSE_FIRST_MAX_CHARS || valuesIn(text.length) > maxValues;
  if (scanFirst) {
    const broken = jsonShapeExceeds(typeof body === 'string' ? text : body, MAX_JSON_DEPTH, maxValues);
    if (broken) return broken === 'max-depth' ? tooDeep() : tooMany(maxValues);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    if (!scanFirst && jsonNestingExceeds(text)) return tooDeep();
    if (text.trim() === '') return fail('invalid_json', 'A JSON request body is required.', 'required');
    return fail('invalid_json', `The request body is not valid JSON: ${(e as Error).message}`, 'json');
  }
  return !scanFirst && valueNestingExceeds(value) ? tooDeep() : { ok: true, value };
}

/** Charsets a raw text body may declare: all read as strict UTF-8 (US-ASCII is a subset). */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);

/**
 * A raw (non-JSON) text body, e.g. `text/html`: strict UTF-8 only. Another
 * declared charset is 415 (transcode first); invalid bytes are 400
 * invalid_request. No transcoding, so what a handler hashes or cites is
 * exactly what was sent.
 */
export function rawTextBody(contentType: string | undefined, body: Uint8Array | string): BodyResult<string> {
  if (typeof body === 'string') return { ok: true, value: body };
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
    return fail('unsupported_media_type', `charset=${charset} is not accepted here; send the body as UTF-8.`, 'charset');
  }
  const text = decodeUtf8(body);
  if (text === undefined) return fail('invalid_request', 'The request body is not valid UTF-8.', 'utf-8');
  return { ok: true, value: text };
}
