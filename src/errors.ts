/**
 * The closed set of error codes this service answers with, and the one place
 * that maps them to HTTP status codes. Every surface (HTTP route, MCP tool,
 * router) reports problems as a `ServiceError`; only the surface glue turns it
 * into a response.
 */
export const ERROR_CODES = {
  // 400 — the request is wrong; nothing about payment has happened.
  invalid_json: 400,
  invalid_request: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  duplicate_field_name: 400,
  invalid_payment_header: 400,
  // 402 — pay (again).
  payment_required: 402,
  payment_invalid: 402,
  // Solana: the transaction's compute budget would cost the facilitator's fee payer more than the service accepts.
  payment_fee_too_high: 402,
  payment_expired: 402,
  settlement_failed: 402,
  // The payment is bound and may be public on chain: prove you are its buyer (payment-identifier or sign-in).
  redelivery_proof_required: 402,
  // 409 — the payment is bound elsewhere or busy.
  payment_bound_to_other_request: 409,
  payment_identifier_conflict: 409,
  payment_in_progress: 409,
  // 404 / 405
  not_found: 404,
  method_not_allowed: 405,
  // 429 — a free route asked too often by one client (Retry-After says when to come back).
  rate_limited: 429,
  // 503 — fail closed: nothing delivered, nothing settled by this response.
  ledger_unavailable: 503,
  facilitator_unavailable: 503,
  settlement_unknown: 503,
  handler_failed: 503,
  handler_over_budget: 503,
  service_unavailable: 503,
  // Outcome router (POST /v1/router/quote and the composite resource). Every
  // router rejection happens before any payment step.
  // 400 — the inputs do not make a valid native body for the chosen capability.
  invalid_inputs: 400,
  // 422 — the request is valid but the router cannot serve it as asked.
  missing_inputs: 422,
  no_matching_outcome: 422,
  price_above_max: 422,
  batch_too_large: 422,
  constraint_unsatisfiable: 422,
  url_fetch_unsupported: 422,
  domain_lookup_unsupported: 422,
  browsing_unsupported: 422,
  screenshot_unsupported: 422,
  wallet_signing_unsupported: 422,
  refund_unsupported: 422,
  mcp_payer_unsupported: 422,
  supplier_not_allowlisted: 422,
  negative_contribution: 422,
  // Intelligence (newswire, graph, content import and admin API).
  invalid_parameter: 400,
  invalid_cursor: 400,
  unknown_reference: 400,
  unauthorized: 401,
  content_conflict: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * What each code tells the caller, in one sentence: the README's error-code
 * table is generated from this (scripts/readme-tables.ts), so a code cannot be
 * returned without being documented.
 */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  invalid_json: 'The body is not strict UTF-8 JSON, or nests deeper than 64 levels; nothing about payment happened.',
  invalid_request: 'The body, a header or a query breaks the operation\'s schema or rules (`details` has a JSON pointer and the rule per problem); a payment sent with it is never verified or settled.',
  unsupported_media_type: 'The body\'s `Content-Type` is not one the operation reads (JSON, or `text/html` for the extractor).',
  payload_too_large: 'The body is over the operation\'s byte limit or holds more JSON values than its surface allows; refused while reading, before parsing.',
  duplicate_field_name: 'Two fields of one contract have the same name after canonicalization (data-compatibility checker).',
  invalid_payment_header: 'A payment header that cannot be read: `PAYMENT-SIGNATURE` not base64 JSON of a PaymentPayload, an MPP credential that does not parse, two different MPP credentials (`Authorization` and `Payment-Authorization`), or both protocols at once; nothing was verified or charged.',
  payment_required: 'Pay to get the result: the 402 carries `PAYMENT-REQUIRED` (x402 v2) and, with MPP on, `WWW-Authenticate: Payment`.',
  payment_invalid: 'The payment does not match the requirements, its signature is wrong, or the facilitator refused it; nothing was charged. Sign a new one.',
  payment_fee_too_high: 'Solana: the transaction would cost the facilitator\'s fee payer more than the service accepts (two signatures\' base fee plus compute unit limit × price; without a limit, the runtime\'s default); nothing was sent or charged. Sign again with a lower compute unit price or limit: the official client\'s budget is accepted.',
  payment_expired: 'The authorization expires too soon to be settled, or expired unused; nothing was charged. Sign a new one.',
  settlement_failed: 'The facilitator refused the settlement and the chain shows the transfer cannot happen any more; nothing was charged.',
  redelivery_proof_required: 'The payment is bound already and may be public on chain: repeat with the payment-identifier it was sent with, or sign in with the paying wallet (`SIGN-IN-WITH-X`) over this 402\'s challenge, to get the stored result.',
  payment_bound_to_other_request: 'This authorization already paid for another body or resource; it buys that one delivery only.',
  payment_identifier_conflict: 'The payment-identifier was already used for another resource or request body; use a new identifier.',
  payment_in_progress: 'Another request is working on this payment right now; retry after `Retry-After` seconds.',
  not_found: 'No resource at this method and path, or no such item, entity or file.',
  method_not_allowed: 'The path exists with another method (`Allow` says which).',
  rate_limited: 'Too many requests from this client on free routes (per minute), or too many wrong payment-identifiers from this client for one bound payment (its identifiers for it are not compared until then; a sign-in by the paying wallet never is limited); `Retry-After` says when to come back.',
  ledger_unavailable: 'The payment ledger did not answer within its deadline: nothing delivered, nothing settled by this response; retry later with the same payment.',
  facilitator_unavailable: 'No facilitator answered (or none accepts the configured credentials): nothing charged; retry later.',
  settlement_unknown: 'The settlement was sent but its outcome is not known yet; retry with the same payment and its proof: the chain decides, never twice.',
  handler_failed: 'The result could not be produced; settle was never sent and nothing was charged.',
  handler_over_budget: 'The handler ran past `HANDLER_BUDGET_MS` on the worker pool and was stopped; settle was never sent and nothing was charged (the same input would be stopped again: send a smaller one).',
  service_unavailable: 'The service could not complete the request (shutting down, an internal failure, a full A2A task store, a chain read that failed); nothing was delivered or charged by it. Retry later.',
  invalid_inputs: 'Outcome router: the inputs do not make a valid native body for the chosen capability (`details` says where).',
  missing_inputs: 'Outcome router: the objective is understood but an input it needs is missing (`details` names it).',
  no_matching_outcome: 'Outcome router: no paid resource here delivers what the objective asks.',
  price_above_max: 'Outcome router: the plan costs more than `max_price`.',
  batch_too_large: 'Outcome router: more items than one batch may hold.',
  constraint_unsatisfiable: 'Outcome router: the constraints given cannot all hold for any plan.',
  url_fetch_unsupported: 'Outcome router: the objective asks to fetch a URL; nothing is ever fetched, send the content itself.',
  domain_lookup_unsupported: 'Outcome router: the objective asks for a domain or DNS lookup, which is not offered.',
  browsing_unsupported: 'Outcome router: the objective asks to browse, search the web, log in or click through a site, which is not offered.',
  screenshot_unsupported: 'Outcome router: the objective asks for a screenshot or rendering, which is not offered.',
  wallet_signing_unsupported: 'Outcome router: the objective asks the service to sign a message or transaction, which it never does.',
  refund_unsupported: 'Outcome router: the objective asks for a refund or chargeback; payments here are final on chain.',
  mcp_payer_unsupported: 'Outcome router: the objective asks this service (or its MCP endpoint) to pay a 402 for the caller; it never pays.',
  supplier_not_allowlisted: 'Outcome router: the objective needs a supplier, API or model provider that is not on the allowlist (empty by default); only the service\'s own handlers are paid.',
  negative_contribution: 'Outcome router: the plan would cost the operator more than its price (settlement cost included).',
  invalid_parameter: 'A query or path parameter of a free route is malformed or out of range (`details` names it).',
  invalid_cursor: 'A cursor is not one this service issued, or is malformed.',
  unknown_reference: 'An imported record names an entity, item or relationship that does not exist.',
  unauthorized: 'The admin API (or a protected `/metrics`) needs `Authorization: Bearer <token>`.',
  content_conflict: 'The content change contradicts what is stored (a retracted item never changes; a published one cannot be held).',
};

export interface ErrorDetail {
  /** JSON pointer into the request (e.g. `/source_fields/0/name`), or `` for the whole body. */
  path: string;
  /** The rule that was broken: a JSON Schema keyword (`required`, `enum`, …) or a service rule. */
  rule: string;
  message?: string;
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  readonly status: number;
  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
    this.status = ERROR_CODES[code];
  }
}

export interface ErrorBody {
  /** reason: one sentence saying why (the outcome router's refusals carry it). */
  error: { code: ErrorCode; message: string; details: ErrorDetail[]; reason?: string };
}

export function errorBody(code: ErrorCode, message: string, details: ErrorDetail[] = []): ErrorBody {
  return { error: { code, message, details } };
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code];
}

/** JSON Schema of every error body: documents the closed set of codes wherever errors are described. */
export const ERROR_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CODES) },
        message: { type: 'string' },
        reason: { type: 'string', description: 'One sentence saying why the request was refused: what it asks and what the service does instead (outcome router refusals).' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'rule'],
            properties: { path: { type: 'string', description: 'JSON pointer into the request' }, rule: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};
