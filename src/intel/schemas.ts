import { ERROR_BODY_SCHEMA } from '../errors.js';
import { SURFACE_KINDS } from './distribution.js';
/**
 * JSON Schemas (draft 2020-12) of everything the intelligence module accepts
 * and answers, plus its query parameters as data, so the OpenAPI document can
 * be generated from here and tests can check live responses against them.
 */
import type { JsonSchema } from '../catalog/capability.js';
import { EVIDENCE_TIER_IDS, SOURCE_TYPES } from './tiers.js';
import {
  CHANGE_KINDS,
  DATE_PRECISIONS,
  ENTITY_TYPES,
  ITEM_TYPES,
  LISTING_KINDS,
  LISTING_STATUSES,
  NEWSROOM_STATES,
  RELATIONSHIP_TYPES,
} from './types.js';

export type { JsonSchema };

// ---- building blocks ----

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
const strings = (description: string, items: JsonSchema = { type: 'string' }): JsonSchema => ({ type: 'array', description, items });

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
const URL_SCHEMA: JsonSchema = { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 };
const CALENDAR_DATE: JsonSchema = { type: 'string', format: 'date', description: 'YYYY-MM-DD' };
const TIER: JsonSchema = { type: 'string', enum: [...EVIDENCE_TIER_IDS] };
const SOURCE_TYPE: JsonSchema = { type: 'string', enum: [...SOURCE_TYPES] };
const CONFIDENCE: JsonSchema = { type: 'number', minimum: 0, maximum: 1, description: 'Follows the evidence tier; lower within the tier when the item carries a caveat.' };

// ---- import records (NDJSON lines of `npm run intel -- import`, admin bodies) ----

const recordKind = (k: string): JsonSchema => ({ type: 'string', const: k });

export const ITEM_RECORD_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'eventId', 'eventDate', 'type', 'headline', 'summary', 'whyItMatters', 'entities', 'protocols', 'topics', 'sources', 'evidenceTier'],
  properties: {
    kind: recordKind('item'),
    eventId: str('Stable id; importing the same eventId again updates the item (idempotent when unchanged).', { pattern: ID_PATTERN }),
    slug: str('URL slug; defaults to eventId.', { pattern: ID_PATTERN }),
    eventDate: { ...CALENDAR_DATE, description: 'The date the sources support for the event (UTC), not later than tomorrow.' },
    datePrecision: { type: 'string', enum: [...DATE_PRECISIONS], default: 'day' },
    type: { type: 'string', enum: [...ITEM_TYPES] },
    headline: str('', { minLength: 1, maxLength: 200 }),
    summary: str('', { minLength: 1, maxLength: 2000 }),
    whyItMatters: str('', { minLength: 1, maxLength: 1000 }),
    entities: { type: 'array', items: ENTITY_ID, uniqueItems: true, maxItems: 50, description: 'Entity ids; each must already exist in the graph.' },
    protocols: { type: 'array', items: ENTITY_ID, uniqueItems: true, maxItems: 20, description: 'Ids of PROTOCOL entities.' },
    topics: { type: 'array', items: TOPIC, uniqueItems: true, maxItems: 20 },
    sources: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      description: 'Every item is sourced: at least one public http(s) URL.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['url', 'sourceType'],
        properties: {
          url: URL_SCHEMA,
          sourceType: SOURCE_TYPE,
          supports: str('What in the source supports the item.', { minLength: 1, maxLength: 2000 }),
          publishedAt: str('When the source was published, if known (date or date-time).', { anyOf: [{ format: 'date' }, { format: 'date-time' }] }),
        },
      },
    },
    evidenceTier: { ...TIER, description: 'Must not be stronger than the best source type supports (see tiers). TIER_D items are kept but never published.' },
    caveat: str('Why confidence is lowered; published as evidenceNote.', { minLength: 1, maxLength: 1000 }),
    firstPartyInterest: { type: 'boolean', default: false },
    publicAnalysis: { type: 'boolean' },
    correctionOf: { type: ['string', 'null'], pattern: ID_PATTERN, description: 'eventId of the item this one corrects.' },
    observedAt: { type: 'string', format: 'date-time', description: 'When the operator last observed the sources. Changing only this is cosmetic: lastUpdatedAt does not move.' },
    marketData: { type: ['object', 'null'] },
  },
};

export const ENTITY_RECORD_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'id', 'type', 'name', 'sourceUrl'],
  properties: {
    kind: recordKind('entity'),
    id: { ...ENTITY_ID, description: 'Entities merge only by this id, never by similar names.' },
    type: { type: 'string', enum: [...ENTITY_TYPES] },
    name: str('', { minLength: 1, maxLength: 200 }),
    sourceUrl: URL_SCHEMA,
    firstParty: { type: 'boolean', default: false },
  },
};

export const RELATIONSHIP_RECORD_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'from', 'to', 'type', 'sourceUrl'],
  properties: {
    kind: recordKind('relationship'),
    id: str('Defaults to "{from}--{type lower-case}--{to}".', { pattern: '^[a-z0-9][a-z0-9_-]{0,200}$' }),
    from: ENTITY_ID,
    to: ENTITY_ID,
    type: { type: 'string', enum: [...RELATIONSHIP_TYPES] },
    sourceUrl: URL_SCHEMA,
  },
};

export const RETRACTION_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: { reason: str('Why the item is withdrawn; published with the item.', { minLength: 1, maxLength: 1000 }) },
};

export const RETRACTION_RECORD_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'eventId', 'reason'],
  properties: { kind: recordKind('retraction'), eventId: { type: 'string', pattern: ID_PATTERN }, reason: (RETRACTION_BODY_SCHEMA.properties as Record<string, JsonSchema>).reason },
};

export const CENSUS_RECORD_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'snapshotId', 'observedAt', 'source', 'distinctPayers', 'resources'],
  properties: {
    kind: recordKind('census'),
    snapshotId: str('Immutable id: the same id with different content is rejected.', { pattern: ID_PATTERN }),
    observedAt: { type: 'string', format: 'date-time', description: 'When the census was taken.' },
    source: { ...URL_SCHEMA, description: 'Where the census was taken from (a directory or facilitator listing).' },
    distinctPayers: int('Distinct payers the source reported.', { minimum: 0 }),
    resources: {
      type: 'array',
      maxItems: 200_000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'family', 'calls'],
        properties: {
          id: str('Resource identity, usually its URL.', { minLength: 1, maxLength: 2048 }),
          family: str('Resource family (e.g. a category).', { minLength: 1, maxLength: 64 }),
          calls: int('Calls the source reported for the resource.', { minimum: 0 }),
        },
      },
    },
  },
};

export const LISTING_RECORD_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'id', 'listingKind', 'name', 'url', 'status', 'lastVerifiedAt'],
  properties: {
    kind: recordKind('listing'),
    id: { type: 'string', pattern: ID_PATTERN },
    listingKind: { type: 'string', enum: [...LISTING_KINDS] },
    name: str('Name of the directory, registry or catalog.', { minLength: 1, maxLength: 200 }),
    directoryId: { anyOf: [ENTITY_ID, { type: 'null' }], description: 'The graph entity of the directory, when it has one.' },
    url: { ...URL_SCHEMA, description: 'Where this service is listed.' },
    status: { type: 'string', enum: [...LISTING_STATUSES] },
    lastVerifiedAt: { type: 'string', format: 'date-time', description: 'When the operator last checked the listing.' },
    evidenceUrl: { anyOf: [URL_SCHEMA, { type: 'null' }] },
  },
};

export const CONTENT_RECORD_SCHEMAS = {
  item: ITEM_RECORD_SCHEMA,
  entity: ENTITY_RECORD_SCHEMA,
  relationship: RELATIONSHIP_RECORD_SCHEMA,
  retraction: RETRACTION_RECORD_SCHEMA,
  census: CENSUS_RECORD_SCHEMA,
  listing: LISTING_RECORD_SCHEMA,
} as const;

// ---- newswire ----

export const SNAPSHOT_REF_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['snapshotId', 'observedAt'],
  properties: { snapshotId: { type: 'string' }, observedAt: STORE_TIMESTAMP },
};

export const MARKET_MOVEMENTS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Deltas between the two latest imported census snapshots (latest minus previous). All zero with basis null when fewer than two are imported.',
  additionalProperties: false,
  required: ['resourcesDelta', 'distinctPayersDelta', 'callsDelta', 'newEntrants', 'removedResources', 'topFamilyChanged', 'whatChanged', 'basis'],
  properties: {
    resourcesDelta: int('Change in the number of resources.'),
    distinctPayersDelta: int('Change in distinct payers reported by the census source.'),
    callsDelta: int('Change in total calls.'),
    newEntrants: int('Resources in the latest snapshot that were not in the previous one.', { minimum: 0 }),
    removedResources: int('Resources in the previous snapshot that are gone from the latest one.', { minimum: 0 }),
    topFamilyChanged: bool('Whether the family with the most calls changed.'),
    whatChanged: strings('Plain sentences describing the movement.'),
    basis: { anyOf: [{ type: 'null' }, { type: 'object', additionalProperties: false, required: ['previous', 'latest'], properties: { previous: SNAPSHOT_REF_SCHEMA, latest: SNAPSHOT_REF_SCHEMA } }] },
  },
};

export const NEWSWIRE_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'eventId', 'eventDate', 'datePrecision', 'publishedAt', 'observedAt', 'lastUpdatedAt', 'version', 'headline', 'summary', 'whyItMatters',
    'entities', 'protocols', 'topics', 'sourceURLs', 'sourceTypes', 'evidenceTier', 'confidence', 'corroborationCount', 'evidenceNote',
    'marketData', 'changeVsPrevious', 'freshness', 'publicAnalysis', 'usageRights', 'schemaVersion', 'firstPartyInterest', 'retrospective',
    'slug', 'type', 'newsroomState', 'publisher', 'correctionOf', 'retracted', 'retractionReason',
  ],
  properties: {
    eventId: { type: 'string', pattern: ID_PATTERN },
    eventDate: CALENDAR_DATE,
    datePrecision: { type: 'string', enum: [...DATE_PRECISIONS] },
    publishedAt: { ...STORE_TIMESTAMP, description: 'When the newsroom first published the item.' },
    observedAt: { type: 'string', format: 'date-time', description: 'When the operator last observed the sources.' },
    lastUpdatedAt: { ...STORE_TIMESTAMP, description: 'Store time of the last material change; unique and strictly increasing across all items.' },
    version: int('Version number of this item; every change, cosmetic or material, adds one.', { minimum: 1 }),
    headline: { type: 'string' },
    summary: { type: 'string' },
    whyItMatters: { type: 'string' },
    entities: strings('Graph entity ids.'),
    protocols: strings('Protocol entity ids.'),
    topics: strings('Topic tags.'),
    sourceURLs: { type: 'array', minItems: 1, items: { type: 'string', format: 'uri' } },
    sourceTypes: { type: 'array', minItems: 1, items: SOURCE_TYPE },
    evidenceTier: { type: 'string', enum: ['TIER_A', 'TIER_B', 'TIER_C'], description: 'TIER_D items are never published.' },
    confidence: CONFIDENCE,
    corroborationCount: int('Distinct sources behind the item.', { minimum: 1 }),
    evidenceNote: { type: ['string', 'null'], description: 'Why confidence is lowered, when it is.' },
    marketData: { type: ['object', 'null'] },
    changeVsPrevious: MARKET_MOVEMENTS_SCHEMA,
    freshness: { type: 'string', enum: ['live'], description: 'Served from the live store.' },
    publicAnalysis: bool('True when the item is the newsroom’s analysis rather than a report of a sourced event.'),
    usageRights: { type: 'string' },
    schemaVersion: { type: 'string' },
    firstPartyInterest: bool('True when the item concerns the operator’s own products.'),
    retrospective: bool('True when the item was published more than 7 days after its event date.'),
    slug: { type: 'string', pattern: ID_PATTERN },
    type: { type: 'string', enum: [...ITEM_TYPES] },
    newsroomState: { type: 'string', enum: ['PUBLISHED', 'RETRACTED'] },
    publisher: { type: 'string' },
    correctionOf: { type: ['string', 'null'], description: 'eventId of the item this one corrects.' },
    retracted: { type: 'boolean' },
    retractionReason: { type: ['string', 'null'] },
  },
};

export const NEWSWIRE_FEED_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['schemaVersion', 'product', 'since', 'generatedAt', 'nextCursor', 'count', 'truncated', 'materialOnly', 'marketMovements', 'items', 'usageRights', 'independentRevenueUsd'],
  properties: {
    schemaVersion: { type: 'string' },
    product: { type: 'string' },
    since: { ...STORE_TIMESTAMP, description: 'Lower bound (exclusive) of lastUpdatedAt; the epoch when not given.' },
    generatedAt: {
      ...STORE_TIMESTAMP,
      description: 'The store time up to which this response is complete: the content watermark (or `until`, if earlier). It moves only when content changes, so unchanged content gives a byte-identical response and the same ETag.',
    },
    nextCursor: { ...STORE_TIMESTAMP, description: 'Pass as `since` on the next poll. Equals generatedAt in a full response; the lastUpdatedAt of the last kept item when truncated.' },
    count: int('Number of items.', { minimum: 0 }),
    truncated: bool('More items matched than `limit`; the oldest-updated ones were kept.'),
    materialOnly: bool('Echo of material_only.'),
    marketMovements: MARKET_MOVEMENTS_SCHEMA,
    items: { type: 'array', items: NEWSWIRE_ITEM_SCHEMA, description: 'Newest eventDate first.' },
    usageRights: { type: 'string' },
    independentRevenueUsd: {
      type: 'number',
      minimum: 0,
      description: 'Settled, delivered payments to this service from payers that are not the operator’s own wallets, in US dollars. A 402 answer is not revenue; traffic is not a buyer.',
    },
  },
};

// ---- changes-since ----

const DELTA_PROPERTIES: Record<string, JsonSchema> = {
  change: { type: 'string', enum: [...CHANGE_KINDS], description: 'NEW: first published; UPDATED: a material field changed; CORRECTED: a correcting item (see correctionOf); RETRACTED: withdrawn.' },
  changedAt: { ...STORE_TIMESTAMP, description: 'Store time of this change; the item’s lastUpdatedAt at this version.' },
  eventId: { type: 'string' },
  version: { type: 'integer', minimum: 1 },
  slug: { type: 'string' },
  eventDate: CALENDAR_DATE,
  type: { type: 'string', enum: [...ITEM_TYPES] },
  headline: { type: 'string' },
  summary: { type: 'string' },
  evidenceTier: TIER,
  confidence: CONFIDENCE,
  entities: strings(''),
  protocols: strings(''),
  topics: strings(''),
  sourceUrl: { type: 'string', format: 'uri', description: 'The first source of the item.' },
  correctionOf: { type: ['string', 'null'] },
  retracted: { type: 'boolean' },
  retractionReason: { type: ['string', 'null'] },
  newsroomState: { type: 'string', enum: ['PUBLISHED', 'RETRACTED'] },
};
const COMPACT_DELTA_REQUIRED = Object.keys(DELTA_PROPERTIES);

const HIGH_RESOLUTION_PROPERTIES: Record<string, JsonSchema> = {
  whyItMatters: { type: 'string' },
  datePrecision: { type: 'string', enum: [...DATE_PRECISIONS] },
  publishedAt: STORE_TIMESTAMP,
  observedAt: { type: 'string', format: 'date-time' },
  sourceURLs: { type: 'array', items: { type: 'string', format: 'uri' } },
  sourceTypes: { type: 'array', items: SOURCE_TYPE },
  corroborationCount: { type: 'integer', minimum: 1 },
  evidenceNote: { type: ['string', 'null'] },
  evidence: {
    type: 'array',
    description: 'One entry per source: its URL, type, what in it supports the item, and its publication date when known.',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'sourceType', 'supports', 'publishedAt'],
      properties: { url: { type: 'string', format: 'uri' }, sourceType: SOURCE_TYPE, supports: { type: ['string', 'null'] }, publishedAt: { type: ['string', 'null'] } },
    },
  },
  changedFields: { ...strings('Item fields whose value differs from the previously published version (empty for NEW).') },
  firstPartyInterest: { type: 'boolean' },
  publicAnalysis: { type: 'boolean' },
  marketData: { type: ['object', 'null'] },
};

export const COMPACT_DELTA_SCHEMA: JsonSchema = { type: 'object', additionalProperties: false, required: COMPACT_DELTA_REQUIRED, properties: DELTA_PROPERTIES };
export const HIGH_RESOLUTION_DELTA_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...COMPACT_DELTA_REQUIRED, ...Object.keys(HIGH_RESOLUTION_PROPERTIES)],
  properties: { ...DELTA_PROPERTIES, ...HIGH_RESOLUTION_PROPERTIES },
};

export const CHANGES_SINCE_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', format: 'date-time', description: 'Return changes strictly after this store time (the nextCursor of your previous call). Omit to start from the beginning.' },
    since: { type: 'string', format: 'date-time', description: 'Alias of cursor; when both are sent they must be equal.' },
    include_high_resolution: {
      type: 'boolean',
      default: false,
      description: 'false: compact deltas. true: each delta also carries the full evidence — every source URL and type, per-source support notes and dates, corroborationCount, the evidence note, whyItMatters, changedFields and timestamps. Same price.',
    },
    max_items: { type: 'integer', minimum: 1, maximum: 500, default: 100, description: 'Most deltas to return; the oldest changes after the cursor are kept.' },
  },
};

export const CHANGES_SINCE_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['schemaVersion', 'cursor', 'nextCursor', 'count', 'truncated', 'generatedAt', 'highResolution', 'priceAtomic', 'deltas', 'marketMovements', 'usageRights'],
  properties: {
    schemaVersion: { type: 'string' },
    cursor: { ...STORE_TIMESTAMP, description: 'The cursor this answer starts after (normalized).' },
    nextCursor: { ...STORE_TIMESTAMP, description: 'Send as cursor on the next call. changedAt of the last delta when truncated; otherwise generatedAt.' },
    count: { type: 'integer', minimum: 0 },
    truncated: { type: 'boolean' },
    generatedAt: { ...STORE_TIMESTAMP, description: 'The content watermark this answer is complete up to.' },
    highResolution: { type: 'boolean' },
    priceAtomic: { type: 'string', pattern: '^[0-9]+$' },
    deltas: {
      type: 'array',
      description: 'Material changes after the cursor, oldest change first; each change appears in exactly one answer of a cursor chain. Empty is a valid answer.',
      items: { anyOf: [COMPACT_DELTA_SCHEMA, HIGH_RESOLUTION_DELTA_SCHEMA] },
    },
    marketMovements: MARKET_MOVEMENTS_SCHEMA,
    usageRights: { type: 'string' },
  },
};

export const CHANGES_SINCE_SAMPLE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['schemaVersion', 'cursor', 'generatedAt', 'sample', 'moreAvailable', 'paid', 'howToPay', 'usageRights'],
  properties: {
    schemaVersion: { type: 'string' },
    cursor: STORE_TIMESTAMP,
    generatedAt: STORE_TIMESTAMP,
    sample: { type: 'array', maxItems: 3, items: COMPACT_DELTA_SCHEMA, description: 'The first (at most 3) compact deltas the paid call would return for this cursor.' },
    moreAvailable: bool('The paid call would return more than the sample.'),
    paid: {
      type: 'object',
      additionalProperties: false,
      required: ['method', 'path', 'priceAtomic', 'scheme', 'network', 'asset', 'payTo', 'exampleRequest', 'requestSchema', 'responseSchema'],
      properties: {
        method: { type: 'string', const: 'POST' },
        path: { type: 'string' },
        priceAtomic: { type: 'string' },
        scheme: { type: 'string', const: 'exact' },
        network: { type: 'string' },
        asset: { type: 'string' },
        payTo: { type: 'string' },
        exampleRequest: { type: 'object' },
        requestSchema: { type: 'object' },
        responseSchema: { type: 'object' },
      },
    },
    howToPay: { type: 'string' },
    usageRights: { type: 'string' },
  },
};

// ---- graph ----

export const ENTITY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'name', 'firstParty', 'sourceUrl', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: [...ENTITY_TYPES] },
    name: { type: 'string' },
    firstParty: { type: 'boolean' },
    sourceUrl: { type: 'string', format: 'uri' },
    updatedAt: STORE_TIMESTAMP,
  },
};

export const RELATIONSHIP_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'from', 'to', 'sourceUrl', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: [...RELATIONSHIP_TYPES] },
    from: { type: 'string', description: 'Entity id.' },
    to: { type: 'string', description: 'Entity id.' },
    sourceUrl: { type: 'string', format: 'uri' },
    updatedAt: STORE_TIMESTAMP,
  },
};

export const GRAPH_EVENT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'at', 'headline', 'summary', 'entityIds', 'sourceUrl', 'firstParty', 'evidence', 'lastUpdatedAt'],
  properties: {
    id: { type: 'string', description: 'The eventId of the newswire item the event comes from.' },
    type: { type: 'string', enum: [...ITEM_TYPES] },
    at: { type: 'string', format: 'date-time', description: 'Midnight UTC of the date the source supports (precision in the item’s datePrecision).' },
    headline: { type: 'string' },
    summary: { type: 'string' },
    entityIds: strings(''),
    sourceUrl: { type: 'string', format: 'uri' },
    firstParty: { type: 'boolean' },
    lastUpdatedAt: STORE_TIMESTAMP,
    evidence: {
      type: 'object',
      additionalProperties: false,
      required: ['sourceUrl', 'sourceType', 'observedAt', 'sourcePublishedAt', 'retrievedAt', 'excerptHash', 'confidence', 'classification', 'provenance', 'method', 'independentlyCorroborated'],
      properties: {
        sourceUrl: { type: 'string', format: 'uri' },
        sourceType: SOURCE_TYPE,
        observedAt: { type: ['string', 'null'] },
        sourcePublishedAt: { type: ['string', 'null'] },
        retrievedAt: { type: ['string', 'null'], description: 'Null: the service never fetches sources itself.' },
        excerptHash: { type: ['string', 'null'] },
        confidence: { type: ['number', 'null'] },
        classification: { type: 'string', enum: ['OBSERVED', 'VERIFIED'], description: 'VERIFIED for TIER_A and TIER_B items, OBSERVED for TIER_C.' },
        provenance: { type: ['string', 'null'] },
        method: { type: 'string' },
        independentlyCorroborated: { type: 'boolean', description: 'True when two or more distinct sources back the event.' },
      },
    },
  },
};

const pageOf = (items: JsonSchema, description: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['items', 'count', 'limit', 'nextCursor', 'generatedAt'],
  properties: {
    items: { type: 'array', items, description },
    count: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1 },
    nextCursor: { type: ['string', 'null'], description: 'Opaque; pass as cursor for the next page. Null on the last page.' },
    generatedAt: STORE_TIMESTAMP,
  },
});

export const ENTITY_PAGE_SCHEMA = pageOf(ENTITY_SCHEMA, 'Ordered by id.');
export const RELATIONSHIP_PAGE_SCHEMA = pageOf(RELATIONSHIP_SCHEMA, 'Ordered by id.');
export const EVENT_PAGE_SCHEMA = pageOf(GRAPH_EVENT_SCHEMA, 'Newest `at` first, then by id.');

export const ENTITY_DETAIL_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['entity', 'relationships', 'events', 'generatedAt'],
  properties: {
    entity: ENTITY_SCHEMA,
    relationships: { type: 'array', items: RELATIONSHIP_SCHEMA },
    events: { type: 'array', items: GRAPH_EVENT_SCHEMA, description: 'Newest first, at most 100.' },
    generatedAt: STORE_TIMESTAMP,
  },
};

const countMap: JsonSchema = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } };

export const GRAPH_SUMMARY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['protocol', 'datasetId', 'title', 'description', 'generatedAt', 'methodology', 'counts', 'entities', 'latestEvents', 'machine'],
  properties: {
    protocol: { type: 'string', pattern: '/v0$' },
    datasetId: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    generatedAt: STORE_TIMESTAMP,
    methodology: {
      type: 'object',
      additionalProperties: false,
      required: ['adapters', 'noFabricatedBackfill', 'similarNamesDoNotMerge', 'censusPublicationIndependent', 'http402IsNotRevenue', 'trafficIsNotABuyer'],
      properties: {
        adapters: strings('How content enters the dataset.'),
        noFabricatedBackfill: bool('Every event comes from an imported item with a source URL and a date the source supports; none is synthesized.'),
        similarNamesDoNotMerge: bool('Entities merge only by explicit id.'),
        censusPublicationIndependent: bool('Market movements come only from imported census snapshots, never from this service’s own ledger or traffic.'),
        http402IsNotRevenue: bool('Revenue counts only settled, delivered payments; a 402 challenge is never revenue.'),
        trafficIsNotABuyer: bool('Requests are never counted as buyers or payers.'),
      },
    },
    counts: {
      type: 'object',
      additionalProperties: false,
      required: ['entities', 'relationships', 'events', 'observations', 'byEntityType', 'byRelationshipType'],
      properties: {
        entities: { type: 'integer', minimum: 0 },
        relationships: { type: 'integer', minimum: 0 },
        events: { type: 'integer', minimum: 0 },
        observations: { type: 'integer', minimum: 0, description: 'Imported census snapshots.' },
        byEntityType: countMap,
        byRelationshipType: countMap,
      },
    },
    entities: {
      type: 'array',
      description: 'Entity records ordered by id (at most 200; page the rest through machine.entities).',
      items: { type: 'object', additionalProperties: false, required: ['id', 'type', 'name', 'firstParty'], properties: { id: { type: 'string' }, type: { type: 'string' }, name: { type: 'string' }, firstParty: { type: 'boolean' } } },
    },
    latestEvents: { type: 'array', items: GRAPH_EVENT_SCHEMA, description: 'Newest first, at most 10.' },
    machine: {
      type: 'object',
      additionalProperties: false,
      required: ['entities', 'events', 'relationships'],
      properties: { entities: { type: 'string' }, events: { type: 'string' }, relationships: { type: 'string' } },
    },
  },
};

// ---- distribution (presence catalog) ----

export const DISTRIBUTION_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['schemaVersion', 'generatedAt', 'service', 'listings', 'ecosystem', 'notes'],
  properties: {
    schemaVersion: { type: 'string' },
    generatedAt: { type: 'string', format: 'date-time' },
    service: {
      type: 'object',
      additionalProperties: false,
      required: ['baseUrl', 'surfaces'],
      properties: {
        baseUrl: { type: 'string', format: 'uri' },
        surfaces: {
          type: 'array',
          description: 'This service’s own discovery surfaces. status is "live" when this instance serves the route right now, "not_deployed" otherwise.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'kind', 'url', 'status', 'lastVerifiedAt'],
            properties: {
              id: { type: 'string' },
              kind: { type: 'string', enum: [...SURFACE_KINDS] },
              url: { type: 'string', format: 'uri' },
              status: { type: 'string', enum: ['live', 'not_deployed'] },
              lastVerifiedAt: { type: 'string', format: 'date-time', description: 'When this instance checked its own route table (the time of this response).' },
            },
          },
        },
      },
    },
    listings: {
      type: 'array',
      description: 'External listings of this service, imported by the operator with the date they were last verified. Empty until one is imported.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'kind', 'name', 'directoryId', 'url', 'status', 'lastVerifiedAt', 'evidenceUrl', 'updatedAt'],
        properties: {
          id: { type: 'string' },
          kind: { type: 'string', enum: [...LISTING_KINDS] },
          name: { type: 'string' },
          directoryId: { type: ['string', 'null'] },
          url: { type: 'string', format: 'uri' },
          status: { type: 'string', enum: [...LISTING_STATUSES] },
          lastVerifiedAt: { type: 'string', format: 'date-time' },
          evidenceUrl: { type: ['string', 'null'] },
          updatedAt: STORE_TIMESTAMP,
        },
      },
    },
    ecosystem: {
      type: 'object',
      additionalProperties: false,
      required: ['directories'],
      properties: {
        directories: {
          type: 'array',
          description: 'Directories, registries and catalogs in the graph, with what the graph records as listed on or indexed by each (sourced relationships only).',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'name', 'type', 'sourceUrl', 'entries'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              type: { type: 'string' },
              sourceUrl: { type: 'string', format: 'uri' },
              entries: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['entityId', 'name', 'relationship', 'sourceUrl'],
                  properties: {
                    entityId: { type: 'string' },
                    name: { type: 'string' },
                    relationship: { type: 'string', enum: ['LISTED_ON', 'INDEXES'], description: 'LISTED_ON: the entity is listed on the directory. INDEXES: the directory indexes the entity.' },
                    sourceUrl: { type: 'string', format: 'uri' },
                  },
                },
              },
            },
          },
        },
      },
    },
    notes: strings('Caveats about this catalog.'),
  },
};

// ---- admin ----

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

export { ERROR_BODY_SCHEMA };

// ---- query parameters as data ----

export interface ParameterDef {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  description: string;
  schema: JsonSchema;
}

/** A timestamp parameter: ISO 8601 date-time, or a bare date read as midnight UTC. */
export const TIMESTAMP_PARAM: JsonSchema = { type: 'string', anyOf: [{ format: 'date-time' }, { format: 'date' }] };
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

// ---- the route table, for the OpenAPI generator ----

export interface IntelRoute {
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  parameters: readonly ParameterDef[];
  requestSchema?: JsonSchema;
  requestMediaType?: string;
  responses: Record<string, { description: string; schema?: JsonSchema }>;
  /** Admin routes need `Authorization: Bearer <ADMIN_TOKEN>` and exist only when ADMIN_TOKEN is set. */
  admin?: boolean;
}

const badRequest = { description: 'Invalid parameter or body (stable code in error.code).', schema: ERROR_BODY_SCHEMA };
const notModified = { description: 'Not modified (If-None-Match matched the strong ETag).' };
const unauthorized = { description: 'Missing or wrong bearer token.', schema: ERROR_BODY_SCHEMA };
const notFound = { description: 'Not found (also every admin route when ADMIN_TOKEN is not set).', schema: ERROR_BODY_SCHEMA };

export const INTEL_ROUTES: readonly IntelRoute[] = [
  { operationId: 'getNewswire', method: 'GET', path: '/v1/newswire', summary: 'Newswire feed of sourced machine-economy items', parameters: QUERY_PARAMETERS.newswire, responses: { 200: { description: 'Feed', schema: NEWSWIRE_FEED_SCHEMA }, 304: notModified, 400: badRequest } },
  {
    operationId: 'getChangesSinceSample',
    method: 'GET',
    path: '/v1/intelligence/changes-since',
    summary: 'Free sample of the paid changes-since call, with its schema, price and how to pay',
    parameters: QUERY_PARAMETERS.changesSinceSample,
    responses: { 200: { description: 'Sample', schema: CHANGES_SINCE_SAMPLE_SCHEMA }, 304: notModified, 400: badRequest },
  },
  { operationId: 'getGraphSummary', method: 'GET', path: '/v1/graph', summary: 'Graph dataset summary', parameters: [], responses: { 200: { description: 'Summary', schema: GRAPH_SUMMARY_SCHEMA }, 304: notModified, 400: badRequest } },
  { operationId: 'listGraphEntities', method: 'GET', path: '/v1/graph/entities', summary: 'Entities, by id', parameters: QUERY_PARAMETERS.graphEntities, responses: { 200: { description: 'Page', schema: ENTITY_PAGE_SCHEMA }, 304: notModified, 400: badRequest } },
  { operationId: 'getGraphEntity', method: 'GET', path: '/v1/graph/entities/{id}', summary: 'One entity with its relationships and events', parameters: QUERY_PARAMETERS.graphEntity, responses: { 200: { description: 'Entity', schema: ENTITY_DETAIL_SCHEMA }, 304: notModified, 400: badRequest, 404: notFound } },
  { operationId: 'listGraphRelationships', method: 'GET', path: '/v1/graph/relationships', summary: 'Relationships, by id', parameters: QUERY_PARAMETERS.graphRelationships, responses: { 200: { description: 'Page', schema: RELATIONSHIP_PAGE_SCHEMA }, 304: notModified, 400: badRequest } },
  { operationId: 'listGraphEvents', method: 'GET', path: '/v1/graph/events', summary: 'Events, newest first', parameters: QUERY_PARAMETERS.graphEvents, responses: { 200: { description: 'Page', schema: EVENT_PAGE_SCHEMA }, 304: notModified, 400: badRequest } },
  { operationId: 'getDistribution', method: 'GET', path: '/v1/distribution', summary: 'Presence catalog: where this service and the ecosystem’s directories can be found', parameters: [], responses: { 200: { description: 'Catalog', schema: DISTRIBUTION_SCHEMA }, 400: badRequest } },
  {
    operationId: 'adminPublishItem',
    method: 'POST',
    path: '/admin/v1/items',
    summary: 'Publish or update an item (idempotent by eventId)',
    parameters: [],
    requestSchema: { ...ITEM_RECORD_SCHEMA, required: (ITEM_RECORD_SCHEMA.required as string[]).filter((r) => r !== 'kind') },
    responses: { 200: { description: 'Updated or unchanged', schema: ADMIN_WRITE_RESULT_SCHEMA }, 201: { description: 'Created', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: { description: 'Conflict', schema: ERROR_BODY_SCHEMA } },
    admin: true,
  },
  {
    operationId: 'adminCorrectItem',
    method: 'POST',
    path: '/admin/v1/items/{eventId}/corrections',
    summary: 'Publish a correcting item whose correctionOf is {eventId}',
    parameters: [{ name: 'eventId', in: 'path', required: true, description: 'The item being corrected.', schema: { type: 'string', pattern: ID_PATTERN } }],
    requestSchema: { ...ITEM_RECORD_SCHEMA, required: (ITEM_RECORD_SCHEMA.required as string[]).filter((r) => r !== 'kind') },
    responses: { 201: { description: 'Created', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: { description: 'Conflict', schema: ERROR_BODY_SCHEMA } },
    admin: true,
  },
  {
    operationId: 'adminRetractItem',
    method: 'POST',
    path: '/admin/v1/items/{eventId}/retraction',
    summary: 'Retract an item with a reason',
    parameters: [{ name: 'eventId', in: 'path', required: true, description: 'The item to retract.', schema: { type: 'string', pattern: ID_PATTERN } }],
    requestSchema: RETRACTION_BODY_SCHEMA,
    responses: { 200: { description: 'Retracted (or already retracted)', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: { description: 'Conflict', schema: ERROR_BODY_SCHEMA } },
    admin: true,
  },
  {
    operationId: 'adminGetItem',
    method: 'GET',
    path: '/admin/v1/items/{eventId}',
    summary: 'An item in any state (including HELD) with its version history',
    parameters: [{ name: 'eventId', in: 'path', required: true, description: 'Item id.', schema: { type: 'string', pattern: ID_PATTERN } }],
    responses: { 200: { description: 'Item and versions' }, 401: unauthorized, 404: notFound },
    admin: true,
  },
  {
    operationId: 'adminImportCensus',
    method: 'POST',
    path: '/admin/v1/census',
    summary: 'Import a census snapshot (resources, payers, calls per resource and family)',
    parameters: [],
    requestSchema: { ...CENSUS_RECORD_SCHEMA, required: (CENSUS_RECORD_SCHEMA.required as string[]).filter((r) => r !== 'kind') },
    responses: { 200: { description: 'Unchanged', schema: ADMIN_WRITE_RESULT_SCHEMA }, 201: { description: 'Imported', schema: ADMIN_WRITE_RESULT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 409: { description: 'Conflict', schema: ERROR_BODY_SCHEMA } },
    admin: true,
  },
  {
    operationId: 'adminImportNdjson',
    method: 'POST',
    path: '/admin/v1/import',
    summary: 'Import NDJSON content records (same format as `npm run intel -- import`)',
    parameters: [],
    requestMediaType: 'application/x-ndjson',
    responses: { 200: { description: 'Import report', schema: IMPORT_REPORT_SCHEMA }, 400: badRequest, 401: unauthorized, 404: notFound, 413: { description: 'Body too large', schema: ERROR_BODY_SCHEMA } },
    admin: true,
  },
];
