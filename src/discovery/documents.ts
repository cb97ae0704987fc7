/**
 * The machine-readable documents agents discover the service by. All of them
 * are derived from the OpenAPI description (itself generated from the
 * catalog and the modules), so they cannot disagree with each other.
 */
import type { ModuleContext } from '../module.js';
import { DEVNET_NETWORK } from '../config.js';
import { OPENAPI_VERSION } from './openapi.js';
import { HOW_TO_PAY, RESEND_NEEDS_PROOF, RESEND_PROOF } from '../payments/how-to-pay.js';
import { railFacts, railsSentence } from '../payments/rails.js';
import { freeToolsOf } from '../http/free-routes.js';
import { agentCardSigningExtension } from '../commitments/published.js';
import { SERVICE_NAME } from './identity.js';
import { bazaarExtension } from './bazaar.js';

type Operation = {
  responses?: Record<string, { content?: Record<string, unknown> }>;
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  'x-payment-info'?: { amount_atomic?: string; price?: { amount?: string } };
};

export interface ListedOperation {
  method: string;
  path: string;
  op: Operation;
  paid: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operations(openapi: Record<string, unknown>): ListedOperation[] {
  const out: ListedOperation[] = [];
  for (const [path, item] of Object.entries(openapi.paths as Record<string, Record<string, Operation>>)) {
    for (const m of METHODS) {
      const op = item[m];
      if (op) out.push({ method: m.toUpperCase(), path, op, paid: !!op['x-payment-info'] });
    }
  }
  return out;
}

/** MCP tool name of a paid capability: the catalog id. */
export function mcpToolName(capabilityId: string): string {
  return capabilityId;
}

/**
 * The legacy manifest, kept for the clients that read it. Discovery tools now
 * read OpenAPI (`x-payment-info` per operation) and no longer parse this
 * document, so it points there by URL as well as in words. `resources` stays
 * a list of URLs (what its readers parse); `items` has each paid resource as
 * the Bazaar catalogue lists one: its 402's `resource` (description and
 * service metadata, the same objects its 402 carries) and its Bazaar
 * extension at the level a discovery challenge affords (both shapes at their
 * top level and an input example: the full schemas of every entry would make
 * this document as large as /openapi.json, which has them), without
 * `accepts` (the price and chains are in its 402 and in /openapi.json).
 */
export function wellKnownX402(ctx: ModuleContext, openapi: Record<string, unknown>, base: string) {
  return {
    version: 1,
    resources: operations(openapi)
      .filter((o) => o.paid)
      .map((o) => base + o.path),
    items: ctx.catalog.map((cap) => {
      const offer = ctx.flow.describe(cap);
      return { resource: base + cap.path, type: 'http', x402Version: 2, description: offer.summary, mimeType: 'application/json', ...offer.serviceMetadata(base), extensions: bazaarExtension(cap, 'outline') };
    }),
    openapi: `${base}/openapi.json`,
    instructions:
      `${HOW_TO_PAY} Schemas and prices: ${base}/openapi.json. Guide: ${base}/llms.txt.`,
  };
}

export function servicesListing(ctx: ModuleContext, openapi: Record<string, unknown>, base: string) {
  const byPath = new Map(ctx.catalog.map((c) => [`${c.method} ${c.path}`, c]));
  return {
    service: 'agent-pay-service',
    version: OPENAPI_VERSION,
    // Our own fields are snake_case everywhere (x402 objects keep the protocol's names).
    payment: {
      protocol: 'x402',
      x402_version: 2,
      scheme: 'exact',
      network: ctx.payment.network,
      asset: ctx.payment.asset.address,
      asset_symbol: ctx.payment.asset.symbol,
      decimals: ctx.payment.asset.decimals,
      pay_to: ctx.payment.payTo,
      rails: railFacts(ctx.payment),
    },
    services: operations(openapi)
      .filter((o) => !['/healthz', '/readyz'].includes(o.path))
      .map((o) => {
        const cap = byPath.get(`${o.method} ${o.path}`);
        const pointer = `#/paths/${o.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${o.method.toLowerCase()}`;
        return {
          id: cap?.id ?? o.op.operationId ?? `${o.method} ${o.path}`,
          method: o.method,
          route: o.path,
          url: base + o.path,
          paid: o.paid,
          price_atomic: o.paid ? (o.op['x-payment-info']?.amount_atomic ?? null) : '0',
          description: o.op.summary ?? o.op.description ?? '',
          schemas: {
            openapi: `${base}/openapi.json${pointer}`,
            ...(cap ? { input: `${base}/openapi.json${pointer}/requestBody/content/application~1json/schema`, output: `${base}/openapi.json${pointer}/responses/200/content/application~1json/schema` } : {}),
          },
          mcp_tool: cap ? mcpToolName(cap.id) : null,
        };
      }),
  };
}

/** Where the A2A JSON-RPC binding is served (src/a2a). */
export const A2A_PATH = '/a2a';
/** The a2a-x402 extension, v0.2 (the newest spec): its URI is how clients activate it (A2A-Extensions header). */
export const A2A_X402_EXTENSION_URI = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';
/** The message metadata key naming the skill a message calls (A2A has no field for it). */
export const A2A_SKILL_KEY = 'skill';

/**
 * An A2A agent card (the JSON form of the A2A SDK's AgentCard). Its skills are
 * exactly what the A2A endpoint runs: each catalog entry (paid) and each free
 * route that declares an agent tool; every interface listed is one this
 * instance serves (read from its OpenAPI paths).
 */
export function agentCard(ctx: ModuleContext, openapi: Record<string, unknown>, base: string) {
  const served = new Set(Object.keys(openapi.paths as Record<string, unknown>));
  const asset = ctx.payment.asset;
  const howToCall = served.has(A2A_PATH) ? ` Over A2A: SendMessage with metadata.${A2A_SKILL_KEY} = this id and one data part holding the arguments.` : '';
  const paidSkills = ctx.catalog.map((cap) => ({
    id: cap.id,
    name: cap.title,
    description: `${cap.description} Paid: ${cap.priceOf ? 'priced by its input' : `${cap.priceAtomic} atomic ${asset.symbol} per call`} via x402 (HTTP: ${cap.method} ${base}${cap.path}).${howToCall}`,
    tags: ['paid', 'x402'],
    examples: cap.examples.slice(0, 2).map((e) => e.summary),
    inputModes: ['application/json'],
    outputModes: ['application/json'],
    securityRequirements: [],
  }));
  const freeTools = freeToolsOf(ctx);
  const freeSkills = freeTools.map((t) => ({
    id: t.name,
    name: t.title,
    description: `${t.description} Free.${howToCall}`,
    tags: ['free'],
    examples: [],
    inputModes: ['application/json'],
    outputModes: ['application/json'],
    securityRequirements: [],
  }));
  // Written from the catalog and the free tools, so a new entry shows up here without touching this file.
  const paidNames = ctx.catalog.map((c) => c.title.split(' (')[0]!);
  const freeNames = freeTools.map((t) => t.title);
  return {
    name: SERVICE_NAME,
    description: `Paid per call with x402 v2${ctx.flow.takesMpp ? ' or MPP (Payment HTTP authentication, evm charge)' : ''} in USDC, no account or API key: ${paidNames.join(', ')}. Free: ${freeNames.join(', ')}.`,
    // The first interface is the preferred one: A2A's own JSON-RPC binding (v1.0, and v0.3 at the same URL), then MCP.
    supportedInterfaces: [
      ...(served.has(A2A_PATH)
        ? [
            { url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
            { url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
          ]
        : []),
      ...(served.has('/mcp') ? [{ url: `${base}/mcp`, protocolBinding: 'MCP', tenant: '', protocolVersion: '2025-06-18' }] : []),
    ],
    provider: { url: base, organization: 'agent-pay-service operator' },
    version: OPENAPI_VERSION,
    documentationUrl: `${base}/llms.txt`,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      // The signer of receipts and quote offers (or a note that nothing is signed), for every binding.
      extensions: [
        ...(served.has(A2A_PATH)
        ? [
            {
              uri: A2A_X402_EXTENSION_URI,
              description:
                `Paid skills use the standalone flow with x402 v2 objects: the task stops in input-required with status.message.metadata["x402.payment.status"] = "payment-required" and ["x402.payment.required"] = an x402 v2 PaymentRequired (exact; ${railsSentence(ctx.payment)}); ` +
                'send a message on that task with metadata "x402.payment.status": "payment-submitted" and "x402.payment.payload": the signed v2 PaymentPayload; the completed task carries the result artifact and "x402.payment.receipts". Free skills need no payment, so the extension is not required.',
              required: false,
              params: { x402Version: 2, scheme: 'exact', network: ctx.payment.network, asset: asset.address, payTo: ctx.payment.payTo, rails: railFacts(ctx.payment) },
            },
          ]
        : []),
        agentCardSigningExtension(ctx.signer?.address),
      ],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [...paidSkills, ...freeSkills],
    signatures: [],
  };
}

/**
 * MPP beside x402, for /.well-known/x402 (`mpp`) and the guides: how to pay
 * with it, or that it is off (no MPP_SECRET_KEY).
 */
export function mppInfo(ctx: ModuleContext) {
  if (!ctx.flow.takesMpp) return { enabled: false as const, note: 'MPP is not offered: the operator set no MPP_SECRET_KEY. Pay with x402.' };
  const a = ctx.payment.asset;
  return {
    enabled: true as const,
    spec: 'draft-httpauth-payment (the Payment HTTP authentication scheme)',
    method: 'evm',
    intent: 'charge',
    chainId: Number(ctx.payment.network.split(':')[1]),
    currency: a.address,
    recipient: ctx.payment.payTo,
    decimals: a.decimals,
    authorization: { name: a.name, version: a.version },
    http: 'Every paid 402 carries a fresh WWW-Authenticate: Payment challenge beside PAYMENT-REQUIRED; repeat the request with Authorization: Payment <credential> (an EIP-3009 authorization whose nonce is the challenge hash, e.g. mppx\'s evm charge client). The 200 carries Payment-Receipt and PAYMENT-RESPONSE (the signed receipt). Errors are RFC 9457 problems.',
    mcp: 'Paid tools answer with _meta["org.paymentauth/payment-required"].challenges; repeat the call with _meta["org.paymentauth/credential"] (mppx\'s McpClient.wrap); the receipt is in _meta["org.paymentauth/receipt"].',
  };
}

export function llmsTxt(ctx: ModuleContext, openapi: Record<string, unknown>, base: string): string {
  const ops = operations(openapi);
  const paid = ops.filter((o) => o.paid);
  const free = ops.filter((o) => !o.paid);
  const a = ctx.payment.asset;
  const lines = [
    `# ${SERVICE_NAME}`,
    '',
    '> Deterministic paid utilities and free machine-economy discovery for software agents. Pay per call with x402 v2 in USDC; no account, no API key.',
    '',
    '## How to pay',
    `1. Send the request without payment. Paid resources answer 402 with a PAYMENT-REQUIRED header (base64 JSON, x402 v2) naming scheme "exact", ${railsSentence(ctx.payment)}, and the amount in atomic units (the same on every chain).`,
    '2. Sign an EIP-3009 transferWithAuthorization for exactly that amount and repeat the same request with the PAYMENT-SIGNATURE header (base64 JSON PaymentPayload). Standard clients such as @x402/fetch do this.',
    ...(ctx.payment.solana
      ? [
          `   On Solana (${ctx.payment.solana.network}), sign instead a transaction whose fee payer is the 402's extra.feePayer and which does only this: set its compute budget, TransferChecked exactly the amount of ${ctx.payment.solana.asset.address} to payTo's associated token account, and at most one memo; the facilitator adds its signature and sends it. @x402/svm's ExactSvmScheme client builds it (with the rpcUrl of that network).`,
        ]
      : []),
    // The SDK's spend controls know USDC on Base only: on the devnet a client must allow the token, or it refuses to pay.
    ...(ctx.payment.network === DEVNET_NETWORK
      ? [
          `   @x402/fetch on this development chain refuses the token until the client allows it: client.setSpendControls({ allowedAssets: [{ network: '${ctx.payment.network}', asset: '${a.address}', maxAmountPerPayment: '100000' }] }) before wrapFetchWithPayment(fetch, client).`,
        ]
      : []),
    `3. The 200 carries the result and PAYMENT-RESPONSE (the settlement receipt). ${RESEND_NEEDS_PROOF}`,
    `4. Invalid requests get 400 with a stable error code before any payment step. 503 means nothing was delivered (settlement_unknown: the transfer may have happened; any other code: nothing was charged); retry later with the same payment and, once it was bound, one proof that you are its buyer (${RESEND_PROOF}). You are never charged twice for it.`,
    '   The 402 JSON body is the same PaymentRequired plus "problem" (code, price, how to pay). A POST with no body at all answers the discovery challenge: the input and output shapes and an example input in extensions.bazaar; it cannot be paid, because a payment pays for one request body. x402 v1 (X-PAYMENT) is not accepted.',
    '',
    '## Paid resources',
    ...paid.map((o) => `- ${o.method} ${base}${o.path} — ${o.op['x-payment-info']?.amount_atomic} atomic ${a.symbol}: ${o.op.summary ?? ''}`),
    '',
    '## Free resources',
    ...free.map((o) => `- ${o.method} ${base}${o.path} — ${o.op.summary ?? ''}`),
    '',
    ...(ops.some((o) => o.path === '/v1/router/quote')
      ? [
          '## Quotes',
          `Not sure which resource fits? POST ${base}/v1/router/quote with {"objective": "...", "inputs": {...}} (free): it names the paid route, the native body and the unchanged price. The contract is at GET ${base}/v1/router.`,
          '',
        ]
      : []),
    '## MPP',
    ...(ctx.flow.takesMpp
      ? [
          `The same 402 also carries a WWW-Authenticate: Payment challenge (MPP, draft-httpauth-payment; method evm, intent charge, chainId ${ctx.payment.network.split(':')[1]}, currency ${a.address}, EIP-712 domain name "${a.name}" version "${a.version}"). Answer it with Authorization: Payment <credential> (mppx's evm charge client does this); the 200 carries Payment-Receipt. One authorization buys one delivery whichever protocol carries it. Send one protocol per request, not both.`,
        ]
      : ['MPP is not offered here (no MPP_SECRET_KEY): pay with x402.']),
    '',
    '## MCP',
    `${base}/mcp is a Model Context Protocol endpoint (Streamable HTTP, stateless). Paid tools return the x402 payment-required result; pay by repeating the call with _meta["x402/payment"]. The endpoint never pays and holds no wallet.`,
    '',
    ...(ops.some((o) => o.path === A2A_PATH)
      ? [
          '## A2A',
          `${base}${A2A_PATH} is an A2A v1.0 JSON-RPC endpoint (header A2A-Version: 1.0). SendMessage with message.metadata.${A2A_SKILL_KEY} = a skill id of the agent card and one data part holding its arguments. Paid skills follow the a2a-x402 extension (${A2A_X402_EXTENSION_URI}) with x402 v2 objects: the task stops input-required with status.message.metadata["x402.payment.required"]; send a message on that task with metadata "x402.payment.status": "payment-submitted" and "x402.payment.payload": the signed PaymentPayload to complete it (result artifact, "x402.payment.receipts").`,
          '',
        ]
      : []),
    `Schemas: ${base}/openapi.json · Manifest: ${base}/.well-known/x402 · Agent card: ${base}/.well-known/agent-card.json · Services: ${base}/v1/services`,
    '',
  ];
  return lines.join('\n');
}
