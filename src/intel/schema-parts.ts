/**
 * JSON Schema fragments for the values of the content model (ids, store
 * timestamps, URLs, tiers), shared by the import record schemas and the
 * response schemas so both say the same thing about the same value.
 */
import type { JsonSchema } from '../catalog/capability.js';
import { EVIDENCE_TIER_IDS, SOURCE_TYPES } from './tiers.js';

export type { JsonSchema };

export const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
export const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
export const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
export const strings = (description: string, items: JsonSchema = { type: 'string' }): JsonSchema => ({ type: 'array', description, items });

/** Store timestamps: ISO 8601 UTC with exactly six fractional digits (microseconds). */
export const STORE_TIMESTAMP: JsonSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$',
  description: 'ISO 8601 UTC timestamp with microseconds, e.g. 2026-11-22T08:09:02.123456Z. Assigned by the store; string order is time order.',
};
export const ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,127}$';
export const ENTITY_ID: JsonSchema = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$', description: 'Entity id (lower-case, digits, hyphens).' };
export const TOPIC: JsonSchema = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' };
export const URL_SCHEMA: JsonSchema = { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 };
export const CALENDAR_DATE: JsonSchema = { type: 'string', format: 'date', description: 'YYYY-MM-DD' };
export const TIER: JsonSchema = { type: 'string', enum: [...EVIDENCE_TIER_IDS] };
export const SOURCE_TYPE: JsonSchema = { type: 'string', enum: [...SOURCE_TYPES] };
export const CONFIDENCE: JsonSchema = { type: 'number', minimum: 0, maximum: 1, description: 'Follows the evidence tier; lower within the tier when the item carries a caveat.' };

/** A timestamp parameter: ISO 8601 date-time, or a bare date read as midnight UTC. */
export const TIMESTAMP_PARAM: JsonSchema = { type: 'string', anyOf: [{ format: 'date-time' }, { format: 'date' }] };
