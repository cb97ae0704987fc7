import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Ajv2020Module from 'ajv/dist/2020.js';
import { ServiceError } from '../../errors.js';
import {
  asciiLowerCase,
  checkCompatibility,
  CANONICALIZATION_MODES,
  COMPARISON_MODES,
  EXACT_MODE_EXTRA_ACTIONS,
  FIELD_TYPES,
  findDuplicateFieldNames,
  ISSUE_CODES,
  RULE_CATALOGUE,
  type CanonicalizationMode,
  type CheckerRequest,
  type CheckerResponse,
  type ComparisonMode,
  type FieldDescriptor,
  type FieldType,
  type IssueCode,
  type RemediationActionCode,
  type Severity,
} from './checker.js';
import { dataCompatibilityChecker as cap } from './index.js';
import { inputSchema, outputSchema } from './schema.js';

// Under NodeNext the default import is the CommonJS module object; its
// `default` property is the Ajv2020 class both at run time and for tsc.
const Ajv2020 = Ajv2020Module.default;
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validateInput = ajv.compile(inputSchema);
const validateOutput = ajv.compile(outputSchema);

function assertValidOutput(out: CheckerResponse): void {
  const ok = validateOutput(out);
  assert.ok(ok, JSON.stringify(validateOutput.errors));
}

/** Runs the checker and validates the response against the output schema. */
function run(req: CheckerRequest): CheckerResponse {
  const out = checkCompatibility(req);
  assertValidOutput(out);
  assert.equal(out.issue_count, out.issues.length);
  return out;
}

function fd(name: string, type: FieldType = 'string', required = true, nullable = false): FieldDescriptor {
  return { name, type, required, nullable };
}

function codes(out: CheckerResponse): string[] {
  return out.issues.map((i) => `${i.code}:${i.field}:${i.severity}`);
}

// ---------------------------------------------------------------------------
// Capability metadata
// ---------------------------------------------------------------------------

test('capability metadata', () => {
  assert.equal(cap.id, 'data-compatibility-checker');
  assert.equal(cap.method, 'POST');
  assert.equal(cap.path, '/x402/v1/data-compatibility-checker');
  assert.equal(cap.priceAtomic, '3000');
  assert.equal(cap.maxBodyBytes, 65536);
  assert.ok(cap.title.length > 0 && cap.description.length > 0);
  assert.equal(cap.run, checkCompatibility);
  assert.equal(cap.check, findDuplicateFieldNames);
  assert.equal(cap.inputSchema, inputSchema);
  assert.equal(cap.outputSchema, outputSchema);
});

// ---------------------------------------------------------------------------
// One test per catalogue row, in both comparison modes
// ---------------------------------------------------------------------------

interface Row {
  code: IssueCode;
  severity: Severity;
  actions: RemediationActionCode[];
  field: string;
  source: FieldDescriptor[];
  target: FieldDescriptor[];
  /** descriptors expected on the issue */
  issueSource: FieldDescriptor | null;
  issueTarget: FieldDescriptor | null;
}

const anchor = fd('id', 'integer');
const ROWS: Row[] = [
  {
    code: 'FIELD_MISSING_REQUIRED',
    severity: 'breaking',
    actions: ['ADD_SOURCE_FIELD', 'PROVIDE_DEFAULT', 'RELAX_TARGET_REQUIRED'],
    field: 'email',
    source: [anchor],
    target: [anchor, fd('email', 'string', true)],
    issueSource: null,
    issueTarget: fd('email', 'string', true),
  },
  {
    code: 'FIELD_ADDED_OPTIONAL',
    severity: 'info',
    actions: [],
    field: 'email',
    source: [anchor],
    target: [anchor, fd('email', 'string', false)],
    issueSource: null,
    issueTarget: fd('email', 'string', false),
  },
  {
    code: 'FIELD_DROPPED',
    severity: 'warning',
    actions: ['ADD_TARGET_FIELD', 'MAP_FIELD', 'ACKNOWLEDGE_DROP'],
    field: 'email',
    source: [anchor, fd('email')],
    target: [anchor],
    issueSource: fd('email'),
    issueTarget: null,
  },
  {
    code: 'FIELD_BECAME_REQUIRED',
    severity: 'breaking',
    actions: ['MAKE_SOURCE_REQUIRED', 'PROVIDE_DEFAULT'],
    field: 'email',
    source: [fd('email', 'string', false)],
    target: [fd('email', 'string', true)],
    issueSource: fd('email', 'string', false),
    issueTarget: fd('email', 'string', true),
  },
  {
    code: 'FIELD_BECAME_OPTIONAL',
    severity: 'info',
    actions: [],
    field: 'email',
    source: [fd('email', 'string', true)],
    target: [fd('email', 'string', false)],
    issueSource: fd('email', 'string', true),
    issueTarget: fd('email', 'string', false),
  },
  {
    code: 'FIELD_BECAME_NON_NULLABLE',
    severity: 'breaking',
    actions: ['COALESCE_NULLS', 'ALLOW_NULL_IN_TARGET'],
    field: 'email',
    source: [fd('email', 'string', true, true)],
    target: [fd('email', 'string', true, false)],
    issueSource: fd('email', 'string', true, true),
    issueTarget: fd('email', 'string', true, false),
  },
  {
    code: 'FIELD_BECAME_NULLABLE',
    severity: 'info',
    actions: [],
    field: 'email',
    source: [fd('email', 'string', true, false)],
    target: [fd('email', 'string', true, true)],
    issueSource: fd('email', 'string', true, false),
    issueTarget: fd('email', 'string', true, true),
  },
  {
    code: 'FIELD_TYPE_WIDENED',
    severity: 'info',
    actions: [],
    field: 'amount',
    source: [fd('amount', 'integer')],
    target: [fd('amount', 'number')],
    issueSource: fd('amount', 'integer'),
    issueTarget: fd('amount', 'number'),
  },
  {
    code: 'FIELD_TYPE_NARROWED',
    severity: 'breaking',
    actions: ['CAST_WITH_CHECK'],
    field: 'amount',
    source: [fd('amount', 'number')],
    target: [fd('amount', 'integer')],
    issueSource: fd('amount', 'number'),
    issueTarget: fd('amount', 'integer'),
  },
  {
    code: 'FIELD_TYPE_INCOMPATIBLE',
    severity: 'breaking',
    actions: ['TRANSFORM_FIELD', 'VERSION_CONTRACT'],
    field: 'amount',
    source: [fd('amount', 'string')],
    target: [fd('amount', 'number')],
    issueSource: fd('amount', 'string'),
    issueTarget: fd('amount', 'number'),
  },
  {
    code: 'FIELD_NAME_CASE_MISMATCH',
    severity: 'warning',
    actions: ['MAP_FIELD'],
    field: 'UserId',
    source: [anchor, fd('userId', 'string', false)],
    target: [anchor, fd('UserId', 'string', false)],
    issueSource: fd('userId', 'string', false),
    issueTarget: fd('UserId', 'string', false),
  },
];

describe('catalogue rows', () => {
  test('the rows cover every code, and severities/actions match domain rules §D', () => {
    assert.deepEqual(new Set(ROWS.map((r) => r.code)), new Set(ISSUE_CODES));
    for (const r of ROWS) {
      assert.equal(RULE_CATALOGUE[r.code].severity, r.severity, r.code);
      assert.deepEqual([...RULE_CATALOGUE[r.code].actions], r.actions, r.code);
    }
  });

  for (const r of ROWS) {
    test(`${r.code} (backward_compatible)`, () => {
      const out = run({ comparison_mode: 'backward_compatible', source_fields: r.source, target_fields: r.target });
      assert.equal(out.issues.length, 1, JSON.stringify(out.issues));
      const issue = out.issues[0]!;
      assert.equal(issue.code, r.code);
      assert.equal(issue.severity, r.severity);
      assert.equal(issue.field, r.field);
      assert.equal(issue.id, `${r.code}:${r.field}`);
      assert.deepEqual(issue.source, r.issueSource);
      assert.deepEqual(issue.target, r.issueTarget);
      assert.ok(issue.message.length > 0);
      assert.equal(out.compatible, r.severity !== 'breaking');
      if (r.actions.length === 0) {
        assert.deepEqual(out.remediations, []);
      } else {
        assert.equal(out.remediations.length, 1);
        const rem = out.remediations[0]!;
        assert.equal(rem.issue_id, issue.id);
        assert.equal(rem.code, r.code);
        assert.equal(rem.field, r.field);
        assert.deepEqual(
          rem.actions.map((a) => a.action),
          r.actions,
        );
        for (const a of rem.actions) assert.ok(a.explanation.includes(`"`), a.explanation);
      }
    });

    test(`${r.code} (exact: same code, breaking)`, () => {
      const back = run({ comparison_mode: 'backward_compatible', source_fields: r.source, target_fields: r.target });
      const out = run({ comparison_mode: 'exact', source_fields: r.source, target_fields: r.target });
      assert.equal(out.comparison_mode, 'exact');
      assert.equal(out.issues.length, 1);
      const issue = out.issues[0]!;
      assert.equal(issue.code, r.code);
      assert.equal(issue.severity, 'breaking');
      assert.deepEqual({ ...issue, severity: 'x', message: '' }, { ...back.issues[0]!, severity: 'x', message: '' });
      assert.equal(out.compatible, false);
      assert.equal(out.remediations.length, 1);
      const expected = r.actions.length > 0 ? r.actions : [...EXACT_MODE_EXTRA_ACTIONS[r.code]!];
      assert.deepEqual(
        out.remediations[0]!.actions.map((a) => a.action),
        expected,
      );
      if (r.severity !== 'breaking') assert.match(issue.message, /exact, so this difference is breaking/);
    });
  }
});

// ---------------------------------------------------------------------------
// Edge cases of the rules
// ---------------------------------------------------------------------------

describe('rule edge cases', () => {
  test('every type change other than integer<->number is FIELD_TYPE_INCOMPATIBLE', () => {
    for (const s of FIELD_TYPES) {
      for (const t of FIELD_TYPES) {
        const out = run({ source_fields: [fd('v', s)], target_fields: [fd('v', t)] });
        const expected =
          s === t
            ? []
            : s === 'integer' && t === 'number'
              ? ['FIELD_TYPE_WIDENED:v:info']
              : s === 'number' && t === 'integer'
                ? ['FIELD_TYPE_NARROWED:v:breaking']
                : ['FIELD_TYPE_INCOMPATIBLE:v:breaking'];
        assert.deepEqual(codes(out), expected, `${s} -> ${t}`);
      }
    }
  });

  test('one field can carry several issues (narrowed, became required, became non-nullable)', () => {
    const out = run({
      source_fields: [fd('price', 'number', false, true)],
      target_fields: [fd('price', 'integer', true, false)],
    });
    assert.deepEqual(codes(out), [
      'FIELD_BECAME_NON_NULLABLE:price:breaking',
      'FIELD_BECAME_REQUIRED:price:breaking',
      'FIELD_TYPE_NARROWED:price:breaking',
    ]);
    assert.deepEqual(
      out.remediations.map((r) => r.issue_id),
      out.issues.map((i) => i.id),
    );
  });

  test('required and nullable are independent checks', () => {
    // optional -> required while nullable -> non-nullable relaxes nothing else
    let out = run({ source_fields: [fd('a', 'string', false, false)], target_fields: [fd('a', 'string', true, true)] });
    assert.deepEqual(codes(out), ['FIELD_BECAME_REQUIRED:a:breaking', 'FIELD_BECAME_NULLABLE:a:info']);
    out = run({ source_fields: [fd('a', 'string', true, true)], target_fields: [fd('a', 'string', false, false)] });
    assert.deepEqual(codes(out), ['FIELD_BECAME_NON_NULLABLE:a:breaking', 'FIELD_BECAME_OPTIONAL:a:info']);
  });

  test('a widened, relaxed field is compatible with only info issues', () => {
    const out = run({ source_fields: [fd('n', 'integer', true, false)], target_fields: [fd('n', 'number', false, true)] });
    assert.equal(out.compatible, true);
    assert.deepEqual(codes(out), ['FIELD_BECAME_NULLABLE:n:info', 'FIELD_BECAME_OPTIONAL:n:info', 'FIELD_TYPE_WIDENED:n:info']);
    assert.deepEqual(out.remediations, []);
  });

  test('issues are sorted by severity rank, then field, then code', () => {
    const out = run({
      source_fields: [fd('b', 'number'), fd('a', 'integer'), fd('z'), fd('c', 'string', false, true)],
      target_fields: [fd('b', 'integer'), fd('a', 'number'), fd('y'), fd('c', 'boolean', true, false), fd('d', 'string', false)],
    });
    assert.deepEqual(codes(out), [
      'FIELD_TYPE_NARROWED:b:breaking',
      'FIELD_BECAME_NON_NULLABLE:c:breaking',
      'FIELD_BECAME_REQUIRED:c:breaking',
      'FIELD_TYPE_INCOMPATIBLE:c:breaking',
      'FIELD_MISSING_REQUIRED:y:breaking',
      'FIELD_DROPPED:z:warning',
      'FIELD_TYPE_WIDENED:a:info',
      'FIELD_ADDED_OPTIONAL:d:info',
    ]);
    assert.equal(out.issues.at(-1)!.code, 'FIELD_ADDED_OPTIONAL');
  });

  test('identical contracts are compatible with no issues in both modes', () => {
    const fields = [fd('id', 'integer'), fd('name', 'string', false, true), fd('tags', 'array', false)];
    for (const mode of COMPARISON_MODES) {
      const out = run({ comparison_mode: mode, source_fields: fields, target_fields: [...fields].reverse() });
      assert.equal(out.compatible, true);
      assert.deepEqual(out.issues, []);
      assert.deepEqual(out.remediations, []);
      assert.equal(out.checked_source_fields, 3);
      assert.equal(out.checked_target_fields, 3);
    }
  });

  test('descriptors in the response have a fixed key order and are copies', () => {
    const src = { nullable: false, required: true, type: 'integer', name: 'n' } as FieldDescriptor;
    const out = run({ source_fields: [src], target_fields: [fd('n', 'number')] });
    assert.deepEqual(Object.keys(out.issues[0]!.source!), ['name', 'type', 'required', 'nullable']);
    assert.notEqual(out.issues[0]!.source, src);
  });

  test('assumptions and limitations are plain strings naming what was not checked', () => {
    const out = run({ source_fields: [fd('a')], target_fields: [fd('a')] });
    const lim = out.limitations.join(' ');
    assert.match(lim, /No data was fetched/);
    assert.match(lim, /No API/);
    assert.match(lim, /top-level/);
    assert.match(out.assumptions.join(' '), /producer \(writer\)/);
    assert.match(out.assumptions.join(' '), /backward_compatible/);
  });

  test('issue 14: the closed-source assumption is stated, naming open content models and the info-only added field', () => {
    // An open JSON Schema producer may already write "note" with another type; the checker cannot know, so it says so.
    for (const comparison_mode of COMPARISON_MODES) {
      for (const canonicalization of CANONICALIZATION_MODES) {
        const out = run({
          comparison_mode,
          canonicalization,
          source_fields: [fd('id', 'integer')],
          target_fields: [fd('id', 'integer'), fd('note', 'string', false)],
        });
        const closed = out.assumptions.filter((a) => /closed/.test(a) && /open content model/.test(a));
        assert.equal(closed.length, 1, comparison_mode + '/' + canonicalization);
        assert.match(closed[0]!, /additionalProperties/);
        assert.match(closed[0]!, /FIELD_ADDED_OPTIONAL/);
        assert.match(closed[0]!, /PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL/);
      }
    }
    // The verdict itself is unchanged: the contracts as given are compatible.
    const out = run({ source_fields: [fd('id', 'integer')], target_fields: [fd('id', 'integer'), fd('note', 'string', false)] });
    assert.equal(out.compatible, true);
    assert.deepEqual(codes(out), ['FIELD_ADDED_OPTIONAL:note:info']);
  });

  test('issue 14: the request contract has no room for a content-model option (spec: no other top-level properties)', () => {
    const base = { source_fields: [fd('a')], target_fields: [fd('a')] };
    for (const extra of [{ source_content_model: 'open' }, { open_content_model: true }, { additional_properties: true }]) {
      assert.equal(validateInput({ ...base, ...extra }), false, JSON.stringify(extra));
    }
    assert.equal(validateInput({ ...base, source_fields: [{ ...fd('a'), additional_properties: true }] }), false);
  });
});

// ---------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------

describe('defaults', () => {
  const minimal: CheckerRequest = { source_fields: [fd('a', 'number')], target_fields: [fd('a', 'integer'), fd('B')] };

  test('omitted options mean contract_version 1, backward_compatible, exact names', () => {
    const out = run(minimal);
    assert.equal(out.contract_version, '1');
    assert.equal(out.comparison_mode, 'backward_compatible');
    assert.equal(out.canonicalization.mode, 'exact');
    assert.deepEqual(out.canonicalization.folded, []);
    const explicit = run({
      contract_version: '1',
      comparison_mode: 'backward_compatible',
      canonicalization: 'exact',
      ...minimal,
    });
    assert.equal(JSON.stringify(out), JSON.stringify(explicit));
  });

  test('the input schema declares the same defaults (Ajv useDefaults fills them)', () => {
    const props = inputSchema.properties as Record<string, { default?: unknown }>;
    assert.equal(props.contract_version!.default, '1');
    assert.equal(props.comparison_mode!.default, 'backward_compatible');
    assert.equal(props.canonicalization!.default, 'exact');
    const filling = new Ajv2020({ useDefaults: true, strict: true }).compile(inputSchema);
    const body = structuredClone(minimal) as unknown as Record<string, unknown>;
    assert.ok(filling(body));
    assert.equal(body.contract_version, '1');
    assert.equal(body.comparison_mode, 'backward_compatible');
    assert.equal(body.canonicalization, 'exact');
    assert.equal(JSON.stringify(run(body as unknown as CheckerRequest)), JSON.stringify(run(minimal)));
  });
});

// ---------------------------------------------------------------------------
// Duplicate names (check)
// ---------------------------------------------------------------------------

describe('duplicate field names', () => {
  test('a repeated name in the source is reported with its JSON pointer', () => {
    const req: CheckerRequest = {
      source_fields: [fd('a'), fd('b'), fd('c'), fd('a', 'number')],
      target_fields: [fd('a')],
    };
    const problem = findDuplicateFieldNames(req);
    assert.ok(problem);
    assert.equal(problem.code, 'duplicate_field_name');
    assert.equal(problem.details.length, 1);
    assert.equal(problem.details[0]!.path, '/source_fields/3/name');
    assert.equal(problem.details[0]!.rule, 'unique_name');
    assert.match(problem.details[0]!.message!, /\/source_fields\/0\/name/);
  });

  test('repeats in the target and several repeats are all reported, source first', () => {
    const problem = findDuplicateFieldNames({
      source_fields: [fd('x'), fd('x'), fd('x')],
      target_fields: [fd('y'), fd('z'), fd('y')],
    });
    assert.ok(problem);
    assert.deepEqual(
      problem.details.map((d) => d.path),
      ['/source_fields/1/name', '/source_fields/2/name', '/target_fields/2/name'],
    );
  });

  test('names differing only in case are duplicates only under ascii_case_insensitive', () => {
    const fields = [fd('userId'), fd('UserID')];
    assert.equal(findDuplicateFieldNames({ source_fields: fields, target_fields: [fd('a')] }), undefined);
    assert.equal(
      findDuplicateFieldNames({ canonicalization: 'exact', source_fields: [fd('a')], target_fields: fields }),
      undefined,
    );
    const problem = findDuplicateFieldNames({
      canonicalization: 'ascii_case_insensitive',
      source_fields: [fd('a')],
      target_fields: fields,
    });
    assert.ok(problem);
    assert.deepEqual(problem.details.map((d) => [d.path, d.rule]), [['/target_fields/1/name', 'unique_name']]);
    assert.match(problem.details[0]!.message!, /lower-casing/);
  });

  test('no duplicates: check returns undefined', () => {
    assert.equal(findDuplicateFieldNames({ source_fields: [fd('a'), fd('b')], target_fields: [fd('b'), fd('a')] }), undefined);
  });

  test('run refuses duplicates with a duplicate_field_name ServiceError', () => {
    assert.throws(
      () => checkCompatibility({ source_fields: [fd('a'), fd('a')], target_fields: [fd('a')] }),
      (e: unknown) => e instanceof ServiceError && e.code === 'duplicate_field_name' && e.status === 400,
    );
  });
});

// ---------------------------------------------------------------------------
// Case folding under both canonicalizations
// ---------------------------------------------------------------------------

describe('case folding', () => {
  test('exact names, optional target: only FIELD_NAME_CASE_MISMATCH (no dropped/added pair), compatible', () => {
    const out = run({ source_fields: [fd('userId', 'integer')], target_fields: [fd('UserId', 'integer', false)] });
    assert.deepEqual(codes(out), ['FIELD_NAME_CASE_MISMATCH:UserId:warning']);
    assert.equal(out.compatible, true);
    assert.deepEqual(out.remediations[0]!.actions.map((a) => a.action), ['MAP_FIELD']);
    assert.match(out.remediations[0]!.actions[0]!.explanation, /"userId".*"UserId"/);
  });

  test('exact names, required target: the case variant does not supply it (also FIELD_MISSING_REQUIRED)', () => {
    const out = run({ source_fields: [fd('userId', 'integer')], target_fields: [fd('UserId', 'integer', true)] });
    assert.deepEqual(codes(out), ['FIELD_MISSING_REQUIRED:UserId:breaking', 'FIELD_NAME_CASE_MISMATCH:UserId:warning']);
    assert.equal(out.compatible, false);
    const missing = out.issues[0]!;
    assert.deepEqual(missing.source, fd('userId', 'integer'));
    assert.deepEqual(missing.target, fd('UserId', 'integer', true));
    assert.deepEqual(
      out.remediations.map((r) => [r.issue_id, r.actions.map((a) => a.action)]),
      [
        ['FIELD_MISSING_REQUIRED:UserId', ['ADD_SOURCE_FIELD', 'PROVIDE_DEFAULT', 'RELAX_TARGET_REQUIRED']],
        ['FIELD_NAME_CASE_MISMATCH:UserId', ['MAP_FIELD']],
      ],
    );
  });

  test('a case-mismatch pair with different descriptors is not compared further, but the message says so', () => {
    const out = run({
      source_fields: [fd('Amount', 'string', false, true)],
      target_fields: [fd('amount', 'number', false, false)],
    });
    assert.deepEqual(codes(out), ['FIELD_NAME_CASE_MISMATCH:amount:warning']);
    assert.match(out.issues[0]!.message, /type \(string vs number\), nullable \(true vs false\)/);
  });

  test('exact mode: a case mismatch is breaking', () => {
    const out = run({
      comparison_mode: 'exact',
      source_fields: [fd('userId')],
      target_fields: [fd('userid', 'string', false)],
    });
    assert.deepEqual(codes(out), ['FIELD_NAME_CASE_MISMATCH:userid:breaking']);
    assert.equal(out.compatible, false);
  });

  test('ambiguous case groups are not paired', () => {
    const out = run({ source_fields: [fd('Id'), fd('ID')], target_fields: [fd('id')] });
    assert.deepEqual(codes(out), [
      'FIELD_MISSING_REQUIRED:id:breaking',
      'FIELD_DROPPED:ID:warning',
      'FIELD_DROPPED:Id:warning',
    ]);
  });

  test('an exact match wins; the leftovers of a case group can still pair', () => {
    const out = run({ source_fields: [fd('id'), fd('ID', 'string', false)], target_fields: [fd('id'), fd('Id', 'string', false)] });
    assert.deepEqual(codes(out), ['FIELD_NAME_CASE_MISMATCH:Id:warning']);
    assert.equal(out.issues[0]!.source!.name, 'ID');
  });

  test('ascii_case_insensitive: names match after lower-casing and every folding is recorded', () => {
    const out = run({
      canonicalization: 'ascii_case_insensitive',
      source_fields: [fd('userId', 'integer'), fd('Extra'), fd('same')],
      target_fields: [fd('USERID', 'number'), fd('same'), fd('NewOne', 'string', false)],
    });
    assert.equal(out.canonicalization.mode, 'ascii_case_insensitive');
    assert.deepEqual(out.canonicalization.folded, [
      { canonical: 'extra', source_name: 'Extra', target_name: null },
      { canonical: 'newone', source_name: null, target_name: 'NewOne' },
      { canonical: 'userid', source_name: 'userId', target_name: 'USERID' },
    ]);
    assert.deepEqual(codes(out), [
      'FIELD_DROPPED:extra:warning',
      'FIELD_ADDED_OPTIONAL:newone:info',
      'FIELD_TYPE_WIDENED:userid:info',
    ]);
    assert.equal(out.compatible, true);
    assert.ok(!out.issues.some((i) => i.code === 'FIELD_NAME_CASE_MISMATCH'));
    assert.match(out.issues[0]!.message, /"Extra"/, 'one-sided issues quote the caller spelling');
    assert.match(out.issues[1]!.message, /"NewOne"/);
    assert.deepEqual(out.issues[2]!.source, fd('userId', 'integer'));
    assert.deepEqual(out.issues[2]!.target, fd('USERID', 'number'));
  });

  test('ascii_case_insensitive: a required target field spelled differently is supplied', () => {
    const out = run({
      canonicalization: 'ascii_case_insensitive',
      source_fields: [fd('userId')],
      target_fields: [fd('UserId')],
    });
    assert.deepEqual(out.issues, []);
    assert.equal(out.compatible, true);
    for (const mode of COMPARISON_MODES) {
      assert.equal(run({ comparison_mode: mode, canonicalization: 'ascii_case_insensitive', source_fields: [fd('userId')], target_fields: [fd('UserId')] }).compatible, true);
    }
  });

  test('asciiLowerCase only touches A-Z', () => {
    assert.equal(asciiLowerCase('AbC_z9Z'), 'abc_z9z');
  });
});

// ---------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------

describe('input schema', () => {
  const good = (): Record<string, unknown> => ({
    contract_version: '1',
    comparison_mode: 'exact',
    canonicalization: 'ascii_case_insensitive',
    source_fields: [fd('a')],
    target_fields: [fd('a')],
  });
  const rejects = (body: unknown, label: string): void => {
    assert.equal(validateInput(body), false, label);
  };

  test('a full valid request is accepted', () => {
    assert.ok(validateInput(good()), JSON.stringify(validateInput.errors));
    assert.ok(validateInput({ source_fields: [fd('a')], target_fields: [fd('b')] }));
  });

  test('extra properties are rejected (top level and descriptor)', () => {
    rejects({ ...good(), extra: 1 }, 'top level');
    rejects({ ...good(), source_fields: [{ ...fd('a'), format: 'email' }] }, 'descriptor');
  });

  test('missing required properties are rejected', () => {
    const { source_fields: _s, ...noSource } = good();
    rejects(noSource, 'no source_fields');
    const { nullable: _n, ...noNullable } = fd('a');
    rejects({ ...good(), target_fields: [noNullable] }, 'no nullable');
  });

  test('bad names are rejected', () => {
    for (const name of ['', '1abc', '_a', 'a-b', 'a b', 'a'.repeat(65), 'café', 'a.b']) {
      rejects({ ...good(), source_fields: [fd(name)] }, JSON.stringify(name));
    }
    assert.ok(validateInput({ ...good(), source_fields: [fd('a'.repeat(64))] }));
    assert.ok(validateInput({ ...good(), source_fields: [fd('A_1')] }));
  });

  test('0 and 101 items are rejected, 1 and 100 accepted', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => fd(`f${i}`));
    rejects({ ...good(), source_fields: [] }, 'source 0');
    rejects({ ...good(), target_fields: [] }, 'target 0');
    rejects({ ...good(), source_fields: many(101) }, 'source 101');
    rejects({ ...good(), target_fields: many(101) }, 'target 101');
    assert.ok(validateInput({ ...good(), source_fields: many(100), target_fields: many(100) }));
  });

  test('bad enum values are rejected', () => {
    rejects({ ...good(), comparison_mode: 'forward' }, 'comparison_mode');
    rejects({ ...good(), canonicalization: 'unicode' }, 'canonicalization');
    rejects({ ...good(), source_fields: [{ ...fd('a'), type: 'null' }] }, 'type');
    rejects({ ...good(), source_fields: [{ ...fd('a'), required: 'yes' }] }, 'required as string');
  });

  test('contract_version must be "1"', () => {
    rejects({ ...good(), contract_version: '2' }, '"2"');
    rejects({ ...good(), contract_version: 1 }, 'number 1');
  });
});

describe('examples', () => {
  test('there are at least two examples and they cover both modes and both canonicalizations', () => {
    assert.ok(cap.examples.length >= 2);
    const outs = cap.examples.map((e) => e.output);
    assert.ok(outs.some((o) => o.compatible) && outs.some((o) => !o.compatible));
    assert.deepEqual(new Set(outs.map((o) => o.comparison_mode)), new Set(COMPARISON_MODES));
    assert.deepEqual(new Set(outs.map((o) => o.canonicalization.mode)), new Set(CANONICALIZATION_MODES));
  });

  for (const [i, e] of cap.examples.entries()) {
    test(`example ${i + 1}: input validates, output validates and equals run(input)`, () => {
      assert.ok(validateInput(structuredClone(e.input)), JSON.stringify(validateInput.errors));
      assert.equal(findDuplicateFieldNames(e.input), undefined);
      assertValidOutput(e.output);
      assert.deepEqual(cap.run(structuredClone(e.input)), e.output);
      assert.equal(JSON.stringify(cap.run(e.input)), JSON.stringify(e.output));
    });
  }
});

// ---------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------

const typeArb = fc.constantFrom(...FIELD_TYPES);
const nameArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('id', 'Id', 'ID', 'name', 'Name', 'amount', 'a', 'A', 'b', 'x_1', 'X_1') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,6}$/) },
);
const descriptorArb: fc.Arbitrary<FieldDescriptor> = fc.record({
  name: nameArb,
  type: typeArb,
  required: fc.boolean(),
  nullable: fc.boolean(),
});

function keyOf(name: string, canon: CanonicalizationMode): string {
  return canon === 'ascii_case_insensitive' ? name.toLowerCase() : name;
}

const fieldsArb = (canon: CanonicalizationMode, maxLength = 25) =>
  fc.uniqueArray(descriptorArb, { selector: (d) => keyOf(d.name, canon), minLength: 1, maxLength });

/** A target derived from the source by small edits, so most fields match. */
function deriveTarget(source: FieldDescriptor[], canon: CanonicalizationMode) {
  const edit = fc.record({
    drop: fc.boolean(),
    recase: fc.boolean(),
    type: fc.option(typeArb, { nil: undefined }),
    required: fc.option(fc.boolean(), { nil: undefined }),
    nullable: fc.option(fc.boolean(), { nil: undefined }),
  });
  return fc
    .tuple(fc.array(edit, { minLength: source.length, maxLength: source.length }), fc.array(descriptorArb, { maxLength: 3 }))
    .map(([edits, extras]) => {
      const out: FieldDescriptor[] = [];
      const seen = new Set<string>();
      const add = (d: FieldDescriptor) => {
        const k = keyOf(d.name, canon);
        if (seen.has(k)) return;
        seen.add(k);
        out.push(d);
      };
      source.forEach((s, i) => {
        const e = edits[i]!;
        if (e.drop && i > 0) return;
        const name = e.recase ? (s.name[0] === s.name[0]!.toUpperCase() ? s.name.toLowerCase() : s.name.toUpperCase()) : s.name;
        add({ name, type: e.type ?? s.type, required: e.required ?? s.required, nullable: e.nullable ?? s.nullable });
      });
      for (const x of extras) add(x);
      return out.length > 0 ? out : [source[0]!];
    });
}

const requestArb: fc.Arbitrary<CheckerRequest> = fc
  .record({
    comparison: fc.constantFrom<ComparisonMode>(...COMPARISON_MODES),
    canon: fc.constantFrom<CanonicalizationMode>(...CANONICALIZATION_MODES),
  })
  .chain(({ comparison, canon }) =>
    fc.record({ derived: fc.boolean(), source: fieldsArb(canon) }).chain(({ derived, source }) =>
      (derived ? deriveTarget(source, canon) : fieldsArb(canon)).map(
        (target): CheckerRequest => ({
          contract_version: '1',
          comparison_mode: comparison,
          canonicalization: canon,
          source_fields: source,
          target_fields: target,
        }),
      ),
    ),
  );

/** Independent, quadratic oracle: is some record valid under the source rejected by the target? */
function oracleBreaksBackward(req: CheckerRequest): boolean {
  const canon = req.canonicalization ?? 'exact';
  const accepts = (s: FieldType, t: FieldType) => s === t || (s === 'integer' && t === 'number');
  for (const t of req.target_fields) {
    const s = req.source_fields.find((x) => keyOf(x.name, canon) === keyOf(t.name, canon));
    if (s === undefined) {
      if (t.required) return true;
      continue;
    }
    if (!accepts(s.type, t.type)) return true;
    if (!s.required && t.required) return true;
    if (s.nullable && !t.nullable) return true;
  }
  return false;
}

/** Independent oracle: are the contracts identical field for field (names as canonicalized)? */
function oracleIdentical(req: CheckerRequest): boolean {
  const canon = req.canonicalization ?? 'exact';
  if (req.source_fields.length !== req.target_fields.length) return false;
  return req.source_fields.every((s) => {
    const t = req.target_fields.find((x) => keyOf(x.name, canon) === keyOf(s.name, canon));
    return t !== undefined && t.type === s.type && t.required === s.required && t.nullable === s.nullable;
  });
}

function withMode(req: CheckerRequest, mode: ComparisonMode): CheckerRequest {
  return { ...req, comparison_mode: mode };
}

describe('properties', () => {
  test('never throws on valid input; output validates; issue_count, ids and remediations are consistent', () => {
    fc.assert(
      fc.property(requestArb, (req) => {
        assert.ok(validateInput(structuredClone(req)), JSON.stringify(validateInput.errors));
        assert.equal(findDuplicateFieldNames(req), undefined);
        const out = run(req);
        assert.equal(out.checked_source_fields, req.source_fields.length);
        assert.equal(out.checked_target_fields, req.target_fields.length);
        const ids = new Set(out.issues.map((i) => i.id));
        assert.equal(ids.size, out.issues.length, 'issue ids are unique');
        for (const r of out.remediations) assert.ok(ids.has(r.issue_id));
        const remediated = new Set(out.remediations.map((r) => r.issue_id));
        for (const i of out.issues) if (i.severity === 'breaking') assert.ok(remediated.has(i.id), i.id);
      }),
      { numRuns: 400 },
    );
  });

  test('order independence: shuffling both arrays (and descriptor keys) gives identical bytes', () => {
    const arb = requestArb.chain((req) =>
      fc.record({
        req: fc.constant(req),
        source: fc.shuffledSubarray(req.source_fields, { minLength: req.source_fields.length }),
        target: fc.shuffledSubarray(req.target_fields, { minLength: req.target_fields.length }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ req, source, target }) => {
        const rekey = (d: FieldDescriptor) => ({ nullable: d.nullable, required: d.required, type: d.type, name: d.name });
        const shuffled = { ...req, source_fields: source.map(rekey), target_fields: target.map(rekey) };
        assert.equal(JSON.stringify(run(shuffled)), JSON.stringify(run(req)));
      }),
      { numRuns: 300 },
    );
  });

  test('compatible iff no breaking issue; backward verdict matches an independent oracle', () => {
    fc.assert(
      fc.property(requestArb, (req) => {
        const out = run(req);
        assert.equal(out.compatible, !out.issues.some((i) => i.severity === 'breaking'));
        const back = run(withMode(req, 'backward_compatible'));
        assert.equal(back.compatible, !oracleBreaksBackward(req));
      }),
      { numRuns: 400 },
    );
  });

  test('identical contracts (any order, any case under ascii_case_insensitive) are compatible in both modes', () => {
    const arb = fc
      .constantFrom<CanonicalizationMode>(...CANONICALIZATION_MODES)
      .chain((canon) => fc.record({ canon: fc.constant(canon), fields: fieldsArb(canon, 100) }))
      .chain(({ canon, fields }) =>
        fc.record({
          canon: fc.constant(canon),
          fields: fc.constant(fields),
          copy: fc.shuffledSubarray(fields, { minLength: fields.length }),
          upper: fc.array(fc.boolean(), { minLength: fields.length, maxLength: fields.length }),
        }),
      );
    fc.assert(
      fc.property(arb, ({ canon, fields, copy, upper }) => {
        const target = copy.map((d, i) =>
          canon === 'ascii_case_insensitive' && upper[i] ? { ...d, name: d.name.toUpperCase() } : { ...d },
        );
        for (const mode of COMPARISON_MODES) {
          const out = run({ comparison_mode: mode, canonicalization: canon, source_fields: fields, target_fields: target });
          assert.equal(out.compatible, true);
          assert.equal(out.issues.filter((i) => i.severity === 'breaking').length, 0);
          assert.deepEqual(out.issues, []);
        }
      }),
      { numRuns: 200 },
    );
  });

  test('exact mode marks every difference breaking, with the same issues as backward_compatible', () => {
    fc.assert(
      fc.property(requestArb, (req) => {
        const exact = run(withMode(req, 'exact'));
        const back = run(withMode(req, 'backward_compatible'));
        for (const i of exact.issues) assert.equal(i.severity, 'breaking');
        const strip = (o: CheckerResponse) =>
          o.issues.map((i) => JSON.stringify([i.id, i.code, i.field, i.source, i.target])).sort();
        assert.deepEqual(strip(exact), strip(back));
        const identical = oracleIdentical(req);
        assert.equal(exact.compatible, identical);
        assert.equal(exact.issues.length === 0, identical);
        assert.equal(exact.remediations.length, exact.issues.length);
      }),
      { numRuns: 400 },
    );
  });
});

// ---------------------------------------------------------------------------
// Cost
// ---------------------------------------------------------------------------

/** Best (least disturbed) per-call time in ms over several batches. */

function sizedRequests(n: number): CheckerRequest[] {
  const types = FIELD_TYPES;
  const source = Array.from({ length: n }, (_, i) => fd(`field_${i}`, types[i % types.length]!, i % 2 === 0, i % 3 === 0));
  const target = Array.from({ length: n }, (_, i) =>
    fd(i % 10 === 0 ? `Field_${i}` : `field_${i + (i % 7 === 0 ? 1000 : 0)}`, types[(i * 5) % types.length]!, i % 3 !== 0, i % 2 === 0),
  );
  const reqs: CheckerRequest[] = [];
  for (const comparison_mode of COMPARISON_MODES)
    for (const canonicalization of CANONICALIZATION_MODES)
      reqs.push({ comparison_mode, canonicalization, source_fields: source, target_fields: target });
  return reqs;
}

test('100 x 100 fields: every difference is reported (timing is measured by npm run bench, not here)', () => {
  const big = sizedRequests(100);
  for (const r of big) assert.ok(run(r).issue_count > 100); // a diff-heavy workload
});
