/**
 * A service module: a slice of the product (intelligence, router, discovery,
 * MCP) that may add capabilities to the catalog and routes to the app.
 * `service.ts` runs every module in two phases: capabilities first (so the
 * catalog is complete), then routes (which may read the whole catalog).
 */
import type { Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { Capability } from './catalog/capability.js';
import type { CommitmentSigner } from './commitments/signer.js';
import type { Config, PaymentConfig } from './config.js';
import type { PaidFlow } from './payments/paid-flow.js';
import type { StepExecutor } from './isolation/pool.js';
import type { Ledger } from './store/ledger.js';
import type { SqlDriver } from './store/sql-driver.js';

export interface ModuleInit {
  config: Config;
  /** The database the ledger lives in; all migrations in src/store/migrations are applied. */
  db: SqlDriver;
  ledger: Ledger;
  log: Logger;
  now: () => number;
  /** Network, payee, asset and timings of the payment rail (the devnet's when it runs). */
  payment: PaymentConfig;
  /** Payers that never count as independent buyers (src/payments/own-wallets.ts), lower-case. */
  ownWallets: readonly string[];
  /**
   * Every surface the product's modules declare, whether or not this instance
   * runs them: the presence catalog reports each as live or not_deployed.
   */
  presence: readonly PresenceSurface[];
  /** The operator's signer for receipts and offers (src/commitments); undefined when no key is configured. */
  signer?: CommitmentSigner;
  /** Where an entry that composes others runs its heavy steps, and the router's quote hashes a large request: the service's worker pool under its budget (none: inline). */
  steps?: StepExecutor;
}

export interface ModuleContext extends ModuleInit {
  /** The complete catalog: base capabilities plus every module's. */
  catalog: readonly Capability[];
  /** The one paid flow every transport hands its paid calls to (whether MPP is offered; its executor reads large messages). */
  flow: PaidFlow;
  /**
   * Every free route of this service's modules, in module order (discovery
   * documents describe them all, MCP and A2A offer their tools). Each module's
   * are built once, when the service is composed (src/http/free-routes.ts
   * `mountModules`); read them when a request comes, not while building routes.
   */
  allFreeRoutes(): readonly FreeRoute[];
}

/** An OpenAPI 3.1 path item object, keyed by path (`{param}` style). */
export type OpenApiPaths = Record<string, Record<string, unknown>>;

/** A free MCP tool backed by one of the module's free HTTP routes. */
export interface FreeTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Build the in-process HTTP request the tool stands for. */
  request(args: Record<string, unknown>): { method: 'GET' | 'POST'; path: string; query?: Record<string, string>; body?: unknown };
}

/**
 * A free route, described once: the app registers `handle` at `method path`,
 * OpenAPI lists `operation` under the path, and when `mcpTool` is set the MCP
 * endpoint offers it as a free tool that calls the route in-process with the
 * caller's real origin.
 */
export interface FreeRoute {
  method: 'GET' | 'POST';
  /** OpenAPI style: `/v1/graph/entities/{id}` (registered as `:id`). */
  path: string;
  /** The OpenAPI operation object: summary, parameters (the query schema), requestBody, responses (the response schema). */
  operation: Record<string, unknown>;
  /** `app` is the whole app, for a route that calls others in process (the MCP endpoint's free tools). */
  handle(c: Context, app: Hono): Response | Promise<Response>;
  /** Largest request body of this route, when smaller than the app's free-route limit: enforced as the body streams in, before the route reads it. */
  maxBodyBytes?: number;
  mcpTool?: {
    /** kebab-case, like every tool name. */
    name: string;
    title: string;
    description: string;
    /** The tool's arguments; portable JSON Schema (no aliases, no `type: [X, "null"]`). */
    inputSchema: Record<string, unknown>;
    /** Arguments → the request the tool stands for (path parameters already substituted). */
    request(args: Record<string, unknown>): { path?: string; query?: Record<string, string>; body?: unknown };
  };
}

/** One of the service's own discovery surfaces, listed by the presence catalog (/v1/distribution). */
export interface PresenceSurface {
  id: string;
  /** One of the presence catalog's surface kinds (see intel/distribution.ts). */
  kind: string;
  method: 'GET' | 'POST' | 'ANY';
  path: string;
}

export interface ServiceModule {
  name: string;
  /** The discovery surfaces this module serves, for the presence catalog. */
  surfaces?: readonly PresenceSurface[];
  /** Called once at start-up, before the catalog is frozen (e.g. load a starter corpus, build a capability over a store). */
  capabilities?(init: ModuleInit): Promise<Capability[]> | Capability[];
  /** Entries built over every other module's (the composite router plans over the whole catalog); called after `capabilities`. */
  lateCapabilities?(catalog: readonly Capability[], init: ModuleInit): Promise<Capability[]> | Capability[];
  /**
   * Free routes as descriptors: registered, described in OpenAPI and offered as
   * MCP tools from this one list. Called once per service, when it is composed:
   * what the routes share for that service (an endpoint, a planner, caches)
   * lives in the routes returned.
   */
  freeRoutes?(ctx: ModuleContext): FreeRoute[];
  /** Middleware that must run before the module's routes (e.g. the admin bearer check). */
  guards?(app: Hono, ctx: ModuleContext): void;
  /** Called on shutdown. */
  stop?(): Promise<void> | void;
}
