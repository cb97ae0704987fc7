/**
 * JSON Schemas (draft 2020-12, no `$ref`, so each embeds as is in OpenAPI 3.1)
 * of the outcome router: quote request (built from the catalog, because the
 * well-known capability fields it folds into `inputs` come from there), quote
 * response, router execution result, contract and error body.
 */
import type { JsonSchema } from '../catalog/capability.js';
import { ERROR_BODY_SCHEMA } from '../errors.js';
import { signedQuoteOfferSchema, stepCommitmentSchema } from '../commitments/schemas.js';

export const OBJECTIVE_FIELDS = ['objective', 'goal', 'task', 'outcome', 'query'] as const;
export const FRESHNESS = ['any', 'cached_ok', 'current_public'] as const;
export const LATENCY = ['any', 'interactive', 'batch'] as const;
export const EVIDENCE = ['any', 'deterministic', 'sourced'] as const;
export const PREFERRED_PROTOCOLS = ['any', 'the service', 'http-402', 'mcp'] as const;
const MAX_PRICE_PATTERN = '^[1-9][0-9]{0,11}$';
const OBJECTIVE_MAX_CHARS = 2000;
/**
 * Members of `inputs` and of `required_output`: a quote names each one it does
 * not use (or cover), with a reason, so their number and the length of their
 * names bound what it writes.
 */
export const NAMED_MEMBERS_MAX = 100;
export const MEMBER_NAME_MAX_CHARS = 128;
const namedMembers = { maxProperties: NAMED_MEMBERS_MAX, propertyNames: { maxLength: MEMBER_NAME_MAX_CHARS } } as const;
/** A quote body whose JSON would run past this many characters names its largest values the caller sent instead of echoing them (by-reference.ts). */
export const ECHO_LIMIT_CHARS = 4096;

/** Fields of the quote request itself; anything else at the top level must be a foldable capability field. */
export const ROUTER_FIELDS: readonly string[] = [
  ...OBJECTIVE_FIELDS,
  'inputs',
  'required_output',
  'freshness',
  'latency',
  'evidence',
  'max_price',
  'preferred_protocol',
  'buyer_metadata',
];

const objectiveSchema = (alias?: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: OBJECTIVE_MAX_CHARS,
  description: alias
    ? `Alias of objective (send exactly one of objective, goal, task, outcome, query).`
    : 'What you want done, in words: plain phrasing, a product name, a capability id or a live route. #RRGGBB pairs written here are used as contrast inputs when inputs.foreground/background are absent.',
});

/**
 * The quote request schema. `folded` maps every well-known capability field
 * accepted at the top level to the `inputs` key it becomes (`fg` → `foreground`).
 * The published schema says "exactly one objective field" with `oneOf`; the
 * service validates that rule itself to name the field in its error.
 */
export function quoteRequestSchema(folded: ReadonlyMap<string, string>, opts: { forValidation?: boolean; canonical?: boolean } = {}): JsonSchema {
  const properties: Record<string, unknown> = {
    objective: objectiveSchema(),
    goal: objectiveSchema('goal'),
    task: objectiveSchema('task'),
    outcome: objectiveSchema('outcome'),
    query: objectiveSchema('query'),
    inputs: {
      type: 'object',
      ...namedMembers,
      description:
        `Caller-supplied facts: the native fields of the capabilities (foreground, background, large_text, source_fields, target_fields, html, base_url, uri, token_id, cursor, …), batch lists (pairs, comparisons, uris, pages) or items (an array of native bodies, each optionally with capability_id). No secrets; the service fetches no URLs. At most ${NAMED_MEMBERS_MAX} members, names of at most ${MEMBER_NAME_MAX_CHARS} characters.`,
    },
    required_output: {
      type: 'object',
      ...namedMembers,
      description: `Desired output shape (top-level field names, at most ${NAMED_MEMBERS_MAX}, of at most ${MEMBER_NAME_MAX_CHARS} characters); the quote says which of them the planned outputs carry.`,
    },
    freshness: { type: 'string', enum: [...FRESHNESS], default: 'any' },
    latency: { type: 'string', enum: [...LATENCY], default: 'any' },
    evidence: { type: 'string', enum: [...EVIDENCE], default: 'any', description: 'sourced: only outcomes whose results cite their sources.' },
    max_price: { type: 'string', pattern: MAX_PRICE_PATTERN, description: 'The most you will pay in total, in atomic units of USDC (1000 = US$0.001). A plan above it is rejected before any payment.' },
    preferred_protocol: { type: 'string', enum: [...PREFERRED_PROTOCOLS], default: 'any', description: 'Every route is paid with x402 v2 over HTTP; mcp only changes the advice (the MCP endpoint hands the challenge back, it never pays).' },
    buyer_metadata: { type: 'object', description: 'Free-form non-secret hints. Secret-like keys (password, secret, token, api key, private key, mnemonic, seed, authorization, cookie, session, …) are stripped at any depth on arrival, never logged and never persisted; the quote reports how many.' },
  };
  if (opts.canonical) {
    // The canonical form tool surfaces (MCP) take: objective and the router's own fields; the aliases stay an HTTP convenience.
    for (const alias of OBJECTIVE_FIELDS.slice(1)) delete properties[alias];
    return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Router quote request', type: 'object', additionalProperties: false, required: ['objective'], properties };
  }
  for (const [field, target] of [...folded.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (ROUTER_FIELDS.includes(field)) continue;
    properties[field] = { description: field === target ? `Folded into inputs.${field}.` : `Folded into inputs.${target}.` };
  }
  const schema: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Router quote request',
    type: 'object',
    additionalProperties: false,
    properties,
  };
  if (!opts.forValidation) schema.oneOf = OBJECTIVE_FIELDS.map((f) => ({ required: [f] }));
  return schema;
}

const str = { type: 'string' } as const;
const strings = { type: 'array', items: { type: 'string' } } as const;
const atomic = { type: 'string', pattern: '^(0|-?[1-9][0-9]*)$', description: 'Atomic units of the asset (USDC: 6 decimals).' } as const;
const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

const pointer = { type: 'string', pattern: '^(/([^~]|~[01])*)+$', description: 'A JSON pointer (RFC 6901).' } as const;
const digestFields = {
  bytes: { type: 'integer', minimum: 0, description: 'Size in UTF-8 bytes of its RFC 8785 canonical JSON.' },
  sha256: { ...sha256, description: 'SHA-256 of its RFC 8785 canonical JSON.' },
} as const;

/** A body the quote does not write out because it holds a value the caller sent that is too large to echo (by-reference.ts). */
const bodyByReferenceSchema = (what: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['template', 'references', 'bytes', 'sha256'],
  description: `How to build ${what}, which holds a value you sent too large to echo: take template and, for each reference, set the member at \`at\` (a JSON pointer into the body; null in the template) to the value at \`from\` (a JSON pointer into the request you sent to this quote, exactly as you sent it). The body so built has the canonical-JSON size and SHA-256 given here (a signed_offer binds that hash).`,
  properties: {
    template: { type: 'object' },
    references: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', additionalProperties: false, required: ['at', 'from'], properties: { at: pointer, from: pointer } },
    },
    ...digestFields,
  },
});

const routeSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['method', 'path', 'url'],
  properties: { method: { type: 'string', enum: ['POST'] }, path: str, url: { type: 'string', format: 'uri' } },
};

const priceSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount_atomic', 'asset', 'asset_symbol', 'decimals', 'network', 'pay_to', 'scheme'],
  properties: {
    amount_atomic: atomic,
    asset: { type: 'string', description: 'Token contract address.' },
    asset_symbol: str,
    decimals: { type: 'integer' },
    network: { type: 'string', description: 'CAIP-2 network id.' },
    pay_to: { type: 'string', description: 'The service\'s payee: the same for every resource.' },
    scheme: { const: 'exact' },
  },
};

const planSchema: JsonSchema = {
  type: 'object',
  required: ['suppliers', 'expected_cogs_atomic', 'expected_latency_ms', 'expected_reliability'],
  properties: {
    suppliers: { ...strings, description: 'Capability ids that deliver the plan (all owned by the service).' },
    expected_cogs_atomic: { ...atomic, description: 'Expected cost of goods, atomic units: the steps\' supplier costs plus X402_SETTLEMENT_COST_ATOMIC for each of the plan\'s payments (one settlement per payment).' },
    expected_latency_ms: { type: 'number', description: 'Handler time of all steps, excluding settlement.' },
    expected_reliability: { type: 'number', minimum: 0, maximum: 1, description: 'Estimated probability that every payment settles and every step delivers.' },
    evidence_level: { type: 'string', enum: ['deterministic', 'sourced'] },
    payments: { type: 'integer', minimum: 1 },
  },
};

const economicsSchema: JsonSchema = {
  type: 'object',
  required: ['buyer_price_atomic', 'cogs_atomic', 'contribution_atomic', 'supplier_spend_atomic', 'margin'],
  properties: {
    buyer_price_atomic: atomic,
    cogs_atomic: { ...atomic, description: 'Cost of goods, atomic units: supplier spend plus the settlements the buyer\'s payments cost the operator (X402_SETTLEMENT_COST_ATOMIC each: one per step of a quote, one for a composite call).' },
    contribution_atomic: { ...atomic, description: 'buyer_price_atomic − cogs_atomic. A plan where it would be negative is refused (422 negative_contribution).' },
    supplier_spend_atomic: { ...atomic, description: 'What the plan pays suppliers (settlements not included); 0 for the service\'s own handlers.' },
    margin: { type: 'number', description: 'contribution / buyer price.' },
  },
};

export const quoteResponseSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Router quote',
  type: 'object',
  additionalProperties: false,
  required: [
    'quote_id',
    'created_at',
    'status',
    'objective',
    'canonical_request',
    'request_fingerprint',
    'outcome',
    'interpretation',
    'steps',
    'execute_route',
    'native_body',
    'batch_size',
    'composed',
    'total_price',
    'plan',
    'economics',
    'constraints',
    'required_output',
    'how_to_pay',
    'buyer_metadata',
    'limitations',
  ],
  properties: {
    quote_id: { type: 'string', description: 'Differs on every call (as does created_at); everything else is a pure function of the request.' },
    created_at: { type: 'string', format: 'date-time' },
    status: { const: 'QUOTED' },
    objective: str,
    canonical_request: {
      type: ['object', 'null'],
      required: ['objective', 'inputs'],
      description:
        'The request in canonical form (objective plus inputs, plus any non-default constraint). Send it to the composite resource, when it is enabled, to execute the plan with one payment. Null when it holds a value you sent too large to echo: see canonical_request_by_reference.',
    },
    canonical_request_by_reference: bodyByReferenceSchema('the canonical request'),
    request_fingerprint: { ...sha256, description: 'SHA-256 of the canonical request (the fingerprint the composite resource binds a payment to).' },
    referenced_inputs: {
      type: 'array',
      minItems: 1,
      description: `Present when the quote names values you sent instead of echoing them (a body whose JSON would exceed ${ECHO_LIMIT_CHARS} characters names its largest ones): each value once, by its JSON pointer in the request as you sent it, with its canonical-JSON size and SHA-256.`,
      items: { type: 'object', additionalProperties: false, required: ['from', 'bytes', 'sha256'], properties: { from: pointer, ...digestFields } },
    },
    outcome: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'capability_ids', 'description'],
      properties: { kind: { type: 'string', enum: ['single', 'batch', 'composed'] }, capability_ids: strings, description: str },
    },
    interpretation: {
      type: 'object',
      additionalProperties: false,
      required: ['objective_field', 'folded_fields', 'renamed_fields', 'matched', 'assumptions', 'unused_inputs', 'unused_inputs_explained'],
      properties: {
        objective_field: { type: 'string', enum: [...OBJECTIVE_FIELDS] },
        folded_fields: { ...strings, description: 'Top-level fields moved into inputs.' },
        renamed_fields: { ...strings, description: 'Accepted aliases renamed to native field names ("fg → foreground").' },
        matched: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: ['capability_id', 'signals'], properties: { capability_id: str, signals: strings } },
        },
        assumptions: { ...strings, description: 'Everything the router filled in or read from the objective\'s text.' },
        unused_inputs: { ...strings, description: 'Input keys no planned step reads.' },
        unused_inputs_explained: {
          type: 'array',
          description: 'The same keys, in the same order, each with one sentence saying why no step reads it.',
          items: { type: 'object', additionalProperties: false, required: ['input', 'reason'], properties: { input: str, reason: str } },
        },
      },
    },
    steps: {
      type: 'array',
      minItems: 1,
      description: 'In order. On the quote path each step is one paid call: POST native_body to execute_route.url, pay its 402, repeat with PAYMENT-SIGNATURE.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['step', 'capability_id', 'title', 'source', 'execute_route', 'native_body', 'price', 'evidence_level'],
        properties: {
          step: { type: 'integer', minimum: 1 },
          capability_id: str,
          title: str,
          source: { type: 'string', description: 'JSON pointer of the request part this item came from (/inputs, /inputs/pairs/1, /objective …).' },
          execute_route: routeSchema,
          native_body: { type: ['object', 'null'], description: 'Valid against the capability\'s input schema; send it as the JSON body. Null when it holds a value you sent too large to echo: build it from native_body_by_reference.' },
          native_body_by_reference: bodyByReferenceSchema('this step\'s native body'),
          price: priceSchema,
          evidence_level: { type: 'string', enum: ['deterministic', 'sourced'] },
          signed_offer: signedQuoteOfferSchema,
        },
      },
    },
    execute_route: { oneOf: [routeSchema, { type: 'null' }], description: 'The route when every step uses the same one (a single call or a batch); null for a composition.' },
    native_body: { type: ['object', 'null'], description: 'The body when there is exactly one step (null when that step\'s native_body is).' },
    batch_size: { type: 'integer', minimum: 1, description: 'Number of items, i.e. steps (= sequential payments on the quote path).' },
    composed: { type: 'boolean', description: 'True when the steps use more than one capability.' },
    total_price: {
      type: 'object',
      additionalProperties: false,
      required: ['amount_atomic', 'asset', 'asset_symbol', 'decimals', 'network', 'pay_to', 'scheme', 'payments'],
      properties: { ...(priceSchema.properties as Record<string, unknown>), payments: { type: 'integer', minimum: 1 } },
    },
    plan: planSchema,
    economics: economicsSchema,
    constraints: {
      type: 'object',
      additionalProperties: false,
      required: ['max_price', 'freshness', 'latency', 'evidence', 'preferred_protocol', 'notes'],
      properties: {
        max_price: { type: ['string', 'null'] },
        freshness: { type: 'string', enum: [...FRESHNESS] },
        latency: { type: 'string', enum: [...LATENCY] },
        evidence: { type: 'string', enum: [...EVIDENCE] },
        preferred_protocol: { type: 'string', enum: [...PREFERRED_PROTOCOLS] },
        notes: strings,
      },
    },
    required_output: {
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['covered', 'not_covered'], properties: { covered: strings, not_covered: strings } },
        { type: 'null' },
      ],
    },
    how_to_pay: {
      type: 'object',
      required: ['protocol', 'x402_version', 'scheme', 'payments', 'instructions'],
      properties: {
        protocol: { const: 'x402' },
        x402_version: { const: 2 },
        scheme: { const: 'exact' },
        payments: { type: 'integer', minimum: 1 },
        instructions: strings,
        composite: {
          type: 'object',
          description:
            'Present only when the deployment enables the composite resource: the whole plan for one payment of the total. body is the canonical request; null when canonical_request is, then body_by_reference builds it (or send the request exactly as you sent it to this quote: it plans the same).',
          required: ['execute_route', 'body', 'price'],
          properties: {
            execute_route: routeSchema,
            body: { type: ['object', 'null'] },
            body_by_reference: bodyByReferenceSchema('the composite body (the canonical request)'),
            price: priceSchema,
            signed_offer: signedQuoteOfferSchema,
          },
        },
      },
    },
    buyer_metadata: {
      type: 'object',
      additionalProperties: false,
      required: ['received', 'secret_keys_stripped', 'keys_kept'],
      properties: { received: { type: 'boolean' }, secret_keys_stripped: { type: 'integer', minimum: 0 }, keys_kept: { type: 'integer', minimum: 0 } },
    },
    limitations: strings,
  },
};

export const executionResultSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Router execution result',
  type: 'object',
  additionalProperties: true,
  required: ['status', 'execution_id', 'outcome', 'result', 'evidence', 'economics', 'limitations'],
  properties: {
    status: { type: 'string', enum: ['DELIVERED'] },
    execution_id: str,
    request_fingerprint: sha256,
    outcome: { type: 'string', description: 'The objective, echoed.' },
    plan: planSchema,
    value_add: {
      type: 'object',
      required: ['operations', 'not_a_pure_proxy'],
      properties: { operations: strings, not_a_pure_proxy: { type: 'boolean' } },
    },
    result: {
      type: 'object',
      required: ['results', 'batch_size', 'composed'],
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            required: ['capability_id', 'output'],
            properties: { step: { type: 'integer' }, capability_id: str, output: { type: 'object', description: 'That capability\'s native response, exactly as its own route returns it.' } },
          },
        },
        batch_size: { type: 'integer', minimum: 1 },
        composed: { type: 'boolean' },
      },
    },
    evidence: {
      type: 'object',
      required: ['level', 'provenance', 'network_fetches', 'model_calls', 'supplier_payments', 'output_sha256', 'contradictions', 'generated_at'],
      properties: {
        level: { type: 'string', enum: ['deterministic', 'sourced'] },
        provenance: {
          type: 'array',
          items: {
            type: 'object',
            required: ['step', 'capability_id', 'route', 'handler', 'input_sha256', 'output_sha256'],
            properties: { step: { type: 'integer' }, capability_id: str, route: str, handler: { const: 'in-process' }, input_sha256: sha256, output_sha256: sha256, commitment: stepCommitmentSchema },
          },
        },
        network_fetches: { type: 'integer', minimum: 0, description: 'Outbound HTTP requests made while executing (counted, not asserted).' },
        model_calls: { type: 'integer', minimum: 0 },
        supplier_payments: { type: 'integer', minimum: 0 },
        handler_invocations: { type: 'integer', minimum: 0 },
        output_sha256: { ...sha256, description: 'SHA-256 of the canonical JSON (sorted keys, no whitespace) of `result`.' },
        contradictions: { type: 'array', items: { type: 'object' } },
        generated_at: { type: 'string', format: 'date-time' },
      },
    },
    economics: economicsSchema,
    latency_ms: { type: 'number' },
    limitations: strings,
  },
};

export const routerErrorSchema: JsonSchema = ERROR_BODY_SCHEMA;

export const routerContractSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Router contract',
  type: 'object',
  required: ['name', 'contract_version', 'job', 'endpoints', 'aliases', 'schemas', 'supported_outcomes', 'compositions', 'unsupported_outcomes', 'rules', 'errors'],
  properties: {
    name: str,
    contract_version: str,
    job: str,
    endpoints: { type: 'object' },
    aliases: {
      type: 'object',
      required: ['objective', 'folded_fields', 'field_aliases', 'colours_in_objective'],
      properties: { objective: strings, folded_fields: strings, field_aliases: { type: 'object', additionalProperties: str }, colours_in_objective: str, languages: str },
    },
    schemas: { type: 'object', required: ['quote_request', 'quote_response'] },
    supported_outcomes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'capability_id', 'description', 'route', 'method', 'price', 'required_inputs', 'example_quote'],
        properties: {
          id: str,
          capability_id: str,
          title: str,
          description: str,
          route: routeSchema,
          method: { type: 'string', enum: ['POST'] },
          price: priceSchema,
          required_inputs: strings,
          optional_inputs: strings,
          batch: { type: ['string', 'null'] },
          names: strings,
          evidence: strings,
          example_quote: { type: ['object', 'null'] },
        },
      },
    },
    compositions: { type: 'object' },
    unsupported_outcomes: {
      type: 'array',
      items: { type: 'object', required: ['category', 'code', 'status', 'reason'], properties: { category: str, code: str, status: { type: 'integer' }, reason: str } },
    },
    rules: strings,
    errors: { type: 'array', items: { type: 'object', required: ['code', 'status', 'meaning'] } },
  },
};
