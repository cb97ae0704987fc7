/**
 * Registers a service module's routes on the app: its free-route descriptors
 * (`{param}` paths become Hono's `:param`), then any routes it registers by
 * hand. OpenAPI and the MCP tools read the same descriptors.
 */
import type { Hono } from 'hono';
import type { Capability } from '../catalog/capability.js';
import { errorBody } from '../errors.js';
import type { FreeRoute, FreeTool, ModuleContext, ServiceModule } from '../module.js';

/** `/v1/graph/entities/{id}` → `/v1/graph/entities/:id`. */
export function honoPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/**
 * Each route at its path, then one 405 per path naming the methods it has
 * (a paid entry at the same path counts: changes-since is a free GET and a paid POST).
 */
export function registerFreeRoutes(app: Hono, routes: readonly FreeRoute[], catalog: readonly Capability[] = []): void {
  for (const r of routes) app.on(r.method, honoPath(r.path), (c) => r.handle(c, app));
  for (const path of new Set(routes.map((r) => r.path))) {
    const allow = [...new Set([...routes.filter((r) => r.path === path).map((r) => r.method), ...catalog.filter((c) => c.path === path).map((c) => c.method)])];
    app.all(honoPath(path), (c) => c.json(errorBody('method_not_allowed', `Use ${allow.join(' or ')} ${path}.`), 405, { Allow: allow.join(', ') }));
  }
}

export function registerModule(app: Hono, m: ServiceModule, ctx: ModuleContext): void {
  m.guards?.(app, ctx);
  registerFreeRoutes(app, m.freeRoutes?.(ctx) ?? [], ctx.catalog);
}

/** The MCP tool a free route offers, in the shape the MCP endpoint serves. */
function toolOfRoute(r: FreeRoute): FreeTool[] {
  const t = r.mcpTool;
  if (!t) return [];
  return [
    {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      request: (args) => {
        const q = t.request(args);
        return { method: r.method, path: q.path ?? r.path, query: q.query, body: q.body };
      },
    },
  ];
}

/** Every free MCP tool of the service, from the modules' free routes. */
export function freeToolsOf(ctx: ModuleContext): FreeTool[] {
  return ctx.modules.flatMap((m) => (m.freeRoutes?.(ctx) ?? []).flatMap(toolOfRoute));
}
