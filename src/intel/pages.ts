/**
 * Pages for people: `GET /newswire` (the feed) and `GET /newswire/{slug}`
 * (one item) as server-rendered HTML, as free-route descriptors. They are
 * views of the JSON API, not the canonical database: the feed page runs the
 * same query as `GET /v1/newswire` (same filters, order and cursor rule), and
 * every page says so and links the JSON it shows.
 *
 * Safety: every interpolated value goes through `html``` (pages/html.ts),
 * which escapes it unless it is already markup built the same way; no script
 * is ever sent and the Content-Security-Policy forbids any; nothing is loaded
 * from another origin (styles are inline, the only image is this origin's
 * icon), so the pages work offline. Source links are plain `rel="noopener"`
 * anchors to the URLs that were validated at import; a non-http(s) value is
 * shown as text.
 */
import type { Hono } from 'hono';
import type { FreeRoute } from '../module.js';
import { openapiParameter } from './api/operation.js';
import type { NewswireDeps } from './newswire.js';
import { feedPage } from './pages/feed-page.js';
import { graphPage } from './pages/graph-page.js';
import { itemPage } from './pages/item-page.js';
import { PageLookups, type PageDeps } from './pages/lookups.js';
import { PAGE_PARAMETERS } from './pages/parameters.js';
import { FEED_PAGE_PATH, GRAPH_PAGE_PATH, ITEM_PAGE_PATH } from './pages/wording.js';

export { PAGE_CSP } from './pages/frame.js';
export { escapeHtml, html } from './pages/html.js';

const htmlResponse = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const notModified = { description: 'Not modified (If-None-Match matched the ETag)' };

export function pageRoutes(deps: NewswireDeps): FreeRoute[] {
  const lookups = new PageLookups(deps.store);
  // The discovery module serves the icon; link it only when this app has it.
  let iconKnown: boolean | undefined;
  const pages = (app: Hono): PageDeps => ({ ...deps, lookups, icon: () => (iconKnown ??= app.routes.some((r) => r.method === 'GET' && r.path === '/favicon.svg')) });
  return [
    {
      method: 'GET',
      path: FEED_PAGE_PATH,
      operation: {
        operationId: 'getNewswirePage',
        summary: 'Newswire as a readable HTML page (a view of GET /v1/newswire)',
        description:
          'For people: the feed newest event first, with sources, evidence tiers, corrections and (on request) retracted items marked. A view of the JSON API, not the canonical database; programs should use GET /v1/newswire. Strong ETag, If-None-Match → 304.',
        tags: ['pages'],
        security: [],
        parameters: PAGE_PARAMETERS.feed.map(openapiParameter),
        responses: { '200': htmlResponse('The page'), '304': notModified, '400': htmlResponse('A page naming the bad query parameter') },
      },
      handle: (c, app) => feedPage(c, pages(app)),
    },
    {
      method: 'GET',
      path: GRAPH_PAGE_PATH,
      operation: {
        operationId: 'getGraphPage',
        summary: 'The entity graph drawn: entities and their relationships as a picture (a view of GET /v1/graph)',
        description:
          'For people: every entity on a ring grouped by type, each relationship an arrow, drawn as inline SVG on the server (no script), and the same facts as a list. Each entity links to its newswire items. Filter by entity type with type=PROTOCOL,DIRECTORY. Strong ETag, If-None-Match → 304.',
        tags: ['pages'],
        security: [],
        parameters: PAGE_PARAMETERS.graph.map(openapiParameter),
        responses: { '200': htmlResponse('The page'), '304': notModified, '400': htmlResponse('A page naming the bad query parameter') },
      },
      handle: (c, app) => graphPage(c, pages(app)),
    },
    {
      method: 'GET',
      path: ITEM_PAGE_PATH,
      operation: {
        operationId: 'getNewswireItemPage',
        summary: 'One newswire item as a readable HTML page',
        description:
          'For people: headline, summary, why it matters, dates, entities, protocols, evidence tier, confidence, corroboration, every source, corrections in both directions and, for a retracted item, a RETRACTED banner with the reason. Query parameters are ignored.',
        tags: ['pages'],
        security: [],
        parameters: PAGE_PARAMETERS.item.map(openapiParameter),
        responses: { '200': htmlResponse('The page'), '304': notModified, '404': htmlResponse('No published or retracted item has this slug') },
      },
      handle: (c, app) => itemPage(c, pages(app)),
    },
  ];
}
