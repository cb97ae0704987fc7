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
import { CHANGES_SINCE_PATH, CHANGES_SINCE_PRICE_ATOMIC, runChangesSince, type CompactDelta } from '../changes.js';
import { badQuery, errorResponse, jsonWithEtag, parseQuery } from '../http.js';
import { buildNewswire, cursorMicros, type NewswireDeps } from '../newswire.js';
import { CHANGES_SINCE_INPUT_SCHEMA, CHANGES_SINCE_OUTPUT_SCHEMA, CHANGES_SINCE_SAMPLE_SCHEMA, NEWSWIRE_FEED_SCHEMA } from '../schemas.js';
import { formatMicros } from '../time.js';
import { NEWSWIRE_SCHEMA_VERSION, USAGE_RIGHTS } from '../types.js';
import { badRequest, notModified, operation, queryArgsSchema, toQuery } from './operation.js';
import { QUERY_PARAMETERS } from './query-parameters.js';

export const NEWSWIRE_PATH = '/v1/newswire';

const HOW_TO_PAY =
  'POST the JSON body to the path. Without payment the answer is 402 with a PAYMENT-REQUIRED header (x402 v2, scheme exact): base64-decode it, sign accepts[0] as an EIP-3009 transferWithAuthorization, and repeat the same request with the PAYMENT-SIGNATURE header. Any x402 v2 client (e.g. @x402/fetch) does this for you. Keep nextCursor from each answer and send it as cursor next time.';

export interface FeedRouteDeps extends NewswireDeps {
  catalog: readonly Capability[];
  payment: PaymentConfig;
}

export function newswireRoute(deps: NewswireDeps): FreeRoute {
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
      const q = parseQuery(QUERY_PARAMETERS.newswire, new URL(c.req.url));
      if (!q.ok) return badQuery(c, q);
      return jsonWithEtag(c, await buildNewswire(deps, q.values));
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
async function changesSinceSample(c: Context, deps: FeedRouteDeps): Promise<Response> {
  const q = parseQuery(QUERY_PARAMETERS.changesSinceSample, new URL(c.req.url));
  if (!q.ok) return badQuery(c, q);
  const cursor = (q.values.cursor ?? q.values.since) as string | undefined;
  if (q.values.cursor !== undefined && q.values.since !== undefined && cursorMicros(q.values.cursor as string) !== cursorMicros(q.values.since as string)) {
    return errorResponse(c, 'invalid_parameter', 'cursor and since are aliases; send one.', [{ path: 'query:since', rule: 'alias-conflict', message: 'differs from cursor' }]);
  }
  const paid = await runChangesSince(deps, { cursor: cursor === undefined ? undefined : formatMicros(cursorMicros(cursor)), include_high_resolution: false, max_items: 3 });
  const cap = deps.catalog.find((k) => k.id === CHANGES_SINCE_ID);
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
      network: deps.payment.network,
      asset: deps.payment.asset.address,
      payTo: deps.payment.payTo,
      exampleRequest: { cursor: paid.cursor, include_high_resolution: false, max_items: 100 },
      requestSchema: cap?.inputSchema ?? CHANGES_SINCE_INPUT_SCHEMA,
      responseSchema: cap?.outputSchema ?? CHANGES_SINCE_OUTPUT_SCHEMA,
    },
    howToPay: HOW_TO_PAY,
    usageRights: USAGE_RIGHTS,
  });
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
