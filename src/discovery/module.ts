/**
 * Free discovery documents (/openapi.json, /.well-known/x402,
 * /.well-known/agent-card.json, /v1/services, /llms.txt, /favicon.svg) as
 * free-route descriptors. The documents are built once per base URL (PUBLIC_BASE_URL, or the request's
 * origin) and cached.
 */
import type { Context } from 'hono';
import type { FreeRoute, ModuleContext, OpenApiPaths, ServiceModule } from '../module.js';
import { apiReferenceRoutes } from './api-reference.js';
import { agentCard, llmsTxt, mppInfo, servicesListing, wellKnownX402 } from './documents.js';
import { FRONT_DOOR_CSP, FRONT_DOOR_OPERATION, frontDoorIndex, frontDoorPage, wantsHtml } from './front-door.js';
import { buildOpenApi } from './openapi.js';
import { signingInfo } from '../commitments/published.js';
import { ownOrigin } from '../http/own-origin.js';
import { pageHeaders } from '../http/security-headers.js';
import { ICON_CONTENT_TYPE, ICON_PATH, ICON_SVG } from './identity.js';

interface Docs {
  openapi: Record<string, unknown>;
  frontDoor: { page: string; index: unknown };
  manifest: unknown;
  card: unknown;
  services: unknown;
  llms: string;
}

const json = (description: string, schema: Record<string, unknown> = { type: 'object' }) => ({
  description,
  content: { 'application/json': { schema } },
});

function discoveryPaths(): OpenApiPaths {
  const get = (operationId: string, summary: string, response: Record<string, unknown>, tags = ['discovery']) => ({
    get: { operationId, summary, tags, security: [], responses: { '200': response } },
  });
  return {
    '/openapi.json': get('getOpenApi', 'This OpenAPI 3.1.0 description', json('The description', { type: 'object', required: ['openapi', 'info', 'paths'] })),
    '/.well-known/x402': get(
      'getX402Manifest',
      'x402 payment manifest: every paid resource as an absolute URL',
      json('The manifest', {
        type: 'object',
        required: ['version', 'resources'],
        properties: {
          version: { type: 'integer', const: 1 },
          resources: { type: 'array', items: { type: 'string', format: 'uri' } },
          items: {
            type: 'array',
            description:
              "Each paid resource as the Bazaar catalogue lists one: its URL, description and media type and Bazaar's service metadata (serviceName, tags, iconUrl) as its 402's resource states them, and extensions.bazaar with both shapes at their top level and an input example. The full schemas, the price and the chains are in this OpenAPI document and in its 402.",
            items: {
              type: 'object',
              required: ['resource', 'type', 'x402Version', 'extensions'],
              properties: {
                resource: { type: 'string', format: 'uri' },
                type: { type: 'string', const: 'http' },
                x402Version: { type: 'integer', const: 2 },
                description: { type: 'string' },
                mimeType: { type: 'string' },
                serviceName: { type: 'string', maxLength: 32 },
                tags: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 32 } },
                iconUrl: { type: 'string', format: 'uri' },
                extensions: { type: 'object', properties: { bazaar: { type: 'object', required: ['info', 'schema'] } } },
              },
            },
          },
          openapi: { type: 'string', format: 'uri', description: 'Where discovery lives now: the OpenAPI document (x-payment-info per paid operation). This manifest is kept for its existing readers.' },
          instructions: { type: 'string' },
        },
      }),
    ),
    '/.well-known/agent-card.json': get('getAgentCard', 'A2A agent card: one skill per capability and free resource', json('The agent card', { type: 'object', required: ['name', 'description', 'skills'] })),
    '/v1/services': get(
      'listServices',
      'Services listing: id, method, route, price, description, schema links, MCP tool name',
      json('The listing', { type: 'object', required: ['services', 'payment'], properties: { services: { type: 'array', items: { type: 'object' } }, payment: { type: 'object' } } }),
    ),
    '/llms.txt': get('getLlmsTxt', 'A short plain-text guide for language-model agents', { description: 'The guide', content: { 'text/plain': { schema: { type: 'string' } } } }),
    [ICON_PATH]: get('getFavicon', 'Site icon (the iconUrl of the Bazaar service metadata on every paid 402)', { description: 'SVG icon', content: { [ICON_CONTENT_TYPE]: { schema: { type: 'string' } } } }),
  };
}

type Responder = (c: Context, docs: () => Docs) => Response | Promise<Response>;

/** How each discovery path answers; its OpenAPI operation comes from `discoveryPaths`. */
function responders(): Record<string, Responder> {
  const cacheHeaders = { 'Cache-Control': 'public, max-age=300' };
  return {
    '/openapi.json': (c, d) => c.json(d().openapi, 200, cacheHeaders),
    '/.well-known/x402': (c, d) => c.json(d().manifest, 200, cacheHeaders),
    '/.well-known/agent-card.json': (c, d) => c.json(d().card, 200, cacheHeaders),
    '/v1/services': (c, d) => c.json(d().services, 200, cacheHeaders),
    '/llms.txt': (c, d) => c.text(d().llms, 200, { ...cacheHeaders, 'Content-Type': 'text/plain; charset=utf-8' }),
    [ICON_PATH]: (c) => c.body(ICON_SVG, 200, { 'Content-Type': ICON_CONTENT_TYPE, 'Cache-Control': 'public, max-age=86400' }),
  };
}

function discoveryRoutes(ctx: ModuleContext): FreeRoute[] {
  const cache = new Map<string, Docs>();
  // Built once per base URL (PUBLIC_BASE_URL, or the request's origin).
  const docsFor = (c: Context) => (): Docs => {
    const base = ownOrigin(c);
    let d = cache.get(base);
    if (!d) {
      const openapi = buildOpenApi(ctx, base);
      d = { openapi, frontDoor: { page: frontDoorPage(ctx, openapi, base), index: frontDoorIndex(ctx, openapi, base) }, manifest: { ...wellKnownX402(ctx, openapi, base), signing: signingInfo(ctx.signer?.address), mpp: mppInfo(ctx) }, card: agentCard(ctx, openapi, base), services: servicesListing(ctx, openapi, base), llms: llmsTxt(ctx, openapi, base) };
      // Host headers are caller-controlled: bound the cache.
      if (cache.size >= 32) cache.clear();
      cache.set(base, d);
    }
    return d;
  };
  const answer = responders();
  // One resource, two representations: Vary tells caches the Accept header picks one.
  const frontDoor: FreeRoute = {
    method: 'GET',
    path: '/',
    operation: FRONT_DOOR_OPERATION,
    handle: (c) => {
      const d = docsFor(c)().frontDoor;
      const headers = { 'Cache-Control': 'public, max-age=300', Vary: 'Accept' };
      return wantsHtml(c) ? c.html(d.page, 200, { ...headers, ...pageHeaders(FRONT_DOOR_CSP) }) : c.json(d.index, 200, headers);
    },
  };
  return [frontDoor, ...apiReferenceRoutes(), ...discoveryRoutesOf(docsFor, answer)];
}

function discoveryRoutesOf(docsFor: (c: Context) => () => Docs, answer: Record<string, Responder>): FreeRoute[] {
  return Object.entries(discoveryPaths()).map(([path, item]) => ({
    method: 'GET' as const,
    path,
    operation: item.get as Record<string, unknown>,
    handle: (c: Context) => answer[path]!(c, docsFor(c)),
    ...(path === '/v1/services'
      ? {
          mcpTool: {
            name: 'list-services',
            title: 'List services',
            description: 'Every resource of this service with method, route, price, schema links and MCP tool name.',
            inputSchema: { type: 'object', additionalProperties: false, properties: {} },
            request: () => ({}),
          },
        }
      : {}),
  }));
}

export const discoveryModule: ServiceModule = {
  name: 'discovery',
  surfaces: [
    { id: 'openapi', kind: 'openapi', method: 'GET', path: '/openapi.json' },
    { id: 'well-known-x402', kind: 'well_known_manifest', method: 'GET', path: '/.well-known/x402' },
    { id: 'agent-card', kind: 'agent_card', method: 'GET', path: '/.well-known/agent-card.json' },
    { id: 'services', kind: 'services', method: 'GET', path: '/v1/services' },
    { id: 'llms-txt', kind: 'llms_txt', method: 'GET', path: '/llms.txt' },
  ],
  freeRoutes: discoveryRoutes,
};
