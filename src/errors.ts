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
