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
  // What nearly every agent sends, answered without splitting and lower-casing (a few µs of every 402).
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
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: the next code unit is escaped
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if ((ch === 0x5d || ch === 0x7d) && depth > 0) {
      depth--;
    }
  }
  return false;
}

/** A JSON body as text: strict UTF-8 and nested at most MAX_JSON_DEPTH levels, else 400 invalid_json. */
export function jsonBodyText(body: Uint8Array | string): BodyResult<string> {
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  if (text === undefined) return fail('invalid_json', 'The request body is not valid UTF-8.', 'utf-8');
  if (jsonNestingExceeds(text)) return tooDeep();
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

/**
 * A JSON body's value: strict UTF-8, non-empty, JSON.parse, nested at most
 * MAX_JSON_DEPTH levels; every failure is 400 invalid_json, with the same
 * rule as jsonBodyText then JSON.parse would give (utf-8, max-depth,
 * required, json, in that order).
 *
 * Up to PARSE_FIRST_MAX_CHARS, JSON.parse runs first and the depth is read
 * from the value (V8's JSON.parse does not recurse, and at that size the
 * deepest body builds at most 32 Ki arrays), which is cheaper than scanning
 * every character of a valid body; a body that does not parse is then
 * scanned, so a deep one is still reported as max-depth. A longer text is
 * scanned before it is parsed, so nothing large and deep is ever built.
 */
export function parseJsonBody(body: Uint8Array | string): BodyResult<unknown> {
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  if (text === undefined) return fail('invalid_json', 'The request body is not valid UTF-8.', 'utf-8');
  if (text.length > PARSE_FIRST_MAX_CHARS && jsonNestingExceeds(text)) return tooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    if (jsonNestingExceeds(text)) return tooDeep();
    if (text.trim() === '') return fail('invalid_json', 'A JSON request body is required.', 'required');
    return fail('invalid_json', `The request body is not valid JSON: ${(e as Error).message}`, 'json');
  }
  return valueNestingExceeds(value) ? tooDeep() : { ok: true, value };
}

/** readBodyBytes, then parseJsonBody. */
export async function readJsonBody(req: { arrayBuffer(): Promise<ArrayBuffer> }, limit: number): Promise<BodyResult<unknown>> {
  const bytes = await readBodyBytes(req, limit);
  return bytes.ok ? parseJsonBody(bytes.value) : bytes;
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
