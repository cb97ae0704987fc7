/**
 * The machine-economy intelligence module: the paid changes-since feed, the
 * free newswire, graph and presence catalog, the newswire pages and the
 * content admin API. Content lives in the ledger's database and enters only
 * by import (CLI, admin API, the starter corpus on first start); no route
 * fetches a URL. Free routes are descriptors (api/*, pages.ts): the service
 * registers them, OpenAPI describes them and MCP offers their tools.
 */
import type { Hono } from 'hono';
import type { Capability } from '../catalog/capability.js';
import type { FreeRoute, ModuleContext, ModuleInit, ServiceModule } from '../module.js';
import { ADMIN_PREFIX, adminGuard } from './admin.js';
import { adminRoutes } from './api/admin-routes.js';
import { distributionRoute } from './api/distribution-route.js';
import { changesSinceSampleRoute, newswireRoute } from './api/feed-routes.js';
import { graphRoutes } from './api/graph-routes.js';
import { changesSinceCapability } from './capability.js';
import { SURFACE_KINDS, type SelfSurface } from './distribution.js';
import { pageRoutes } from './pages.js';
import { startServiceCollectors, type CollectorSchedule } from './collectors/runner.js';
import { createIntelRuntime, type IntelRuntime } from './runtime.js';
import { loadStarterCorpus } from './starter.js';
import type { SqlDriver } from '../store/sql-driver.js';

export type { IntelRuntime } from './runtime.js';

export interface IntelModuleOptions {
  /** Load the starter corpus into an empty store on start (default true). */
  loadStarter?: boolean;
}

/** The product's surfaces as the presence catalog types them (a kind it does not know is left out). */
function ownSurfaces(presence: ModuleContext['presence']): SelfSurface[] {
  return presence.filter((s): s is SelfSurface => (SURFACE_KINDS as readonly string[]).includes(s.kind));
}

/** Every free route of the module, in the order OpenAPI lists them. */
function intelFreeRoutes(ctx: ModuleContext, rt: IntelRuntime): FreeRoute[] {
  const feed = { store: rt.store, movements: rt.movements, revenue: rt.revenue, operatorWallets: ctx.ownWallets, feedCache: rt.feedCache };
  const adminToken = ctx.config.adminToken;
  return [
    newswireRoute(feed),
    changesSinceSampleRoute({ ...feed, catalog: ctx.catalog, payment: ctx.payment }),
    ...graphRoutes(rt.store, rt.feedCache),
    distributionRoute({ store: rt.store, surfaces: ownSurfaces(ctx.presence), now: ctx.now }),
    ...(adminToken ? adminRoutes({ store: rt.store, adminToken, now: ctx.now, movements: rt.movements }) : []),
    ...pageRoutes(feed),
  ];
}

/** The intelligence module of one service. */
export interface IntelModule extends ServiceModule {
  /** The runtime built over the service's database when it started (for tests and tools in the same process). */
  runtime(): IntelRuntime | undefined;
}

/** One per service (src/modules.ts makes one for each): its runtime and collector schedules are that service's. */
export function createIntelModule(opts: IntelModuleOptions = {}): IntelModule {
  let own: { db: SqlDriver; rt: IntelRuntime } | undefined;
  const runtimeOver = (init: ModuleInit): IntelRuntime => {
    if (own && own.db !== init.db) throw new Error('intelligence: this module already serves another database; give each service its own createIntelModule()');
    return (own ??= { db: init.db, rt: createIntelRuntime(init) }).rt;
  };
  // Collector schedules this module started (INTEL_COLLECT_INTERVAL), stopped with the service.
  const schedules = new Set<CollectorSchedule>();
  return {
    runtime: () => own?.rt,
    name: 'intelligence',
    surfaces: [
      { id: 'newswire', kind: 'newswire', method: 'GET', path: '/v1/newswire' },
      { id: 'newswire-pages', kind: 'newswire_pages', method: 'GET', path: '/newswire' },
      { id: 'graph', kind: 'graph', method: 'GET', path: '/v1/graph' },
      { id: 'changes-since', kind: 'changes_since', method: 'POST', path: '/v1/intelligence/changes-since' },
      { id: 'distribution', kind: 'distribution', method: 'GET', path: '/v1/distribution' },
    ],
    async capabilities(init: ModuleInit): Promise<Capability[]> {
      const rt = runtimeOver(init);
      if (opts.loadStarter !== false) {
        const outcome = await loadStarterCorpus(rt.store, init.now);
        if (outcome.loaded) init.log.info({ created: outcome.report.created }, 'intelligence: starter corpus loaded');
        else init.log.info({ reason: outcome.reason }, 'intelligence: starter corpus not loaded');
      }
      const schedule = startServiceCollectors(rt.store, {
        intel: init.config.intel,
        rail: { network: init.payment.network, asset: init.payment.asset.address },
        operatorWallets: init.ownWallets,
        now: init.now,
        log: init.log,
      });
      if (schedule) schedules.add(schedule);
      return [changesSinceCapability(rt)];
    },
    /** Stops the collector schedules (waiting for a run in flight) before the database closes. */
    async stop() {
      const all = [...schedules];
      schedules.clear();
      await Promise.all(all.map((s) => s.stop()));
    },
    freeRoutes(ctx: ModuleContext): FreeRoute[] {
      return intelFreeRoutes(ctx, runtimeOver(ctx));
    },
    /** Before any route: every admin path needs the token, so a caller without it learns nothing (401, never 404 or 405). */
    guards(app: Hono, ctx: ModuleContext) {
      if (ctx.config.adminToken) app.use(`${ADMIN_PREFIX}/*`, adminGuard(ctx.config.adminToken));
    },
  };
}
