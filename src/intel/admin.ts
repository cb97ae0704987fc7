/**
 * What the content admin API (/admin/v1/…, api/admin-routes.ts) is made of:
 * the bearer-token check, body reading and write answers. The API exists only
 * when ADMIN_TOKEN is set (its routes are not registered otherwise, so every
 * admin path answers 404), and every request must carry
 * `Authorization: Bearer <ADMIN_TOKEN>` (401 otherwise).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import { jsonNestingExceeds, MAX_JSON_DEPTH, parseJsonBody, readBodyBytes } from '../catalog/json-input.js';
import { errorResponse } from './http.js';
import { importNdjson, type ImportReport, type RejectedLine } from './importer.js';
import type { Rejection } from './records.js';
import type { ContentStore, WriteOk, WriteResult } from './store/contract.js';
import { formatMicros } from './time.js';

export const ADMIN_PREFIX = '/admin/v1';
export const MAX_JSON_BYTES = 1024 * 1024;
export const MAX_IMPORT_BYTES = 32 * 1024 * 1024;

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Constant-time token check. Both sides are hashed first so the comparison
 * always runs over two 32-byte digests: neither the token's length nor the
 * position of the first wrong byte leaks through timing.
 */
function bearerMatches(header: string | undefined, expectedDigest: Buffer): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  const given = digest(m ? m[1]! : '');
  const equal = timingSafeEqual(given, expectedDigest);
  return equal && m !== null;
}

/** The bearer check for one token (its digest computed once): the content admin API's and the operator's dashboard's. */
export function bearerCheck(adminToken: string): (authorizationHeader: string | undefined) => boolean {
  const expected = digest(adminToken);
  return (header) => bearerMatches(header, expected);
}

export function rejectionResponse(c: Context, r: Rejection): Response {
  return errorResponse(c, r.code, r.reason, r.details);
}

function writeBody(w: WriteOk) {
  return {
    result: w.result,
    kind: w.kind,
    id: w.id,
    ...(w.version !== undefined ? { version: w.version } : {}),
    ...(w.updatedUs !== undefined ? { lastUpdatedAt: formatMicros(w.updatedUs) } : {}),
    ...(w.state ? { newsroomState: w.state } : {}),
    ...(w.item ? { item: w.item } : {}),
  };
}

export function writeResponse(c: Context, w: WriteResult, extra: Record<string, unknown> = {}): Response {
  if (!w.ok) return rejectionResponse(c, w.rejection);
  return c.json({ ...writeBody(w), ...extra }, w.result === 'created' ? 201 : 200, { 'Cache-Control': 'no-store' });
}

export async function readBody(c: Context, limit: number): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; res: Response }> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > limit) return { ok: false, res: errorResponse(c, 'payload_too_large', `The request body exceeds ${limit} bytes.`) };
  const bytes = await readBodyBytes(c.req, limit);
  if (!bytes.ok) return { ok: false, res: errorResponse(c, bytes.error.code, bytes.error.message, bytes.error.details) };
  return { ok: true, bytes: bytes.value };
}

/** One JSON object: strict UTF-8, bounded nesting, then JSON.parse (the shared body reader). */
export async function readJsonObject(c: Context, limit: number): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; res: Response }> {
  const body = await readBody(c, limit);
  if (!body.ok) return body;
  const parsed = parseJsonBody(body.bytes);
  if (!parsed.ok) return { ok: false, res: errorResponse(c, parsed.error.code, parsed.error.message, parsed.error.details) };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, res: errorResponse(c, 'invalid_request', 'The request body must be a JSON object.', [{ path: '', rule: 'type', message: 'must be an object' }]) };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Admin bodies may omit `kind`; when present it must be the one the route expects. */
export function withKind(value: Record<string, unknown>, kind: string): { ok: true; value: Record<string, unknown> } | { ok: false; rejection: Rejection } {
  if (value.kind !== undefined && value.kind !== kind) {
    return { ok: false, rejection: { code: 'invalid_request', reason: `This route takes ${kind} records.`, details: [{ path: '/kind', rule: 'const', message: `must be "${kind}" or absent` }] } };
  }
  return { ok: true, value: { ...value, kind } };
}

/**
 * NDJSON import with the shared nesting bound applied per line: a line nested
 * deeper than MAX_JSON_DEPTH is a rejected line (like one that is not JSON),
 * blanked before the importer sees it, so its validation cannot overflow the stack.
 */
export async function importBoundedNdjson(store: ContentStore, text: string, now: () => number): Promise<ImportReport> {
  const lines = text.split(/\r?\n/);
  const deep: RejectedLine[] = [];
  lines.forEach((line, i) => {
    if (!jsonNestingExceeds(line)) return;
    deep.push({ line: i + 1, code: 'invalid_json', reason: `nested more than ${MAX_JSON_DEPTH} levels deep`, details: [{ path: '', rule: 'max-depth' }] });
    lines[i] = '';
  });
  if (deep.length === 0) return importNdjson(store, text, now);
  const report = await importNdjson(store, lines.join('\n'), now);
  report.lines += deep.length;
  report.rejected = [...report.rejected, ...deep].sort((a, b) => a.line - b.line);
  return report;
}

function unauthorized(c: Context): Response {
  return errorResponse(c, 'unauthorized', 'The admin API needs Authorization: Bearer <ADMIN_TOKEN>.', [{ path: 'header:Authorization', rule: 'bearer' }], {
    'WWW-Authenticate': 'Bearer realm="admin"',
  });
}

type Handler = (c: Context) => Promise<Response>;

/** Wraps admin handlers so each runs only for the right bearer token (a route descriptor carries no middleware). */
export function adminOnly(adminToken: string): (handle: Handler) => Handler {
  const expected = digest(adminToken);
  return (handle) =>
    async function adminOnlyHandler(c) {
      if (!bearerMatches(c.req.header('authorization'), expected)) return unauthorized(c);
      return handle(c);
    };
}

/**
 * For admin paths no route matches: 401 without the token, so the API's
 * shape is not probed anonymously; with it, on to the app's 404.
 */
export function adminGuard(adminToken: string): MiddlewareHandler {
  const expected = digest(adminToken);
  return async function adminAuth(c, next) {
    if (!bearerMatches(c.req.header('authorization'), expected)) return unauthorized(c);
    await next();
  };
}
