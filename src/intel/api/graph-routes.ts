/**
 * The entity graph's free routes: the dataset summary and its paged
 * collections (entities and relationships by id, events newest first) and
 * one entity with its neighbourhood. Page cursors are opaque keysets. The
 * summary and the collections are served from the feed cache (feed-cache.ts)
 * by (path, normalized query, content generation).
 */
import type { Context } from 'hono';
import type { FreeRoute } from '../../module.js';
import { buildGraphSummary, GRAPH_PATHS } from '../graph.js';
import { badQuery, decodePageCursor, encodePageCursor, errorResponse, jsonWithEtag, parseQuery, type ParameterDef, type QueryValues } from '../http.js';
import { cursorMicros } from '../newswire.js';
import { ENTITY_ID } from '../schema-parts.js';
import type { ContentStore } from '../store/contract.js';
import { formatMicros } from '../time.js';
import type { EntityType, ItemType, RelationshipType } from '../types.js';
import { QueryMemo, type FeedCache } from './feed-cache.js';
import { ENTITY_DETAIL_SCHEMA, ENTITY_PAGE_SCHEMA, EVENT_PAGE_SCHEMA, GRAPH_SUMMARY_SCHEMA, RELATIONSHIP_PAGE_SCHEMA } from './graph-schemas.js';
import { badRequest, noArgs, notFound, notModified, operation, queryArgsSchema, toQuery } from './operation.js';
import { QUERY_PARAMETERS } from './query-parameters.js';

const ENTITY_ID_RE = new RegExp(ENTITY_ID.pattern as string);

function pageBody<T>(items: T[], limit: number, more: boolean, watermarkUs: number, cursorOf: (last: T) => string[]) {
  return {
    items,
    count: items.length,
    limit,
    nextCursor: more && items.length ? encodePageCursor(cursorOf(items[items.length - 1]!)) : null,
    generatedAt: formatMicros(watermarkUs),
  };
}

function sinceOf(q: QueryValues): number | undefined {
  return q.since === undefined ? undefined : cursorMicros(q.since as string);
}

function invalidCursor(c: Context): Response {
  return errorResponse(c, 'invalid_cursor', 'The cursor is not one this service issued for this collection.', [{ path: 'query:cursor', rule: 'cursor' }]);
}

/** Bytes of a graph answer: they change only with the content generation. */
async function cached(c: Context, store: ContentStore, cache: FeedCache, key: string, build: () => Promise<unknown>): Promise<Response> {
  return cache.serve(c, `${c.req.path}?${key}`, await store.generation(), build);
}

const NO_PARAMETERS: readonly ParameterDef[] = [];

/** A collection's query, parsed once per distinct query string (the route's own memo), with its normalized cache key; or the 400 it gets. */
function graphQuery(memo: QueryMemo, c: Context): { values: QueryValues; key: string } | { bad: Response } {
  const p = memo.parse(c.req.url);
  if (!('key' in p)) return { bad: badQuery(c, p.parsed) };
  return { values: p.parsed.values, key: p.key };
}

async function summary(c: Context, store: ContentStore, cache: FeedCache, memo: QueryMemo): Promise<Response> {
  const q = graphQuery(memo, c);
  if ('bad' in q) return q.bad;
  return cached(c, store, cache, q.key, () => buildGraphSummary(store));
}

async function entities(c: Context, store: ContentStore, cache: FeedCache, memo: QueryMemo): Promise<Response> {
  const q = graphQuery(memo, c);
  if ('bad' in q) return q.bad;
  const after = q.values.cursor === undefined ? undefined : decodePageCursor(q.values.cursor as string, 1);
  if (q.values.cursor !== undefined && !after) return invalidCursor(c);
  const limit = q.values.limit as number;
  return cached(c, store, cache, q.key, async () => {
    const page = await store.entities({ type: q.values.type as EntityType | undefined, sinceUs: sinceOf(q.values), afterId: after?.[0], limit });
    return pageBody(page.items, limit, page.more, page.watermarkUs, (e) => [e.id]);
  });
}

async function entity(c: Context, store: ContentStore): Promise<Response> {
  const q = parseQuery(QUERY_PARAMETERS.graphEntity, new URL(c.req.url));
  if (!q.ok) return badQuery(c, q);
  const id = c.req.param('id') ?? '';
  if (!ENTITY_ID_RE.test(id)) return errorResponse(c, 'not_found', `No entity ${id}.`);
  const found = await store.entity(id);
  if (!found) return errorResponse(c, 'not_found', `No entity ${id}.`);
  const [rels, events] = await Promise.all([store.relationships({ entity: id, limit: 1000 }), store.events({ entity: id, limit: 100 })]);
  return jsonWithEtag(c, { entity: found, relationships: rels.items, events: events.items, generatedAt: formatMicros(Math.max(rels.watermarkUs, events.watermarkUs)) });
}

async function relationships(c: Context, store: ContentStore, cache: FeedCache, memo: QueryMemo): Promise<Response> {
  const q = graphQuery(memo, c);
  if ('bad' in q) return q.bad;
  const after = q.values.cursor === undefined ? undefined : decodePageCursor(q.values.cursor as string, 1);
  if (q.values.cursor !== undefined && !after) return invalidCursor(c);
  const limit = q.values.limit as number;
  return cached(c, store, cache, q.key, async () => {
    const page = await store.relationships({
      type: q.values.type as RelationshipType | undefined,
      entity: q.values.entity as string | undefined,
      from: q.values.from as string | undefined,
      to: q.values.to as string | undefined,
      sinceUs: sinceOf(q.values),
      afterId: after?.[0],
      limit,
    });
    return pageBody(page.items, limit, page.more, page.watermarkUs, (r) => [r.id]);
  });
}

async function events(c: Context, store: ContentStore, cache: FeedCache, memo: QueryMemo): Promise<Response> {
  const q = graphQuery(memo, c);
  if ('bad' in q) return q.bad;
  const after = q.values.cursor === undefined ? undefined : decodePageCursor(q.values.cursor as string, 2);
  if (q.values.cursor !== undefined && (!after || !/^\d{4}-\d{2}-\d{2}$/.test(after[0]!))) return invalidCursor(c);
  const limit = q.values.limit as number;
  return cached(c, store, cache, q.key, async () => {
    const page = await store.events({
      type: q.values.type as ItemType | undefined,
      entity: q.values.entity as string | undefined,
      sinceUs: sinceOf(q.values),
      after: after ? { date: after[0]!, id: after[1]! } : undefined,
      limit,
    });
    return pageBody(page.items, limit, page.more, page.watermarkUs, (e) => [e.at.slice(0, 10), e.id]);
  });
}

/** In this order in OpenAPI (and in the app; no two of them match the same path). */
export function graphRoutes(store: ContentStore, cache: FeedCache): FreeRoute[] {
  const memos = {
    summary: new QueryMemo(NO_PARAMETERS),
    entities: new QueryMemo(QUERY_PARAMETERS.graphEntities),
    relationships: new QueryMemo(QUERY_PARAMETERS.graphRelationships),
    events: new QueryMemo(QUERY_PARAMETERS.graphEvents),
  };
  return [
    {
      method: 'GET',
      path: GRAPH_PATHS.summary,
      operation: operation({ operationId: 'getGraphSummary', summary: 'Graph dataset summary', parameters: [], responses: { 200: { description: 'Summary', schema: GRAPH_SUMMARY_SCHEMA }, 304: notModified, 400: badRequest } }),
      handle: (c) => summary(c, store, cache, memos.summary),
      mcpTool: {
        name: 'graph-summary',
        title: 'Machine-economy graph summary',
        description: 'Dataset summary of the entity graph: methodology, counts, entities, latest events and collection paths.',
        inputSchema: noArgs(),
        request: () => ({}),
      },
    },
    {
      method: 'GET',
      path: GRAPH_PATHS.entities,
      operation: operation({ operationId: 'listGraphEntities', summary: 'Entities, by id', parameters: QUERY_PARAMETERS.graphEntities, responses: { 200: { description: 'Page', schema: ENTITY_PAGE_SCHEMA }, 304: notModified, 400: badRequest } }),
      handle: (c) => entities(c, store, cache, memos.entities),
      mcpTool: {
        name: 'graph-entities',
        title: 'Graph entities',
        description: 'Entities of the machine-economy graph by id, filterable by type.',
        inputSchema: queryArgsSchema(QUERY_PARAMETERS.graphEntities),
        request: (args) => ({ query: toQuery(args) }),
      },
    },
    {
      method: 'GET',
      path: `${GRAPH_PATHS.entities}/{id}`,
      operation: operation({
        operationId: 'getGraphEntity',
        summary: 'One entity with its relationships and events',
        parameters: QUERY_PARAMETERS.graphEntity,
        responses: { 200: { description: 'Entity', schema: ENTITY_DETAIL_SCHEMA }, 304: notModified, 400: badRequest, 404: notFound },
      }),
      handle: (c) => entity(c, store),
    },
    {
      method: 'GET',
      path: GRAPH_PATHS.relationships,
      operation: operation({ operationId: 'listGraphRelationships', summary: 'Relationships, by id', parameters: QUERY_PARAMETERS.graphRelationships, responses: { 200: { description: 'Page', schema: RELATIONSHIP_PAGE_SCHEMA }, 304: notModified, 400: badRequest } }),
      handle: (c) => relationships(c, store, cache, memos.relationships),
      mcpTool: {
        name: 'graph-relationships',
        title: 'Graph relationships',
        description: 'Sourced relationships between graph entities, filterable by type and entity.',
        inputSchema: queryArgsSchema(QUERY_PARAMETERS.graphRelationships),
        request: (args) => ({ query: toQuery(args) }),
      },
    },
    {
      method: 'GET',
      path: GRAPH_PATHS.events,
      operation: operation({ operationId: 'listGraphEvents', summary: 'Events, newest first', parameters: QUERY_PARAMETERS.graphEvents, responses: { 200: { description: 'Page', schema: EVENT_PAGE_SCHEMA }, 304: notModified, 400: badRequest } }),
      handle: (c) => events(c, store, cache, memos.events),
      mcpTool: {
        name: 'graph-events',
        title: 'Graph events',
        description: 'Dated, sourced events of the machine economy, newest first, filterable by type and entity.',
        inputSchema: queryArgsSchema(QUERY_PARAMETERS.graphEvents),
        request: (args) => ({ query: toQuery(args) }),
      },
    },
  ];
}
