/**
 * Reading request bodies, shared by every surface that takes JSON (paid
 * routes, the router quote and composite, the admin API, MCP). A body is read
 * as bytes, decoded as strict UTF-8 and, for JSON, its nesting is bounded
 * before anything parses or walks it, so every rejection here is a 400 before
 * any payment step and no later recursion (ajv, canonical JSON, structuredClone,
 * JSON.stringify) can overflow the stack.
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
  if (jsonNestingExceeds(text)) {
    return fail('invalid_json', `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`, 'max-depth');
  }
  return { ok: true, value: text };
}

/** A JSON body's value: jsonBodyText, then non-empty and JSON.parse; every failure is 400 invalid_json. */
export function parseJsonBody(body: Uint8Array | string): BodyResult<unknown> {
  const text = jsonBodyText(body);
  if (!text.ok) return text;
  if (text.value.trim() === '') return fail('invalid_json', 'A JSON request body is required.', 'required');
  try {
    return { ok: true, value: JSON.parse(text.value) as unknown };
  } catch (e) {
    return fail('invalid_json', `The request body is not valid JSON: ${(e as Error).message}`, 'json');
  }
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
