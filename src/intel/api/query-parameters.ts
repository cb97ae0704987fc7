/**
 * The query parameters of the JSON routes, as data: http.ts parses requests
 * against them, the OpenAPI operations list them and the MCP tools take them
 * as arguments, so the three can never disagree.
 */
import type { ParameterDef } from '../http.js';
import { ENTITY_ID, TIER, TIMESTAMP_PARAM, TOPIC, type JsonSchema } from '../schema-parts.js';
import { ENTITY_TYPES, ITEM_TYPES, RELATIONSHIP_TYPES } from '../types.js';

const PAGE_CURSOR: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,600}$' };

const limitParam = (def: number): ParameterDef => ({
  name: 'limit',
  in: 'query',
  description: `Items per response, 1–200 (default ${def}).`,
  schema: { type: 'integer', minimum: 1, maximum: 200, default: def },
});
const sinceParam = (what: string): ParameterDef => ({ name: 'since', in: 'query', description: `Only ${what} whose last update (store time) is strictly after this timestamp.`, schema: TIMESTAMP_PARAM });
const pageCursor: ParameterDef = { name: 'cursor', in: 'query', description: 'Opaque cursor from nextCursor of the previous page.', schema: PAGE_CURSOR };

export const QUERY_PARAMETERS = {
  newswire: [
    { name: 'since', in: 'query', description: 'Only items whose lastUpdatedAt is strictly after this timestamp (pass the previous nextCursor). Default: the epoch.', schema: TIMESTAMP_PARAM },
    { name: 'until', in: 'query', description: 'Only items whose lastUpdatedAt is at or before this timestamp. nextCursor and generatedAt never exceed it.', schema: TIMESTAMP_PARAM },
    { ...limitParam(50), description: 'Most items to return, 1–200 (default 50). When more match, the oldest-updated after `since` are kept and truncated is true.' },
    { name: 'type', in: 'query', description: 'Only items of this type.', schema: { type: 'string', enum: [...ITEM_TYPES] } },
    { name: 'topic', in: 'query', description: 'Only items tagged with this topic.', schema: TOPIC },
    { name: 'entity', in: 'query', description: 'Only items that involve this graph entity id.', schema: ENTITY_ID },
    { name: 'protocol', in: 'query', description: 'Only items that involve this protocol id (x402, mcp, a2a, ap2, l402, mpp, …).', schema: ENTITY_ID },
    { name: 'min_tier', in: 'query', description: 'Only items at this evidence tier or stronger (TIER_A strongest).', schema: TIER },
    { name: 'first_party', in: 'query', description: 'true: only items about the operator’s own products; false: only the others.', schema: { type: 'boolean' } },
    { name: 'include_retracted', in: 'query', description: 'Include retracted items (marked retracted with their reason). Default false: a retracted item leaves the feed.', schema: { type: 'boolean', default: false } },
    {
      name: 'material_only',
      in: 'query',
      description: 'true: only items that report a concrete change (official_announcement, first_party_product, standards, company_move, protocol_release, version_update, new_product, new_directory, repository_release); signals, analysis seeds, digests and snapshots are left out. Default false.',
      schema: { type: 'boolean', default: false },
    },
  ] satisfies ParameterDef[],
  changesSinceSample: [
    { name: 'cursor', in: 'query', description: 'Store time to start after (the nextCursor of a previous call). Default: the epoch.', schema: TIMESTAMP_PARAM },
    { name: 'since', in: 'query', description: 'Alias of cursor.', schema: TIMESTAMP_PARAM },
  ] satisfies ParameterDef[],
  graphEntities: [
    { name: 'type', in: 'query', description: 'Only entities of this type.', schema: { type: 'string', enum: [...ENTITY_TYPES] } },
    sinceParam('entities'),
    limitParam(100),
    pageCursor,
  ] satisfies ParameterDef[],
  graphRelationships: [
    { name: 'type', in: 'query', description: 'Only relationships of this type.', schema: { type: 'string', enum: [...RELATIONSHIP_TYPES] } },
    { name: 'entity', in: 'query', description: 'Only relationships from or to this entity id.', schema: ENTITY_ID },
    { name: 'from', in: 'query', description: 'Only relationships from this entity id.', schema: ENTITY_ID },
    { name: 'to', in: 'query', description: 'Only relationships to this entity id.', schema: ENTITY_ID },
    sinceParam('relationships'),
    limitParam(100),
    pageCursor,
  ] satisfies ParameterDef[],
  graphEvents: [
    { name: 'type', in: 'query', description: 'Only events of this type (the item types).', schema: { type: 'string', enum: [...ITEM_TYPES] } },
    { name: 'entity', in: 'query', description: 'Only events that involve this entity id.', schema: ENTITY_ID },
    sinceParam('events'),
    limitParam(100),
    pageCursor,
  ] satisfies ParameterDef[],
  graphEntity: [{ name: 'id', in: 'path', required: true, description: 'Entity id.', schema: ENTITY_ID }] satisfies ParameterDef[],
} as const;
