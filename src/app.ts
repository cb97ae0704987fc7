/**
 * Builds the HTTP app from the catalog and the surfaces. Free routes and
 * discovery documents are added here as they arrive; paid routes all go
 * through the same gate.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { etag } from 'hono/etag';
import type { Logger } from 'pino';
import type { Capability } from './catalog/capability.js';
import { errorBody } from './errors.js';
import type { CommitmentSigner } from './commitments/signer.js';
import type { PaymentGate } from './payments/gate.js';
import type { PaidFlow } from './payments/paid-flow.js';
import type { PaymentRail } from './payments/rail.js';
import { registerFreeRoutes } from './http/free-routes.js';
import type { FreeRoute } from './module.js';
import { operationsRoutes, type ReadinessProbes } from './http/operations-routes.js';
import { clientKey } from './http/forwarded.js';
import { OwnOrigins } from './http/own-origin.js';
import { rateLimit, type RateLimitStore } from './http/rate-limit.js';
import type { OperationsConfig } from './config.js';
import { bodyLimit, FREE_ROUTE_MAX_BODY_BYTES } from './http/body-limit.js';
import { gzipLargeGets } from './http/compression.js';
import { envelope, requestEnvelope } from './http/envelope.js';
import { registerPaidRoutes } from './http/paid-envelope.js';

export interface AppDeps {
  catalog: readonly Capability[];
  gate: PaymentGate;
  /** The one paid flow the paid routes hand their calls to (its receipts signed by `signer`). */
  flow: PaidFlow;
  rail: PaymentRail;
  /** Readiness' write probe. */
  ledger: ReadinessProbes['ledger'];
  publicBaseUrl: string | undefined;
  /**
   * The origin each request is named under (src/http/own-origin.ts): the
   * service adds its listening address once it listens. Default: from
   * publicBaseUrl and the operations settings, for in-process requests only.
   */
  origins?: OwnOrigins;
  /** Signs every paid delivery's receipt (src/commitments); none without a key. */
  signer?: CommitmentSigner;
  log?: Logger;
  /** Route registrations of service modules, run after the built-in routes; each returns the free routes it registered. */
  modules?: Array<(app: Hono) => readonly FreeRoute[]>;
  /** CORS, proxy trust, rate limit and metrics settings; defaults: CORS for any origin, no proxy trusted, no limit. */
  operations?: Partial<OperationsConfig>;
  /** Where the free-route rate limit counts (memory or Redis); required for a limit to apply. */
  rateLimitStore?: RateLimitStore;
  /** Set by the service when shutdown begins (readiness turns 503, connections close after their response). */
  lifecycle?: { readonly draining: boolean };
}

/** Discovery documents: fetched often, change only with a deploy, so they carry an ETag and answer 304. */
export const DISCOVERY_DOCUMENT_PATHS = ['/openapi.json', '/.well-known/*', '/llms.txt', '/v1/services'] as const;

/** Never rate limited: the probes and the scraper must see an overloaded instance as it is. */
const OPERATIONS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  const ops = deps.operations ?? {};
  const log = deps.log;

  const origins = deps.origins ?? new OwnOrigins({ publicBaseUrl: deps.publicBaseUrl, allowedHosts: [], trustProxy: ops.trustProxy ?? false });
  const env = requestEnvelope({ log, lifecycle: deps.lifecycle, operations: ops, origins });
  // Paid routes before the middleware of every other route: they run in their own envelope (src/http/paid-envelope.ts).
  registerPaidRoutes(app, deps.catalog, { flow: deps.flow, trustProxy: ops.trustProxy ?? false }, env);

  // Every other route, in one envelope as the paid routes have theirs (src/http/envelope.ts).
  app.use('*', envelope(env));

  const paidKeys = new Set(deps.catalog.map((c) => `${c.method} ${c.path}`));
  if (deps.rateLimitStore && ops.rateLimitPerMinute) {
    const trustProxy = ops.trustProxy ?? false;
    app.use(
      '*',
      rateLimit({
        perMinute: ops.rateLimitPerMinute,
        store: deps.rateLimitStore,
        clientOf: (c) => clientKey(c, trustProxy),
        exempt: (c) => c.req.method === 'OPTIONS' || OPERATIONS_PATHS.has(c.req.path) || paidKeys.has(`${c.req.method} ${c.req.path}`),
        log,
      }),
    );
  }

  // Discovery documents get their ETag from the bytes actually sent (outside the compression), so
  // the gzip and the plain representation each have their own strong validator.
  for (const path of DISCOVERY_DOCUMENT_PATHS) app.use(path, etag());
  // Large GET answers, gzipped for clients that accept it (src/http/compression.ts).
  app.use('*', gzipLargeGets());

  const paidPaths = new Set(deps.catalog.map((c) => c.path));
  const freeRouteLimit = bodyLimit(FREE_ROUTE_MAX_BODY_BYTES);
  // A route that declares a smaller limit (MCP, A2A, the router quote: their largest legitimate message,
  // derived from the catalog) gets it here, as the body streams in (issue 21). Filled below, as the modules
  // register their routes (the body-taking routes have literal paths).
  const ownLimits = new Map<string, MiddlewareHandler>();
  app.use('*', (c, next) => (paidPaths.has(c.req.path) ? next() : (ownLimits.get(`${c.req.method} ${c.req.path}`) ?? freeRouteLimit)(c, next)));

  registerFreeRoutes(app, operationsRoutes({ ledger: deps.ledger, rail: deps.rail, lifecycle: deps.lifecycle, metricsToken: ops.metricsToken }));

  for (const register of deps.modules ?? []) {
    for (const r of register(app)) {
      if (r.maxBodyBytes !== undefined && r.maxBodyBytes < FREE_ROUTE_MAX_BODY_BYTES) ownLimits.set(`${r.method} ${r.path}`, bodyLimit(r.maxBodyBytes));
    }
  }

  // After module routes, so a free GET on a paid POST path (changes-since) is not shadowed.
  for (const cap of deps.catalog) {
    app.all(cap.path, (c) => c.json(errorBody('method_not_allowed', `Use ${cap.method} ${cap.path}.`), 405, { Allow: cap.method }));
  }

  app.notFound((c) => {
    // `/docs/` and the like: people type the slash; every route here is named without one.
    const path = c.req.path;
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && /^\/[^/\\]/.test(path) && !path.includes('\\') && path.endsWith('/')) {
      // The path as sent (percent-encoded), not `path`, which Hono decoded: a decoded %09 or %0A is whitespace a
      // browser drops from a Location (`/\t/evil.example` is `//evil.example`, another origin), and a decoded
      // control or non-Latin-1 character cannot be written in a header at all.
      const url = new URL(c.req.url);
      const target = url.pathname.replace(/\/+$/, '');
      // Never to another origin: the target starts with one slash and a path character.
      if (/^\/[^/\\]/.test(target)) return c.body(null, 308, { Location: target + url.search });
    }
    return c.json(errorBody('not_found', `No resource at ${c.req.method} ${path}.`), 404);
  });
  app.onError(env.failClosed);
  return app;
}
