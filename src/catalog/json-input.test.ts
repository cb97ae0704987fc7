import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeUtf8, jsonNestingExceeds, MAX_JSON_DEPTH, parseJsonBody, rawTextBody } from './json-input.js';

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);

/** Depth of a parsed value, the slow obvious way (small values only). */
function depthOf(v: unknown): number {
  if (!v || typeof v !== 'object') return 0;
  return 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depthOf));
}

test('the nesting bound is exact: MAX_JSON_DEPTH levels pass, one more fails', () => {
  assert.equal(jsonNestingExceeds(arrays(MAX_JSON_DEPTH)), false);
  assert.equal(jsonNestingExceeds(arrays(MAX_JSON_DEPTH + 1)), true);
  assert.equal(jsonNestingExceeds('{"a":'.repeat(MAX_JSON_DEPTH) + '1' + '}'.repeat(MAX_JSON_DEPTH)), false);
  assert.equal(jsonNestingExceeds(arrays(1_000_000)), true);
  assert.equal(jsonNestingExceeds('[]'.repeat(100_000)), false, 'siblings are not nesting');
});

test('brackets inside strings, escaped quotes and backslashes are not nesting', () => {
  const s = JSON.stringify({ a: '['.repeat(500) + '"\\' + '{'.repeat(500), b: ['\\', '"'] });
  assert.equal(jsonNestingExceeds(s), false);
  assert.equal(jsonNestingExceeds(`["\\\\", ${arrays(MAX_JSON_DEPTH)}]`), true);
});

test('property: for valid JSON the scan agrees with the depth of the parsed value', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (v, max) => {
      assert.equal(jsonNestingExceeds(JSON.stringify(v), max), depthOf(v) > max);
    }),
  );
});

test('strict UTF-8: malformed bytes are refused, a BOM is dropped', () => {
  assert.equal(decodeUtf8(Buffer.from([0x22, 0xff, 0x22])), undefined);
  assert.equal(decodeUtf8(Buffer.from([0xed, 0xa0, 0x80])), undefined);
  assert.equal(decodeUtf8(Buffer.from([0xef, 0xbb, 0xbf, 0x31])), '1');
  assert.equal(decodeUtf8(Buffer.from('caf\u00e9 \u{1F600}')), 'caf\u00e9 \u{1F600}');
});

test('parseJsonBody: every failure is invalid_json with its rule', () => {
  const rule = (b: Uint8Array | string) => {
    const r = parseJsonBody(b);
    assert.equal(r.ok, false);
    if (r.ok) return '';
    assert.equal(r.error.code, 'invalid_json');
    return r.error.details[0]!.rule;
  };
  assert.equal(rule(Buffer.from([0x7b, 0xff, 0x7d])), 'utf-8');
  assert.equal(rule(arrays(MAX_JSON_DEPTH + 1)), 'max-depth');
  assert.equal(rule('  '), 'required');
  assert.equal(rule('{"a":'), 'json');
  assert.deepEqual(parseJsonBody(Buffer.from('{"a":[1]}')), { ok: true, value: { a: [1] } });
});

test('rawTextBody: UTF-8 (or ASCII) only; other charsets are 415', () => {
  assert.deepEqual(rawTextBody('text/html; charset="UTF-8"', Buffer.from('\u00e9')), { ok: true, value: '\u00e9' });
  assert.deepEqual(rawTextBody('text/html', Buffer.from('<p>')), { ok: true, value: '<p>' });
  const latin1 = rawTextBody('text/html; charset=iso-8859-1', Buffer.from('<p>'));
  assert.equal(!latin1.ok && latin1.error.code, 'unsupported_media_type');
  const bad = rawTextBody('text/html', Buffer.from([0x3c, 0xff]));
  assert.equal(!bad.ok && bad.error.code, 'invalid_request');
});
