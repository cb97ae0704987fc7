/**
 * Request/response examples published with the capability (OpenAPI, MCP).
 * Each output is exactly what checkCompatibility returns for its input; the
 * test suite checks that they stay equal.
 */
import type { CheckerRequest, CheckerResponse } from './checker.js';

export const checkerExamples: Array<{ summary: string; input: CheckerRequest; output: CheckerResponse }> = [
  {
    summary: 'Order events (defaults: backward_compatible, exact names): narrowed type, new required fields, a case mismatch and a dropped field',
    input: {
      source_fields: [
        { name: 'order_id', type: 'integer', required: true, nullable: false },
        { name: 'amount', type: 'number', required: true, nullable: false },
        { name: 'note', type: 'string', required: false, nullable: true },
        { name: 'createdAt', type: 'string', required: true, nullable: false },
        { name: 'tags', type: 'array', required: false, nullable: false },
      ],
      target_fields: [
        { name: 'order_id', type: 'number', required: true, nullable: false },
        { name: 'amount', type: 'integer', required: true, nullable: false },
        { name: 'note', type: 'string', required: true, nullable: false },
        { name: 'CreatedAt', type: 'string', required: true, nullable: false },
        { name: 'currency', type: 'string', required: true, nullable: false },
        { name: 'coupon', type: 'string', required: false, nullable: true },
      ],
    },
    output: {
      contract_version: '1',
      comparison_mode: 'backward_compatible',
      canonicalization: {
        mode: 'exact',
        description: 'Field names were matched exactly, including letter case; no name was folded.',
        folded: [],
      },
      compatible: false,
      issue_count: 9,
      issues: [
        {
          id: 'FIELD_MISSING_REQUIRED:CreatedAt',
          code: 'FIELD_MISSING_REQUIRED',
          severity: 'breaking',
          field: 'CreatedAt',
          source: { name: 'createdAt', type: 'string', required: true, nullable: false },
          target: { name: 'CreatedAt', type: 'string', required: true, nullable: false },
          message: 'The target requires "CreatedAt"; the source only has "createdAt", which differs in letter case and is a different key under exact name matching, so records from the source lack "CreatedAt".',
        },
        {
          id: 'FIELD_TYPE_NARROWED:amount',
          code: 'FIELD_TYPE_NARROWED',
          severity: 'breaking',
          field: 'amount',
          source: { name: 'amount', type: 'number', required: true, nullable: false },
          target: { name: 'amount', type: 'integer', required: true, nullable: false },
          message: '"amount" is number in the source and integer in the target; source values with a fractional part (such as 1.5) are rejected.',
        },
        {
          id: 'FIELD_MISSING_REQUIRED:currency',
          code: 'FIELD_MISSING_REQUIRED',
          severity: 'breaking',
          field: 'currency',
          source: null,
          target: { name: 'currency', type: 'string', required: true, nullable: false },
          message: 'The target requires "currency" but the source has no such field, so records from the source lack it.',
        },
        {
          id: 'FIELD_BECAME_NON_NULLABLE:note',
          code: 'FIELD_BECAME_NON_NULLABLE',
          severity: 'breaking',
          field: 'note',
          source: { name: 'note', type: 'string', required: false, nullable: true },
          target: { name: 'note', type: 'string', required: true, nullable: false },
          message: '"note" may be null in the source but not in the target; source records where it is null are rejected.',
        },
        {
          id: 'FIELD_BECAME_REQUIRED:note',
          code: 'FIELD_BECAME_REQUIRED',
          severity: 'breaking',
          field: 'note',
          source: { name: 'note', type: 'string', required: false, nullable: true },
          target: { name: 'note', type: 'string', required: true, nullable: false },
          message: '"note" is optional in the source but required in the target; source records that omit it are rejected.',
        },
        {
          id: 'FIELD_NAME_CASE_MISMATCH:CreatedAt',
          code: 'FIELD_NAME_CASE_MISMATCH',
          severity: 'warning',
          field: 'CreatedAt',
          source: { name: 'createdAt', type: 'string', required: true, nullable: false },
          target: { name: 'CreatedAt', type: 'string', required: true, nullable: false },
          message: 'The source field "createdAt" and the target field "CreatedAt" differ only in letter case; under exact name matching they are different keys, so the target does not receive the source\'s value. Their descriptors are otherwise identical.',
        },
        {
          id: 'FIELD_DROPPED:tags',
          code: 'FIELD_DROPPED',
          severity: 'warning',
          field: 'tags',
          source: { name: 'tags', type: 'array', required: false, nullable: false },
          target: null,
          message: 'The source field "tags" is not declared by the target, so its values are dropped when the target reads a record.',
        },
        {
          id: 'FIELD_ADDED_OPTIONAL:coupon',
          code: 'FIELD_ADDED_OPTIONAL',
          severity: 'info',
          field: 'coupon',
          source: null,
          target: { name: 'coupon', type: 'string', required: false, nullable: true },
          message: 'The target declares the optional field "coupon", which the source does not have; the target never receives a value for it.',
        },
        {
          id: 'FIELD_TYPE_WIDENED:order_id',
          code: 'FIELD_TYPE_WIDENED',
          severity: 'info',
          field: 'order_id',
          source: { name: 'order_id', type: 'integer', required: true, nullable: false },
          target: { name: 'order_id', type: 'number', required: true, nullable: false },
          message: '"order_id" is integer in the source and number in the target; every integer is a number.',
        },
      ],
      remediations: [
        {
          issue_id: 'FIELD_MISSING_REQUIRED:CreatedAt',
          code: 'FIELD_MISSING_REQUIRED',
          field: 'CreatedAt',
          actions: [
            {
              action: 'ADD_SOURCE_FIELD',
              explanation: 'Add "CreatedAt" to the source contract and have the producer always write it.',
            },
            {
              action: 'PROVIDE_DEFAULT',
              explanation: 'Fill in a default value for "CreatedAt" whenever a source record lacks it, before the target reads the record.',
            },
            {
              action: 'RELAX_TARGET_REQUIRED',
              explanation: 'Make "CreatedAt" optional in the target contract.',
            },
          ],
        },
        {
          issue_id: 'FIELD_TYPE_NARROWED:amount',
          code: 'FIELD_TYPE_NARROWED',
          field: 'amount',
          actions: [
            {
              action: 'CAST_WITH_CHECK',
              explanation: 'Convert "amount" to an integer only where the value has no fractional part, and handle the other records explicitly instead of rounding silently.',
            },
          ],
        },
        {
          issue_id: 'FIELD_MISSING_REQUIRED:currency',
          code: 'FIELD_MISSING_REQUIRED',
          field: 'currency',
          actions: [
            {
              action: 'ADD_SOURCE_FIELD',
              explanation: 'Add "currency" to the source contract and have the producer always write it.',
            },
            {
              action: 'PROVIDE_DEFAULT',
              explanation: 'Fill in a default value for "currency" whenever a source record lacks it, before the target reads the record.',
            },
            {
              action: 'RELAX_TARGET_REQUIRED',
              explanation: 'Make "currency" optional in the target contract.',
            },
          ],
        },
        {
          issue_id: 'FIELD_BECAME_NON_NULLABLE:note',
          code: 'FIELD_BECAME_NON_NULLABLE',
          field: 'note',
          actions: [
            {
              action: 'COALESCE_NULLS',
              explanation: 'Replace null values of "note" with a non-null value before the target reads them.',
            },
            {
              action: 'ALLOW_NULL_IN_TARGET',
              explanation: 'Mark "note" as nullable in the target contract.',
            },
          ],
        },
        {
          issue_id: 'FIELD_BECAME_REQUIRED:note',
          code: 'FIELD_BECAME_REQUIRED',
          field: 'note',
          actions: [
            {
              action: 'MAKE_SOURCE_REQUIRED',
              explanation: 'Make "note" required in the source contract so every record carries it.',
            },
            {
              action: 'PROVIDE_DEFAULT',
              explanation: 'Fill in a default value for "note" whenever a source record lacks it, before the target reads the record.',
            },
          ],
        },
        {
          issue_id: 'FIELD_NAME_CASE_MISMATCH:CreatedAt',
          code: 'FIELD_NAME_CASE_MISMATCH',
          field: 'CreatedAt',
          actions: [
            {
              action: 'MAP_FIELD',
              explanation: 'Map the source field "createdAt" to the target name "CreatedAt", or use one spelling in both contracts.',
            },
          ],
        },
        {
          issue_id: 'FIELD_DROPPED:tags',
          code: 'FIELD_DROPPED',
          field: 'tags',
          actions: [
            {
              action: 'ADD_TARGET_FIELD',
              explanation: 'Declare "tags" in the target contract so its values are kept.',
            },
            {
              action: 'MAP_FIELD',
              explanation: 'Map "tags" to the target field that carries the same data, if there is one under another name.',
            },
            {
              action: 'ACKNOWLEDGE_DROP',
              explanation: 'Confirm that losing "tags" is intended; the target accepts the records without it.',
            },
          ],
        },
      ],
      checked_source_fields: 5,
      checked_target_fields: 6,
      assumptions: [
        'The source contract describes the producer (writer) of the records and the target contract the consumer (reader).',
        'Only the two contracts in the request were compared; they are taken to be complete lists of the top-level fields.',
        'The source contract is taken to be closed: its producer writes no top-level key that source_fields does not list. A JSON Schema with an open content model (additionalProperties absent or true) does not promise that: its producer may already write an unlisted key with a value of any type, so a target field the source does not list (reported here as FIELD_ADDED_OPTIONAL, info) may receive values of another type; Confluent Schema Registry\'s JSON Schema rules report that as PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, an incompatible change. Translate only closed schemas, or treat such target fields as breaking.',
        'required means the key is always present and nullable means the value may be null; the two are checked separately.',
        'The target is taken to ignore keys it does not declare, so a source field missing from the target is reported as dropped data (a warning), not as a rejection.',
        'Every integer value is also a number (JSON Schema counts 1.0 as an integer), so integer to number is a widening; number to integer is a narrowing.',
        'The order of fields in either array does not matter; the response is the same for any order.',
        'Comparison mode backward_compatible: a difference is breaking only when some record valid under the source contract would be rejected by the target contract.',
        'Field names were matched exactly, including letter case. A source field and a target field whose names differ only in ASCII letter case are reported as FIELD_NAME_CASE_MISMATCH; they are still different keys, so a required target field spelled differently in the source is also reported as FIELD_MISSING_REQUIRED.',
      ],
      limitations: [
        'No data was fetched and no records were inspected; the result is derived from the two supplied contracts only.',
        'No API, endpoint, database or live schema was called or validated; real producers and consumers may behave differently from their contracts.',
        'Only structural, top-level fields were compared: the contents of object and array fields (nested properties, item types) were not compared.',
        'Constraints beyond type, required and nullable (formats, enums, ranges, lengths, patterns, defaults, field meaning) are not part of the descriptors and were not checked.',
        'Renamed fields are not detected, except names that differ only in ASCII letter case.',
        'A case-mismatch pair is reported only when, for one lower-cased spelling, exactly one source name and one target name are left unmatched; other unmatched names are reported as dropped or missing fields.',
      ],
    },
  },
  {
    summary: 'User profile with ascii_case_insensitive names: compatible, with widening, relaxed fields and one dropped field',
    input: {
      contract_version: '1',
      comparison_mode: 'backward_compatible',
      canonicalization: 'ascii_case_insensitive',
      source_fields: [
        { name: 'userId', type: 'integer', required: true, nullable: false },
        { name: 'Email', type: 'string', required: true, nullable: false },
        { name: 'nickname', type: 'string', required: false, nullable: true },
      ],
      target_fields: [
        { name: 'userid', type: 'number', required: true, nullable: false },
        { name: 'email', type: 'string', required: false, nullable: true },
      ],
    },
    output: {
      contract_version: '1',
      comparison_mode: 'backward_compatible',
      canonicalization: {
        mode: 'ascii_case_insensitive',
        description: 'Field names were matched after lower-casing the ASCII letters A-Z; folded lists each canonical name whose source or target spelling was changed by that.',
        folded: [
          { canonical: 'email', source_name: 'Email', target_name: 'email' },
          { canonical: 'userid', source_name: 'userId', target_name: 'userid' },
        ],
      },
      compatible: true,
      issue_count: 4,
      issues: [
        {
          id: 'FIELD_DROPPED:nickname',
          code: 'FIELD_DROPPED',
          severity: 'warning',
          field: 'nickname',
          source: { name: 'nickname', type: 'string', required: false, nullable: true },
          target: null,
          message: 'The source field "nickname" is not declared by the target, so its values are dropped when the target reads a record.',
        },
        {
          id: 'FIELD_BECAME_NULLABLE:email',
          code: 'FIELD_BECAME_NULLABLE',
          severity: 'info',
          field: 'email',
          source: { name: 'Email', type: 'string', required: true, nullable: false },
          target: { name: 'email', type: 'string', required: false, nullable: true },
          message: '"email" is never null in the source and may be null in the target; the target accepts every source value.',
        },
        {
          id: 'FIELD_BECAME_OPTIONAL:email',
          code: 'FIELD_BECAME_OPTIONAL',
          severity: 'info',
          field: 'email',
          source: { name: 'Email', type: 'string', required: true, nullable: false },
          target: { name: 'email', type: 'string', required: false, nullable: true },
          message: '"email" is required in the source and optional in the target; every source record still supplies it.',
        },
        {
          id: 'FIELD_TYPE_WIDENED:userid',
          code: 'FIELD_TYPE_WIDENED',
          severity: 'info',
          field: 'userid',
          source: { name: 'userId', type: 'integer', required: true, nullable: false },
          target: { name: 'userid', type: 'number', required: true, nullable: false },
          message: '"userid" is integer in the source and number in the target; every integer is a number.',
        },
      ],
      remediations: [
        {
          issue_id: 'FIELD_DROPPED:nickname',
          code: 'FIELD_DROPPED',
          field: 'nickname',
          actions: [
            {
              action: 'ADD_TARGET_FIELD',
              explanation: 'Declare "nickname" in the target contract so its values are kept.',
            },
            {
              action: 'MAP_FIELD',
              explanation: 'Map "nickname" to the target field that carries the same data, if there is one under another name.',
            },
            {
              action: 'ACKNOWLEDGE_DROP',
              explanation: 'Confirm that losing "nickname" is intended; the target accepts the records without it.',
            },
          ],
        },
      ],
      checked_source_fields: 3,
      checked_target_fields: 2,
      assumptions: [
        'The source contract describes the producer (writer) of the records and the target contract the consumer (reader).',
        'Only the two contracts in the request were compared; they are taken to be complete lists of the top-level fields.',
        'The source contract is taken to be closed: its producer writes no top-level key that source_fields does not list. A JSON Schema with an open content model (additionalProperties absent or true) does not promise that: its producer may already write an unlisted key with a value of any type, so a target field the source does not list (reported here as FIELD_ADDED_OPTIONAL, info) may receive values of another type; Confluent Schema Registry\'s JSON Schema rules report that as PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, an incompatible change. Translate only closed schemas, or treat such target fields as breaking.',
        'required means the key is always present and nullable means the value may be null; the two are checked separately.',
        'The target is taken to ignore keys it does not declare, so a source field missing from the target is reported as dropped data (a warning), not as a rejection.',
        'Every integer value is also a number (JSON Schema counts 1.0 as an integer), so integer to number is a widening; number to integer is a narrowing.',
        'The order of fields in either array does not matter; the response is the same for any order.',
        'Comparison mode backward_compatible: a difference is breaking only when some record valid under the source contract would be rejected by the target contract.',
        'Field names were matched after lower-casing the ASCII letters A-Z; issues name each field by that lower-cased canonical name, and canonicalization.folded lists every name that lower-casing changed.',
      ],
      limitations: [
        'No data was fetched and no records were inspected; the result is derived from the two supplied contracts only.',
        'No API, endpoint, database or live schema was called or validated; real producers and consumers may behave differently from their contracts.',
        'Only structural, top-level fields were compared: the contents of object and array fields (nested properties, item types) were not compared.',
        'Constraints beyond type, required and nullable (formats, enums, ranges, lengths, patterns, defaults, field meaning) are not part of the descriptors and were not checked.',
        'Renamed fields are not detected, except names that differ only in ASCII letter case.',
        'Letter case of field names was ignored, so a consumer that reads keys case-sensitively may still miss a field whose spelling differs between the contracts.',
      ],
    },
  },
  {
    summary: 'exact comparison: a field that only became optional is a breaking difference',
    input: {
      contract_version: '1',
      comparison_mode: 'exact',
      canonicalization: 'exact',
      source_fields: [
        { name: 'id', type: 'integer', required: true, nullable: false },
        { name: 'name', type: 'string', required: true, nullable: false },
      ],
      target_fields: [
        { name: 'id', type: 'integer', required: true, nullable: false },
        { name: 'name', type: 'string', required: false, nullable: false },
      ],
    },
    output: {
      contract_version: '1',
      comparison_mode: 'exact',
      canonicalization: {
        mode: 'exact',
        description: 'Field names were matched exactly, including letter case; no name was folded.',
        folded: [],
      },
      compatible: false,
      issue_count: 1,
      issues: [
        {
          id: 'FIELD_BECAME_OPTIONAL:name',
          code: 'FIELD_BECAME_OPTIONAL',
          severity: 'breaking',
          field: 'name',
          source: { name: 'name', type: 'string', required: true, nullable: false },
          target: { name: 'name', type: 'string', required: false, nullable: false },
          message: '"name" is required in the source and optional in the target; every source record still supplies it. The comparison mode is exact, so this difference is breaking.',
        },
      ],
      remediations: [
        {
          issue_id: 'FIELD_BECAME_OPTIONAL:name',
          code: 'FIELD_BECAME_OPTIONAL',
          field: 'name',
          actions: [
            {
              action: 'VERSION_CONTRACT',
              explanation: 'Make "name" required in both contracts or optional in both, or publish the difference as a new contract version.',
            },
          ],
        },
      ],
      checked_source_fields: 2,
      checked_target_fields: 2,
      assumptions: [
        'The source contract describes the producer (writer) of the records and the target contract the consumer (reader).',
        'Only the two contracts in the request were compared; they are taken to be complete lists of the top-level fields.',
        'The source contract is taken to be closed: its producer writes no top-level key that source_fields does not list. A JSON Schema with an open content model (additionalProperties absent or true) does not promise that: its producer may already write an unlisted key with a value of any type, so a target field the source does not list (reported here as FIELD_ADDED_OPTIONAL, info) may receive values of another type; Confluent Schema Registry\'s JSON Schema rules report that as PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, an incompatible change. Translate only closed schemas, or treat such target fields as breaking.',
        'required means the key is always present and nullable means the value may be null; the two are checked separately.',
        'The target is taken to ignore keys it does not declare, so a source field missing from the target is reported as dropped data (a warning), not as a rejection.',
        'Every integer value is also a number (JSON Schema counts 1.0 as an integer), so integer to number is a widening; number to integer is a narrowing.',
        'The order of fields in either array does not matter; the response is the same for any order.',
        'Comparison mode exact: the contracts must be identical field for field; every difference is reported with the same code as in backward_compatible mode and is breaking.',
        'Field names were matched exactly, including letter case. A source field and a target field whose names differ only in ASCII letter case are reported as FIELD_NAME_CASE_MISMATCH; they are still different keys, so a required target field spelled differently in the source is also reported as FIELD_MISSING_REQUIRED.',
      ],
      limitations: [
        'No data was fetched and no records were inspected; the result is derived from the two supplied contracts only.',
        'No API, endpoint, database or live schema was called or validated; real producers and consumers may behave differently from their contracts.',
        'Only structural, top-level fields were compared: the contents of object and array fields (nested properties, item types) were not compared.',
        'Constraints beyond type, required and nullable (formats, enums, ranges, lengths, patterns, defaults, field meaning) are not part of the descriptors and were not checked.',
        'Renamed fields are not detected, except names that differ only in ASCII letter case.',
        'A case-mismatch pair is reported only when, for one lower-cased spelling, exactly one source name and one target name are left unmatched; other unmatched names are reported as dropped or missing fields.',
      ],
    },
  },
];
