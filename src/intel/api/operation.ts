/**
 * The pieces every JSON route descriptor is made of: its OpenAPI operation
 * (parameters from the query declarations, responses from the response
 * schemas) and, for MCP tools, the arguments schema built from the same
 * declarations, so the route, its documentation and its tool cannot drift.
 */
import { ERROR_BODY_SCHEMA } from '../../errors.js';
import type { JsonSchema } from '../schema-parts.js';
import type { ParameterDef } from '../http.js';

export interface OperationSpec {
  operationId: string;
  summary: string;
  parameters: readonly ParameterDef[];
  requestSchema?: JsonSchema;
  /** A non-JSON body (NDJSON import), described as a string. */
  requestMediaType?: string;
  responses: Record<string, { description: string; schema?: JsonSchema }>;
  /** Admin routes need `Authorization: Bearer <ADMIN_TOKEN>` and exist only when ADMIN_TOKEN is set. */
  admin?: boolean;
}

export const badRequest = { description: 'Invalid parameter or body (stable code in error.code).', schema: ERROR_BODY_SCHEMA };
export const notModified = { description: 'Not modified (If-None-Match matched the strong ETag).' };
export const unauthorized = { description: 'Missing or wrong bearer token.', schema: ERROR_BODY_SCHEMA };
export const notFound = { description: 'Not found (also every admin route when ADMIN_TOKEN is not set).', schema: ERROR_BODY_SCHEMA };
export const conflict = { description: 'Conflict', schema: ERROR_BODY_SCHEMA };

export function openapiParameter(p: ParameterDef) {
  return { name: p.name, in: p.in, required: p.in === 'path' ? true : (p.required ?? false), description: p.description, schema: p.schema };
}

/** The OpenAPI operation object (key order is part of the published document). */
export function operation(spec: OperationSpec): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: spec.operationId,
    summary: spec.summary,
    tags: [spec.admin ? 'admin' : 'intelligence'],
    ...(spec.admin ? { description: 'Operator only: send Authorization: Bearer <ADMIN_TOKEN>. Exists only when ADMIN_TOKEN is set.' } : { security: [] }),
    parameters: spec.parameters.map(openapiParameter),
    responses: Object.fromEntries(
      Object.entries(spec.responses).map(([status, resp]) => [status, resp.schema ? { description: resp.description, content: { 'application/json': { schema: resp.schema } } } : { description: resp.description }]),
    ),
  };
  if (spec.requestSchema) op.requestBody = { required: true, content: { 'application/json': { schema: spec.requestSchema } } };
  if (spec.requestMediaType) op.requestBody = { required: true, content: { [spec.requestMediaType]: { schema: { type: 'string', description: 'One JSON content record per line.' } } } };
  return op;
}

/** An MCP tool's arguments: the route's query parameters. */
export function queryArgsSchema(defs: readonly ParameterDef[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(defs.filter((d) => d.in === 'query').map((d) => [d.name, { ...d.schema, description: d.description }])),
  };
}

export function noArgs(): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, properties: {} };
}

/** Tool arguments → query string values (absent and null arguments are left out). */
export function toQuery(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}
