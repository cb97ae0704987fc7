/**
 * The newswire's free JSON routes: `GET /v1/newswire` and the free sample on
 * the paid changes-since path (`GET /v1/intelligence/changes-since`; the
 * catalog owns POST on the same path, and the 405 for any other method names
 * both).
 */
import type { Context } from 'hono';
import type { Capability } from '../../catalog/capability.js';
import type { PaymentConfig } from '../../config.js';
import type { FreeRoute } from '../../module.js';
import { CHANGES_SINCE_ID } from '../capability.js';
import { CHANGES_SINCE_PATH, CHANGES_SINCE_PRICE_ATOMIC, checkChangesSinceInput, runChangesSince, type CompactDelta } from '../changes.js';
import { badQuery, errorResponse, parseQuery, type QueryValues } from '../http.js';
import { buildNewswire, decodeOlderCursor, type NewswireDeps } from '../newswire.js';
import { CHANGES_SINCE_INPUT_SCHEMA, CHANGES_SINCE_OUTPUT_SCHEMA, CHANGES_SINCE_SAMPLE_SCHEMA, NEWSWIRE_FEED_SCHEMA } from '../schemas.js';
import { NEWSWIRE_SCHEMA_VERSION, USAGE_RIGHTS } from '../types.js';
import { normalizedQuery, QueryMemo, type FeedCache } from './feed-cache.js';
import { badRequest, notModified, operation, queryArgsSchema, toQuery } from './operation.js';
import { QUERY_PARAMETERS } from './query-parameters.js';

const NEWSWIRE_PATH = '/v1/newswire';

const HOW_TO_PAY =
  'POST the JSON body to the path. Without payment the answer is 402 with a PAYMENT-REQUIRED header (x402 v2, scheme exact): base64-decode it, sign accepts[0] as an EIP-3009 transferWithAuthorization, and repeat the same request with the PAYMENT-SIGNATURE header. Any x402 v2 client (e.g. @x402/fetch) does this for you. Keep nextCursor from each answer and send it as cursor next time.';

export interface CachedFeedDeps extends NewswireDeps {
  feedCache: FeedCache;
}

export interface FeedRouteDeps extends CachedFeedDeps {
  catalog: readonly Capability[];
  payment: PaymentConfig;
}

/** Problems the parameter declarations cannot express. */
function newswireQueryProblem(c: Context, q: QueryValues): Response | undefined {
  if (q.cursor === undefined) return undefined;
  if (q.since !== undefined || q.until !== undefined) {
    return errorResponse(c, 'invalid_parameter', 'cursor pages back through the newest items; it does not combine with since or until (polling).', [{ path: 'query:cursor', rule: 'conflict', message: 'not with since or until' }]);
  }
  if (!decodeOlderCursor(q.cursor as string)) return errorResponse(c, 'invalid_cursor', 'The cursor is not an olderCursor this service issued.', [{ path: 'query:cursor', rule: 'cursor' }]);
  return undefined;
}

/**
 * The newswire's bytes depend on the content (the generation) and on the
 * independent revenue figure (settlements); both are in the version.
 */
async function newswireBytes(c: Context, deps: CachedFeedDeps, q: QueryValues, key: string): Promise<Response> {
  const [generation, revenue] = await Promise.all([deps.store.generation(), deps.revenue.paidRevenue(deps.operatorWallets)]);
  return deps.feedCache.serve(c, `${NEWSWIRE_PATH}?${key}`, `${generation}:${revenue.atomic}`, () => buildNewswire(deps, q));
}

export function newswireRoute(deps: CachedFeedDeps): FreeRoute {
  const queries = new QueryMemo(QUERY_PARAMETERS.newswire);
  return {
    method: 'GET',
    path: NEWSWIRE_PATH,
    operation: operation({
      operationId: 'getNewswire',
      summary: 'Newswire feed of sourced machine-economy items',
      parameters: QUERY_PARAMETERS.newswire,
      responses: { 200: { description: 'Feed', schema: NEWSWIRE_FEED_SCHEMA }, 304: notModified, 400: badRequest },
    }),
    async handle(c) {
      const p = queries.parse(c.req.url);
      if (!('key' in p)) return badQuery(c, p.parsed);
      const problem = newswireQueryProblem(c, p.parsed.values);
      if (problem) return problem;
      return newswireBytes(c, deps, p.parsed.values, p.key);
    },
    mcpTool: {
      name: 'newswire',
      title: 'Machine-economy newswire',
      description: 'Sourced machine-economy news items (GET /v1/newswire): filters by type, topic, entity, protocol, tier; poll with since=nextCursor.',
      inputSchema: queryArgsSchema(QUERY_PARAMETERS.newswire),
      request: (args) => ({ query: toQuery(args) }),
    },
  };
}

/** Up to 3 compact deltas the paid call would return, with its schemas, price and how to pay. */
async function changesSampleBody(deps: FeedRouteDeps, q: QueryValues): Promise<unknown> {
  const cursor = (q.cursor ?? q.since) as string | undefined;
  const paid = await runChangesSince(deps, { cursor, event_since: q.event_since as string | undefined, include_high_resolution: false, maxItems: 3 });
  const cap = deps.catalog.find((k) => k.id === CHANGES_SINCE_ID);
  return {
    schemaVersion: NEWSWIRE_SCHEMA_VERSION,
    since: paid.since,
    generatedAt: paid.generatedAt,
    sample: paid.items as CompactDelta[],
    moreAvailable: paid.truncated,
    paid: {
      method: 'POST',
      path: CHANGES_SINCE_PATH,
      priceAtomic: cap?.priceAtomic ?? CHANGES_SINCE_PRICE_ATOMIC,
      scheme: 'exact',
      network: deps.payment.network,
      asset: deps.payment.asset.address,
      payTo: deps.payment.payTo,
      exampleRequest: { cursor: cursor ?? paid.since, include_high_resolution: false, maxItems: 100 },
      requestSchema: cap?.inputSchema ?? CHANGES_SINCE_INPUT_SCHEMA,
      responseSchema: cap?.outputSchema ?? CHANGES_SINCE_OUTPUT_SCHEMA,
    },
    howToPay: HOW_TO_PAY,
    usageRights: USAGE_RIGHTS,
  };
}

async function changesSinceSample(c: Context, deps: FeedRouteDeps): Promise<Response> {
  const q = parseQuery(QUERY_PARAMETERS.changesSinceSample, new URL(c.req.url));
  if (!q.ok) return badQuery(c, q);
  // The same rules as the paid body (cursor or opaque cursor, alias agreement).
  const problem = checkChangesSinceInput({ cursor: q.values.cursor as string | undefined, since: q.values.since as string | undefined, event_since: q.values.event_since as string | undefined });
  if (problem) {
    return errorResponse(
      c,
      'invalid_parameter',
      problem.message,
      (problem.details ?? []).map((d) => ({ ...d, path: `query:${d.path.slice(1)}` })),
    );
  }
  // Only the content is shown (no revenue): the generation is the whole version.
  return deps.feedCache.serve(c, `${CHANGES_SINCE_PATH}?${normalizedQuery(q.values)}`, await deps.store.generation(), () => changesSampleBody(deps, q.values));
}

export function changesSinceSampleRoute(deps: FeedRouteDeps): FreeRoute {
  return {
    method: 'GET',
    path: CHANGES_SINCE_PATH,
    operation: operation({
      operationId: 'getChangesSinceSample',
      summary: 'Free sample of the paid changes-since call, with its schema, price and how to pay',
      parameters: QUERY_PARAMETERS.changesSinceSample,
      responses: { 200: { description: 'Sample', schema: CHANGES_SINCE_SAMPLE_SCHEMA }, 304: notModified, 400: badRequest },
    }),
    handle: (c) => changesSinceSample(c, deps),
    mcpTool: {
      name: 'changes-since-sample',
      title: 'Changes-since sample',
      description: 'Up to 3 compact deltas the paid changes-since call would return for a cursor, with its schema, price and how to pay.',
      inputSchema: queryArgsSchema(QUERY_PARAMETERS.changesSinceSample),
      request: (args) => ({ query: toQuery(args) }),
    },
  };
}
