/**
 * The OpenAPI 3.1.0 description, generated from the catalog (paid
 * operations, with the very schemas that validate requests) and from each
 * module's own description of its free routes.
 */
import { receiptExtensionSchema, signedQuoteOfferSchema } from '../commitments/schemas.js';
import { SIGNED_OFFER_HEADER } from '../commitments/formats.js';
import { ERROR_BODY_SCHEMA, ERROR_CODES } from '../errors.js';
import type { Capability, JsonSchema } from '../catalog/capability.js';
import { atomicToDecimal } from '../catalog/price.js';
import { relocateDefs } from '../catalog/schema-refs.js';
import type { ModuleContext, OpenApiPaths } from '../module.js';
import { shortDescription } from './bazaar.js';
import { OPERATIONS_DESCRIBED } from '../http/operations-routes.js';
import { railNetworks } from '../payments/rails.js';
import { RESEND_NEEDS_PROOF } from '../payments/how-to-pay.js';

export const OPENAPI_VERSION = '1.0.0';

const ERROR_SCHEMA = ERROR_BODY_SCHEMA;

/** Error codes grouped by status, for response descriptions. */
function codesFor(status: number): string[] {
  return Object.entries(ERROR_CODES)
    .filter(([, s]) => s === status)
    .map(([c]) => c);
}

function errorResponse(status: number, what: string) {
  return {
    description: `${what}. Stable codes: ${codesFor(status).join(', ') || 'see ErrorCode'}.`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}


function operationId(id: string): string {
  return id.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Move a capability schema's `$defs` into components.schemas (prefixed by the capability) so its refs resolve inside the OpenAPI document. */
function embed(schema: JsonSchema, prefix: string, components: Record<string, unknown>): JsonSchema {
  const { body, defs } = relocateDefs(schema, `#/components/schemas/${prefix}.`);
  for (const [k, v] of Object.entries(defs)) components[`${prefix}.${k}`] = v;
  return body;
}

function paidOperation(cap: Capability, ctx: ModuleContext, components: Record<string, unknown>) {
  const { network, asset, payTo } = ctx.payment;
  const inputSchema = embed(cap.inputSchema, operationId(cap.id), components);
  const outputSchema = embed(cap.outputSchema, operationId(cap.id), components);
  const content: Record<string, unknown> = {
    'application/json': {
      schema: inputSchema,
      examples: Object.fromEntries(cap.examples.map((e, i) => [`example${i + 1}`, { summary: e.summary, value: e.input }])),
    },
  };
  if (cap.fromRawBody) content['text/html'] = { schema: { type: 'string', description: 'The page itself, instead of the JSON envelope.' } };
  const range = cap.priceRange;
  const usd = (atomic: string) => atomicToDecimal(atomic, asset.decimals);
  const priceSentence = range
    ? `Price: set by the input, between ${range.minAtomic} and ${range.maxAtomic} atomic units of ${asset.symbol} (US$${usd(range.minAtomic)}–${usd(range.maxAtomic)}); ${range.note} Paid with x402 v2 (scheme exact) on ${railNetworks(ctx.payment)}.`
    : `Price: ${cap.priceAtomic} atomic units of ${asset.symbol} (US$${usd(cap.priceAtomic)}) per call, paid with x402 v2 (scheme exact) on ${railNetworks(ctx.payment)}.`;
  // The Solana rail beside the EVM one, same price, when configured.
  const solana = ctx.payment.solana;
  const svm = solana ? [{ x402: { version: 2, scheme: 'exact', network: solana.network, asset: solana.asset.address, payTo: solana.payTo, decimals: solana.asset.decimals } }] : [];
  // MPP (draft-httpauth-payment, method evm, intent charge) beside x402 when MPP_SECRET_KEY is set.
  const mpp = ctx.flow.takesMpp ? [{ mpp: { method: 'evm', intent: 'charge', chainId: Number(network.split(':')[1]), currency: asset.address, recipient: payTo, decimals: asset.decimals } }] : [];
  const paymentInfo = range
    ? {
        price: { mode: 'dynamic', currency: 'USD', min: usd(range.minAtomic), max: usd(range.maxAtomic) },
        protocols: [{ x402: { version: 2, scheme: 'exact', network, asset: asset.address, payTo, decimals: asset.decimals } }, ...svm, ...mpp],
        protocol: 'x402',
        scheme: 'exact',
        network,
        asset: asset.address,
        payTo,
        description: range.note,
      }
    : {
        price: { mode: 'fixed', currency: 'USD', amount: usd(cap.priceAtomic) },
        protocols: [
          { x402: { version: 2, scheme: 'exact', network, asset: asset.address, payTo, amount: cap.priceAtomic, decimals: asset.decimals } },
          ...svm.map((s) => ({ x402: { ...s.x402, amount: cap.priceAtomic } })),
          ...mpp.map((m) => ({ mpp: { ...m.mpp, amount: cap.priceAtomic } })),
        ],
        amount_atomic: cap.priceAtomic,
        asset: asset.address,
        network,
        payTo,
        protocol: 'x402',
        scheme: 'exact',
      };
  const extra = Object.fromEntries(
    Object.entries(cap.extraRefusals ?? {}).map(([status, r]) => [
      status,
      { description: `${r.description}. Codes: ${r.codes.join(', ')}.`, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
  return {
    operationId: operationId(cap.id),
    summary: cap.title,
    description: `${cap.description}\n\n${priceSentence}`,
    tags: ['paid'],
    security: [],
    'x-payment-info': paymentInfo,
    parameters: [
      {
        name: 'PAYMENT-SIGNATURE',
        in: 'header',
        required: false,
        description: 'x402 v2 PaymentPayload, base64 JSON. Absent: the answer is 402 with PAYMENT-REQUIRED.',
        schema: { type: 'string' },
      },
      {
        name: SIGNED_OFFER_HEADER,
        in: 'header',
        required: false,
        description:
          'A router quote step\'s signed_offer (#/components/schemas/SignedQuoteOffer), base64 JSON, for this route and this body: until its validUntil the price is its amount (on the 402 and the paid retry); after it, only for the redelivery of a payment bound before it expired. An offer for another body or route, expired (for an unpaid request or a new payment), or not signed by this service: 400 invalid_request, before any payment step.',
        schema: { type: 'string' },
      },
      {
        name: 'Authorization',
        in: 'header',
        required: false,
        description:
          'MPP (draft-httpauth-payment): `Payment <base64url credential>` answering the 402\'s WWW-Authenticate: Payment challenge (method evm, intent charge: an EIP-3009 authorization whose nonce is the challenge hash), when the service offers MPP (x-payment-info.protocols) and the challenge selected no other field. Paid through the same gate as PAYMENT-SIGNATURE; sending both: 400 invalid_payment_header.',
        schema: { type: 'string' },
      },
      {
        name: 'Payment-Authorization',
        in: 'header',
        required: false,
        description:
          'MPP\'s alternate credential field (draft-httpauth-payment): `Payment <base64url credential>` for a challenge with header="Payment-Authorization", which a 402 selects when the request\'s Authorization holds another scheme (e.g. a proxy\'s Bearer) or it came with Payment-Authorization. The same checks, single use, redelivery and errors as Authorization: Payment; a credential counts only in the field its challenge selected (else 402 invalid-challenge). The same credential in both fields is one; two different ones: 400 invalid_payment_header, nothing verified.',
        schema: { type: 'string' },
      },
      {
        name: 'SIGN-IN-WITH-X',
        in: 'header',
        required: false,
        description:
          'x402 sign-in-with-x (base64 JSON of the signed CAIP-122 message: EIP-4361 on EVM, SIWS on Solana) over the sign-in-with-x declaration of any 402 of this route (every 402 carries one, with a nonce of its own, valid 5 minutes). Without a payment: the wallet that paid for this very request (the same body) on the chain it signs in on gets the stored result and its receipt again (X-Payment-Replayed: true), nothing charged; anyone else, another body or a sign-in used before gets the ordinary 402 payment_required. With the PAYMENT-SIGNATURE that was bound: the proof that the caller is its buyer. Each sign-in is accepted once, on any instance. @x402/extensions\' wrapFetchWithSIWx and the x402 client hook createSIWxClientHook send it.',
        schema: { type: 'string' },
      },
      {
        name: 'Prefer',
        in: 'header',
        required: false,
        description:
          'RFC 7240 `network=<CAIP-2 network or namespace>`, e.g. `network=solana`: the 402 lists that chain\'s requirement first in accepts (and answers Preference-Applied), for clients that pay or sign in with accepts[0] only (wrapFetchWithSIWx). The offer is the same either way.',
        schema: { type: 'string' },
      },
    ],
    requestBody: { required: true, content },
    responses: {
      '200': {
        description: `The result; delivered only after settlement, and the same bytes again to a resend that proves its buyer. ${RESEND_NEEDS_PROOF}`,
        headers: {
          'PAYMENT-RESPONSE': {
            description:
              'x402 SettleResponse, base64 JSON (transaction hash, network, payer). When the service signs (signing.signer in /.well-known/x402), extensions["offer-receipt"] holds the signed receipt bound to the request and to these response bytes: #/components/schemas/OfferReceiptExtension. A redelivery carries the same receipt.',
            schema: { type: 'string' },
          },
          'X-Payment-Replayed': { description: 'true when this is a stored result delivered again (to a sign-in, or a resend with its proof): nothing was charged by this request.', schema: { type: 'string', enum: ['true', 'false'] } },
          'Payment-Receipt': { description: 'MPP receipt (base64url JSON: method evm, reference = the transfer\'s transaction, status, timestamp); present when the call paid with an MPP credential (Authorization or Payment-Authorization).', schema: { type: 'string' } },
        },
        content: { 'application/json': { schema: outputSchema, examples: Object.fromEntries(cap.examples.map((e, i) => [`example${i + 1}`, { value: e.output }])) } },
      },
      '400': errorResponse(400, 'The request breaks the input schema or a rule; no payment step happened'),
      '402': {
        description: `Payment required (${shortDescription(cap)}). PAYMENT-REQUIRED carries the x402 v2 PaymentRequired; the body is the same PaymentRequired plus problem (code, price, how to pay). A request with no body at all gets the discovery challenge (the base price; the bazaar extension with the input and output shapes and an example); it cannot be paid: a payment sent without a body is refused with 400. Codes: ${codesFor(402).join(', ')}.`,
        headers: {
          'PAYMENT-REQUIRED': {
            description:
              'x402 v2 PaymentRequired, base64 JSON, under 2 KB. To a request with a body, its extensions["sign-in-with-x"] declares the sign-in that gets a paid result again (info: domain, uri, statement, version, a nonce, issuedAt and expirationTime of this 402 alone; supportedChains: every chain of accepts), as @x402/extensions\' declareSIWxExtension describes it; short of room the schemas of sign-in-with-x and payment-identifier are left out. The discovery challenge (no body) declares no sign-in.',
            schema: { type: 'string' },
          },
          'PAYMENT-RESPONSE': { description: 'Present when a settlement was attempted and failed (success false).', schema: { type: 'string' } },
          'Preference-Applied': { description: 'network=<the Prefer value>, when a Prefer: network=… put that chain first in accepts.', schema: { type: 'string' } },
          'WWW-Authenticate': {
            description: 'When the service offers MPP: a fresh `Payment` challenge (method evm, intent charge) for this 402 alone; with header="Payment-Authorization" when the request\'s Authorization holds another scheme or it came with Payment-Authorization (send the credential there). To a request that paid with an MPP credential, errors are RFC 9457 problems (application/problem+json) of the draft\'s types, with error.code as in every other error.',
            schema: { type: 'string' },
          },
        },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/PaymentChallenge' } }, 'application/problem+json': { schema: { type: 'object', required: ['type', 'title', 'status'] } } },
      },
      '409': errorResponse(409, 'The payment is bound to another request, its identifier was used for another request, or it is being processed'),
      '413': errorResponse(413, 'The body is larger than this resource accepts'),
      '415': errorResponse(415, 'The content type is not accepted'),
      '429': errorResponse(429, 'A bound payment was presented without proof too often: its payment-identifier is not compared until Retry-After (a SIGN-IN-WITH-X proof still is)'),
      '503': errorResponse(503, 'Fail closed: nothing was delivered and nothing was settled by this response'),
      ...extra,
    },
  };
}

export function buildOpenApi(ctx: ModuleContext, baseUrl: string): Record<string, unknown> {
  const paths: OpenApiPaths = {};
  const capabilitySchemas: Record<string, unknown> = {};
  for (const cap of ctx.catalog) {
    paths[cap.path] = { ...(paths[cap.path] ?? {}), [cap.method.toLowerCase()]: paidOperation(cap, ctx, capabilitySchemas) };
  }
  for (const r of OPERATIONS_DESCRIBED) paths[r.path] = { ...(paths[r.path] ?? {}), [r.method.toLowerCase()]: r.operation };
  for (const r of ctx.allFreeRoutes()) paths[r.path] = { ...(paths[r.path] ?? {}), [r.method.toLowerCase()]: r.operation };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pay-per-call utilities and machine-economy intelligence for agents',
      version: OPENAPI_VERSION,
      description:
        `Deterministic paid utilities (x402 v2, USDC) and free discovery resources for software agents. Paid operations answer 402 with PAYMENT-REQUIRED until paid; no API key or account is used anywhere. ${RESEND_NEEDS_PROOF}`,
      'x-guidance': 'Read /llms.txt for how to pay and how to get a quote from the outcome router.',
      ...(ctx.config.operatorContact && { contact: { name: 'Service operator', ...ctx.config.operatorContact } }),
    },
    servers: [{ url: baseUrl }],
    'x-agentcash-guidance': { llmsTxtUrl: `${baseUrl}/llms.txt` },
    tags: [
      { name: 'paid', description: 'x402 paid resources' },
      { name: 'discovery', description: 'Free documents that describe the service' },
      { name: 'operations', description: 'Health and readiness' },
    ],
    paths,
    components: {
      schemas: {
        ...capabilitySchemas,
        Error: ERROR_SCHEMA,
        ErrorCode: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Closed set of stable error codes.' },
        OfferReceiptExtension: receiptExtensionSchema,
        SignedQuoteOffer: signedQuoteOfferSchema,
        PaymentChallenge: {
          type: 'object',
          description:
            'The body of every 402: the x402 v2 PaymentRequired of the PAYMENT-REQUIRED header (with error set to the sentence), plus problem, this service\'s explanation in the same shape as every other error body, with the price and how to pay.',
          required: ['x402Version', 'error', 'resource', 'accepts', 'problem'],
          properties: {
            x402Version: { type: 'integer', const: 2 },
            error: { type: 'string', description: 'Why payment is required, in words (problem.message).' },
            resource: {
              type: 'object',
              required: ['url'],
              properties: {
                url: { type: 'string', format: 'uri' },
                description: { type: 'string' },
                mimeType: { type: 'string' },
                // Bazaar's service metadata, where x402 v2 carries it; short of header room the icon, then the tags, then the name are left out.
                serviceName: { type: 'string', maxLength: 32, description: "Bazaar service metadata: the service's name." },
                tags: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 32 }, description: 'Bazaar service metadata: the names the outcome router knows this resource by.' },
                iconUrl: { type: 'string', format: 'uri', description: "Bazaar service metadata: the service's icon, at its own origin (absent at an IP or localhost origin, which Bazaar does not keep)." },
              },
            },
            accepts: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                required: ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'],
                properties: {
                  scheme: { type: 'string', const: 'exact' },
                  network: { type: 'string', description: 'CAIP-2 network id.' },
                  amount: { type: 'string', description: 'Atomic units of the asset.' },
                  asset: { type: 'string' },
                  payTo: { type: 'string' },
                  maxTimeoutSeconds: { type: 'integer' },
                  extra: { type: 'object', description: 'EIP-712 domain name and version of the asset.' },
                },
              },
            },
            extensions: { type: 'object', description: 'x402 extensions: bazaar (discovery: input and output shapes, an example) and payment-identifier.' },
            problem: {
              type: 'object',
              required: ['code', 'message', 'details', 'price', 'how_to_pay'],
              properties: {
                code: { type: 'string', enum: codesFor(402) },
                message: { type: 'string' },
                details: ERROR_SCHEMA.properties.error.properties.details,
                price: {
                  type: 'object',
                  required: ['amount_atomic', 'asset', 'network', 'pay_to'],
                  properties: { amount_atomic: { type: 'string' }, asset: { type: 'string' }, network: { type: 'string' }, pay_to: { type: 'string' } },
                },
                how_to_pay: { type: 'string' },
              },
            },
          },
        },
      },
    },
  };
}
