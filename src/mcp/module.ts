/**
 * The MCP endpoint: Streamable HTTP, stateless, in the same process.
 *
 * One tool per paid capability (input schema = the HTTP body schema) and
 * free tools for the discovery resources. A paid tool called without payment
 * returns the x402 MCP transport's payment-required result and the caller
 * pays by repeating the call with `_meta["x402/payment"]`; the endpoint never
 * pays and holds no wallet. Paid calls go through the same gate as HTTP:
 * same ledger, same binding, same idempotency and fail-closed rules.
 */
import type { Context, Hono } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Capability, JsonSchema } from '../catalog/capability.js';
import { compileValidator, type Validator } from '../catalog/validation.js';
import { relocateDefs } from '../catalog/schema-refs.js';
import { mcpToolName } from '../discovery/documents.js';
import { errorBody } from '../errors.js';
import { decodeUtf8, mediaTypeOf, readBodyBytes } from '../catalog/json-input.js';
import { messageBudget, type BodyBudget } from '../catalog/body-budget.js';
import { DEFAULT_MAX_STEPS } from '../router/planner.js';
import type { FreeRoute, FreeTool, ModuleContext, ServiceModule } from '../module.js';
import { callFreeTool, freeToolsOf, toolCallerOf, type ToolCaller } from '../http/free-routes.js';
import { clientKey } from '../http/forwarded.js';
import { portableSchema } from './portable-schema.js';
import type { Executor, PaidAnswer, PaidFlow, PaidOffer, PaymentWire } from '../payments/paid-flow.js';
import { SIGNED_OFFER_MCP_META } from '../commitments/formats.js';
import { ownOrigin } from '../http/own-origin.js';

export const PAYMENT_META_KEY = 'x402/payment';
export const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';
export const SIGN_IN_META_KEY = 'x402/sign-in-with-x';
/** A router quote's signed offer for the tool's arguments, as HTTP's X-Signed-Offer carries it (the object, not base64). */
export const SIGNED_OFFER_META_KEY = SIGNED_OFFER_MCP_META;
/** MPP's MCP transport (mppx; the MPP specs' MCP transport draft): challenges, credential and receipt in _meta. */
export const MPP_CHALLENGES_META_KEY = 'org.paymentauth/payment-required';
export const MPP_CREDENTIAL_META_KEY = 'org.paymentauth/credential';
export const MPP_RECEIPT_META_KEY = 'org.paymentauth/receipt';

/** What a paid tool may return in structuredContent: the result, or the x402 PaymentRequired. */
const PAYMENT_REQUIRED_SCHEMA = {
  type: 'object',
  required: ['x402Version', 'accepts'],
  properties: { x402Version: { type: 'integer' }, error: { type: 'string' }, resource: { type: 'object' }, accepts: { type: 'array' }, extensions: { type: 'object' } },
};

function textResult(value: unknown, isError: boolean, structured?: Record<string, unknown>, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }],
    ...(structured ? { structuredContent: structured } : {}),
    ...(isError ? { isError: true } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

/**
 * The flow's answer as a tool result. A challenge carries MPP's challenge
 * beside the x402 PaymentRequired (and, to a refused MPP credential, the
 * draft's problem); a delivery paid over MPP carries MPP's receipt.
 */
function answerToResult(a: PaidAnswer): CallToolResult {
  switch (a.kind) {
    case 'invalid':
      return textResult(a.body, true);
    case 'challenge': {
      // Both forms: some clients read only structuredContent, others only the text.
      const pr = a.paymentRequired as unknown as Record<string, unknown>;
      const meta: Record<string, unknown> = a.paymentResponse ? { [PAYMENT_RESPONSE_META_KEY]: a.paymentResponse } : {};
      if (a.mpp) meta[MPP_CHALLENGES_META_KEY] = { challenges: [a.mpp.challenge], ...(a.mpp.problem && { problem: a.mpp.problem }) };
      return textResult(pr, true, pr, Object.keys(meta).length ? meta : undefined);
    }
    case 'deliver': {
      const body = a.response.body;
      const meta: Record<string, unknown> = { [PAYMENT_RESPONSE_META_KEY]: a.paymentResponse };
      if (a.mpp) meta[MPP_RECEIPT_META_KEY] = a.mpp.receipt;
      return textResult(body, false, JSON.parse(body) as Record<string, unknown>, meta);
    }
    case 'refuse':
      return textResult(errorBody(a.code, a.message), true);
  }
}

/**
 * What one MCP message may cost (issue 21): a tool call carries one paid
 * entry's arguments, or the router-quote tool's (a batch of up to
 * DEFAULT_MAX_STEPS entries' inputs), in a JSON-RPC envelope. So its bytes
 * are the largest entry body plus the envelope's room (not the SDK's 4 MiB
 * default) and its JSON values what those arguments' schemas admit
 * (src/catalog/body-budget.ts); the app's streaming limit enforces the same
 * bytes before the body is read (FreeRoute.maxBodyBytes).
 */
export function mcpBodyBudget(catalog: readonly Capability[]): BodyBudget {
  return messageBudget(catalog, DEFAULT_MAX_STEPS);
}

function jsonRpcError(status: number, id: string | number | null, code: number, message: string, data: unknown): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, data } }), { status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * The JSON-RPC body through the shared reader. Bad bytes or JSON: -32700 (HTTP
 * 400, as the SDK answers). Nested too deep or holding more JSON values than
 * any tool's arguments need: -32602 invalid params, echoing the request's id
 * (HTTP 200) when one can be found, so the client reads it as the answer to
 * its call; never -32603. Either is decided by a scan of the text, before the
 * body is parsed or the SDK sees it. A large body (a tool call carrying the
 * extractor's page) is read where the service's executor reads large
 * messages (its worker pool), with the same verdict.
 */
async function readMcpBody(req: { arrayBuffer(): Promise<ArrayBuffer> }, budget: BodyBudget, executor: Executor): Promise<{ ok: true; value: unknown } | { ok: false; res: Response }> {
  const bytes = await readBodyBytes(req, budget.bytes);
  if (!bytes.ok) return { ok: false, res: jsonRpcError(413, null, -32000, bytes.error.message, errorBody(bytes.error.code, bytes.error.message)) };
  const parsed = await executor.parseMessage(bytes.value, { maxValues: budget.values });
  if (parsed.ok) return parsed;
  const { code, message, details } = parsed.error;
  const data = errorBody(code, message, details);
  if (details[0]?.rule === 'max-depth' || details[0]?.rule === 'max-values') {
    const id = topLevelId(decodeUtf8(bytes.value) ?? '');
    return { ok: false, res: jsonRpcError(id === undefined ? 400 : 200, id ?? null, -32602, `Invalid params: ${message}`, data) };
  }
  return { ok: false, res: jsonRpcError(400, null, -32700, `Parse error: ${message}`, data) };
}

/** Index of the quote closing the JSON string that opens at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}

/**
 * The `id` member of a top-level JSON-RPC object, found by a scan: the body is
 * too deep to parse, and building it just to read one member would be wasteful.
 */
function topLevelId(text: string): string | number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (depth === 1 && end === i + 3 && text.startsWith('"id"', i)) {
        const m = /^\s*:\s*("(?:[^"\\]|\\.){0,256}"|-?\d{1,20}(?![.eE\d]))/.exec(text.slice(end + 1, end + 300));
        if (!m) return undefined;
        try {
          return JSON.parse(m[1]!) as string | number;
        } catch {
          return undefined;
        }
      }
      i = end;
    } else if (ch === '{' || ch === '[') {
      if (depth === 0 && ch === '[') return undefined; // a batch: no single id to answer
      depth++;
    } else if (ch === '}' || ch === ']') {
      depth--;
    }
  }
  return undefined;
}

interface PaidTool {
  cap: Capability;
  offer: PaidOffer;
  /** Set when the tool takes a narrower (canonical) form than the HTTP body: its arguments are checked against it first. */
  canonical?: Validator;
}

/** Arguments against the tool's published inputSchema (on a copy: defaults are the route's business), or the 400 body. */
function checkArguments(validate: Validator | undefined, tool: string, args: unknown): CallToolResult | undefined {
  const details = validate?.(structuredClone(args));
  return details ? textResult(errorBody('invalid_request', `The arguments do not match the ${tool} tool's inputSchema.`, details), true) : undefined;
}

function describeEndpoint(paid: PaidTool[], free: FreeTool[], base: string, mpp: boolean) {
  return {
    endpoint: `${base}/mcp`,
    transport: 'Model Context Protocol, Streamable HTTP (stateless): POST JSON-RPC messages here with Accept: application/json, text/event-stream.',
    payment:
      `Paid tools answer without payment with isError true, structuredContent = the x402 PaymentRequired and content[0].text = the same JSON. Sign one of its accepts (x402 v2, exact, EIP-3009) and repeat the tools/call with params._meta["x402/payment"] = the PaymentPayload object. The receipt comes back in result._meta["x402/payment-response"]. Lost the result? Repeat the same call without a payment and with params._meta["${SIGN_IN_META_KEY}"] = a sign-in by the wallet that paid (the SIGN-IN-WITH-X value: createSIWxPayload over the sign-in-with-x declaration in the PaymentRequired, then encodeSIWxHeader, from @x402/extensions); each sign-in is used once. This endpoint never pays and holds no wallet.` +
      (mpp
        ? ` MPP (method evm, intent charge) works too: the same answer carries _meta["${MPP_CHALLENGES_META_KEY}"].challenges; repeat the call with _meta["${MPP_CREDENTIAL_META_KEY}"] = the credential object (mppx's McpClient.wrap does this); MPP's receipt comes back in result._meta["${MPP_RECEIPT_META_KEY}"].`
        : ' MPP is not offered (no MPP_SECRET_KEY).'),
    tools: [
      ...paid.map((t) => ({ name: mcpToolName(t.cap.id), paid: true, price_atomic: t.cap.priceAtomic, description: t.offer.summary })),
      ...free.map((t) => ({ name: t.name, paid: false, price_atomic: '0', description: t.description })),
    ],
  };
}

/** The OpenAPI operations of GET and POST /mcp. */
const MCP_OPERATIONS = {
  get: {
    operationId: 'describeMcp',
    summary: 'MCP challenge-handoff endpoint: what it is and which tools it has (JSON)',
    tags: ['discovery'],
    security: [],
    responses: { '200': { description: 'Endpoint description', content: { 'application/json': { schema: { type: 'object' } } } }, '405': { description: 'Event streams are not offered: the endpoint is stateless' } },
  },
  post: {
    operationId: 'mcpJsonRpc',
    summary: 'MCP Streamable HTTP transport (JSON-RPC): tools/list, tools/call; paid tools hand the x402 challenge back',
    tags: ['discovery'],
    security: [],
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 message or batch' } } } },
    responses: { '200': { description: 'JSON-RPC response', content: { 'application/json': { schema: { type: 'object' } } } }, '202': { description: 'Notification accepted' } },
  },
};

/** The endpoint over one service: its tool table is built on first use, when every module's routes exist. */
function mcpEndpoint(ctx: ModuleContext) {
  let table: ReturnType<typeof toolTable> | undefined;
  const tablesOf = () => (table ??= toolTable(ctx));
  const serve = async (c: Context, app: Hono) => serveJsonRpc(c, app, ctx, tablesOf());
  const describe = (c: Context) => {
    const base = ownOrigin(c);
    if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
      return c.json(errorBody('method_not_allowed', 'This MCP endpoint is stateless and offers no event stream; POST JSON-RPC messages instead.'), 405, { Allow: 'POST' });
    }
    const t = tablesOf();
    return c.json(describeEndpoint(t.paid, t.free, base, ctx.flow.takesMpp));
  };
  return { serve, describe };
}

function toolTable(ctx: ModuleContext) {
  const paid: PaidTool[] = ctx.catalog.map((cap) => ({ cap, offer: ctx.flow.describe(cap), ...(cap.toolInputSchema ? { canonical: compileValidator(cap.toolInputSchema) } : {}) }));
  const free: FreeTool[] = freeToolsOf(ctx);
  const freeValidators = new Map(free.map((t) => [t.name, compileValidator(t.inputSchema as JsonSchema)]));
  const tools = [
    ...paid.map((t) => ({
      name: mcpToolName(t.cap.id),
      title: t.cap.title,
      description: `${t.cap.description} Paid: ${t.cap.priceAtomic} atomic units of ${ctx.payment.asset.symbol} per call via x402 (pay with _meta["x402/payment"]).`,
      inputSchema: (t.cap.toolInputSchema ?? t.cap.inputSchema) as { type: 'object' },
      // The same schema as the HTTP 200, or the x402 PaymentRequired of an unpaid call; spelled portably.
      outputSchema: (() => {
        const { body, defs } = relocateDefs(t.cap.outputSchema, '#/$defs/');
        return portableSchema({ type: 'object' as const, ...(Object.keys(defs).length ? { $defs: defs } : {}), anyOf: [body, PAYMENT_REQUIRED_SCHEMA] });
      })(),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      _meta: { 'x402/price': { amount: t.cap.priceAtomic, asset: ctx.payment.asset.address, network: ctx.payment.network, payTo: ctx.payment.payTo } },
    })),
    ...free.map((t) => ({ name: t.name, title: t.title, description: `${t.description} Free.`, inputSchema: t.inputSchema as { type: 'object' }, annotations: { readOnlyHint: true } })),
  ];
  return { paid, free, tools, freeValidators, budget: mcpBodyBudget(ctx.catalog), paidByName: new Map(paid.map((t) => [mcpToolName(t.cap.id), t])), freeByName: new Map(free.map((t) => [t.name, t])) };
}

/** In-process, but at the caller's real origin: the answers carry absolute URLs built from it. */
async function callFree(app: Hono, tool: FreeTool, args: Record<string, unknown>, caller: ToolCaller): Promise<CallToolResult> {
  const { status, text } = await callFreeTool(app, tool, args, caller);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const structured = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  return textResult(text, status >= 400, status >= 400 ? undefined : structured);
}

/** Where MCP carries payments (the call's `_meta`), in the words of its refusals. */
const MCP_WIRE: PaymentWire = {
  mpp: {
    twoProtocols: { message: `A call pays with one protocol: _meta["${PAYMENT_META_KEY}"] (x402) or _meta["${MPP_CREDENTIAL_META_KEY}"] (MPP), not both. Nothing was verified or charged.`, details: [] },
    unreadable: `_meta["${MPP_CREDENTIAL_META_KEY}"] is not an MPP credential ({challenge, payload}). Nothing was verified or charged.`,
  },
  x402Unreadable: { message: `_meta["${PAYMENT_META_KEY}"] must be an x402 PaymentPayload object.`, details: [] },
  requirementWithRefusal: false,
  offerPath: `_meta/${SIGNED_OFFER_META_KEY}`,
};

/** `client`: who sent the call (its clientKey): wrong payment-identifiers are limited per client, as on HTTP. */
async function callPaid(flow: PaidFlow, tool: PaidTool, args: unknown, meta: Record<string, unknown> | undefined, base: string, client: () => string): Promise<CallToolResult> {
  const refused = checkArguments(tool.canonical, mcpToolName(tool.cap.id), args ?? {});
  if (refused) return refused;
  // A router quote's signed offer for this tool and these arguments (as sent): its amount is the price.
  const signedOffer = meta?.[SIGNED_OFFER_META_KEY];
  const paid = await flow.answer(tool.cap, {
    wire: MCP_WIRE,
    origin: base,
    input: { value: args ?? {} },
    x402: meta?.[PAYMENT_META_KEY],
    mppCredential: meta?.[MPP_CREDENTIAL_META_KEY],
    // The SIGN-IN-WITH-X value (base64 JSON) over the sign-in-with-x declaration of a 402: without a payment, a request for what its wallet paid for; with one, the proof of its buyer.
    signIn: meta?.[SIGN_IN_META_KEY],
    client,
    offer: signedOffer === undefined ? undefined : { signed: signedOffer, body: args ?? {} },
  });
  return answerToResult(paid);
}

async function serveJsonRpc(c: Context, app: Hono, ctx: ModuleContext, t: ReturnType<typeof toolTable>): Promise<Response> {
  const base = ownOrigin(c);
  // JSON bodies go through the shared reader before the SDK sees them; the transport answers 415 for anything else without reading it.
  let parsedBody: unknown;
  if (mediaTypeOf(c.req.header('content-type')) === 'application/json') {
    const read = await readMcpBody(c.req, t.budget, ctx.flow.executor);
    if (!read.ok) return read.res;
    parsedBody = read.value;
  }
  const server = new Server({ name: 'agent-pay-service', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: t.tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const name = req.params.name;
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const p = t.paidByName.get(name);
    if (p) return callPaid(ctx.flow, p, args, req.params._meta as Record<string, unknown> | undefined, base, () => clientKey(c, ctx.config.operations.trustProxy));
    const f = t.freeByName.get(name);
    if (f) return checkArguments(t.freeValidators.get(name), name, args) ?? callFree(app, f, args, toolCallerOf(c, base));
    return textResult(errorBody('not_found', `No tool named "${name}".`), true);
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    await transport.close().catch(() => {});
    await server.close().catch(() => {});
  }
}

export const mcpModule: ServiceModule = {
  name: 'mcp',
  surfaces: [{ id: 'mcp', kind: 'mcp', method: 'ANY', path: '/mcp' }],
  freeRoutes(ctx): FreeRoute[] {
    const endpoint = mcpEndpoint(ctx);
    return [
      { method: 'GET', path: '/mcp', operation: MCP_OPERATIONS.get, handle: (c) => endpoint.describe(c) },
      { method: 'POST', path: '/mcp', operation: MCP_OPERATIONS.post, handle: (c, app) => endpoint.serve(c, app), maxBodyBytes: mcpBodyBudget(ctx.catalog).bytes },
    ];
  },
};
