/** JSON Schema of the presence catalog (`GET /v1/distribution`). */
import { SURFACE_KINDS } from '../distribution.js';
import { STORE_TIMESTAMP, strings, type JsonSchema } from '../schema-parts.js';
import { LISTING_KINDS, LISTING_STATUSES } from '../types.js';

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
