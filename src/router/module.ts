/**
 * The outcome router as a service module:
 *   GET  /v1/router                the contract (free)
 *   POST /v1/router/quote          a quote (free, synchronous, deterministic)
 *   POST /x402/v1/outcome-router   the composite resource — only when
 *                                  OUTCOME_ROUTER_COMPOSITE=1; otherwise it does not exist (404)
 * Everything is built from the catalog the service starts with.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { Capability } from '../catalog/capability.js';
import { errorBody, ServiceError, type ErrorCode } from '../errors.js';
import { atomicToDecimal } from '../catalog/price.js';
import { isJsonMediaType, jsonBodyText, mediaTypeOf, readBodyBytes } from '../http/json-body.js';
import { decodePayment, respond } from '../http/paid-route.js';
import type { FreeTool, ModuleContext, OpenApiPaths, ServiceModule } from '../module.js';
import type { PaymentPayload } from '../payments/rail.js';
import { buildContract } from './contract.js';
import { executePlan } from './execute.js';
import {
  COMPOSITE_PATH,
  COMPOSITE_RESOURCE,
  CONTRACT_PATH,
  errorBodyOf,
  OutcomeRouter,
  QUOTE_PATH,
  type Outcome,
  type Plan,
  type RouterOptions,
} from './planner.js';
import { quoteBody } from './quote.js';
import { executionResultSchema, quoteResponseSchema, routerContractSchema } from './schemas.js';
import { UNSUPPORTED } from './unsupported.js';

export { OutcomeRouter } from './planner.js';
export type { RoutingDescriptor } from './descriptors.js';

const COMPOSITE_DESCRIPTION =
  'Outcome router composite execution: the whole plan that POST /v1/router/quote gives for this body, delivered for one payment of its total price.';

export type RouterModuleOptions = RouterOptions;



function reject(c: Context, e: ServiceError): Response {
  return c.json(errorBodyOf(e), e.status as 400, { 'Cache-Control': 'no-store' });
}

export function createRouterModule(opts: RouterModuleOptions = {}): ServiceModule {
  const routers = new WeakMap<readonly Capability[], OutcomeRouter>();
  const routerFor = (ctx: ModuleContext): OutcomeRouter => {
    let r = routers.get(ctx.catalog);
    if (!r) {
      r = new OutcomeRouter(ctx.catalog, ctx.payment, opts);
      routers.set(ctx.catalog, r);
    }
    return r;
  };

  return {
    name: 'router',

    routes(app: Hono, ctx: ModuleContext) {
      const router = routerFor(ctx);
      const composite = ctx.config.outcomeRouterComposite;
      const baseOf = (c: Context) => ctx.publicBaseUrl ?? new URL(c.req.url).origin;
      const contracts = new Map<string, string>();

      /** Body → plan, or the rejection; every rejection happens here, before any payment step. */
      const planFrom = async (c: Context): Promise<Outcome<Plan>> => {
        const declared = Number(c.req.header('content-length') ?? '0');
        if (declared > router.bodyLimit) return { ok: false, error: new ServiceError('payload_too_large', `The request body exceeds ${router.bodyLimit} bytes.`) };
        const bytes = await readBodyBytes(c.req, router.bodyLimit);
        if (!bytes.ok) return { ok: false, error: new ServiceError(bytes.error.code, bytes.error.message, bytes.error.details) };
        const contentType = c.req.header('content-type');
        // Strict UTF-8 and bounded nesting before the planner parses; other media types get its 415, so they are not decoded.
        const text = isJsonMediaType(mediaTypeOf(contentType)) ? jsonBodyText(bytes.value) : ({ ok: true, value: '' } as const);
        if (!text.ok) return { ok: false, error: new ServiceError(text.error.code, text.error.message, text.error.details) };
        const parsed = router.readBody(contentType, text.value);
        return parsed.ok ? router.plan(parsed.value) : parsed;
      };
      // Codes and counts only: never the objective, the inputs or buyer_metadata.
      const logRejection = (where: string, code: ErrorCode) => ctx.log.info({ router: where, code }, 'router request rejected before payment');

      app.get(CONTRACT_PATH, (c) => {
        const base = baseOf(c);
        let body = contracts.get(base);
        if (body === undefined) {
          body = JSON.stringify(buildContract(router, { baseUrl: base, payment: ctx.payment, compositeEnabled: composite }));
          // Bounded: the Host header is caller-controlled.
          if (contracts.size >= 16) contracts.clear();
          contracts.set(base, body);
        }
        return c.body(body, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' });
      });
      app.all(CONTRACT_PATH, (c) => c.json(errorBody('method_not_allowed', `Use GET ${CONTRACT_PATH}.`), 405, { Allow: 'GET' }));

      app.post(QUOTE_PATH, async (c) => {
        const planned = await planFrom(c);
        if (!planned.ok) {
          logRejection('quote', planned.error.code);
          return reject(c, planned.error);
        }
        const plan = planned.value;
        const body = quoteBody(plan, {
          baseUrl: baseOf(c),
          payment: ctx.payment,
          compositeEnabled: composite,
          quoteId: `q_${randomUUID()}`,
          createdAt: new Date(ctx.now()).toISOString(),
        });
        ctx.log.info(
          { router: 'quote', outcome: body.outcome.kind, capabilities: body.outcome.capability_ids, steps: body.batch_size, total_atomic: body.total_price.amount_atomic, secret_keys_stripped: body.buyer_metadata.secret_keys_stripped },
          'router quote',
        );
        return c.json(body, 200, { 'Cache-Control': 'no-store' });
      });
      app.all(QUOTE_PATH, (c) => c.json(errorBody('method_not_allowed', `Use POST ${QUOTE_PATH}.`), 405, { Allow: 'POST' }));

      if (!composite) return;

      app.post(COMPOSITE_PATH, async (c) => {
        const planned = await planFrom(c);
        if (!planned.ok) {
          logRejection('composite', planned.error.code);
          return reject(c, planned.error);
        }
        const plan = planned.value;
        const sig = c.req.header('payment-signature');
        let payment: PaymentPayload | undefined;
        if (sig !== undefined) {
          payment = decodePayment(sig);
          if (!payment) {
            return c.json(errorBody('invalid_payment_header', 'PAYMENT-SIGNATURE is not base64-encoded JSON of an x402 PaymentPayload.', [{ path: 'header:PAYMENT-SIGNATURE', rule: 'base64-json' }]), 400);
          }
        }
        // The price is the plan's total: a pure function of the body, so the 402 and the paid retry agree.
        const price = String(plan.total);
        const outcome = await ctx.gate.handle({
          resource: COMPOSITE_RESOURCE,
          description: COMPOSITE_DESCRIPTION,
          priceAtomic: price,
          resourceUrl: baseOf(c) + COMPOSITE_PATH,
          fingerprint: plan.fingerprint,
          payment,
          execute: async () => ({
            status: 200,
            contentType: 'application/json',
            body: JSON.stringify(await executePlan(plan, { executionId: `exe_${randomUUID()}`, now: ctx.now })),
          }),
        });
        return respond(c, outcome, price);
      });
      app.all(COMPOSITE_PATH, (c) => c.json(errorBody('method_not_allowed', `Use POST ${COMPOSITE_PATH}.`), 405, { Allow: 'POST' }));
    },

    openapi(ctx: ModuleContext): OpenApiPaths {
      const router = routerFor(ctx);
      const error = (status: number, what: string, codes: readonly string[]) => ({
        description: `${what}. Codes: ${codes.join(', ')}.`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      });
      const rejections = [
        'missing_inputs',
        'no_matching_outcome',
        'price_above_max',
        'batch_too_large',
        'constraint_unsatisfiable',
        ...UNSUPPORTED.map((u) => u.code),
      ];
      const request400 = error(400, 'Schema violation or inputs that make no valid native body; nothing was charged', ['invalid_json', 'invalid_request', 'invalid_inputs']);
      const request422 = error(422, 'Valid but not servable as asked (always 422, before any payment)', rejections);
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
      if (ctx.config.outcomeRouterComposite) {
        const { network, asset, payTo } = ctx.payment;
        const decimals = asset.decimals;
        const prices = ctx.catalog.map((c) => BigInt(c.priceAtomic));
        const minPrice = prices.reduce((a, b) => (b < a ? b : a));
        const maxPrice = prices.reduce((a, b) => (b > a ? b : a)) * BigInt(router.maxSteps);
        paths[COMPOSITE_PATH] = {
          post: {
            operationId: 'executeOutcomeRouterComposite',
            summary: 'Execute a router plan for one payment',
            description: `${COMPOSITE_DESCRIPTION} Takes the quote request; the price is the plan's total (how_to_pay.composite.price of the quote), the same on the 402 and on the paid retry. Answers a router execution result.`,
            tags: ['paid'],
            security: [],
            'x-payment-info': {
              // Dynamic: the total of the plan for the body, between one cheapest call and a full batch of the dearest.
              price: { mode: 'dynamic', currency: 'USD', min: atomicToDecimal(minPrice, decimals), max: atomicToDecimal(maxPrice, decimals) },
              protocols: [{ x402: { version: 2, scheme: 'exact', network, asset: asset.address, payTo, decimals } }],
              protocol: 'x402',
              scheme: 'exact',
              network,
              asset: asset.address,
              payTo,
              description: 'The price is the quote\'s total_price.amount_atomic for the same body.',
            },
            parameters: [{ name: 'PAYMENT-SIGNATURE', in: 'header', required: false, description: 'x402 v2 PaymentPayload, base64 JSON. Absent: 402 with PAYMENT-REQUIRED.', schema: { type: 'string' } }],
            requestBody: { required: true, content: { 'application/json': { schema: router.requestSchema() } } },
            responses: {
              '200': { description: 'Delivered after settlement.', content: { 'application/json': { schema: executionResultSchema } } },
              '400': request400,
              '402': { description: 'Payment required: the plan\'s total.', content: { 'application/json': { schema: { $ref: '#/components/schemas/PaymentChallenge' } } } },
              '409': error(409, 'The payment is bound elsewhere or in progress', ['payment_bound_to_other_request', 'payment_identifier_conflict', 'payment_in_progress']),
              '422': request422,
              '503': error(503, 'Fail closed: nothing delivered, nothing settled', ['ledger_unavailable', 'facilitator_unavailable', 'settlement_unknown', 'handler_failed', 'service_unavailable']),
            },
          },
        };
      }
      return paths;
    },

    mcpTools(ctx: ModuleContext): FreeTool[] {
      const router = routerFor(ctx);
      return [
        {
          name: 'router_contract',
          title: 'Outcome router contract',
          description: 'What the outcome router can quote: supported outcomes with routes, prices and required inputs; refused categories; rules. Free.',
          inputSchema: { type: 'object', properties: {}, additionalProperties: false },
          request: () => ({ method: 'GET', path: CONTRACT_PATH }),
        },
        {
          name: 'router_quote',
          title: 'Quote an objective',
          description:
            'Free quote: which live paid resource delivers your objective, the native body to send, its unchanged price and how to pay. The MCP endpoint does not pay; you pay the quoted route yourself.',
          inputSchema: router.requestSchema(),
          request: (args) => ({ method: 'POST', path: QUOTE_PATH, body: args }),
        },
      ];
    },
  };
}

/** The router with the built-in descriptors; add it to DEFAULT_MODULES. */
export const routerModule: ServiceModule = createRouterModule();

