/**
 * The content admin API as route descriptors (only when ADMIN_TOKEN is set):
 * publish, correct, retract, read an item with its history, import a census
 * snapshot or NDJSON. Every handler checks the bearer token itself.
 */
import type { Context } from 'hono';
import { ERROR_BODY_SCHEMA, statusOf } from '../../errors.js';
import { decodeUtf8 } from '../../catalog/json-input.js';
import type { FreeRoute } from '../../module.js';
import { ADMIN_PREFIX, adminOnly, importBoundedNdjson, MAX_IMPORT_BYTES, MAX_JSON_BYTES, readBody, readJsonObject, rejectionResponse, withKind, writeResponse } from '../admin.js';
import { errorResponse } from '../http.js';
import type { MarketMovementsSource } from '../newswire.js';
import { CENSUS_RECORD_SCHEMA, ITEM_RECORD_SCHEMA, RETRACTION_BODY_SCHEMA } from '../record-schemas.js';
import { checkRecord } from '../records.js';
import { ID_PATTERN, type JsonSchema } from '../schema-parts.js';
import type { ContentStore } from '../store/contract.js';
import { ADMIN_WRITE_RESULT_SCHEMA, IMPORT_REPORT_SCHEMA } from './admin-schemas.js';
import { badRequest, conflict, notFound, operation, unauthorized } from './operation.js';
import type { ParameterDef } from '../http.js';

export interface AdminDeps {
  store: ContentStore;
  adminToken: string;
  now: () => number;
  movements: MarketMovementsSource;
}

/** Admin bodies may leave out `kind`: the route says which record it takes. */
const withoutKind = (schema: JsonSchema): JsonSchema => ({ ...schema, required: (schema.required as string[]).filter((r) => r !== 'kind') });

const eventIdParam = (description: string): ParameterDef => ({ name: 'eventId', in: 'path', required: true, description, schema: { type: 'string', pattern: ID_PATTERN } });

function handlers(deps: AdminDeps) {
  const { store } = deps;
  return {
    async publish(c: Context): Promise<Response> {
      const body = await readJsonObject(c, MAX_JSON_BYTES);
      if (!body.ok) return body.res;
      const rec = withKind(body.value, 'item');
      if (!rec.ok) return rejectionResponse(c, rec.rejection);
      const checked = checkRecord(rec.value, deps.now());
      if (!checked.ok) return rejectionResponse(c, checked.rejection);
      return writeResponse(c, await store.apply(checked.record));
    },

    async correct(c: Context): Promise<Response> {
      const original = c.req.param('eventId') ?? '';
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
    },

    async retract(c: Context): Promise<Response> {
      const eventId = c.req.param('eventId') ?? '';
      const body = await readJsonObject(c, MAX_JSON_BYTES);
      if (!body.ok) return body.res;
      const checked = checkRecord({ kind: 'retraction', eventId, ...body.value }, deps.now());
      if (!checked.ok) return rejectionResponse(c, checked.rejection);
      const res = await store.apply(checked.record);
      if (!res.ok && statusOf(res.rejection.code) === 404) return errorResponse(c, 'not_found', res.rejection.reason);
      return writeResponse(c, res);
    },

    async item(c: Context): Promise<Response> {
      const eventId = c.req.param('eventId') ?? '';
      const found = await store.getItem(eventId);
      if (!found) return errorResponse(c, 'not_found', `No item ${eventId}.`);
      return c.json({ newsroomState: found.state, item: found.stored.item, evidence: found.stored.evidence, versions: await store.itemVersions(eventId) }, 200, { 'Cache-Control': 'no-store' });
    },

    async census(c: Context): Promise<Response> {
      const body = await readJsonObject(c, MAX_IMPORT_BYTES);
      if (!body.ok) return body.res;
      const rec = withKind(body.value, 'census');
      if (!rec.ok) return rejectionResponse(c, rec.rejection);
      const checked = checkRecord(rec.value, deps.now());
      if (!checked.ok) return rejectionResponse(c, checked.rejection);
      const res = await store.apply(checked.record);
      if (!res.ok) return rejectionResponse(c, res.rejection);
      return writeResponse(c, res, { marketMovements: await deps.movements.current() });
    },

    async importNdjson(c: Context): Promise<Response> {
      const body = await readBody(c, MAX_IMPORT_BYTES);
      if (!body.ok) return body.res;
      const text = decodeUtf8(body.bytes);
      if (text === undefined) return errorResponse(c, 'invalid_json', 'The request body is not valid UTF-8.', [{ path: '', rule: 'utf-8' }]);
      return c.json(await importBoundedNdjson(store, text, deps.now), 200, { 'Cache-Control': 'no-store' });
    },
  };
}

/** In this order in OpenAPI. */
export function adminRoutes(deps: AdminDeps): FreeRoute[] {
  const h = handlers(deps);
  const only = adminOnly(deps.adminToken);
  return [
    {
      method: 'POST',
      path: `${ADMIN_PREFIX}/items`,
      operation: operation({
        operationId: 'adminPublishItem',
        summary: 'Publish or update an item (idempotent by eventId)',
        parameters: [],
        requestSchema: withoutKind(ITEM_RECORD_SCHEMA),
        responses: { 200: { description: 'Updated or unchanged', schema: ADMIN_WRITE_RESULT_SCHEMA }, 201: { description: 'Created', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: conflict },
        admin: true,
      }),
      handle: only(h.publish),
    },
    {
      method: 'POST',
      path: `${ADMIN_PREFIX}/items/{eventId}/corrections`,
      operation: operation({
        operationId: 'adminCorrectItem',
        summary: 'Publish a correcting item whose correctionOf is {eventId}',
        parameters: [eventIdParam('The item being corrected.')],
        requestSchema: withoutKind(ITEM_RECORD_SCHEMA),
        responses: { 201: { description: 'Created', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: conflict },
        admin: true,
      }),
      handle: only(h.correct),
    },
    {
      method: 'POST',
      path: `${ADMIN_PREFIX}/items/{eventId}/retraction`,
      operation: operation({
        operationId: 'adminRetractItem',
        summary: 'Retract an item with a reason',
        parameters: [eventIdParam('The item to retract.')],
        requestSchema: RETRACTION_BODY_SCHEMA,
        responses: { 200: { description: 'Retracted (or already retracted)', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: conflict },
        admin: true,
      }),
      handle: only(h.retract),
    },
    {
      method: 'GET',
      path: `${ADMIN_PREFIX}/items/{eventId}`,
      operation: operation({
        operationId: 'adminGetItem',
        summary: 'An item in any state (including HELD) with its version history',
        parameters: [eventIdParam('Item id.')],
        responses: { 200: { description: 'Item and versions' }, 401: unauthorized, 404: notFound },
        admin: true,
      }),
      handle: only(h.item),
    },
    {
      method: 'POST',
      path: `${ADMIN_PREFIX}/census`,
      operation: operation({
        operationId: 'adminImportCensus',
        summary: 'Import a census snapshot (resources, payers, calls per resource and family)',
        parameters: [],
        requestSchema: withoutKind(CENSUS_RECORD_SCHEMA),
        responses: { 200: { description: 'Unchanged', schema: ADMIN_WRITE_RESULT_SCHEMA }, 201: { description: 'Imported', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: conflict },
        admin: true,
      }),
      handle: only(h.census),
    },
    {
      method: 'POST',
      path: `${ADMIN_PREFIX}/import`,
      operation: operation({
        operationId: 'adminImportNdjson',
        summary: 'Import NDJSON content records (same format as `npm run intel -- import`)',
        parameters: [],
        requestMediaType: 'application/x-ndjson',
        responses: { 200: { description: 'Import report', schema: IMPORT_REPORT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 413: { description: 'Body too large', schema: ERROR_BODY_SCHEMA } },
        admin: true,
      }),
      handle: only(h.importNdjson),
    },
  ];
}
