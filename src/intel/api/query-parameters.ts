/**
 * The query parameters of the JSON routes, as data: http.ts parses requests
 * against them, the OpenAPI operations list them and the MCP tools take them
 * as arguments, so the three can never disagree.
 */
import type { ParameterDef } from '../http.js';
import { ENTITY_ID, TIER, TIMESTAMP_PARAM, TOPIC, type JsonSchema } from '../schema-parts.js';
import { ENTITY_TYPES, ITEM_TYPES, RELATIONSHIP_TYPES } from '../types.js';

const PAGE_CURSOR: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,600}$' };
/** A changes-since cursor: an ISO 8601 timestamp or an opaque `c1.…` nextCursor (checked by changes.ts). */
const CHANGE_CURSOR_PARAM: JsonSchema = { type: 'string', minLength: 1, maxLength: 640 };

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
    {
      name: 'since',
      in: 'query',
      description:
        'Polling: only items whose lastUpdatedAt is strictly after this timestamp (pass the previous nextCursor), oldest-updated kept when more match. Store time: when the item last changed here ("stored since"), not when its event happened (see event_since). Without it the feed shows the newest items.',
      schema: TIMESTAMP_PARAM,
    },
    { name: 'until', in: 'query', description: 'Only items whose lastUpdatedAt is at or before this timestamp (a polling window, oldest-updated first, like since). nextCursor and generatedAt never exceed it.', schema: TIMESTAMP_PARAM },
    {
      name: 'event_since',
      in: 'query',
      description: 'Only items whose event happened on or after this calendar date (eventDate, UTC, day precision; a timestamp is read as its date) — "happened since", where `since` is "stored since".',
      schema: TIMESTAMP_PARAM,
    },
    {
      ...limitParam(50),
      description: 'Most items to return, 1–200 (default 50). Without `since` and `until`: the newest (by eventDate, then lastUpdatedAt). With either (polling): the oldest-updated in the window; truncated is true when more match.',
    },
    { name: 'cursor', in: 'query', description: 'Without `since` and `until`: the olderCursor of the previous page, for the next older page.', schema: PAGE_CURSOR },
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
    { name: 'cursor', in: 'query', description: 'Where to start: an ISO 8601 store time, or the nextCursor of a previous call as given. Default: the beginning.', schema: CHANGE_CURSOR_PARAM },
    { name: 'since', in: 'query', description: 'Alias of cursor.', schema: CHANGE_CURSOR_PARAM },
    { name: 'event_since', in: 'query', description: 'Only changes of items whose event happened on or after this calendar date.', schema: TIMESTAMP_PARAM },
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
