import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeUtf8, jsonBodyText, jsonNestingExceeds, jsonShapeExceeds, MAX_JSON_DEPTH, PARSE_FIRST_MAX_CHARS, parseJsonBody, rawTextBody, valueNestingExceeds } from './json-input.js';

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

test('property: the depth read from a parsed value agrees with the text scan', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (v, max) => {
      assert.equal(valueNestingExceeds(v, max), jsonNestingExceeds(JSON.stringify(v), max));
    }),
  );
  assert.equal(valueNestingExceeds(JSON.parse(arrays(MAX_JSON_DEPTH))), false);
  assert.equal(valueNestingExceeds(JSON.parse(arrays(MAX_JSON_DEPTH + 1))), true);
  assert.equal(valueNestingExceeds(JSON.parse('{"__proto__":' + arrays(MAX_JSON_DEPTH) + '}')), true, 'an own __proto__ key is a member like any other');
});

/** What parseJsonBody answered before it parsed first: jsonBodyText, then the empty check, then JSON.parse. */
function scanFirst(text: string): string {
  const t = jsonBodyText(text);
  if (!t.ok) return t.error.details[0]!.rule;
  if (t.value.trim() === '') return 'required';
  try {
    return JSON.stringify(JSON.parse(t.value));
  } catch {
    return 'json';
  }
}
const outcome = (text: string) => {
  const r = parseJsonBody(text);
  return r.ok ? JSON.stringify(r.value) : r.error.details[0]!.rule;
};

test('parseJsonBody: deep bodies are max-depth whether they parse or not, on both sides of the parse-first size', () => {
  const small = 20_000; // 40,000 characters: parsed first
  assert.ok(2 * small <= PARSE_FIRST_MAX_CHARS);
  const large = PARSE_FIRST_MAX_CHARS; // scanned first
  for (const n of [MAX_JSON_DEPTH + 1, small, large]) {
    assert.equal(outcome(arrays(n)), 'max-depth', `${n} valid levels`);
    assert.equal(outcome('['.repeat(n)), 'max-depth', `${n} unclosed levels`);
    assert.equal(outcome('{"a":'.repeat(n) + '1' + '}'.repeat(n)), 'max-depth', `${n} object levels`);
    assert.equal(outcome(' ' + arrays(n) + ' x'), 'max-depth', `${n} levels then garbage`);
  }
  assert.equal(outcome(arrays(MAX_JSON_DEPTH)), JSON.stringify(JSON.parse(arrays(MAX_JSON_DEPTH))));
});

test('property: parseJsonBody gives the same value or rule as scanning before parsing', () => {
  const deepish = fc.integer({ min: 0, max: MAX_JSON_DEPTH + 3 }).map((n) => arrays(n));
  const text = fc.oneof(
    fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
    fc.string(),
    deepish,
    fc.tuple(deepish, fc.constantFrom('', ' ', '}', ']', '[', '"', 'x', '\n')).map(([a, b]) => a + b),
    fc.constantFrom('', '   ', '\t\n', 'null', '"["', '["\\"]', '[' + '"]"'.repeat(3) + ']'),
  );
  fc.assert(fc.property(text, (t) => assert.equal(outcome(t), scanFirst(t))), { numRuns: 1000 });
});

test('an enumerable name on Object.prototype is not a member of parsed values', () => {
  const proto = Object.prototype as Record<string, unknown>;
  proto.polluted = JSON.parse(arrays(MAX_JSON_DEPTH + 5));
  try {
    assert.equal(valueNestingExceeds({ a: [1, { b: 2 }] }), false);
    assert.deepEqual(parseJsonBody('{"a":[1,{"b":2}]}'), { ok: true, value: { a: [1, { b: 2 }] } });
    assert.equal(valueNestingExceeds(JSON.parse(arrays(MAX_JSON_DEPTH + 1))), true);
  } finally {
    delete proto.polluted;
  }
});

/** Values of a parsed JSON value as the scan counts them: containers, member names, strings, numbers, literals. */
function valuesOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + valuesOf(x), 0);
  if (v !== null && typeof v === 'object') return 1 + Object.values(v).reduce((n: number, x) => n + 1 + valuesOf(x), 0);
  return 1;
}

test('property: the value scan counts exactly what JSON.parse would build, on bytes and on text, whitespace free', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (v, pretty) => {
      const text = JSON.stringify(v, null, pretty ? 2 : undefined);
      const n = valuesOf(v);
      for (const body of [text, Buffer.from(text)]) {
        assert.equal(jsonShapeExceeds(body, Infinity, n), undefined);
        assert.equal(jsonShapeExceeds(body, Infinity, n - 1), 'max-values');
      }
    }),
  );
});

test('many small values of every shape are max-values before anything is parsed; one long string is one value', () => {
  const n = 100_000;
  const shapes = {
    objects: '[' + '{},'.repeat(n) + '{}]',
    arrays: '[' + '[],'.repeat(n) + '[]]',
    strings: '[' + '"a",'.repeat(n) + '"a"]',
    numbers: '[' + '1,'.repeat(n) + '1]',
    literals: '[' + 'null,true,'.repeat(n) + 'false]',
    members: '{' + Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',') + '}',
    nested: '[' + '[[],[[]]],'.repeat(n) + '1]',
    padded: '[' + ' { } ,\n'.repeat(n) + '{ }]',
    escapes: '[' + '"\\"\\\\",'.repeat(n) + '""]',
  };
  for (const [shape, text] of Object.entries(shapes)) {
    const r = parseJsonBody(Buffer.from(text), { maxValues: 50_000 });
    assert.equal(r.ok, false, shape);
    if (!r.ok) assert.deepEqual([r.error.code, r.error.details[0]!.rule], ['invalid_json', 'max-values'], shape);
    assert.equal(jsonBodyText(Buffer.from(text), { maxValues: 50_000 }).ok, false, shape);
  }
  const page = JSON.stringify({ html: '<p class="x">\\ "quoted" [{,:}]</p>'.repeat(50_000) });
  assert.equal(jsonShapeExceeds(Buffer.from(page), MAX_JSON_DEPTH, 3), undefined, 'member name, object, string');
  assert.equal(parseJsonBody(Buffer.from(page), { maxValues: 3 }).ok, true);
  // Whitespace costs nothing: padding alone never reaches a budget.
  assert.equal(parseJsonBody(Buffer.from('[' + ' '.repeat(1_000_000) + '1]'), { maxValues: 2 }).ok, true);
});

test('the budget is exact on both sides of the parse-first size, and depth still wins when it comes first', () => {
  const list = (k: number) => '[' + Array(k - 1).fill('0').join(',') + ']'; // k values
  for (const k of [10, 3000, 40_000]) {
    assert.equal(parseJsonBody(list(k), { maxValues: k }).ok, true, `${k} values within ${k}`);
    const over = parseJsonBody(list(k + 1), { maxValues: k });
    assert.equal(!over.ok && over.error.details[0]!.rule, 'max-values', `${k + 1} values over ${k}`);
  }
  const deep = parseJsonBody('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1) + ' '.repeat(PARSE_FIRST_MAX_CHARS), { maxValues: 100 });
  assert.equal(!deep.ok && deep.error.details[0]!.rule, 'max-depth');
});
