/** JSON Schemas of the entity graph's answers (`GET /v1/graph…`). */
import { bool, SOURCE_TYPE, STORE_TIMESTAMP, strings, type JsonSchema } from '../schema-parts.js';
import { ENTITY_TYPES, ITEM_TYPES, RELATIONSHIP_TYPES } from '../types.js';

const ENTITY_SCHEMA: JsonSchema = {
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

const RELATIONSHIP_SCHEMA: JsonSchema = {
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

const GRAPH_EVENT_SCHEMA: JsonSchema = {
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
