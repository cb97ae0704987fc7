import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_DEPTH,
  parseJson,
  parseScriptText,
  pointerOf,
  toPlain,
  type JsonNode,
} from './lenient-json.js';

function plain(text: string, lenient = false): unknown {
  const r = parseJson(text, lenient);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return toPlain(r.value);
}

/** JSON.parse result with numbers turned into their JSON text, to compare with toPlain. */
function jsonParseNumbersAsText(text: string): unknown {
  const conv = (v: unknown): unknown => {
    if (typeof v === 'number') return JSON.stringify(v);
    if (Array.isArray(v)) return v.map(conv);
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) Object.defineProperty(o, k, { value: conv(x), enumerable: true, writable: true, configurable: true });
      return o;
    }
    return v;
  };
  return conv(JSON.parse(text));
}

describe('strict JSON', () => {
  it('parses RFC 8259 JSON and keeps number tokens exactly', () => {
    assert.deepEqual(plain('{"a":[1.10,-0,2e3,1E-2,true,false,null,"x\\u00e9\\n"]}'), {
      a: ['1.10', '-0', '2e3', '1E-2', true, false, null, 'xé\n'],
    });
  });

  it('rejects what JSON.parse rejects', () => {
    for (const bad of ['', ' ', '{', '[1,]', '{"a":1,}', "{'a':1}", '{a:1}', '01', '.5', '+1', '1.', '"\n"', '"\\x"', '{"a":1} x', '\ufeff{}', '// c\n{}', 'NaN', '[1 2]']) {
      const r = parseJson(bad, false);
      assert.equal(r.ok, false, JSON.stringify(bad));
      let threw = false;
      try {
        JSON.parse(bad);
      } catch {
        threw = true;
      }
      assert.ok(threw, `JSON.parse accepts ${JSON.stringify(bad)}`);
    }
  });

  it('agrees with JSON.parse on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const text = JSON.stringify(v);
        const r = parseJson(text, false);
        assert.ok(r.ok);
        assert.deepEqual(toPlain(r.value), jsonParseNumbersAsText(text));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the last of duplicate keys, like JSON.parse, and reports them', () => {
    const r = parseJson('{"price":"1","x":{"k":1,"k":2},"price":"2"}', false);
    assert.ok(r.ok);
    assert.deepEqual(toPlain(r.value), JSON.parse('{"price":"1","x":{"k":1,"k":2},"price":"2"}', (_k, v) => (typeof v === 'number' ? String(v) : v)));
    assert.deepEqual(
      r.duplicates.map((d) => `${pointerOf(d.object)}/${d.key}`),
      ['/x/k', '/price'],
    );
  });

  it('reports error positions (offset, line, column)', () => {
    const r = parseJson('{\n  "a": 1\n  "b": 2\n}', false);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.error.line, 3);
      assert.equal(r.error.column, 3);
      assert.equal(r.error.offset, 13);
    }
  });

  it('guards nesting depth without recursion', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const lenient of [false, true]) {
      const r = parseJson(deep, lenient);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error.message, /nesting deeper than/);
    }
    const okDepth = '['.repeat(MAX_DEPTH - 1) + ']'.repeat(MAX_DEPTH - 1);
    assert.equal(parseJson(okDepth, false).ok, true);
  });

  it('builds RFC 6901 pointers with ~0 and ~1 escapes', () => {
    const r = parseJson('{"a/b":{"c~d":[0,{"e":1}]}}', false);
    assert.ok(r.ok);
    const v = r.value;
    let leaf: JsonNode | undefined;
    if (v.kind === 'object') {
      const ab = v.props.get('a/b');
      if (ab?.kind === 'object') {
        const cd = ab.props.get('c~d');
        if (cd?.kind === 'array') {
          const o = cd.items[1];
          if (o?.kind === 'object') leaf = o.props.get('e');
        }
      }
    }
    assert.ok(leaf);
    assert.equal(pointerOf(leaf), '/a~1b/c~0d/1/e');
  });
});

describe('lenient recovery', () => {
  const cases: Array<[string, string, unknown, string[]]> = [
    ['leading HTML comment wrapper', '<!--\n{"a":1}\n-->', { a: '1' }, ['html_comment_wrapper']],
    ['leading // comment', '// generated\n{"a":1}', { a: '1' }, ['js_comments']],
    ['block comments', '/* x */{"a":/* y */1}', { a: '1' }, ['js_comments']],
    ['CDATA wrapper', '<![CDATA[{"a":1}]]>', { a: '1' }, ['cdata_wrapper']],
    ['commented CDATA wrapper', '//<![CDATA[\n{"a":1}\n//]]>', { a: '1' }, ['js_comments']],
    ['trailing commas', '{"a":[1,2,],"b":2,}', { a: ['1', '2'], b: '2' }, ['trailing_commas']],
    ['trailing semicolon', '{"a":1};', { a: '1' }, ['trailing_semicolon']],
    ['empty object then semicolon', '{};', {}, ['trailing_semicolon']],
    ['two values', '{"a":1};\n{"b":2}', [{ a: '1' }, { b: '2' }], ['trailing_semicolon', 'multiple_top_level_values']],
    ['BOM', '\ufeff{"a":1}', { a: '1' }, ['bom_removed']],
    ['raw newline and tab in a string', '{"d":"line1\nline2\tx"}', { d: 'line1\nline2\tx' }, ['control_characters_in_strings']],
    ['invalid escapes', '{"d":"it\\\'s \\q"}', { d: "it's q" }, ['invalid_escapes']],
    ['single quotes and unquoted keys', "{name:'x'}", { name: 'x' }, ['single_quoted_strings', 'unquoted_keys']],
    ['missing comma between lines', '{"a":1\n"b":2}', { a: '1', b: '2' }, ['missing_commas']],
    ['non-breaking space', '{\u00a0"a":1}', { a: '1' }, ['nonstandard_whitespace']],
    ['leading plus and leading dot numbers', '{"a":+1,"b":.5}', { a: '+1', b: '.5' }, ['nonstandard_numbers']],
  ];
  for (const [name, text, want, recs] of cases) {
    it(name, () => {
      const p = parseScriptText(text);
      assert.equal(p.mode, 'lenient', name);
      assert.ok(p.value);
      assert.deepEqual(toPlain(p.value), want);
      assert.deepEqual(p.recoveries, recs);
      assert.ok(p.error, 'the strict error is kept');
    });
  }

  it('decodes a whole entity-encoded script', () => {
    const p = parseScriptText('{&quot;@context&quot;:&quot;https://schema.org&quot;,&quot;name&quot;:&quot;A &amp;amp; B&quot;}');
    assert.equal(p.mode, 'lenient');
    assert.deepEqual(p.recoveries, ['entity_decoded']);
    assert.deepEqual(toPlain(p.value as JsonNode), { '@context': 'https://schema.org', name: 'A &amp; B' });
  });

  it('decodes a double-encoded script', () => {
    const p = parseScriptText('{&amp;quot;@type&amp;quot;:&amp;quot;Product&amp;quot;}');
    assert.equal(p.mode, 'lenient');
    assert.deepEqual(p.recoveries, ['entity_decoded', 'double_entity_decoded']);
    assert.deepEqual(toPlain(p.value as JsonNode), { '@type': 'Product' });
  });

  it('decodes numeric references too (&#34; and &#x22;)', () => {
    const p = parseScriptText('{&#34;a&#34;:&#x22;b&#x22;}');
    assert.deepEqual(toPlain(p.value as JsonNode), { a: 'b' });
  });

  it('never decodes character references in a valid script (JSON-LD 1.1 §HTML)', () => {
    const p = parseScriptText('{"name":"Tom &amp; Jerry &quot;deluxe&quot;"}');
    assert.equal(p.mode, 'strict');
    assert.deepEqual(toPlain(p.value as JsonNode), { name: 'Tom &amp; Jerry &quot;deluxe&quot;' });
  });

  it('fails with the strict error when nothing recovers', () => {
    const p = parseScriptText('{"a": 1, "b": }');
    assert.equal(p.mode, 'failed');
    assert.equal(p.value, null);
    assert.ok(p.error);
    assert.equal(p.error?.offset, 14);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const p = parseScriptText(s);
        assert.ok(['strict', 'lenient', 'failed', 'empty'].includes(p.mode));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', "'", ',', ':', ';', '/', '*', '<', '!', '-', '&', 'quot;', '\\', 'a', '1', ' ', '\n'), maxLength: 200 }), (s) => {
        parseScriptText(s);
      }),
      { numRuns: 2000 },
    );
  });
});

