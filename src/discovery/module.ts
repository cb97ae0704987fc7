/**
 * Free discovery documents: /openapi.json, /.well-known/x402,
 * /.well-known/agent-card.json, /v1/services, /llms.txt. They are built once
 * per base URL (PUBLIC_BASE_URL, or the request's origin) and cached.
 */
import type { Context } from 'hono';
import type { ModuleContext, OpenApiPaths, ServiceModule } from '../module.js';
import { agentCard, llmsTxt, servicesListing, wellKnownX402 } from './documents.js';
import { buildOpenApi, errorResponse } from './openapi.js';

/** A small coin with a 402 on it: registries look for an icon at the origin. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#2775ca"/>' +
  '<text x="32" y="41" font-family="sans-serif" font-size="22" font-weight="700" text-anchor="middle" fill="#fff">402</text></svg>';

interface Docs {
  openapi: Record<string, unknown>;
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
        properties: { version: { type: 'integer', const: 1 }, resources: { type: 'array', items: { type: 'string', format: 'uri' } }, instructions: { type: 'string' } },
      }),
    ),
    '/.well-known/agent-card.json': get('getAgentCard', 'A2A agent card: one skill per capability and free resource', json('The agent card', { type: 'object', required: ['name', 'description', 'skills'] })),
    '/v1/services': get(
      'listServices',
      'Services listing: id, method, route, price, description, schema links, MCP tool name',
      json('The listing', { type: 'object', required: ['services', 'payment'], properties: { services: { type: 'array', items: { type: 'object' } }, payment: { type: 'object' } } }),
    ),
    '/llms.txt': get('getLlmsTxt', 'A short plain-text guide for language-model agents', { description: 'The guide', content: { 'text/plain': { schema: { type: 'string' } } } }),
    '/favicon.svg': get('getFavicon', 'Site icon', { description: 'SVG icon', content: { 'image/svg+xml': { schema: { type: 'string' } } } }),
    '/healthz': get('getHealth', 'Liveness: 200 when the process is up', json('Up', { type: 'object', properties: { status: { type: 'string', const: 'ok' } } }), ['operations']),
    '/readyz': {
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness: 200 only when the ledger and the facilitator answer',
        tags: ['operations'],
        security: [],
        responses: {
          '200': json('Ready', { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object' } } }),
          '503': json('Not ready', { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object' } } }),
        },
      },
    },
  };
}

export const discoveryModule: ServiceModule = {
  name: 'discovery',
  openapi: () => discoveryPaths(),
  routes(app, ctx: ModuleContext) {
    const cache = new Map<string, Docs>();
    const docs = (c: Context): { base: string; d: Docs } => {
      const base = ctx.publicBaseUrl ?? new URL(c.req.url).origin;
      let d = cache.get(base);
      if (!d) {
        const openapi = buildOpenApi(ctx, base);
        d = { openapi, manifest: wellKnownX402(openapi, base), card: agentCard(ctx, openapi, base), services: servicesListing(ctx, openapi, base), llms: llmsTxt(ctx, openapi, base) };
        // Host headers are caller-controlled: bound the cache.
        if (cache.size >= 32) cache.clear();
        cache.set(base, d);
      }
      return { base, d };
    };
    const cacheHeaders = { 'Cache-Control': 'public, max-age=300' };
    app.get('/openapi.json', (c) => c.json(docs(c).d.openapi, 200, cacheHeaders));
    app.get('/.well-known/x402', (c) => c.json(docs(c).d.manifest, 200, cacheHeaders));
    app.get('/.well-known/agent-card.json', (c) => c.json(docs(c).d.card, 200, cacheHeaders));
    app.get('/v1/services', (c) => c.json(docs(c).d.services, 200, cacheHeaders));
    app.get('/favicon.svg', (c) => c.body(FAVICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' }));
    app.get('/llms.txt', (c) => c.text(docs(c).d.llms, 200, { ...cacheHeaders, 'Content-Type': 'text/plain; charset=utf-8' }));
  },
};

export { errorResponse };
