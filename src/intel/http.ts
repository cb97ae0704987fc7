/**
 * HTTP helpers shared by the intelligence routes and pages: query
 * parameters parsed from their declarations (`ParameterDef`),
 * strong ETags with If-None-Match, and error bodies.
 */
import type { Context } from 'hono';
import { createHash } from 'node:crypto';
import { errorBody, statusOf, type ErrorCode, type ErrorDetail } from '../errors.js';
import type { JsonSchema } from './schema-parts.js';
import { parseTimestamp } from './time.js';

/** One declared parameter: parsed by parseQuery, listed in OpenAPI, offered as an MCP argument. */
export interface ParameterDef {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  description: string;
  schema: JsonSchema;
}

export type QueryValues = Record<string, string | number | boolean | undefined>;

export type ParsedQuery = { ok: true; values: QueryValues } | { ok: false; code: ErrorCode; message: string; details: ErrorDetail[] };

function isTimestampSchema(s: JsonSchema): boolean {
  return Array.isArray(s.anyOf) && (s.anyOf as JsonSchema[]).some((a) => a.format === 'date-time');
}

/** Check one raw value against its declared schema; returns the typed value or a detail. */
function parseValue(def: ParameterDef, raw: string): { value: string | number | boolean } | { detail: ErrorDetail } {
  const s = def.schema;
  const path = `${def.in}:${def.name}`;
  if (isTimestampSchema(s)) {
    if (parseTimestamp(raw) === undefined) return { detail: { path, rule: 'format', message: 'must be an ISO 8601 timestamp (e.g. 2026-01-01T00:00:00.000000Z) or a date (YYYY-MM-DD)' } };
    return { value: raw };
  }
  if (s.type === 'integer') {
    if (!/^-?[0-9]{1,15}$/.test(raw)) return { detail: { path, rule: 'type', message: 'must be an integer' } };
    const n = Number(raw);
    if (typeof s.minimum === 'number' && n < s.minimum) return { detail: { path, rule: 'minimum', message: `must be >= ${s.minimum}` } };
    if (typeof s.maximum === 'number' && n > s.maximum) return { detail: { path, rule: 'maximum', message: `must be <= ${s.maximum}` } };
    return { value: n };
  }
  if (s.type === 'boolean') {
    if (raw === 'true') return { value: true };
    if (raw === 'false') return { value: false };
    return { detail: { path, rule: 'type', message: 'must be true or false' } };
  }
  if (Array.isArray(s.enum) && !(s.enum as unknown[]).includes(raw)) {
    return { detail: { path, rule: 'enum', message: `must be one of ${(s.enum as string[]).join(', ')}` } };
  }
  if (typeof s.pattern === 'string' && !new RegExp(s.pattern).test(raw)) return { detail: { path, rule: 'pattern', message: `must match ${s.pattern}` } };
  return { value: raw };
}

/**
 * Parse the query string against the declared parameters. Unknown or repeated
 * parameters are errors: a typo (`entitiy=`) must not silently widen a query.
 */
export function parseQuery(defs: readonly ParameterDef[], url: URL): ParsedQuery {
  const byName = new Map(defs.filter((d) => d.in === 'query').map((d) => [d.name, d]));
  const details: ErrorDetail[] = [];
  const values: QueryValues = {};
  const seen = new Set<string>();
  for (const [name, raw] of url.searchParams) {
    const def = byName.get(name);
    if (!def) {
      details.push({ path: `query:${name}`, rule: 'unknown', message: `is not a parameter here; known: ${[...byName.keys()].join(', ') || 'none'}` });
      continue;
    }
    if (seen.has(name)) {
      details.push({ path: `query:${name}`, rule: 'repeated', message: 'must be given at most once' });
      continue;
    }
    seen.add(name);
    const r = parseValue(def, raw);
    if ('detail' in r) details.push(r.detail);
    else values[name] = r.value;
  }
  if (details.length) return { ok: false, code: 'invalid_parameter', message: `Bad query parameter: ${details[0]!.path.slice(6)} ${details[0]!.message}.`, details };
  for (const d of byName.values()) {
    if (values[d.name] === undefined && d.schema.default !== undefined) values[d.name] = d.schema.default as string | number | boolean;
  }
  return { ok: true, values };
}

export function errorResponse(c: Context, code: ErrorCode, message: string, details: ErrorDetail[] = [], headers: Record<string, string> = {}): Response {
  return c.json(errorBody(code, message, details), statusOf(code) as 400, { 'Cache-Control': 'no-store', ...headers });
}

/** The error answer of a query that did not parse. */
export function badQuery(c: Context, parsed: Extract<ParsedQuery, { ok: false }>): Response {
  return errorResponse(c, parsed.code, parsed.message, parsed.details);
}

/** A strong validator: the SHA-256 of the exact bytes sent. */
export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** RFC 9110 §13.1.2: If-None-Match uses weak comparison; `*` matches any current representation. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === opaque);
}

/**
 * Send JSON with a strong ETag; answer 304 (no body) when If-None-Match
 * matches. Clients revalidate every time (`no-cache`), which is cheap.
 */
export function jsonWithEtag(c: Context, value: unknown, headers: Record<string, string> = {}): Response {
  const body = JSON.stringify(value);
  const etag = strongEtag(body);
  const common = { ETag: etag, 'Cache-Control': 'no-cache', ...headers };
  if (ifNoneMatchHits(c.req.header('if-none-match'), etag)) return new Response(null, { status: 304, headers: common });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json', ...common } });
}

/** Opaque page cursors: base64url of a small JSON array. */
export function encodePageCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

export function decodePageCursor(cursor: string, arity: number): string[] | undefined {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(v) || v.length !== arity || !v.every((p) => typeof p === 'string' && p.length <= 256)) return undefined;
    return v as string[];
  } catch {
    return undefined;
  }
}
