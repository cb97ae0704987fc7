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

const SNAPSHOT_REF_SCHEMA: JsonSchema = {
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

const NEWSWIRE_ITEM_SCHEMA: JsonSchema = {
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
  required: ['schemaVersion', 'product', 'since', 'generatedAt', 'nextCursor', 'count', 'truncated', 'olderCursor', 'materialOnly', 'marketMovements', 'items', 'usageRights', 'independentRevenueUsd'],
  properties: {
    schemaVersion: { type: 'string' },
    product: { type: 'string' },
    since: { ...STORE_TIMESTAMP, description: 'Lower bound (exclusive) of lastUpdatedAt (store time: when the item last changed here, not when its event happened); the epoch when not given.' },
    generatedAt: {
      ...STORE_TIMESTAMP,
      description: 'The store time up to which this response is complete: the content watermark (or `until`, if earlier). It moves only when content changes, so unchanged content gives a byte-identical response and the same ETag.',
    },
    nextCursor: {
      ...STORE_TIMESTAMP,
      description: 'Pass as `since` on the next poll. Equals generatedAt, except when polling (`since` or `until` given) and truncated: then the lastUpdatedAt of the last kept item.',
    },
    count: int('Number of items.', { minimum: 0 }),
    truncated: bool('More items matched than `limit`. Without `since` and `until`: the newest were kept and older ones exist (see olderCursor). Polling (`since` or `until`): the oldest-updated were kept.'),
    olderCursor: { type: ['string', 'null'], description: 'Without `since` and `until`, when truncated: pass as `cursor` for the next older page (newest first, exact across items with the same eventDate). Otherwise null.' },
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

const COMPACT_DELTA_SCHEMA: JsonSchema = { type: 'object', additionalProperties: false, required: COMPACT_DELTA_REQUIRED, properties: DELTA_PROPERTIES };
const HIGH_RESOLUTION_DELTA_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...COMPACT_DELTA_REQUIRED, ...Object.keys(HIGH_RESOLUTION_PROPERTIES)],
  properties: { ...DELTA_PROPERTIES, ...HIGH_RESOLUTION_PROPERTIES },
};

const CHANGE_CURSOR: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 640,
  description:
    'Where to start: an ISO 8601 timestamp (changes stored strictly after it) or the nextCursor of your previous call, as it was given (an opaque `c1.…` cursor resumes exactly after the last delta you received). Omit to start from the beginning.',
};
const MAX_ITEMS_RANGE: JsonSchema = { type: 'integer', minimum: 1, maximum: 500 };

export const CHANGES_SINCE_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: CHANGE_CURSOR,
    since: { ...CHANGE_CURSOR, description: 'Alias of cursor (store time: when the change was stored, not when the event happened); when both are sent they must be equal.' },
    event_since: {
      type: 'string',
      anyOf: [{ format: 'date-time' }, { format: 'date' }],
      description: 'Only changes of items whose event happened on or after this calendar date (UTC; eventDate has day precision). Filters; the cursor still orders and resumes by store time.',
    },
    include_high_resolution: {
      type: 'boolean',
      default: false,
      description: 'false: compact deltas. true: each delta also carries the full evidence — every source URL and type, per-source support notes and dates, corroborationCount, the evidence note, whyItMatters, changedFields and timestamps. Same price.',
    },
    // No `default` keyword: validation fills defaults in, and a filled-in maxItems would conflict with a sent max_items.
    maxItems: { ...MAX_ITEMS_RANGE, description: 'Most deltas to return (default 100); the oldest changes after the cursor are kept.' },
    max_items: { ...MAX_ITEMS_RANGE, description: 'Alias of maxItems (kept for callers of the first version); when both are sent they must be equal.' },
  },
};

export const CHANGES_SINCE_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['product', 'schema', 'schemaVersion', 'since', 'generatedAt', 'count', 'truncated', 'nextCursor', 'priceAtomic', 'highResolution', 'usageRights', 'marketMovements', 'items'],
  properties: {
    product: { type: 'string', const: 'machine-economy-changes-since' },
    schema: { type: 'string', description: 'Name of this answer’s shape (this schema); schemaVersion versions the deltas.' },
    schemaVersion: { type: 'string' },
    since: { ...STORE_TIMESTAMP, description: 'The store time this answer starts after (the cursor’s instant, normalized).' },
    generatedAt: { ...STORE_TIMESTAMP, description: 'The content watermark this answer is complete up to.' },
    count: { type: 'integer', minimum: 0 },
    truncated: { type: 'boolean', description: 'More deltas follow; call again with nextCursor.' },
    nextCursor: {
      type: 'string',
      description: 'Send as cursor on the next call, unchanged. When truncated: an opaque cursor (`c1.…`) naming the last delta’s exact position, so the next call resumes right after it even among changes stored at the same instant. Otherwise: generatedAt.',
    },
    priceAtomic: { type: 'string', pattern: '^[0-9]+$' },
    highResolution: { type: 'boolean' },
    usageRights: { type: 'string' },
    marketMovements: MARKET_MOVEMENTS_SCHEMA,
    items: {
      type: 'array',
      description:
        'Material changes after the cursor, oldest change first; each change appears in exactly one answer of a cursor chain. Material: changes of items that report a concrete change (the types material_only keeps on the newswire); signals, analysis seeds, digests and snapshots are left out. Empty is a valid answer.',
      items: { anyOf: [COMPACT_DELTA_SCHEMA, HIGH_RESOLUTION_DELTA_SCHEMA] },
    },
  },
};

export const CHANGES_SINCE_SAMPLE_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['schemaVersion', 'since', 'generatedAt', 'sample', 'moreAvailable', 'paid', 'howToPay', 'usageRights'],
  properties: {
    schemaVersion: { type: 'string' },
    since: { ...STORE_TIMESTAMP, description: 'The store time the sample starts after (the cursor’s instant).' },
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
