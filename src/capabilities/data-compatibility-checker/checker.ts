/**
 * Data compatibility checker: compares two caller-supplied field contracts.
 *
 * The source contract describes the producer (writer) of records, the target
 * contract the consumer (reader). Everything here is a pure function of the
 * request: no I/O, no clock, no randomness, and the response does not depend
 * on the order of the descriptors in either array.
 *
 * Matching and issue rules (domain rules §D):
 * - Fields are matched by name. Under `exact` canonicalization the name is
 *   used as is; under `ascii_case_insensitive` the canonical name is the name
 *   with ASCII letters A-Z lower-cased, and issues name the canonical form.
 * - A matched pair is checked for type, required and nullable separately, so
 *   one field can carry several issues.
 * - Under `exact` canonicalization, a source field and a target field that are
 *   both unmatched and whose names are equal ignoring ASCII case form a
 *   case-mismatch pair (only when that lower-cased spelling leaves exactly one
 *   unmatched name on each side; otherwise nothing is paired). The pair gives
 *   FIELD_NAME_CASE_MISMATCH instead of FIELD_DROPPED plus
 *   FIELD_ADDED_OPTIONAL / FIELD_MISSING_REQUIRED, with one exception that
 *   keeps the verdict honest: when the target field is required, the source
 *   still does not supply that key, so FIELD_MISSING_REQUIRED is reported as
 *   well. Both issues name the target's spelling as `field` and carry both
 *   descriptors (the source one being the differently spelled field). The
 *   pair's other attributes are not compared (the fields are not the same
 *   field until the names are mapped); the issue message says whether they
 *   differ.
 * - A source field the target does not declare is FIELD_DROPPED (warning):
 *   the target is taken to ignore unknown keys.
 * - `backward_compatible` uses the catalogue severities. `exact` reports the
 *   very same issues (same codes, fields and descriptors) with every
 *   severity set to `breaking`; catalogue rows without actions then get
 *   actions from EXACT_MODE_EXTRA_ACTIONS, so every breaking issue has a
 *   remediation.
 * - Issues are sorted by severity rank (breaking, warning, info), then by
 *   field (UTF-16 code-unit order), then by code. Remediations follow the
 *   order of the issues they fix.
 */
import type { InputProblem } from '../../catalog/capability.js';
import { ServiceError, type ErrorDetail } from '../../errors.js';

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const COMPARISON_MODES = ['backward_compatible', 'exact'] as const;
export type ComparisonMode = (typeof COMPARISON_MODES)[number];

export const CANONICALIZATION_MODES = ['exact', 'ascii_case_insensitive'] as const;
export type CanonicalizationMode = (typeof CANONICALIZATION_MODES)[number];

export const CONTRACT_VERSIONS = ['1'] as const;
export type ContractVersion = (typeof CONTRACT_VERSIONS)[number];

export const SEVERITIES = ['breaking', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ISSUE_CODES = [
  'FIELD_MISSING_REQUIRED',
  'FIELD_ADDED_OPTIONAL',
  'FIELD_DROPPED',
  'FIELD_BECAME_REQUIRED',
  'FIELD_BECAME_OPTIONAL',
  'FIELD_BECAME_NON_NULLABLE',
  'FIELD_BECAME_NULLABLE',
  'FIELD_TYPE_WIDENED',
  'FIELD_TYPE_NARROWED',
  'FIELD_TYPE_INCOMPATIBLE',
  'FIELD_NAME_CASE_MISMATCH',
] as const;
export type IssueCode = (typeof ISSUE_CODES)[number];

export const REMEDIATION_ACTIONS = [
  'ADD_SOURCE_FIELD',
  'PROVIDE_DEFAULT',
  'RELAX_TARGET_REQUIRED',
  'ADD_TARGET_FIELD',
  'MAP_FIELD',
  'ACKNOWLEDGE_DROP',
  'MAKE_SOURCE_REQUIRED',
  'COALESCE_NULLS',
  'ALLOW_NULL_IN_TARGET',
  'CAST_WITH_CHECK',
  'TRANSFORM_FIELD',
  'VERSION_CONTRACT',
] as const;
export type RemediationActionCode = (typeof REMEDIATION_ACTIONS)[number];

/** One field of a contract, as the caller sends it. */
export interface FieldDescriptor {
  name: string;
  type: FieldType;
  required: boolean;
  nullable: boolean;
}

export interface CheckerRequest {
  contract_version?: ContractVersion;
  comparison_mode?: ComparisonMode;
  canonicalization?: CanonicalizationMode;
  source_fields: FieldDescriptor[];
  target_fields: FieldDescriptor[];
}

export interface CompatibilityIssue {
  /** `${code}:${field}`; unique within one response. */
  id: string;
  code: IssueCode;
  severity: Severity;
  /** Canonical field name (for a case mismatch: the target's spelling). */
  field: string;
  /** The source descriptor involved, or null when the source has no such field. */
  source: FieldDescriptor | null;
  /** The target descriptor involved, or null when the target has no such field. */
  target: FieldDescriptor | null;
  message: string;
}

export interface RemediationStep {
  action: RemediationActionCode;
  explanation: string;
}

export interface Remediation {
  /** The `id` of the issue this remediation fixes. */
  issue_id: string;
  code: IssueCode;
  field: string;
  /** Alternatives: any one of them resolves the issue. */
  actions: RemediationStep[];
}

export interface NameFolding {
  canonical: string;
  source_name: string | null;
  target_name: string | null;
}

export interface CanonicalizationReport {
  mode: CanonicalizationMode;
  description: string;
  folded: NameFolding[];
}

export interface CheckerResponse {
  contract_version: ContractVersion;
  comparison_mode: ComparisonMode;
  canonicalization: CanonicalizationReport;
  compatible: boolean;
  issue_count: number;
  issues: CompatibilityIssue[];
  remediations: Remediation[];
  checked_source_fields: number;
  checked_target_fields: number;
  assumptions: string[];
  limitations: string[];
}

export const DEFAULT_CONTRACT_VERSION: ContractVersion = '1';
export const DEFAULT_COMPARISON_MODE: ComparisonMode = 'backward_compatible';
export const DEFAULT_CANONICALIZATION: CanonicalizationMode = 'exact';

/** The rule catalogue of domain rules §D (backward_compatible severities). */
export const RULE_CATALOGUE: Readonly<
  Record<IssueCode, { severity: Severity; actions: readonly RemediationActionCode[] }>
> = {
  FIELD_MISSING_REQUIRED: {
    severity: 'breaking',
    actions: ['ADD_SOURCE_FIELD', 'PROVIDE_DEFAULT', 'RELAX_TARGET_REQUIRED'],
  },
  FIELD_ADDED_OPTIONAL: { severity: 'info', actions: [] },
  FIELD_DROPPED: { severity: 'warning', actions: ['ADD_TARGET_FIELD', 'MAP_FIELD', 'ACKNOWLEDGE_DROP'] },
  FIELD_BECAME_REQUIRED: { severity: 'breaking', actions: ['MAKE_SOURCE_REQUIRED', 'PROVIDE_DEFAULT'] },
  FIELD_BECAME_OPTIONAL: { severity: 'info', actions: [] },
  FIELD_BECAME_NON_NULLABLE: { severity: 'breaking', actions: ['COALESCE_NULLS', 'ALLOW_NULL_IN_TARGET'] },
  FIELD_BECAME_NULLABLE: { severity: 'info', actions: [] },
  FIELD_TYPE_WIDENED: { severity: 'info', actions: [] },
  FIELD_TYPE_NARROWED: { severity: 'breaking', actions: ['CAST_WITH_CHECK'] },
  FIELD_TYPE_INCOMPATIBLE: { severity: 'breaking', actions: ['TRANSFORM_FIELD', 'VERSION_CONTRACT'] },
  FIELD_NAME_CASE_MISMATCH: { severity: 'warning', actions: ['MAP_FIELD'] },
};

/**
 * Under `exact` comparison every issue is breaking and so needs a remediation.
 * The catalogue lists none for its info rows; these use actions from the
 * same catalogue vocabulary.
 */
export const EXACT_MODE_EXTRA_ACTIONS: Readonly<Partial<Record<IssueCode, readonly RemediationActionCode[]>>> = {
  FIELD_ADDED_OPTIONAL: ['ADD_SOURCE_FIELD', 'VERSION_CONTRACT'],
  FIELD_BECAME_OPTIONAL: ['VERSION_CONTRACT'],
  FIELD_BECAME_NULLABLE: ['VERSION_CONTRACT'],
  FIELD_TYPE_WIDENED: ['VERSION_CONTRACT'],
};

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { breaking: 0, warning: 1, info: 2 };

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Lower-cases ASCII letters A-Z only; every other character is kept. */
export function asciiLowerCase(name: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) {
      out += name.slice(from, i) + String.fromCharCode(c + 32);
      from = i + 1;
    }
  }
  return from === 0 ? name : out + name.slice(from);
}

function canonicalName(name: string, mode: CanonicalizationMode): string {
  return mode === 'ascii_case_insensitive' ? asciiLowerCase(name) : name;
}

/** A fresh descriptor with a fixed key order (so output bytes do not depend on input key order). */
function copyDescriptor(d: FieldDescriptor): FieldDescriptor {
  return { name: d.name, type: d.type, required: d.required, nullable: d.nullable };
}

/** Whether two descriptors share a canonical name: one Set insertion per name, the common answer being no. */
function repeatsAName(list: readonly FieldDescriptor[], mode: CanonicalizationMode): boolean {
  const seen = new Set<string>();
  for (let index = 0; index < list.length; index++) {
    const descriptor = list[index];
    if (descriptor === null || typeof descriptor !== 'object' || typeof descriptor.name !== 'string') continue;
    const size = seen.size;
    seen.add(canonicalName(descriptor.name, mode));
    if (seen.size === size) return true;
  }
  return false;
}

/**
 * Rule beyond the JSON Schema: no two descriptors of one contract may share a
 * name after canonicalization. Reports every repeat (not the first use) with
 * a JSON pointer to its name.
 */
export function findDuplicateFieldNames(input: CheckerRequest): InputProblem | undefined {
  const mode = input.canonicalization ?? DEFAULT_CANONICALIZATION;
  const details: ErrorDetail[] = [];
  for (const side of ['source_fields', 'target_fields'] as const) {
    const list = input[side];
    if (!Array.isArray(list) || !repeatsAName(list, mode)) continue;
    const firstIndex = new Map<string, number>();
    for (let index = 0; index < list.length; index++) {
      const descriptor = list[index];
      if (descriptor === null || typeof descriptor !== 'object' || typeof descriptor.name !== 'string') continue;
      const key = canonicalName(descriptor.name, mode);
      const first = firstIndex.get(key);
      if (first === undefined) {
        firstIndex.set(key, index);
        continue;
      }
      const firstName = list[first]!.name;
      const sameSpelling = firstName === descriptor.name;
      details.push({
        path: `/${side}/${index}/name`,
        rule: 'unique_name',
        message: sameSpelling
          ? `"${descriptor.name}" is already used by /${side}/${first}/name`
          : `"${descriptor.name}" equals "${firstName}" at /${side}/${first}/name after ASCII lower-casing (canonicalization ascii_case_insensitive)`,
      });
    }
  }
  if (details.length === 0) return undefined;
  return {
    code: 'duplicate_field_name',
    message:
      details.length === 1
        ? 'A field name appears twice in one contract.'
        : `${details.length} field names repeat an earlier name in the same contract.`,
    details,
  };
}

interface Finding {
  code: IssueCode;
  field: string;
  source: FieldDescriptor | null;
  target: FieldDescriptor | null;
}

function q(name: string): string {
  return `"${name}"`;
}

/**
 * The name to show in plain text: the caller's own spelling when only one
 * side has the field, otherwise the canonical field name.
 */
function shownName(f: Finding): string {
  if (f.source !== null && f.target !== null) return f.field;
  return (f.source ?? f.target)!.name;
}

function describeMessage(f: Finding, severity: Severity, comparison: ComparisonMode): string {
  const field = q(shownName(f));
  const s = f.source;
  const t = f.target;
  let text: string;
  switch (f.code) {
    case 'FIELD_MISSING_REQUIRED':
      text =
        s !== null
          ? `The target requires ${q(t!.name)}; the source only has ${q(s.name)}, which differs in letter case and is a different key under exact name matching, so records from the source lack ${q(t!.name)}.`
          : `The target requires ${field} but the source has no such field, so records from the source lack it.`;
      break;
    case 'FIELD_ADDED_OPTIONAL':
      text = `The target declares the optional field ${field}, which the source does not have; the target never receives a value for it.`;
      break;
    case 'FIELD_DROPPED':
      text = `The source field ${field} is not declared by the target, so its values are dropped when the target reads a record.`;
      break;
    case 'FIELD_BECAME_REQUIRED':
      text = `${field} is optional in the source but required in the target; source records that omit it are rejected.`;
      break;
    case 'FIELD_BECAME_OPTIONAL':
      text = `${field} is required in the source and optional in the target; every source record still supplies it.`;
      break;
    case 'FIELD_BECAME_NON_NULLABLE':
      text = `${field} may be null in the source but not in the target; source records where it is null are rejected.`;
      break;
    case 'FIELD_BECAME_NULLABLE':
      text = `${field} is never null in the source and may be null in the target; the target accepts every source value.`;
      break;
    case 'FIELD_TYPE_WIDENED':
      text = `${field} is integer in the source and number in the target; every integer is a number.`;
      break;
    case 'FIELD_TYPE_NARROWED':
      text = `${field} is number in the source and integer in the target; source values with a fractional part (such as 1.5) are rejected.`;
      break;
    case 'FIELD_TYPE_INCOMPATIBLE':
      text = `${field} is ${s!.type} in the source and ${t!.type} in the target; the target rejects the source's ${s!.type} values.`;
      break;
    case 'FIELD_NAME_CASE_MISMATCH': {
      const differences: string[] = [];
      if (s!.type !== t!.type) differences.push(`type (${s!.type} vs ${t!.type})`);
      if (s!.required !== t!.required)
        differences.push(`required (${String(s!.required)} vs ${String(t!.required)})`);
      if (s!.nullable !== t!.nullable)
        differences.push(`nullable (${String(s!.nullable)} vs ${String(t!.nullable)})`);
      text =
        `The source field ${q(s!.name)} and the target field ${q(t!.name)} differ only in letter case; under exact name matching they are different keys, so the target does not receive the source's value.` +
        (differences.length === 0
          ? ' Their descriptors are otherwise identical.'
          : ` Their descriptors also differ in ${differences.join(', ')}; check again after mapping the names.`);
      break;
    }
  }
  if (comparison === 'exact' && RULE_CATALOGUE[f.code].severity !== 'breaking' && severity === 'breaking') {
    text += ' The comparison mode is exact, so this difference is breaking.';
  }
  return text;
}

function explain(action: RemediationActionCode, f: Finding): string {
  const field = q(shownName(f));
  const s = f.source;
  const t = f.target;
  switch (action) {
    case 'ADD_SOURCE_FIELD':
      return f.code === 'FIELD_ADDED_OPTIONAL'
        ? `Add ${field} to the source contract with the same descriptor as in the target.`
        : `Add ${field} to the source contract and have the producer always write it.`;
    case 'PROVIDE_DEFAULT':
      return `Fill in a default value for ${field} whenever a source record lacks it, before the target reads the record.`;
    case 'RELAX_TARGET_REQUIRED':
      return `Make ${field} optional in the target contract.`;
    case 'ADD_TARGET_FIELD':
      return `Declare ${field} in the target contract so its values are kept.`;
    case 'MAP_FIELD':
      return f.code === 'FIELD_NAME_CASE_MISMATCH'
        ? `Map the source field ${q(s!.name)} to the target name ${q(t!.name)}, or use one spelling in both contracts.`
        : `Map ${field} to the target field that carries the same data, if there is one under another name.`;
    case 'ACKNOWLEDGE_DROP':
      return `Confirm that losing ${field} is intended; the target accepts the records without it.`;
    case 'MAKE_SOURCE_REQUIRED':
      return `Make ${field} required in the source contract so every record carries it.`;
    case 'COALESCE_NULLS':
      return `Replace null values of ${field} with a non-null value before the target reads them.`;
    case 'ALLOW_NULL_IN_TARGET':
      return `Mark ${field} as nullable in the target contract.`;
    case 'CAST_WITH_CHECK':
      return `Convert ${field} to an integer only where the value has no fractional part, and handle the other records explicitly instead of rounding silently.`;
    case 'TRANSFORM_FIELD':
      return `Convert ${field} from ${s!.type} to ${t!.type} with an explicit transformation before the target reads it.`;
    case 'VERSION_CONTRACT':
      switch (f.code) {
        case 'FIELD_TYPE_INCOMPATIBLE':
          return `Publish the changed type of ${field} as a new contract version (or under a new field name) so existing producers keep working.`;
        case 'FIELD_ADDED_OPTIONAL':
          return `Remove ${field} from the target contract, or publish the difference as a new contract version.`;
        case 'FIELD_BECAME_OPTIONAL':
          return `Make ${field} required in both contracts or optional in both, or publish the difference as a new contract version.`;
        case 'FIELD_BECAME_NULLABLE':
          return `Make ${field} nullable in both contracts or in neither, or publish the difference as a new contract version.`;
        default:
          return `Give ${field} the same type in both contracts, or publish the difference as a new contract version.`;
      }
  }
}

function actionsFor(code: IssueCode, comparison: ComparisonMode): readonly RemediationActionCode[] {
  const listed = RULE_CATALOGUE[code].actions;
  if (listed.length > 0 || comparison !== 'exact') return listed;
  return EXACT_MODE_EXTRA_ACTIONS[code] ?? [];
}

function typeChange(s: FieldType, t: FieldType): IssueCode | undefined {
  if (s === t) return undefined;
  if (s === 'integer' && t === 'number') return 'FIELD_TYPE_WIDENED';
  if (s === 'number' && t === 'integer') return 'FIELD_TYPE_NARROWED';
  return 'FIELD_TYPE_INCOMPATIBLE';
}

/** A matched pair: type, required and nullable are three separate checks. */
function compareDescriptors(field: string, s: FieldDescriptor, t: FieldDescriptor, out: Finding[]): void {
  const type = typeChange(s.type, t.type);
  if (type !== undefined) out.push({ code: type, field, source: s, target: t });
  if (s.required !== t.required) {
    out.push({ code: t.required ? 'FIELD_BECAME_REQUIRED' : 'FIELD_BECAME_OPTIONAL', field, source: s, target: t });
  }
  if (s.nullable !== t.nullable) {
    out.push({ code: t.nullable ? 'FIELD_BECAME_NULLABLE' : 'FIELD_BECAME_NON_NULLABLE', field, source: s, target: t });
  }
}

function targetOnly(field: string, t: FieldDescriptor, out: Finding[]): void {
  out.push({ code: t.required ? 'FIELD_MISSING_REQUIRED' : 'FIELD_ADDED_OPTIONAL', field, source: null, target: t });
}

function sourceOnly(field: string, s: FieldDescriptor, out: Finding[]): void {
  out.push({ code: 'FIELD_DROPPED', field, source: s, target: null });
}

const ASSUMPTIONS_COMMON: readonly string[] = [
  'The source contract describes the producer (writer) of the records and the target contract the consumer (reader).',
  'Only the two contracts in the request were compared; they are taken to be complete lists of the top-level fields.',
  'The source contract is taken to be closed: its producer writes no top-level key that source_fields does not list. A JSON Schema with an open content model (additionalProperties absent or true) does not promise that: its producer may already write an unlisted key with a value of any type, so a target field the source does not list (reported here as FIELD_ADDED_OPTIONAL, info) may receive values of another type; Confluent Schema Registry\'s JSON Schema rules report that as PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, an incompatible change. Translate only closed schemas, or treat such target fields as breaking.',
  'required means the key is always present and nullable means the value may be null; the two are checked separately.',
  'The target is taken to ignore keys it does not declare, so a source field missing from the target is reported as dropped data (a warning), not as a rejection.',
  'Every integer value is also a number (JSON Schema counts 1.0 as an integer), so integer to number is a widening; number to integer is a narrowing.',
  'The order of fields in either array does not matter; the response is the same for any order.',
];

const ASSUMPTION_BY_COMPARISON: Readonly<Record<ComparisonMode, string>> = {
  backward_compatible:
    'Comparison mode backward_compatible: a difference is breaking only when some record valid under the source contract would be rejected by the target contract.',
  exact:
    'Comparison mode exact: the contracts must be identical field for field; every difference is reported with the same code as in backward_compatible mode and is breaking.',
};

const ASSUMPTION_BY_CANONICALIZATION: Readonly<Record<CanonicalizationMode, string>> = {
  exact:
    'Field names were matched exactly, including letter case. A source field and a target field whose names differ only in ASCII letter case are reported as FIELD_NAME_CASE_MISMATCH; they are still different keys, so a required target field spelled differently in the source is also reported as FIELD_MISSING_REQUIRED.',
  ascii_case_insensitive:
    'Field names were matched after lower-casing the ASCII letters A-Z; issues name each field by that lower-cased canonical name, and canonicalization.folded lists every name that lower-casing changed.',
};

const LIMITATIONS_COMMON: readonly string[] = [
  'No data was fetched and no records were inspected; the result is derived from the two supplied contracts only.',
  'No API, endpoint, database or live schema was called or validated; real producers and consumers may behave differently from their contracts.',
  'Only structural, top-level fields were compared: the contents of object and array fields (nested properties, item types) were not compared.',
  'Constraints beyond type, required and nullable (formats, enums, ranges, lengths, patterns, defaults, field meaning) are not part of the descriptors and were not checked.',
  'Renamed fields are not detected, except names that differ only in ASCII letter case.',
];

const LIMITATION_BY_CANONICALIZATION: Readonly<Record<CanonicalizationMode, string>> = {
  exact:
    'A case-mismatch pair is reported only when, for one lower-cased spelling, exactly one source name and one target name are left unmatched; other unmatched names are reported as dropped or missing fields.',
  ascii_case_insensitive:
    'Letter case of field names was ignored, so a consumer that reads keys case-sensitively may still miss a field whose spelling differs between the contracts.',
};

const CANONICALIZATION_DESCRIPTION: Readonly<Record<CanonicalizationMode, string>> = {
  exact: 'Field names were matched exactly, including letter case; no name was folded.',
  ascii_case_insensitive:
    'Field names were matched after lower-casing the ASCII letters A-Z; folded lists each canonical name whose source or target spelling was changed by that.',
};

interface CaseGroup {
  sources: FieldDescriptor[];
  targets: FieldDescriptor[];
}

function caseGroup(groups: Map<string, CaseGroup>, name: string): CaseGroup {
  const lower = asciiLowerCase(name);
  let g = groups.get(lower);
  if (g === undefined) {
    g = { sources: [], targets: [] };
    groups.set(lower, g);
  }
  return g;
}

interface RankedFinding {
  finding: Finding;
  severity: Severity;
  rank: number;
}

/** The documented sort key: severity rank, then field, then code (UTF-16 code-unit order). */
function compareRanked(a: RankedFinding, b: RankedFinding): number {
  return (
    a.rank - b.rank ||
    compareStrings(a.finding.field, b.finding.field) ||
    compareStrings(a.finding.code, b.finding.code)
  );
}

function compareFoldings(a: NameFolding, b: NameFolding): number {
  return compareStrings(a.canonical, b.canonical);
}

const CATALOGUE_SEVERITY = Object.fromEntries(
  ISSUE_CODES.map((code) => [code, RULE_CATALOGUE[code].severity]),
) as Record<IssueCode, Severity>;
const EXACT_SEVERITY = Object.fromEntries(ISSUE_CODES.map((code) => [code, 'breaking'])) as Record<
  IssueCode,
  Severity
>;

/** Map from canonical name to descriptor; undefined when a canonical name repeats. */
function indexByCanonicalName(
  fields: readonly FieldDescriptor[],
  mode: CanonicalizationMode,
): Map<string, FieldDescriptor> | undefined {
  const map = new Map<string, FieldDescriptor>();
  for (const d of fields) {
    const size = map.size;
    map.set(canonicalName(d.name, mode), d);
    // One lookup per name: a repeat leaves the size unchanged (and the map is dropped).
    if (map.size === size) return undefined;
  }
  return map;
}

/**
 * Compares the source contract with the target contract. Assumes the request
 * passed the input schema; throws a `duplicate_field_name` ServiceError when
 * `findDuplicateFieldNames` would have rejected it.
 */
export function checkCompatibility(input: CheckerRequest): CheckerResponse {
  const contractVersion = input.contract_version ?? DEFAULT_CONTRACT_VERSION;
  const comparison = input.comparison_mode ?? DEFAULT_COMPARISON_MODE;
  const canonicalization = input.canonicalization ?? DEFAULT_CANONICALIZATION;

  const sources = indexByCanonicalName(input.source_fields, canonicalization);
  const targets = indexByCanonicalName(input.target_fields, canonicalization);
  if (sources === undefined || targets === undefined) {
    const problem = findDuplicateFieldNames(input)!;
    throw new ServiceError(problem.code, problem.message, problem.details);
  }

  const findings: Finding[] = [];
  const unmatchedTargets: FieldDescriptor[] = [];
  const unmatchedSources: FieldDescriptor[] = [];
  for (const [key, t] of targets) {
    const s = sources.get(key);
    if (s === undefined) unmatchedTargets.push(t);
    else compareDescriptors(key, s, t, findings);
  }
  for (const [key, s] of sources) {
    if (!targets.has(key)) unmatchedSources.push(s);
  }

  if (canonicalization === 'exact') {
    // Group the leftovers by lower-cased spelling to find case-mismatch pairs.
    const groups = new Map<string, CaseGroup>();
    for (const s of unmatchedSources) caseGroup(groups, s.name).sources.push(s);
    for (const t of unmatchedTargets) caseGroup(groups, t.name).targets.push(t);
    for (const g of groups.values()) {
      if (g.sources.length === 1 && g.targets.length === 1) {
        const s = g.sources[0]!;
        const t = g.targets[0]!;
        findings.push({ code: 'FIELD_NAME_CASE_MISMATCH', field: t.name, source: s, target: t });
        if (t.required) findings.push({ code: 'FIELD_MISSING_REQUIRED', field: t.name, source: s, target: t });
      } else {
        for (const s of g.sources) sourceOnly(s.name, s, findings);
        for (const t of g.targets) targetOnly(t.name, t, findings);
      }
    }
  } else {
    for (const s of unmatchedSources) sourceOnly(asciiLowerCase(s.name), s, findings);
    for (const t of unmatchedTargets) targetOnly(asciiLowerCase(t.name), t, findings);
  }

  const severityOf = comparison === 'exact' ? EXACT_SEVERITY : CATALOGUE_SEVERITY;
  const ranked: RankedFinding[] = [];
  for (const f of findings) {
    const severity = severityOf[f.code];
    ranked.push({ finding: f, severity, rank: SEVERITY_RANK[severity] });
  }
  ranked.sort(compareRanked);

  const issues: CompatibilityIssue[] = [];
  const remediations: Remediation[] = [];
  let compatible = true;
  for (const { finding: f, severity } of ranked) {
    const id = f.code + ':' + f.field;
    if (severity === 'breaking') compatible = false;
    issues.push({
      id,
      code: f.code,
      severity,
      field: f.field,
      source: f.source === null ? null : copyDescriptor(f.source),
      target: f.target === null ? null : copyDescriptor(f.target),
      message: describeMessage(f, severity, comparison),
    });
    const actions = actionsFor(f.code, comparison);
    if (actions.length === 0) continue;
    const steps: RemediationStep[] = [];
    for (const action of actions) steps.push({ action, explanation: explain(action, f) });
    remediations.push({ issue_id: id, code: f.code, field: f.field, actions: steps });
  }

  const folded: NameFolding[] = [];
  if (canonicalization === 'ascii_case_insensitive') {
    for (const [key, s] of sources) {
      const targetName = targets.get(key)?.name ?? null;
      if (s.name !== key || (targetName !== null && targetName !== key)) {
        folded.push({ canonical: key, source_name: s.name, target_name: targetName });
      }
    }
    for (const [key, t] of targets) {
      if (!sources.has(key) && t.name !== key) folded.push({ canonical: key, source_name: null, target_name: t.name });
    }
    folded.sort(compareFoldings);
  }

  return {
    contract_version: contractVersion,
    comparison_mode: comparison,
    canonicalization: {
      mode: canonicalization,
      description: CANONICALIZATION_DESCRIPTION[canonicalization],
      folded,
    },
    compatible,
    issue_count: issues.length,
    issues,
    remediations,
    checked_source_fields: input.source_fields.length,
    checked_target_fields: input.target_fields.length,
    assumptions: [
      ...ASSUMPTIONS_COMMON,
      ASSUMPTION_BY_COMPARISON[comparison],
      ASSUMPTION_BY_CANONICALIZATION[canonicalization],
    ],
    limitations: [...LIMITATIONS_COMMON, LIMITATION_BY_CANONICALIZATION[canonicalization]],
  };
}
