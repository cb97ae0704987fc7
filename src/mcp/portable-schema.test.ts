/**
 * The portable spelling accepts exactly what the original accepts: checked
 * with Ajv on the capability output schemas (which use `type: [X, "null"]`
 * and an any-JSON field) over their examples and over mutations of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newAjv } from '../catalog/ajv.js';
import { CATALOG } from '../capabilities/index.js';
import { portableSchema } from './portable-schema.js';

/** Values near the examples: every field of every object set in turn to null, a string, a number, an object, an array. */
function* variants(value: unknown, depth = 0): Generator<unknown> {
  yield value;
  if (depth > 3 || !value || typeof value !== 'object' || Array.isArray(value)) return;
  for (const key of Object.keys(value)) {
    for (const replacement of [null, 'x', 1, 1.5, true, {}, []]) yield { ...(value as Record<string, unknown>), [key]: replacement };
    for (const inner of variants((value as Record<string, unknown>)[key], depth + 1)) yield { ...(value as Record<string, unknown>), [key]: inner };
  }
}

test('portableSchema(schema) accepts exactly what schema accepts', () => {
  const ajv = newAjv();
  let checked = 0;
  for (const cap of CATALOG) {
    const original = ajv.compile(cap.outputSchema);
    const portable = ajv.compile(portableSchema(cap.outputSchema));
    for (const example of cap.examples) {
      for (const v of variants(JSON.parse(JSON.stringify(example.output)))) {
        assert.equal(portable(v), original(v), `${cap.id}: ${JSON.stringify(v).slice(0, 200)}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 1000, `${checked} values checked`);
});

test('type arrays become anyOf branches and an unconstrained schema becomes an explicit any-JSON anyOf', () => {
  assert.deepEqual(portableSchema({ type: ['string', 'null'], maxLength: 3 }), { maxLength: 3, anyOf: [{ type: 'string' }, { type: 'null' }] });
  const any = portableSchema<unknown>({ description: 'anything' }) as { anyOf: Array<{ type: string }> };
  assert.deepEqual(any.anyOf.map((b) => b.type).sort(), ['array', 'boolean', 'null', 'number', 'object', 'string']);
  assert.deepEqual(portableSchema({ type: 'object', properties: { a: { type: ['integer', 'null'] } } }), { type: 'object', properties: { a: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } });
});
