/**
 * The content admin API under /admin/v1/…: publish, correct, retract, import
 * census snapshots and NDJSON. It exists only when ADMIN_TOKEN is set (the
 * routes are not registered otherwise, so every admin path answers 404), and
 * every request must carry `Authorization: Bearer <ADMIN_TOKEN>` (401
 * otherwise).
 */
import type { Context, Hono, Next } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import { statusOf } from '../errors.js';
import { decodeUtf8, jsonNestingExceeds, MAX_JSON_DEPTH, parseJsonBody, readBodyBytes } from '../http/json-body.js';
import { formatMicros } from './time.js';
import { errorResponse } from './http.js';
import { importNdjson, type ImportReport, type RejectedLine } from './importer.js';
import type { MarketMovementsSource } from './newswire.js';
import { checkRecord, type Rejection } from './records.js';
import type { ContentStore, WriteOk, WriteResult } from './store.js';

export const ADMIN_PREFIX = '/admin/v1';
const MAX_JSON_BYTES = 1024 * 1024;
const MAX_IMPORT_BYTES = 32 * 1024 * 1024;

export interface AdminDeps {
  store: ContentStore;
  adminToken: string;
  now: () => number;
  movements: MarketMovementsSource;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/**
 * Constant-time token check. Both sides are hashed first so the comparison
 * always runs over two 32-byte digests: neither the token's length nor the
 * position of the first wrong byte leaks through timing.
 */
export function bearerMatches(header: string | undefined, expectedDigest: Buffer): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  const given = digest(m ? m[1]! : '');
  const equal = timingSafeEqual(given, expectedDigest);
  return equal && m !== null;
}

function rejectionResponse(c: Context, r: Rejection): Response {
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

function writeResponse(c: Context, w: WriteResult, extra: Record<string, unknown> = {}): Response {
  if (!w.ok) return rejectionResponse(c, w.rejection);
  return c.json({ ...writeBody(w), ...extra }, w.result === 'created' ? 201 : 200, { 'Cache-Control': 'no-store' });
}

async function readBody(c: Context, limit: number): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; res: Response }> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > limit) return { ok: false, res: errorResponse(c, 'payload_too_large', `The request body exceeds ${limit} bytes.`) };
  const bytes = await readBodyBytes(c.req, limit);
  if (!bytes.ok) return { ok: false, res: errorResponse(c, bytes.error.code, bytes.error.message, bytes.error.details) };
  return { ok: true, bytes: bytes.value };
}

/** One JSON object: strict UTF-8, bounded nesting, then JSON.parse (the shared body reader). */
async function readJsonObject(c: Context, limit: number): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; res: Response }> {
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
function withKind(value: Record<string, unknown>, kind: string): { ok: true; value: Record<string, unknown> } | { ok: false; rejection: Rejection } {
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
async function importBoundedNdjson(store: ContentStore, text: string, now: () => number): Promise<ImportReport> {
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

export function registerAdminRoutes(app: Hono, deps: AdminDeps): void {
  const expected = digest(deps.adminToken);
  const { store } = deps;

  app.use(`${ADMIN_PREFIX}/*`, async function adminAuth(c: Context, next: Next) {
    if (!bearerMatches(c.req.header('authorization'), expected)) {
      return errorResponse(c, 'unauthorized', 'The admin API needs Authorization: Bearer <ADMIN_TOKEN>.', [{ path: 'header:Authorization', rule: 'bearer' }], {
        'WWW-Authenticate': 'Bearer realm="admin"',
      });
    }
    await next();
  });

  app.post(`${ADMIN_PREFIX}/items`, async (c) => {
    const body = await readJsonObject(c, MAX_JSON_BYTES);
    if (!body.ok) return body.res;
    const rec = withKind(body.value, 'item');
    if (!rec.ok) return rejectionResponse(c, rec.rejection);
    const checked = checkRecord(rec.value, deps.now());
    if (!checked.ok) return rejectionResponse(c, checked.rejection);
    return writeResponse(c, await store.apply(checked.record));
  });

  app.post(`${ADMIN_PREFIX}/items/:eventId/corrections`, async (c) => {
    const original = c.req.param('eventId');
    const body = await readJsonObject(c, MAX_JSON_BYTES);
    if (!body.ok) return body.res;
    const withItemKind = withKind(body.value, 'item');
    if (!withItemKind.ok) return rejectionResponse(c, withItemKind.rejection);
    const rec = withItemKind.value;
    if (rec.correctionOf !== undefined && rec.correctionOf !== original) {
      return errorResponse(c, 'invalid_request', `correctionOf must be ${original} (the item in the path) or absent.`, [{ path: '/correctionOf', rule: 'const', message: `must be "${original}"` }]);
    }
    if (rec.eventId === original) {
      return errorResponse(c, 'invalid_request', 'A correction is a new item: give it its own eventId.', [{ path: '/eventId', rule: 'not-original', message: 'must differ from the corrected item' }]);
    }
    const existing = await store.getItem(original);
    if (!existing) return errorResponse(c, 'not_found', `No item ${original}.`);
    const checked = checkRecord({ ...rec, correctionOf: original }, deps.now());
    if (!checked.ok) return rejectionResponse(c, checked.rejection);
    return writeResponse(c, await store.apply(checked.record));
  });

  app.post(`${ADMIN_PREFIX}/items/:eventId/retraction`, async (c) => {
    const eventId = c.req.param('eventId');
    const body = await readJsonObject(c, MAX_JSON_BYTES);
    if (!body.ok) return body.res;
    const checked = checkRecord({ kind: 'retraction', eventId, ...body.value }, deps.now());
    if (!checked.ok) return rejectionResponse(c, checked.rejection);
    const res = await store.apply(checked.record);
    if (!res.ok && statusOf(res.rejection.code) === 404) return errorResponse(c, 'not_found', res.rejection.reason);
    return writeResponse(c, res);
  });

  app.get(`${ADMIN_PREFIX}/items/:eventId`, async (c) => {
    const eventId = c.req.param('eventId');
    const found = await store.getItem(eventId);
    if (!found) return errorResponse(c, 'not_found', `No item ${eventId}.`);
    return c.json({ newsroomState: found.state, item: found.stored.item, evidence: found.stored.evidence, versions: await store.itemVersions(eventId) }, 200, { 'Cache-Control': 'no-store' });
  });

  app.post(`${ADMIN_PREFIX}/census`, async (c) => {
    const body = await readJsonObject(c, MAX_IMPORT_BYTES);
    if (!body.ok) return body.res;
    const rec = withKind(body.value, 'census');
    if (!rec.ok) return rejectionResponse(c, rec.rejection);
    const checked = checkRecord(rec.value, deps.now());
    if (!checked.ok) return rejectionResponse(c, checked.rejection);
    const res = await store.apply(checked.record);
    if (!res.ok) return rejectionResponse(c, res.rejection);
    return writeResponse(c, res, { marketMovements: await deps.movements.current() });
  });

  app.post(`${ADMIN_PREFIX}/import`, async (c) => {
    const body = await readBody(c, MAX_IMPORT_BYTES);
    if (!body.ok) return body.res;
    const text = decodeUtf8(body.bytes);
    if (text === undefined) return errorResponse(c, 'invalid_json', 'The request body is not valid UTF-8.', [{ path: '', rule: 'utf-8' }]);
    return c.json(await importBoundedNdjson(store, text, deps.now), 200, { 'Cache-Control': 'no-store' });
  });
}
