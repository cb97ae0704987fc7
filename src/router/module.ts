/**
 * The outcome router as a service module:
 *   GET  /v1/router                the contract (free)
 *   POST /v1/router/quote          a quote (free, synchronous, deterministic)
 *   POST /x402/v1/outcome-router   the composite resource — a catalog entry (composite.ts)
 *                                  added only when OUTCOME_ROUTER_COMPOSITE=1; otherwise 404
 * Everything is built from the catalog the service starts with.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { ServiceError } from '../errors.js';
import { isJsonMediaType, mediaTypeOf, readBodyBytes } from '../catalog/json-input.js';
import { messageBudget, type BodyBudget } from '../catalog/body-budget.js';
import type { FreeRoute, ModuleContext, OpenApiPaths, ServiceModule } from '../module.js';
import { buildContract } from './contract.js';
import {
  COMPOSITE_RESOURCE,
  CONTRACT_PATH,
  errorBodyOf,
  OutcomeRouter,
  QUOTE_PATH,
  type Outcome,
  type Plan,
  type RouterOptions,
} from './planner.js';
import { compositeEntry, ROUTER_REFUSALS } from './composite.js';
import { quoteBody, signQuote } from './quote.js';
import { quoteDigests, referencesOf } from './by-reference.js';
import { quoteResponseSchema, routerContractSchema } from './schemas.js';
import { ownOrigin } from '../http/own-origin.js';

export type { RoutingDescriptor } from './descriptors.js';

export type RouterModuleOptions = RouterOptions;



/**
 * What one quote request may cost (issue 21): a quote carries up to the
 * router's batch size (maxSteps) of native inputs, so its JSON values are
 * that many times what the largest entry's input schema admits, plus the
 * objective and buyer_metadata's room; its bytes the router's own limit (the
 * largest entry body plus the envelope). Counted by a scan before the planner
 * parses; the app's streaming limit enforces the same bytes (FreeRoute.maxBodyBytes).
 */
function quoteBodyBudget(router: OutcomeRouter): BodyBudget {
  return { bytes: router.bodyLimit, values: messageBudget(router.routes.map((r) => r.cap), router.maxSteps).values };
}

function reject(c: Context, e: ServiceError): Response {
  return c.json(errorBodyOf(e), e.status as 400, { 'Cache-Control': 'no-store' });
}

export function createRouterModule(opts: RouterModuleOptions = {}): ServiceModule {
  return {
    name: 'router',
    surfaces: [{ id: 'router', kind: 'router', method: 'GET', path: CONTRACT_PATH }],

    async lateCapabilities(catalog, init) {
      if (!init.config.outcomeRouterComposite) return [];
      // The composite is one payment for the whole plan: its plans count one settlement (src/router/economics.ts).
      const router = new OutcomeRouter(catalog, init.payment, { ...opts, settlementCostAtomic: BigInt(init.config.settlementCostAtomic), paymentsPerPlan: 'one' });
      return [await compositeEntry(router, init.now, init.signer, init.steps)];
    },

    freeRoutes(ctx: ModuleContext): FreeRoute[] {
      // The composite plans over the others; it is never a step of a plan.
      const router = new OutcomeRouter(ctx.catalog.filter((c) => c.id !== COMPOSITE_RESOURCE), ctx.payment, { ...opts, settlementCostAtomic: BigInt(ctx.config.settlementCostAtomic) });
      return routerFreeRoutes(ctx, router);
    },
  };
}

/** The router with the built-in descriptors (in `defaultModules()`). */
export const routerModule: ServiceModule = createRouterModule();

/** GET /v1/router (the contract) and POST /v1/router/quote, each described once: handler, OpenAPI operation, MCP tool. */
function routerFreeRoutes(ctx: ModuleContext, router: OutcomeRouter): FreeRoute[] {
  const composite = ctx.config.outcomeRouterComposite;
  const baseOf = ownOrigin;
  const contracts = new Map<string, string>();

  const budget = quoteBodyBudget(router);

  /** Body → plan (and the request as sent, which a quote names large values in), or the rejection; every rejection happens here, before any payment step. */
  const planFrom = async (c: Context): Promise<Outcome<{ plan: Plan; sent: unknown }>> => {
    const declared = Number(c.req.header('content-length') ?? '0');
    if (declared > budget.bytes) return { ok: false, error: new ServiceError('payload_too_large', `The request body exceeds ${budget.bytes} bytes.`) };
    const bytes = await readBodyBytes(c.req, budget.bytes);
    if (!bytes.ok) return { ok: false, error: new ServiceError(bytes.error.code, bytes.error.message, bytes.error.details) };
    const contentType = c.req.header('content-type');
    // Other media types get the planner's 415, so they are not decoded.
    if (!isJsonMediaType(mediaTypeOf(contentType))) {
      const refused = router.readBody(contentType, '');
      if (!refused.ok) return refused;
      const plan = router.plan(refused.value);
      return plan.ok ? { ok: true, value: { plan: plan.value, sent: {} } } : plan;
    }
    // Strict UTF-8, bounded nesting and at most budget.values JSON values, by a scan of the text before it is
    // parsed (the planner's own rules: required, then valid JSON); a large body on the worker pool, with the
    // same verdict.
    const value = await ctx.flow.executor.parseMessage(bytes.value, { maxValues: budget.values });
    if (!value.ok) return { ok: false, error: new ServiceError(value.error.code, value.error.message, value.error.details) };
    const parsed = router.readValue(value.value);
    if (!parsed.ok) return parsed;
    const plan = router.plan(parsed.value);
    return plan.ok ? { ok: true, value: { plan: plan.value, sent: value.value } } : plan;
  };

  const contract = (c: Context) => {
    const base = baseOf(c);
    let body = contracts.get(base);
    if (body === undefined) {
      body = JSON.stringify(buildContract(router, { baseUrl: base, payment: ctx.payment, compositeEnabled: composite }));
      // Bounded: the Host header is caller-controlled.
      if (contracts.size >= 16) contracts.clear();
      contracts.set(base, body);
    }
    return c.body(body, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' });
  };

  const quote = async (c: Context) => {
    const planned = await planFrom(c);
    if (!planned.ok) {
      // Codes only: never the objective, the inputs or buyer_metadata.
      ctx.log.info({ router: 'quote', code: planned.error.code }, 'router request rejected before payment');
      return reject(c, planned.error);
    }
    const { plan, sent } = planned.value;
    // A large value the caller sent is named, not echoed; the hashing that naming and signing take runs on the pool.
    const refs = referencesOf(plan, sent);
    const digests = await quoteDigests(plan, refs, { signing: ctx.signer !== undefined, pool: ctx.steps });
    plan.fingerprint = digests.fingerprint;
    const unsigned = quoteBody(
      plan,
      {
        baseUrl: baseOf(c),
        payment: ctx.payment,
        compositeEnabled: composite,
        quoteId: `q_${randomUUID()}`,
        createdAt: new Date(ctx.now()).toISOString(),
      },
      { refs, digests },
    );
    const body = ctx.signer ? await signQuote(unsigned, ctx.signer, ctx.now(), digests) : unsigned;
    ctx.log.info(
      { router: 'quote', outcome: body.outcome.kind, capabilities: body.outcome.capability_ids, steps: body.batch_size, total_atomic: body.total_price.amount_atomic, secret_keys_stripped: body.buyer_metadata.secret_keys_stripped },
      'router quote',
    );
    return c.json(body, 200, { 'Cache-Control': 'no-store' });
  };

  const ops = routerOperations(router);
  return [
    {
      method: 'GET',
      path: CONTRACT_PATH,
      operation: ops.contract,
      handle: contract,
      mcpTool: {
        name: 'router-contract',
        title: 'Outcome router contract',
        description: 'What the outcome router can quote: supported outcomes with routes, prices and required inputs; refused categories; rules. Free.',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        request: () => ({}),
      },
    },
    {
      method: 'POST',
      path: QUOTE_PATH,
      operation: ops.quote,
      handle: quote,
      maxBodyBytes: budget.bytes,
      mcpTool: {
        name: 'router-quote',
        title: 'Quote an objective',
        description:
          'Free quote: which live paid resource delivers your objective, the native body to send, its unchanged price and how to pay. The MCP endpoint does not pay; you pay the quoted route yourself.',
        inputSchema: router.requestSchema('canonical'),
        request: (args) => ({ body: args }),
      },
    },
  ];
}

/** The OpenAPI operations of the two free router routes. */
function routerOperations(router: OutcomeRouter) {
  const error = (status: number, what: string, codes: readonly string[]) => ({
    description: `${what}. Codes: ${codes.join(', ')}.`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  const request400 = error(400, 'Schema violation or inputs that make no valid native body; nothing was charged', ['invalid_json', 'invalid_request', 'invalid_inputs']);
  const request422 = error(422, 'Valid but not servable as asked (always 422, before any payment)', ROUTER_REFUSALS);
  const paths: OpenApiPaths = {
    [CONTRACT_PATH]: {
      get: {
        operationId: 'getRouterContract',
        summary: 'Outcome router contract',
        description: 'The job, the accepted aliases, the quote request and response schemas, every supported outcome (route, price, required inputs, example quote), every refused category and the rules. Free.',
        tags: ['discovery'],
        security: [],
        responses: { '200': { description: 'The contract.', content: { 'application/json': { schema: routerContractSchema } } } },
      },
    },
    [QUOTE_PATH]: {
      post: {
        operationId: 'quoteOutcome',
        summary: 'Quote an objective onto the live paid resource that delivers it',
        description:
          'Free, synchronous and deterministic: names for each step the execute_route and native body, the unchanged price and payee, the total, plan, economics and how to pay. Invalid requests get 400; valid requests that cannot be served as asked get 422 with a stable code — always before any payment.',
        tags: ['discovery'],
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: router.requestSchema(),
              examples: {
                colours: { summary: 'Colours in the objective', value: { objective: 'Does #777777 text on #ffffff meet WCAG AA?' } },
                batch: { summary: 'A batch of three pairs (three payments)', value: { goal: 'WCAG contrast', inputs: { pairs: [['#000000', '#ffffff'], ['#777777', '#ffffff'], ['#ffffff', '#0078d7']] } } },
              },
            },
          },
        },
        responses: {
          '200': { description: 'The quote.', content: { 'application/json': { schema: quoteResponseSchema } } },
          '400': request400,
          '413': error(413, 'The body is too large', ['payload_too_large']),
          '415': error(415, 'Send application/json', ['unsupported_media_type']),
          '422': request422,
        },
      },
    },
  };
  return { contract: paths[CONTRACT_PATH]!.get as Record<string, unknown>, quote: paths[QUOTE_PATH]!.post as Record<string, unknown> };
}
