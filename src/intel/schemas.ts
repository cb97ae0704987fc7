/**
 * JSON Schemas (draft 2020-12) of the newswire and of changes-since: the feed,
 * its items and market movements, and the paid call's request, answer and
 * free sample. The paid catalog entry (capability.ts), the routes and the
 * tests all read them from here.
 */
import { bool, CALENDAR_DATE, CONFIDENCE, ID_PATTERN, int, SOURCE_TYPE, STORE_TIMESTAMP, strings, TIER, type JsonSchema } from './schema-parts.js';
import { CHANGE_KINDS, DATE_PRECISIONS, ITEM_TYPES } from './types.js';

export type { JsonSchema };

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
