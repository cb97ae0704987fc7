import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { classifyType, scanHtml, utf8Length } from './html-scripts.js';
import { adversarialMarkup, adversarialTypes } from './adversarial-inputs.js';

function texts(html: string): string[] {
  return scanHtml(html).scripts.map((s) => html.slice(s.contentStart, s.contentEnd));
}

describe('type attribute', () => {
  const yes: Array<[string, string[]]> = [
    ['application/ld+json', []],
    ['application/ld+json; charset=utf-8', ['parameters']],
    ['application/ld+json;charset="UTF-8"', ['parameters']],
    ['APPLICATION/LD+JSON', ['uppercase']],
    ['Application/Ld+Json', ['uppercase']],
    ['  application/ld+json  ', ['whitespace']],
    ['"application/ld+json"', ['quotes']],
    ["'application/ld+json'", ['quotes']],
    ['application/ld+json ; charset=utf-8', ['parameters', 'whitespace']],
  ];
  for (const [t, flags] of yes) {
    it(`accepts ${JSON.stringify(t)}`, () => {
      const c = classifyType(t);
      assert.equal(c.ldJson, true);
      assert.deepEqual(c.flags, flags);
    });
  }
  for (const t of [null, '', 'application/json', 'text/javascript', 'application/ld+json2', 'application/ldjson', 'module']) {
    it(`rejects ${JSON.stringify(t)}`, () => assert.equal(classifyType(t).ldJson, false));
  }
  it('rejects a huge quoted or padded type (its timing: npm run bench, adversarial inputs)', () => {
    for (const t of adversarialTypes()) assert.equal(classifyType(t).ldJson, false);
  });
});

describe('finding scripts', () => {
  it('finds attributes in any order, quoted, unquoted and upper-case tags', () => {
    const html = [
      '<SCRIPT TYPE="application/ld+json">{"a":1}</SCRIPT>',
      '<script id=x type=application/ld+json data-y="a>b">{"b":2}</script >',
      "<script\ntype='application/ld+json'\nasync>{\"c\":3}</script\t>",
      '<script type="text/javascript">var x = "<script type=application/ld+json>";</script>',
      '<script>{"not":"ld"}</script>',
    ].join('\n');
    const r = scanHtml(html);
    assert.deepEqual(texts(html), ['{"a":1}', '{"b":2}', '{"c":3}']);
    assert.equal(r.otherScripts, 2);
  });

  it('takes the first of duplicated attributes, decodes character references in attributes', () => {
    assert.deepEqual(texts('<script type="text/plain" type="application/ld+json">{}</script>'), []);
    assert.deepEqual(texts('<script type="application/ld&#43;json">{"x":1}</script>'), ['{"x":1}']);
  });

  it('finds scripts after </html> and marks them', () => {
    const html = '<html><body></body></html>\n<script type="application/ld+json">{"late":true}</script>';
    const r = scanHtml(html);
    assert.equal(r.scripts.length, 1);
    assert.equal(r.scripts[0]?.afterHtmlEnd, true);
  });

  it('ignores scripts inside comments, style, textarea and title', () => {
    const html = [
      '<!-- <script type="application/ld+json">{"c":1}</script> -->',
      '<style>/* <script type="application/ld+json">{"s":1}</script> */</style>',
      '<textarea><script type="application/ld+json">{"t":1}</script></textarea>',
      '<title><script type="application/ld+json">{"ti":1}</script></title>',
      '<!---->',
      '<script type="application/ld+json">{"real":1}</script>',
    ].join('');
    assert.deepEqual(texts(html), ['{"real":1}']);
  });

  it('ends a script at the first </script> even inside a JSON string, and records the continuation', () => {
    const html = '<script type="application/ld+json">{"d":"a </script> b"}</script><p>x</p>';
    const r = scanHtml(html);
    assert.equal(r.scripts.length, 1);
    const s = r.scripts[0];
    assert.ok(s);
    assert.equal(html.slice(s.contentStart, s.contentEnd), '{"d":"a ');
    assert.equal(s.continuationEnd, html.indexOf('</script><p>'));
  });

  it('no continuation when another script starts before the stray end tag', () => {
    const html = '<script type="application/ld+json">{"d":"a </script><script>x</script> b"}</script>';
    const r = scanHtml(html);
    assert.equal(r.scripts[0]?.continuationEnd, null);
  });

  it('follows the escaped / double-escaped script states', () => {
    // "<!--" then "<script>" inside: the first </script> only leaves the double-escaped state
    const html = '<script type="application/ld+json">{"d":"<!-- <script> </script> -->"}</script><b>';
    assert.deepEqual(texts(html), ['{"d":"<!-- <script> </script> -->"}']);
    const html2 = '<script type="application/ld+json">{"d":"<!-- x"}</script>';
    assert.deepEqual(texts(html2), ['{"d":"<!-- x"}']);
    const html3 = '<script type="application/ld+json"><!--{"a":1}--></script>';
    assert.deepEqual(texts(html3), ['<!--{"a":1}-->']);
  });

  it('handles an unterminated script (runs to the end) and an unterminated tag', () => {
    const r = scanHtml('<script type="application/ld+json">{"a":1}');
    assert.equal(r.scripts[0]?.unterminated, true);
    assert.equal(scanHtml('<script type="application/ld+json"').scripts.length, 0);
  });

  it('reads the first <base href>', () => {
    const r = scanHtml('<base target=_blank><BASE HREF="/a/"><base href="/b/">');
    assert.equal(r.baseHref?.raw, '/a/');
  });

  it('counts UTF-8 bytes like Buffer does, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 50 }), fc.string({ maxLength: 5 }), (a, b) => {
        const s = a + b;
        assert.equal(utf8Length(s, 0, s.length), Buffer.byteLength(s, 'utf8'));
      }),
    );
    assert.equal(utf8Length('\ud800x', 0, 2), Buffer.byteLength('\ud800x'));
  });

  it('scans adversarial markup to the end without throwing (its timings: npm run bench, adversarial inputs)', () => {
    for (const html of adversarialMarkup()) assert.ok(Array.isArray(scanHtml(html).scripts), html.slice(0, 40));
  });

  it('never throws on arbitrary markup-ish text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('<', '>', '/', '!', '-', 'script', 'SCRIPT', ' ', '"', "'", '=', 'type', 'application/ld+json', '{}', 'base', 'href', 'style'), maxLength: 80 }),
        (html) => {
          const r = scanHtml(html);
          for (const s of r.scripts) {
            assert.ok(s.contentStart <= s.contentEnd && s.contentEnd <= html.length);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
