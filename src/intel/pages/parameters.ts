/** The feed page's query parameters (the item page takes only its slug). */
import type { ParameterDef } from '../http.js';
import { ENTITY_ID, ID_PATTERN, TIMESTAMP_PARAM, TOPIC } from '../schema-parts.js';
import { EVIDENCE_TIER_IDS } from '../tiers.js';
import { ENTITY_TYPES, ITEM_TYPES } from '../types.js';

export const FEED_DEFAULT_LIMIT = 100;

const RETRACTED_FLAG: ParameterDef['schema'] = { type: 'string', enum: ['1', '0', 'true', 'false'], default: '0' };

export const PAGE_PARAMETERS = {
  feed: [
    { name: 'type', in: 'query', description: 'Only items of this type.', schema: { type: 'string', enum: [...ITEM_TYPES] } },
    { name: 'entity', in: 'query', description: 'Only items that involve this graph entity id.', schema: ENTITY_ID },
    { name: 'protocol', in: 'query', description: 'Only items that involve this protocol id.', schema: ENTITY_ID },
    { name: 'topic', in: 'query', description: 'Only items tagged with this topic.', schema: TOPIC },
    { name: 'min_tier', in: 'query', description: 'Only items at this evidence tier or stronger (TIER_A strongest).', schema: { type: 'string', enum: [...EVIDENCE_TIER_IDS] } },
    { name: 'include_retracted', in: 'query', description: '1 (or true): also list retracted items, marked with their reason. Default 0: retracted items are left out (their own pages stay reachable).', schema: RETRACTED_FLAG },
    { name: 'since', in: 'query', description: 'The API’s polling cursor: only items whose lastUpdatedAt (store time) is after this timestamp; the oldest-updated are listed and a “more” link continues after them.', schema: TIMESTAMP_PARAM },
    { name: 'event_since', in: 'query', description: 'Only items whose event happened on or after this date.', schema: TIMESTAMP_PARAM },
    { name: 'cursor', in: 'query', description: 'The next page of older items (the “older items” link sets it).', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,600}$' } },
    { name: 'limit', in: 'query', description: `Most items on the page, 1–200 (default ${FEED_DEFAULT_LIMIT}). The newest are listed first and an “older items” link pages back.`, schema: { type: 'integer', minimum: 1, maximum: 200, default: FEED_DEFAULT_LIMIT } },
  ] satisfies ParameterDef[],
  graph: [
    {
      name: 'type',
      in: 'query',
      description: `Only entities of these types (comma-separated) and the relationships between them: ${ENTITY_TYPES.join(', ')}. Default: every type.`,
      schema: { type: 'string', pattern: `^(${ENTITY_TYPES.join('|')})(,(${ENTITY_TYPES.join('|')})){0,${ENTITY_TYPES.length - 1}}$` },
    },
  ] satisfies ParameterDef[],
  item: [{ name: 'slug', in: 'path', required: true, description: 'The item’s slug (its eventId unless the newsroom set another).', schema: { type: 'string', pattern: ID_PATTERN } }] satisfies ParameterDef[],
} as const;

/** HTML forms send empty fields (`entity=`); on a page they mean “no filter”. */
export function withoutEmptyParams(url: URL): URL {
  const out = new URL(url.origin + url.pathname);
  for (const [k, v] of url.searchParams) if (v !== '') out.searchParams.append(k, v);
  return out;
}
