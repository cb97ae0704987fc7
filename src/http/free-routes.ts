/**
 * Registers a service module's routes on the app: its free-route descriptors
 * (`{param}` paths become Hono's `:param`), then any routes it registers by
 * hand. OpenAPI and the MCP tools read the same descriptors.
 */
import type { Hono } from 'hono';
import type { FreeRoute, ModuleContext, ServiceModule } from '../module.js';

/** `/v1/graph/entities/{id}` → `/v1/graph/entities/:id`. */
export function honoPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

export function registerFreeRoutes(app: Hono, routes: readonly FreeRoute[]): void {
  for (const r of routes) app.on(r.method, honoPath(r.path), (c) => r.handle(c));
}

export function registerModule(app: Hono, m: ServiceModule, ctx: ModuleContext): void {
  registerFreeRoutes(app, m.freeRoutes?.(ctx) ?? []);
  m.routes?.(app, ctx);
}
