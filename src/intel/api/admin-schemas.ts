/** JSON Schemas of the admin API's answers. */
import { MARKET_MOVEMENTS_SCHEMA } from '../schemas.js';
import { STORE_TIMESTAMP, type JsonSchema } from '../schema-parts.js';
import { NEWSROOM_STATES } from '../types.js';

export const IMPORT_REPORT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['lines', 'created', 'updated', 'unchanged', 'rejected'],
  properties: {
    lines: { type: 'integer', minimum: 0, description: 'Non-blank lines read.' },
    created: { type: 'integer', minimum: 0 },
    updated: { type: 'integer', minimum: 0 },
    unchanged: { type: 'integer', minimum: 0 },
    rejected: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['line', 'code', 'reason', 'details'],
        properties: {
          line: { type: 'integer', minimum: 1 },
          code: { type: 'string' },
          reason: { type: 'string' },
          details: { type: 'array', items: { type: 'object' } },
        },
      },
    },
  },
};

export const ADMIN_WRITE_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['result', 'kind', 'id'],
  properties: {
    result: { type: 'string', enum: ['created', 'updated', 'cosmetic', 'unchanged'], description: 'cosmetic: a new version that did not move lastUpdatedAt.' },
    kind: { type: 'string' },
    id: { type: 'string' },
    version: { type: 'integer' },
    lastUpdatedAt: STORE_TIMESTAMP,
    newsroomState: { type: 'string', enum: [...NEWSROOM_STATES] },
    item: { type: 'object', description: 'The item as stored: the newswire item shape, except that newsroomState may be HELD (TIER_D, never published).' },
    marketMovements: MARKET_MOVEMENTS_SCHEMA,
  },
};
