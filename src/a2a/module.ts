/**
 * The A2A binding: the A2A SDK's JSON-RPC transport (`JsonRpcTransportHandler`
 * over its `DefaultRequestHandler`) mounted on our Hono app at POST /a2a. The
 * SDK ships an Express adapter only; this file does the same job for Hono:
 * read the body through the shared reader, build the call context (requested
 * extensions, A2A version), dispatch, and answer JSON (the card says no
 * streaming). A request without `A2A-Version` (or with 0.3) is A2A v0.3, the
 * wire form the a2a-x402 spec's examples use (`message/send`, `"kind"`,
 * `input-required`): the SDK's v0.3 compatibility handler serves it over the
 * same request handler, as its Express adapter does. The agent itself is `executor.ts`; payments go through the one
 * paid flow, so the gate's guarantees hold unchanged.
 */
import { toolCallerOf } from '../http/free-routes.js';
import type { Context, Hono } from 'hono';
import { AgentCard, A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext, UnauthenticatedUser, validateVersion } from '@a2a-js/sdk/server';
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { mediaTypeOf, readBodyBytes } from '../catalog/json-input.js';
import { messageBudget, type BodyBudget } from '../catalog/body-budget.js';
import type { Capability } from '../catalog/capability.js';
import { DEFAULT_MAX_STEPS } from '../router/planner.js';
import { A2A_PATH, A2A_SKILL_KEY, A2A_X402_EXTENSION_URI, agentCard } from '../discovery/documents.js';
import { buildOpenApi } from '../discovery/openapi.js';
import { errorBody } from '../errors.js';
import type { FreeRoute, ModuleContext, ServiceModule } from '../module.js';
import { CALL_SCOPE, ServiceAgentExecutor, type CallScope } from './executor.js';
import { PaidTaskRequestHandler } from './request-handler.js';
import { BoundedTaskStore, DEFAULT_TASK_STORE_LIMITS, TASK_CLIENT } from './task-store.js';
import { clientKeyOf } from '../http/forwarded.js';
import { X402_PAYLOAD, X402_REQUIRED, X402_STATUS } from './x402-extension.js';
import { ownOrigin } from '../http/own-origin.js';

/**
 * What one A2A message may cost (issue 21): a SendMessage carries one skill's
 * arguments in a data part — a paid entry's body, or a free skill's (the
 * router quote: a batch of up to DEFAULT_MAX_STEPS entries' inputs) — inside
 * the JSON-RPC envelope, the message and an x402 PaymentPayload. Its bytes
 * are the largest entry body plus the envelope's room and its JSON values
 * what those arguments' schemas admit (src/catalog/body-budget.ts), counted
 * by a scan before the body is parsed or the SDK (and so the task store) sees
 * it; the app's streaming limit enforces the same bytes (FreeRoute.maxBodyBytes).
 */
function a2aBodyBudget(catalog: readonly Capability[]): BodyBudget {
  return messageBudget(catalog, DEFAULT_MAX_STEPS);
}

/**
 * The service's task store: the default budgets, the service's clock, and as the payment window of a waiting
 * task whose requirement names none the one the service's requirements state (X402_MAX_TIMEOUT_SECONDS).
 */
function taskStoreOf(ctx: Pick<ModuleContext, 'now' | 'payment'>): BoundedTaskStore {
  const windowMs = ctx.payment.maxTimeoutSeconds * 1000;
  return new BoundedTaskStore({ ...DEFAULT_TASK_STORE_LIMITS, defaultWindowMs: windowMs, ttlMs: Math.max(DEFAULT_TASK_STORE_LIMITS.ttlMs, windowMs) }, ctx.now);
}

type JsonRpcId = string | number | null;

function jsonRpcError(status: number, id: JsonRpcId, code: number, message: string, data?: unknown): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } }), { status, headers: { 'Content-Type': 'application/json' } });
}

function idOf(body: unknown): JsonRpcId {
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const isStream = (x: unknown): x is AsyncGenerator<unknown> => x !== null && typeof x === 'object' && Symbol.asyncIterator in x;

function describe(base: string) {
  return {
    endpoint: `${base}${A2A_PATH}`,
    transport: 'A2A JSON-RPC binding: POST JSON-RPC requests here. With the A2A-Version: 1.0 header: SendMessage, GetTask, CancelTask. Without it (or with 0.3): A2A v0.3, message/send, tasks/get, tasks/cancel. No streaming.',
    agent_card: `${base}/.well-known/agent-card.json`,
    how_to_call: `SendMessage with message.metadata.${A2A_SKILL_KEY} = a skill id of the agent card and one data part holding its arguments (for a paid skill: the same JSON body as its HTTP route). Free skills answer with a message carrying a data part.`,
    payment:
      `Paid skills follow the a2a-x402 extension (${A2A_X402_EXTENSION_URI}, standalone flow, x402 v2 objects): the task stops in TASK_STATE_INPUT_REQUIRED with status.message.metadata["${X402_STATUS}"] = "payment-required" and ["${X402_REQUIRED}"] = the PaymentRequired. ` +
      `Sign one of its accepts and send a message with taskId = that task and metadata {"${X402_STATUS}": "payment-submitted", "${X402_PAYLOAD}": the PaymentPayload}. The completed task carries the result as an artifact and the receipt in "x402.payment.receipts". ` +
      'Invalid arguments are refused (TASK_STATE_REJECTED, our error body) before any payment step. If the answer is lost, send the same payment message again: same result, charged once. This endpoint holds no wallet.',
  };
}

const A2A_OPERATIONS = {
  get: {
    operationId: 'describeA2a',
    summary: 'A2A endpoint: how to call skills and pay for them (JSON)',
    tags: ['discovery'],
    security: [],
    responses: { '200': { description: 'Endpoint description', content: { 'application/json': { schema: { type: 'object' } } } } },
  },
  post: {
    operationId: 'a2aJsonRpc',
    summary: 'A2A JSON-RPC binding: SendMessage to a skill; paid skills answer with the a2a-x402 payment-required task',
    description: `A2A v1.0 with the A2A-Version: 1.0 header; A2A v0.3 (message/send) without it. Skill named by message.metadata.${A2A_SKILL_KEY}, arguments in a data part. Paid skills: a2a-x402 extension (${A2A_X402_EXTENSION_URI}) with x402 v2 objects.`,
    tags: ['discovery'],
    security: [],
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 request (A2A v1.0 or v0.3 method names)', required: ['jsonrpc', 'method'] } } } },
    responses: {
      '200': { description: 'JSON-RPC response (a result, or an A2A error)', content: { 'application/json': { schema: { type: 'object' } } } },
      '400': { description: 'Body is not JSON (-32700), nests too deep or holds more JSON values than any skill needs (error.data: invalid_json, rule max-depth or max-values)', content: { 'application/json': { schema: { type: 'object' } } } },
      '413': { description: 'Body too large', content: { 'application/json': { schema: { type: 'object' } } } },
      '415': { description: 'Not application/json', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  },
};

/** The endpoint over one service: SDK objects built on first use, when every module's routes (and so the card) exist. */
function a2aEndpoint(ctx: ModuleContext) {
  const budget = a2aBodyBudget(ctx.catalog);
  const taskStore = taskStoreOf(ctx);
  let transport: { current: JsonRpcTransportHandler; legacy: LegacyJsonRpcTransportHandler; card: AgentCard } | undefined;
  const transportFor = (base: string) => {
    if (!transport) {
      // Only the card's base-independent parts (capabilities, versions, extensions) steer the SDK's handler.
      const card = AgentCard.fromJSON(agentCard(ctx, buildOpenApi(ctx, base), base));
      const handler = new PaidTaskRequestHandler(card, taskStore, new ServiceAgentExecutor(ctx), new Set(ctx.catalog.map((c) => c.id)));
      transport = { current: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler), card };
    }
    return transport;
  };

  async function serve(c: Context, app: Hono): Promise<Response> {
    const base = ownOrigin(c);
    if (mediaTypeOf(c.req.header('content-type')) !== 'application/json') {
      return c.json(errorBody('unsupported_media_type', 'Send the JSON-RPC request as application/json.', [{ path: '', rule: 'content-type' }]), 415);
    }
    const bytes = await readBodyBytes(c.req, budget.bytes);
    if (!bytes.ok) return jsonRpcError(413, null, -32600, bytes.error.message, errorBody(bytes.error.code, bytes.error.message));
    // Decoded, scanned and parsed on the worker pool when large (the extractor's page in a data part), inline
    // otherwise: the same verdict either way.
    const parsed = await ctx.flow.executor.parseMessage(bytes.value, { maxValues: budget.values });
    if (!parsed.ok) {
      const { code, message, details } = parsed.error;
      return jsonRpcError(400, null, -32700, `Parse error: ${message}`, errorBody(code, message, details));
    }
    const id = idOf(parsed.value);
    const t = transportFor(base);
    const requestedVersion = c.req.header(A2A_VERSION_HEADER) || A2A_LEGACY_PROTOCOL_VERSION;
    const legacy = requestedVersion === A2A_LEGACY_PROTOCOL_VERSION;
    // v0.3 named the header X-A2A-Extensions (the a2a-x402 spec's activation header).
    const extensionHeader = legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER;
    const mapError = (e: unknown) => (legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(e) : JsonRpcTransportHandler.mapToJSONRPCError(e));
    const scope: CallScope = { app, ...toolCallerOf(c, base) };
    const context = new ServerCallContext({
      requestedExtensions: Extensions.parseServiceParameter(c.req.header(extensionHeader) ?? (legacy ? c.req.header(HTTP_EXTENSION_HEADER) : undefined)),
      user: new UnauthenticatedUser(),
      // Whose budget a new task counts against (the client's key, as the rate limiter counts it), known before the
      // skill runs so a client over it is refused first.
      state: new Map<string, unknown>([
        [CALL_SCOPE, scope],
        [TASK_CLIENT, clientKeyOf(scope.env, scope.forwardedFor, ctx.config.operations.trustProxy)],
      ]),
      requestedVersion,
    });
    try {
      validateVersion(context.requestedVersion, t.card, 'JSONRPC');
    } catch (e) {
      return c.json({ jsonrpc: '2.0', id, error: mapError(e) });
    }
    const body = parsed.value as Record<string, unknown>;
    const out = legacy ? await t.legacy.handle(body, context) : await t.current.handle(body, context);
    const headers: Record<string, string> = {};
    if (context.activatedExtensions?.length) headers[extensionHeader] = context.activatedExtensions.join(', ');
    if (isStream(out)) {
      // The card says streaming: false; the SDK's stream then fails on its first step, which is the answer.
      try {
        await out.next();
        await out.return(undefined);
        return jsonRpcError(200, id, -32004, 'Streaming is not offered by this agent (capabilities.streaming is false); use SendMessage (v0.3: message/send).');
      } catch (e) {
        return c.json({ jsonrpc: '2.0', id, error: mapError(e) }, 200, headers);
      }
    }
    return c.json(out, 200, headers);
  }

  return { serve, budget, describe: (c: Context) => c.json(describe(ownOrigin(c))) };
}

export const a2aModule: ServiceModule = {
  name: 'a2a',
  freeRoutes(ctx): FreeRoute[] {
    const endpoint = a2aEndpoint(ctx);
    return [
      { method: 'GET', path: A2A_PATH, operation: A2A_OPERATIONS.get, handle: (c) => endpoint.describe(c) },
      { method: 'POST', path: A2A_PATH, operation: A2A_OPERATIONS.post, handle: (c, app) => endpoint.serve(c, app), maxBodyBytes: endpoint.budget.bytes },
    ];
  },
};
