/**
 * Registers a service module's routes on the app: its free-route descriptors
 * (`{param}` paths become Hono's `:param`), then any routes it registers by
 * hand. OpenAPI and the MCP tools read the same descriptors.
 */
import type { Context, Hono } from 'hono';
import type { Capability } from '../catalog/capability.js';
import { errorBody } from '../errors.js';
import type { FreeRoute, FreeTool, ModuleContext, ServiceModule } from '../module.js';

/** `/v1/graph/entities/{id}` → `/v1/graph/entities/:id`. */
function honoPath(openApiPath: string): string {
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

/** A module of one service with the free routes it built for it. */
export interface MountedModule {
  module: ServiceModule;
  routes: readonly FreeRoute[];
}

/**
 * The context the modules' routes are built over, and each module's free
 * routes, built here once per service: the app, OpenAPI and the MCP and A2A
 * tools all read these, so a module keeps no state keyed by the service.
 */
export function mountModules(base: Omit<ModuleContext, 'allFreeRoutes'>, modules: readonly ServiceModule[]): { ctx: ModuleContext; mounted: MountedModule[] } {
  let all: readonly FreeRoute[] | undefined;
  const ctx: ModuleContext = {
    ...base,
    allFreeRoutes() {
      if (!all) throw new Error('the free routes were read while the modules were still building them');
      return all;
    },
  };
  const mounted = modules.map((module) => ({ module, routes: module.freeRoutes?.(ctx) ?? [] }));
  all = mounted.flatMap((m) => m.routes);
  return { ctx, mounted };
}

/** The module's guards and free routes on `app`; returns the routes (the app reads their body limits). */
export function registerModule(app: Hono, { module, routes }: MountedModule, ctx: ModuleContext): readonly FreeRoute[] {
  module.guards?.(app, ctx);
  registerFreeRoutes(app, routes, ctx.catalog);
  return routes;
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
  return ctx.allFreeRoutes().flatMap(toolOfRoute);
}

/** Who a free tool is called for when another surface (MCP, A2A) runs it in process. */
export interface ToolCaller {
  /** The caller's origin (or PUBLIC_BASE_URL): the answer's absolute URLs are built from it. */
  base: string;
  /** The caller's connection (Hono's env) and X-Forwarded-For, so per-client limits count this caller, not one shared "unknown" client. */
  env: unknown;
  forwardedFor: string | undefined;
}

export function toolCallerOf(c: Context, base: string): ToolCaller {
  return { base, env: c.env, forwardedFor: c.req.header('x-forwarded-for') };
}

/** One free tool called in process through the app, exactly as its HTTP route answers it. */
export async function callFreeTool(app: Hono, tool: FreeTool, args: Record<string, unknown>, caller: ToolCaller): Promise<{ status: number; text: string }> {
  const r = tool.request(args);
  const qs = r.query && Object.keys(r.query).length ? '?' + new URLSearchParams(r.query).toString() : '';
  const headers: Record<string, string> = {
    ...(caller.forwardedFor === undefined ? {} : { 'x-forwarded-for': caller.forwardedFor }),
    ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const res = await app.request(caller.base + r.path + qs, { method: r.method, headers, body: r.body === undefined ? undefined : JSON.stringify(r.body) }, caller.env as never);
  return { status: res.status, text: await res.text() };
}
