/**
 * Property: whatever arrives as a request body, either the capability's own
 * validation (input schema with defaults + duplicate-name check, exactly as
 * the paid route applies them, via makeInputReader) refuses it, or the handler
 * returns a result that serialises as JSON and matches the output schema. A
 * throw after validation would come after the payment was verified.
 *
 * The generators aim at this capability's rules: names that collide only
 * after ASCII case folding, non-ASCII look-alikes that must not fold, names
 * just outside the pattern, wrong types and enum values, extra keys, and
 * contracts of 0, 1, 100 and 101 fields (one corruption at a time, so most
 * bodies still reach the handler).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Ajv2020Module from 'ajv/dist/2020.js';
import { makeInputReader } from '../../catalog/input-reader.js';
import { dataCompatibilityChecker as cap } from './index.js';
import { CANONICALIZATION_MODES, COMPARISON_MODES, FIELD_TYPES } from './checker.js';

const Ajv2020 = Ajv2020Module.default;
const validateOut = new Ajv2020({ allErrors: true, strict: true }).compile(cap.outputSchema);

const nameArb = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('id', 'Id', 'ID', 'iD', 'name', 'Name', 'NAME', 'a', 'A', 'x_1', 'X_1', 'amount', 'Amount', 'Key', 'key') },
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,5}$/) },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(64), 'A'.repeat(64)) },
);

const descriptorArb = fc.record({
  name: nameArb,
  type: fc.constantFrom(...FIELD_TYPES),
  required: fc.boolean(),
  nullable: fc.boolean(),
});

/** Usually a handful of fields; sometimes exactly 100. */
const fieldsArb = fc.oneof(
  { weight: 12, arbitrary: fc.array(descriptorArb, { minLength: 1, maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...FIELD_TYPES).map((type) =>
      Array.from({ length: 100 }, (_, i) => ({ name: i % 7 === 0 ? `F${i}` : `f${i}`, type, required: i % 2 === 0, nullable: i % 3 === 0 })),
    ),
  },
);

type Body = Record<string, unknown> & { source_fields: Array<Record<string, unknown>>; target_fields: Array<Record<string, unknown>> };

/** One way to break a well-formed body; validation must refuse each (or, for look-alike names, accept them unfolded). */
const corruptions: ReadonlyArray<(b: Body, i: number) => void> = [
  (b, i) => (b.source_fields[i % b.source_fields.length]!.name = ['', '1a', '_a', 'a-b', 'a b', 'a'.repeat(65), 'É', 5, null][i % 9]),
  // Look-alikes that ASCII folding must leave alone: Kelvin sign, dotless i, long s (valid JSON, invalid by pattern).
  (b, i) => (b.target_fields[i % b.target_fields.length]!.name = ['\u212Aey', '\u0131d', '\u017Fum'][i % 3]),
  (b, i) => (b.target_fields[i % b.target_fields.length]!.type = ['Integer', 'null', 'float', '', 3][i % 5]),
  (b, i) => (b.source_fields[i % b.source_fields.length]!.required = ['true', 0, null][i % 3]),
  (b, i) => (b.target_fields[i % b.target_fields.length]!.nullable = ['false', 1, null][i % 3]),
  (b, i) => (b.source_fields[i % b.source_fields.length]!.additional_properties = true),
  (b, i) => delete b.target_fields[i % b.target_fields.length]![['name', 'type', 'required', 'nullable'][i % 4]!],
  (b) => (b.source_fields = []),
  (b) => b.target_fields.push(...Array.from({ length: 101 }, (_, k) => ({ name: `g${k}`, type: 'string', required: true, nullable: false }))),
  (b, i) => (b.contract_version = ['2', 1, ''][i % 3]),
  (b, i) => (b.comparison_mode = ['forward', 'EXACT', null][i % 3]),
  (b, i) => (b.canonicalization = ['unicode', 'ASCII_CASE_INSENSITIVE', true][i % 3]),
  // The option issue 14 asked about does not exist in the contract.
  (b) => (b.source_content_model = 'open'),
  (b) => (b.source_fields.push({ ...b.source_fields[0]! })),
];

const option = <T>(values: readonly T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });

const requestArb: fc.Arbitrary<unknown> = fc
  .record({
    contract_version: option(['1'] as const),
    comparison_mode: option(COMPARISON_MODES),
    canonicalization: option(CANONICALIZATION_MODES),
    source_fields: fieldsArb,
    target_fields: fieldsArb,
  })
  .chain((body) =>
    fc
      .option(fc.tuple(fc.nat(corruptions.length - 1), fc.nat()), { nil: undefined, freq: 2 })
      .map((c) => {
        // As it arrives on the wire: undefined keys vanish.
        const b = JSON.parse(JSON.stringify(body)) as Body;
        if (c !== undefined) corruptions[c[0]]!(b, c[1]);
        return JSON.parse(JSON.stringify(b)) as unknown;
      }),
  );

test('property: every generated request is refused by validation or answered with a JSON result matching the output schema', (t) => {
  const reader = makeInputReader(cap);
  let accepted = 0;
  let refused = 0;
  let duplicates = 0;
  fc.assert(
    fc.property(requestArb, (body) => {
      const parsed = reader.fromValue(body);
      if (!parsed.ok) {
        refused++;
        if ((parsed.body as { error: { code: string } }).error.code === 'duplicate_field_name') duplicates++;
        return;
      }
      accepted++;
      let out: unknown;
      try {
        out = cap.run(parsed.input as Parameters<typeof cap.run>[0]);
      } catch (e) {
        assert.fail(`threw after validation on ${JSON.stringify(body)}: ${(e as Error)?.stack ?? e}`);
      }
      const text = JSON.stringify(out);
      assert.equal(typeof text, 'string');
      assert.deepEqual(JSON.parse(text), out);
      assert.ok(validateOut(out), `output schema: ${JSON.stringify(validateOut.errors)} for ${JSON.stringify(body)}`);
    }),
    { numRuns: 3000 },
  );
  t.diagnostic(`${accepted} inputs reached the handler, ${refused} were refused by validation (${duplicates} as duplicate names)`);
  assert.ok(refused > 0 && duplicates > 0, 'the generator must also produce inputs that validation refuses, duplicates included');
  assert.ok(accepted > 750, `only ${accepted} inputs reached the handler`);
});
