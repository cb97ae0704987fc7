/**
 * JSON Schemas (draft 2020-12 vocabulary, no `$ref`, so each can be embedded
 * as is in an OpenAPI 3.1 document) of the data compatibility checker.
 */
import type { JsonSchema } from '../../catalog/capability.js';
import {
  CANONICALIZATION_MODES,
  COMPARISON_MODES,
  CONTRACT_VERSIONS,
  DEFAULT_CANONICALIZATION,
  DEFAULT_COMPARISON_MODE,
  DEFAULT_CONTRACT_VERSION,
  FIELD_TYPES,
  ISSUE_CODES,
  REMEDIATION_ACTIONS,
  SEVERITIES,
} from './checker.js';

const FIELD_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_]{0,63}$';

function fieldDescriptorSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'One top-level field of a contract.',
    properties: {
      name: {
        type: 'string',
        pattern: FIELD_NAME_PATTERN,
        description: 'Field name: a letter, then up to 63 letters, digits or underscores.',
      },
      type: { type: 'string', enum: [...FIELD_TYPES], description: 'JSON type of the value.' },
      required: { type: 'boolean', description: 'true when the key is always present.' },
      nullable: { type: 'boolean', description: 'true when the value may be null.' },
    },
    required: ['name', 'type', 'required', 'nullable'],
    additionalProperties: false,
  };
}

function fieldListSchema(description: string): JsonSchema {
  return {
    type: 'array',
    description,
    minItems: 1,
    maxItems: 100,
    items: fieldDescriptorSchema(),
  };
}

export const inputSchema: JsonSchema = {
  type: 'object',
  description:
    'Two field contracts to compare. Names must be unique within each contract after canonicalization (otherwise 400 duplicate_field_name).',
  properties: {
    contract_version: {
      type: 'string',
      enum: [...CONTRACT_VERSIONS],
      default: DEFAULT_CONTRACT_VERSION,
      description: 'Version of this request contract.',
    },
    comparison_mode: {
      type: 'string',
      enum: [...COMPARISON_MODES],
      default: DEFAULT_COMPARISON_MODE,
      description:
        'backward_compatible: is every record valid under the source accepted by the target? exact: are the contracts identical (every difference breaking)?',
    },
    canonicalization: {
      type: 'string',
      enum: [...CANONICALIZATION_MODES],
      default: DEFAULT_CANONICALIZATION,
      description:
        'exact: names match only when spelled identically (case differences are reported as FIELD_NAME_CASE_MISMATCH). ascii_case_insensitive: names match after lower-casing A-Z.',
    },
    source_fields: fieldListSchema('Contract of the producer (writer) of the records.'),
    target_fields: fieldListSchema('Contract of the consumer (reader) of the records.'),
  },
  required: ['source_fields', 'target_fields'],
  additionalProperties: false,
};

function nullableDescriptorSchema(description: string): JsonSchema {
  return { description, oneOf: [fieldDescriptorSchema(), { type: 'null' }] };
}

const ISSUE_ID_PATTERN = '^[A-Z_]+:[A-Za-z][A-Za-z0-9_]{0,63}$';

const issueSchema: JsonSchema = {
  type: 'object',
  description: 'One difference between the contracts.',
  properties: {
    id: {
      type: 'string',
      pattern: ISSUE_ID_PATTERN,
      description: 'code:field; unique within the response and referenced by remediations.',
    },
    code: { type: 'string', enum: [...ISSUE_CODES] },
    severity: {
      type: 'string',
      enum: [...SEVERITIES],
      description: 'breaking issues make compatible false; in exact mode every issue is breaking.',
    },
    field: {
      type: 'string',
      pattern: FIELD_NAME_PATTERN,
      description:
        'Canonical field name (lower-cased under ascii_case_insensitive); for FIELD_NAME_CASE_MISMATCH the target spelling.',
    },
    source: nullableDescriptorSchema('The source descriptor involved, or null when the source has no such field.'),
    target: nullableDescriptorSchema('The target descriptor involved, or null when the target has no such field.'),
    message: { type: 'string', minLength: 1, description: 'Plain explanation of the difference.' },
  },
  required: ['id', 'code', 'severity', 'field', 'source', 'target', 'message'],
  additionalProperties: false,
};

const remediationSchema: JsonSchema = {
  type: 'object',
  description: 'Ways to fix one issue; any one of the actions resolves it.',
  properties: {
    issue_id: { type: 'string', pattern: ISSUE_ID_PATTERN, description: 'id of the issue this fixes.' },
    code: { type: 'string', enum: [...ISSUE_CODES] },
    field: { type: 'string', pattern: FIELD_NAME_PATTERN },
    actions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: [...REMEDIATION_ACTIONS] },
          explanation: { type: 'string', minLength: 1 },
        },
        required: ['action', 'explanation'],
        additionalProperties: false,
      },
    },
  },
  required: ['issue_id', 'code', 'field', 'actions'],
  additionalProperties: false,
};

const nullableName = { oneOf: [{ type: 'string', pattern: FIELD_NAME_PATTERN }, { type: 'null' }] };

const canonicalizationSchema: JsonSchema = {
  type: 'object',
  description: 'How field names were matched.',
  properties: {
    mode: { type: 'string', enum: [...CANONICALIZATION_MODES] },
    description: { type: 'string', minLength: 1 },
    folded: {
      type: 'array',
      description:
        'Under ascii_case_insensitive: every canonical name whose source or target spelling differs from it, sorted by canonical. Empty under exact.',
      items: {
        type: 'object',
        properties: {
          canonical: { type: 'string', pattern: FIELD_NAME_PATTERN },
          source_name: { ...nullableName, description: 'Spelling in the source, or null when the source lacks it.' },
          target_name: { ...nullableName, description: 'Spelling in the target, or null when the target lacks it.' },
        },
        required: ['canonical', 'source_name', 'target_name'],
        additionalProperties: false,
      },
    },
  },
  required: ['mode', 'description', 'folded'],
  additionalProperties: false,
};

const plainStrings = (description: string): JsonSchema => ({
  type: 'array',
  description,
  minItems: 1,
  items: { type: 'string', minLength: 1 },
});

export const outputSchema: JsonSchema = {
  type: 'object',
  description: 'Compatibility verdict with issues sorted by severity (breaking, warning, info), then field, then code.',
  properties: {
    contract_version: { type: 'string', enum: [...CONTRACT_VERSIONS] },
    comparison_mode: { type: 'string', enum: [...COMPARISON_MODES] },
    canonicalization: canonicalizationSchema,
    compatible: { type: 'boolean', description: 'true exactly when no issue is breaking.' },
    issue_count: { type: 'integer', minimum: 0 },
    issues: { type: 'array', items: issueSchema },
    remediations: {
      type: 'array',
      description: 'One entry per issue that has actions (every breaking issue does), in issue order.',
      items: remediationSchema,
    },
    checked_source_fields: { type: 'integer', minimum: 1, maximum: 100 },
    checked_target_fields: { type: 'integer', minimum: 1, maximum: 100 },
    assumptions: plainStrings('What the verdict takes for granted.'),
    limitations: plainStrings('What was not checked.'),
  },
  required: [
    'contract_version',
    'comparison_mode',
    'canonicalization',
    'compatible',
    'issue_count',
    'issues',
    'remediations',
    'checked_source_fields',
    'checked_target_fields',
    'assumptions',
    'limitations',
  ],
  additionalProperties: false,
};
