/** The presence catalog's free route, `GET /v1/distribution`. */
import type { FreeRoute } from '../../module.js';
import { buildDistribution, type SelfSurface } from '../distribution.js';
import { badQuery, parseQuery } from '../http.js';
import type { ContentStore } from '../store/contract.js';
import { DISTRIBUTION_SCHEMA } from './distribution-schema.js';
import { badRequest, noArgs, operation } from './operation.js';
import { ownOrigin } from '../../http/own-origin.js';

const DISTRIBUTION_PATH = '/v1/distribution';

export interface DistributionRouteDeps {
  store: ContentStore;
  surfaces: readonly SelfSurface[];
  now: () => number;
}

export function distributionRoute(deps: DistributionRouteDeps): FreeRoute {
  return {
    method: 'GET',
    path: DISTRIBUTION_PATH,
    operation: operation({
      operationId: 'getDistribution',
      summary: 'Presence catalog: where this service and the ecosystem’s directories can be found',
      parameters: [],
      responses: { 200: { description: 'Catalog', schema: DISTRIBUTION_SCHEMA }, 400: badRequest },
    }),
    async handle(c, app) {
      const q = parseQuery([], new URL(c.req.url));
      if (!q.ok) return badQuery(c, q);
      const baseUrl = ownOrigin(c);
      // A surface is live only when this app serves its route now.
      const catalog = await buildDistribution(deps.store, { surfaces: deps.surfaces, routes: app.routes, baseUrl, nowMs: deps.now() });
      return c.json(catalog, 200, { 'Cache-Control': 'no-cache' });
    },
    mcpTool: {
      name: 'distribution',
      title: 'Presence catalog',
      description: 'Where this service can be found: its discovery surfaces, imported external listings, and the ecosystem’s directories.',
      inputSchema: noArgs(),
      request: () => ({}),
    },
  };
}
