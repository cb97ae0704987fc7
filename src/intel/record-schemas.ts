/**
 * JSON Schemas (draft 2020-12) of the import format: the NDJSON lines of
 * `npm run intel -- import` and the admin API's bodies. records.ts applies
 * them, then the rules a schema cannot say.
 */
import {
  CALENDAR_DATE,
  ENTITY_ID,
  ID_PATTERN,
  int,
  SOURCE_TYPE,
  str,
  TIER,
  TOPIC,
  URL_SCHEMA,
  type JsonSchema,
} from './schema-parts.js';
import { DATE_PRECISIONS, ENTITY_TYPES, ITEM_TYPES, LISTING_KINDS, LISTING_STATUSES, RELATIONSHIP_TYPES } from './types.js';

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
    provenance: {
      type: 'array',
      maxItems: 20,
      description: 'Set by collectors: how each source was read. Not material (a new reading alone changes nothing).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['url', 'retrievedAt', 'method', 'excerptHash', 'collector'],
        properties: {
          url: URL_SCHEMA,
          retrievedAt: { type: 'string', format: 'date-time' },
          method: str('', { pattern: '^[a-z][a-z0-9_]{0,63}$' }),
          excerptHash: str('SHA-256 hex of the bytes read.', { pattern: '^[0-9a-f]{64}$' }),
          collector: str('', { pattern: '^collector:[a-z0-9-]{1,64}$' }),
        },
      },
    },
  },
};

const ENTITY_RECORD_SCHEMA: JsonSchema = {
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

const RELATIONSHIP_RECORD_SCHEMA: JsonSchema = {
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

const RETRACTION_RECORD_SCHEMA: JsonSchema = {
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
    exclusions: {
      type: 'object',
      additionalProperties: false,
      required: ['rule', 'selfPayments', 'circularTransfers', 'dustTransfers', 'excludedPayers'],
      description: 'What the census left out of payers and calls, and the rule it applied.',
      properties: {
        rule: str('', { minLength: 1, maxLength: 1000 }),
        selfPayments: int('', { minimum: 0 }),
        circularTransfers: int('', { minimum: 0 }),
        dustTransfers: int('', { minimum: 0 }),
        excludedPayers: int('', { minimum: 0 }),
      },
    },
  },
};

const LISTING_RECORD_SCHEMA: JsonSchema = {
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

