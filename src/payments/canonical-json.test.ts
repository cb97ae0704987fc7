import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson, requestFingerprint } from './canonical-json.js';

test('key order and whitespace do not change the canonical form; values do', () => {
  assert.equal(canonicalJson({ b: 1, a: [true, null, 'x'] }), '{"a":[true,null,"x"],"b":1}');
  assert.equal(canonicalJson(JSON.parse('{ "a" : 1 , "b":{"d":2,"c":3}}')), canonicalJson({ b: { c: 3, d: 2 }, a: 1 }));
  assert.notEqual(requestFingerprint('r', { a: 1 }), requestFingerprint('r', { a: 2 }));
  assert.notEqual(requestFingerprint('r1', { a: 1 }), requestFingerprint('r2', { a: 1 }), 'the resource is part of the fingerprint');
});

test('property: canonical JSON parses back to the same value and ignores key order', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const c = canonicalJson(v);
      assert.deepEqual(JSON.parse(c), JSON.parse(JSON.stringify(v)));
      const shuffled = JSON.parse(JSON.stringify(v), (_k, x) =>
        x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x,
      );
      assert.equal(canonicalJson(shuffled), c);
    }),
    { numRuns: 500 },
  );
});

test('undefined is written the way JSON.stringify writes it: null in arrays, omitted in objects', () => {
  assert.equal(canonicalJson([1, undefined, 2]), '[1,null,2]');
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(canonicalJson(undefined), 'null');
});
