import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOG } from '../capabilities/index.js';
import { entryBudget, ENVELOPE_VALUES, messageBudget, MIN_ENTRY_VALUES, schemaValuesBound, valuesIn } from './body-budget.js';
import { jsonShapeExceeds } from './json-input.js';

test('schema bounds: closed objects and bounded arrays are counted, open ones are Infinity', () => {
  assert.equal(schemaValuesBound({ type: 'string' }), 1);
  assert.equal(schemaValuesBound({ type: 'object', additionalProperties: false, properties: { a: { type: 'string' }, b: { type: 'integer' } } }), 5);
  assert.equal(schemaValuesBound({ type: 'object', properties: { a: { type: 'string' } } }), Infinity, 'other members allowed');
  assert.equal(schemaValuesBound({ type: 'array', maxItems: 3, items: { type: 'array', maxItems: 2, items: { type: 'number' } } }), 1 + 3 * 3);
  assert.equal(schemaValuesBound({ type: 'array', items: { type: 'number' } }), Infinity, 'no maxItems');
  assert.equal(schemaValuesBound({ $defs: { p: { type: 'array', maxItems: 2, items: { type: 'null' } } }, anyOf: [{ type: 'string' }, { $ref: '#/$defs/p' }] }), 3);
  assert.equal(schemaValuesBound({ enum: ['a', 'b'] }), 1);
  const loop: Record<string, unknown> = { $defs: { n: { type: 'object', additionalProperties: false, properties: { next: { $ref: '#/$defs/n' } } } }, $ref: '#/$defs/n' };
  assert.equal(schemaValuesBound(loop), Infinity, 'a recursive schema is open');
});

test("every catalog entry's examples fit its own budget and a message's; the extractor's 2 MiB page is a handful of values", () => {
  const message = messageBudget(CATALOG);
  for (const cap of CATALOG) {
    const own = entryBudget(cap);
    assert.ok(own.values >= Math.min(MIN_ENTRY_VALUES, valuesIn(own.bytes)), cap.id);
    for (const ex of cap.examples) {
      const body = Buffer.from(JSON.stringify(ex.input));
      assert.equal(jsonShapeExceeds(body, 64, own.values), undefined, `${cap.id}: ${ex.summary}`);
      assert.equal(jsonShapeExceeds(body, 64, message.values - ENVELOPE_VALUES), undefined, `${cap.id}: ${ex.summary} in a message`);
    }
  }
  assert.ok(message.bytes >= Math.max(...CATALOG.map((c) => c.maxBodyBytes ?? 0)), 'a message carries the largest entry body');
  assert.ok(message.bytes < 4 * 1024 * 1024, 'and no more than it needs');
  assert.ok(message.values < 50_000 && messageBudget(CATALOG, 20).values < 50_000);
});
