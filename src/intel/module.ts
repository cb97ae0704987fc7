/**
 * The machine-economy intelligence module: the paid changes-since feed, the
 * free newswire, graph and presence catalog, and the content admin API.
 * Content lives in the ledger's database and enters only by import (CLI,
 * admin API, the starter corpus on first start); no route fetches a URL.
 */
import type { Context, Hono } from 'hono';
import type { Capability } from '../catalog/capability.js';
import type { FreeTool, ModuleContext, ModuleInit, OpenApiPaths, ServiceModule } from '../module.js';
import type { SqlDriver } from '../store/sql-driver.js';
import { registerAdminRoutes } from './admin.js';
import { changesSinceCapability, CHANGES_SINCE_ID } from './capability.js';
import { CHANGES_SINCE_PATH, CHANGES_SINCE_PRICE_ATOMIC, runChangesSince, type CompactDelta } from './changes.js';
import { buildDistribution } from './distribution.js';
import { buildGraphSummary, GRAPH_PATHS } from './graph.js';
import { decodePageCursor, encodePageCursor, errorResponse, jsonWithEtag, parseQuery, type QueryValues } from './http.js';
import { buildNewswire, cursorMicros, MarketMovementsSource } from './newswire.js';
import { pagesOpenApi, registerPageRoutes } from './pages.js';
import { CHANGES_SINCE_INPUT_SCHEMA, CHANGES_SINCE_OUTPUT_SCHEMA, ENTITY_ID, INTEL_ROUTES, QUERY_PARAMETERS, type ParameterDef } from './schemas.js';
import { loadStarterCorpus } from './starter.js';
import { SqlContentStore, type ContentStore } from './store.js';
import { formatMicros } from './time.js';
import { NEWSWIRE_SCHEMA_VERSION, USAGE_RIGHTS, type EntityType, type ItemType, type RelationshipType } from './types.js';

export interface IntelRuntime {
  store: ContentStore;
  movements: MarketMovementsSource;
}

export interface IntelModuleOptions {
  /** Load the starter corpus into an empty store on start (default true). */
  loadStarter?: boolean;
}

export const NEWSWIRE_PATH = '/v1/newswire';
export const DISTRIBUTION_PATH = '/v1/distribution';

const HOW_TO_PAY =
  'POST the JSON body to the path. Without payment the answer is 402 with a PAYMENT-REQUIRED header (x402 v2, scheme exact): base64-decode it, sign accepts[0] as an EIP-3009 transferWithAuthorization, and repeat the same request with the PAYMENT-SIGNATURE header. Any x402 v2 client (e.g. @x402/fetch) does this for you. Keep nextCursor from each answer and send it as cursor next time.';

/** One runtime per database, so several services in one process (tests) never share a store. */
const runtimes = new WeakMap<SqlDriver, IntelRuntime>();

function runtimeFor(init: Pick<ModuleInit, 'db' | 'now'>): IntelRuntime {
  let rt = runtimes.get(init.db);
  if (!rt) {
    const store = new SqlContentStore(init.db, init.now);
    rt = { store, movements: new MarketMovementsSource(store) };
    runtimes.set(init.db, rt);
  }
  return rt;
}

/** The runtime the module built over a database (for tests and tools in the same process). */
export function intelRuntime(db: SqlDriver): IntelRuntime | undefined {
  return runtimes.get(db);
}

function badQuery(c: Context, parsed: Extract<ReturnType<typeof parseQuery>, { ok: false }>): Response {
  return errorResponse(c, parsed.code, parsed.message, parsed.details);
}

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

function registerRoutes(app: Hono, ctx: ModuleContext, rt: IntelRuntime): void {
  const { store, movements } = rt;

  app.get(NEWSWIRE_PATH, async (c) => {
    const q = parseQuery(QUERY_PARAMETERS.newswire, new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    return jsonWithEtag(c, await buildNewswire({ store, movements, operatorWallets: ctx.config.operatorWallets }, q.values));
  });

  app.get(CHANGES_SINCE_PATH, async (c) => {
    const q = parseQuery(QUERY_PARAMETERS.changesSinceSample, new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    const cursor = (q.values.cursor ?? q.values.since) as string | undefined;
    if (q.values.cursor !== undefined && q.values.since !== undefined && cursorMicros(q.values.cursor as string) !== cursorMicros(q.values.since as string)) {
      return errorResponse(c, 'invalid_parameter', 'cursor and since are aliases; send one.', [{ path: 'query:since', rule: 'alias-conflict', message: 'differs from cursor' }]);
    }
    const paid = await runChangesSince({ store, movements }, { cursor: cursor === undefined ? undefined : formatMicros(cursorMicros(cursor)), include_high_resolution: false, max_items: 3 });
    const cap = ctx.catalog.find((k) => k.id === CHANGES_SINCE_ID);
    return jsonWithEtag(c, {
      schemaVersion: NEWSWIRE_SCHEMA_VERSION,
      cursor: paid.cursor,
      generatedAt: paid.generatedAt,
      sample: paid.deltas as CompactDelta[],
      moreAvailable: paid.truncated,
      paid: {
        method: 'POST',
        path: CHANGES_SINCE_PATH,
        priceAtomic: cap?.priceAtomic ?? CHANGES_SINCE_PRICE_ATOMIC,
        scheme: 'exact',
        network: ctx.payment.network,
        asset: ctx.payment.asset.address,
        payTo: ctx.payment.payTo,
        exampleRequest: { cursor: paid.cursor, include_high_resolution: false, max_items: 100 },
        requestSchema: cap?.inputSchema ?? CHANGES_SINCE_INPUT_SCHEMA,
        responseSchema: cap?.outputSchema ?? CHANGES_SINCE_OUTPUT_SCHEMA,
      },
      howToPay: HOW_TO_PAY,
      usageRights: USAGE_RIGHTS,
    });
  });

  app.get(GRAPH_PATHS.summary, async (c) => {
    const q = parseQuery([], new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    return jsonWithEtag(c, await buildGraphSummary(store));
  });

  app.get(GRAPH_PATHS.entities, async (c) => {
    const q = parseQuery(QUERY_PARAMETERS.graphEntities, new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    const after = q.values.cursor === undefined ? undefined : decodePageCursor(q.values.cursor as string, 1);
    if (q.values.cursor !== undefined && !after) return errorResponse(c, 'invalid_cursor', 'The cursor is not one this service issued for this collection.', [{ path: 'query:cursor', rule: 'cursor' }]);
    const limit = q.values.limit as number;
    const page = await store.entities({ type: q.values.type as EntityType | undefined, sinceUs: sinceOf(q.values), afterId: after?.[0], limit });
    return jsonWithEtag(c, pageBody(page.items, limit, page.more, page.watermarkUs, (e) => [e.id]));
  });

  app.get(`${GRAPH_PATHS.entities}/:id`, async (c) => {
    const q = parseQuery(QUERY_PARAMETERS.graphEntity, new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    const id = c.req.param('id');
    if (!new RegExp(ENTITY_ID.pattern as string).test(id)) return errorResponse(c, 'not_found', `No entity ${id}.`);
    const entity = await store.entity(id);
    if (!entity) return errorResponse(c, 'not_found', `No entity ${id}.`);
    const [rels, events] = await Promise.all([store.relationships({ entity: id, limit: 1000 }), store.events({ entity: id, limit: 100 })]);
    return jsonWithEtag(c, { entity, relationships: rels.items, events: events.items, generatedAt: formatMicros(Math.max(rels.watermarkUs, events.watermarkUs)) });
  });

  app.get(GRAPH_PATHS.relationships, async (c) => {
    const q = parseQuery(QUERY_PARAMETERS.graphRelationships, new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    const after = q.values.cursor === undefined ? undefined : decodePageCursor(q.values.cursor as string, 1);
    if (q.values.cursor !== undefined && !after) return errorResponse(c, 'invalid_cursor', 'The cursor is not one this service issued for this collection.', [{ path: 'query:cursor', rule: 'cursor' }]);
    const limit = q.values.limit as number;
    const page = await store.relationships({
      type: q.values.type as RelationshipType | undefined,
      entity: q.values.entity as string | undefined,
      from: q.values.from as string | undefined,
      to: q.values.to as string | undefined,
      sinceUs: sinceOf(q.values),
      afterId: after?.[0],
      limit,
    });
    return jsonWithEtag(c, pageBody(page.items, limit, page.more, page.watermarkUs, (r) => [r.id]));
  });

  app.get(GRAPH_PATHS.events, async (c) => {
    const q = parseQuery(QUERY_PARAMETERS.graphEvents, new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    const after = q.values.cursor === undefined ? undefined : decodePageCursor(q.values.cursor as string, 2);
    if (q.values.cursor !== undefined && (!after || !/^\d{4}-\d{2}-\d{2}$/.test(after[0]!))) {
      return errorResponse(c, 'invalid_cursor', 'The cursor is not one this service issued for this collection.', [{ path: 'query:cursor', rule: 'cursor' }]);
    }
    const limit = q.values.limit as number;
    const page = await store.events({
      type: q.values.type as ItemType | undefined,
      entity: q.values.entity as string | undefined,
      sinceUs: sinceOf(q.values),
      after: after ? { date: after[0]!, id: after[1]! } : undefined,
      limit,
    });
    return jsonWithEtag(c, pageBody(page.items, limit, page.more, page.watermarkUs, (e) => [e.at.slice(0, 10), e.id]));
  });

  app.get(DISTRIBUTION_PATH, async (c) => {
    const q = parseQuery([], new URL(c.req.url));
    if (!q.ok) return badQuery(c, q);
    const base = ctx.publicBaseUrl ?? new URL(c.req.url).origin;
    return c.json(await buildDistribution(store, app.routes, base, ctx.now()), 200, { 'Cache-Control': 'no-cache' });
  });

  // Pages for people: HTML views of the newswire (pages.ts).
  registerPageRoutes(app, { store, movements, operatorWallets: ctx.config.operatorWallets });

  if (ctx.config.adminToken) registerAdminRoutes(app, { store, adminToken: ctx.config.adminToken, now: ctx.now, movements });
}

// ---- OpenAPI and MCP descriptions ----

function openapiParameter(p: ParameterDef) {
  return { name: p.name, in: p.in, required: p.in === 'path' ? true : (p.required ?? false), description: p.description, schema: p.schema };
}

/** OpenAPI path items for every route this module registers (admin routes only when ADMIN_TOKEN is set). */
export function intelOpenApi(adminEnabled: boolean): OpenApiPaths {
  const paths: OpenApiPaths = {};
  for (const r of INTEL_ROUTES) {
    if (r.admin && !adminEnabled) continue;
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.admin ? 'admin' : 'intelligence'],
      ...(r.admin ? { description: 'Operator only: send Authorization: Bearer <ADMIN_TOKEN>. Exists only when ADMIN_TOKEN is set.' } : { security: [] }),
      parameters: r.parameters.map(openapiParameter),
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([status, resp]) => [status, resp.schema ? { description: resp.description, content: { 'application/json': { schema: resp.schema } } } : { description: resp.description }]),
      ),
    };
    if (r.requestSchema) op.requestBody = { required: true, content: { 'application/json': { schema: r.requestSchema } } };
    if (r.requestMediaType) op.requestBody = { required: true, content: { [r.requestMediaType]: { schema: { type: 'string', description: 'One JSON content record per line.' } } } };
    paths[r.path] = { ...(paths[r.path] ?? {}), [r.method.toLowerCase()]: op };
  }
  return paths;
}

function queryArgsSchema(defs: readonly ParameterDef[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(defs.filter((d) => d.in === 'query').map((d) => [d.name, { ...d.schema, description: d.description }])),
  };
}

function toQuery(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

export function intelMcpTools(): FreeTool[] {
  return [
    {
      name: 'newswire',
      title: 'Machine-economy newswire',
      description: 'Sourced machine-economy news items (GET /v1/newswire): filters by type, topic, entity, protocol, tier; poll with since=nextCursor.',
      inputSchema: queryArgsSchema(QUERY_PARAMETERS.newswire),
      request: (args) => ({ method: 'GET', path: NEWSWIRE_PATH, query: toQuery(args) }),
    },
    {
      name: 'changes-since-sample',
      title: 'Changes-since sample',
      description: 'Up to 3 compact deltas the paid changes-since call would return for a cursor, with its schema, price and how to pay.',
      inputSchema: queryArgsSchema(QUERY_PARAMETERS.changesSinceSample),
      request: (args) => ({ method: 'GET', path: CHANGES_SINCE_PATH, query: toQuery(args) }),
    },
    {
      name: 'graph-summary',
      title: 'Machine-economy graph summary',
      description: 'Dataset summary of the entity graph: methodology, counts, entities, latest events and collection paths.',
      inputSchema: { type: 'object', additionalProperties: false, properties: {} },
      request: () => ({ method: 'GET', path: GRAPH_PATHS.summary }),
    },
    {
      name: 'graph-entities',
      title: 'Graph entities',
      description: 'Entities of the machine-economy graph by id, filterable by type.',
      inputSchema: queryArgsSchema(QUERY_PARAMETERS.graphEntities),
      request: (args) => ({ method: 'GET', path: GRAPH_PATHS.entities, query: toQuery(args) }),
    },
    {
      name: 'graph-relationships',
      title: 'Graph relationships',
      description: 'Sourced relationships between graph entities, filterable by type and entity.',
      inputSchema: queryArgsSchema(QUERY_PARAMETERS.graphRelationships),
      request: (args) => ({ method: 'GET', path: GRAPH_PATHS.relationships, query: toQuery(args) }),
    },
    {
      name: 'graph-events',
      title: 'Graph events',
      description: 'Dated, sourced events of the machine economy, newest first, filterable by type and entity.',
      inputSchema: queryArgsSchema(QUERY_PARAMETERS.graphEvents),
      request: (args) => ({ method: 'GET', path: GRAPH_PATHS.events, query: toQuery(args) }),
    },
    {
      name: 'distribution',
      title: 'Presence catalog',
      description: 'Where this service can be found: its discovery surfaces, imported external listings, and the ecosystem’s directories.',
      inputSchema: { type: 'object', additionalProperties: false, properties: {} },
      request: () => ({ method: 'GET', path: DISTRIBUTION_PATH }),
    },
  ];
}

export function createIntelModule(opts: IntelModuleOptions = {}): ServiceModule {
  return {
    name: 'intelligence',
    async capabilities(init: ModuleInit): Promise<Capability[]> {
      const rt = runtimeFor(init);
      if (opts.loadStarter !== false) {
        const outcome = await loadStarterCorpus(rt.store, init.now);
        if (outcome.loaded) init.log.info({ created: outcome.report.created }, 'intelligence: starter corpus loaded');
        else init.log.info({ reason: outcome.reason }, 'intelligence: starter corpus not loaded');
      }
      return [changesSinceCapability(rt)];
    },
    routes(app: Hono, ctx: ModuleContext) {
      registerRoutes(app, ctx, runtimeFor(ctx));
    },
    openapi(ctx: ModuleContext): OpenApiPaths {
      return { ...intelOpenApi(ctx.config.adminToken !== undefined), ...pagesOpenApi() };
    },
    mcpTools(): FreeTool[] {
      return intelMcpTools();
    },
  };
}

/** Wire into DEFAULT_MODULES in src/modules.ts. */
export const intelModule: ServiceModule = createIntelModule();
