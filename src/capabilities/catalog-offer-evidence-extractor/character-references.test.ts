/**
 * Character references as the HTML standard decodes them (the `entities`
 * package's table and rules). The hand-written table this replaced got 7 of
 * the 20 common references below wrong (&frac12;, &Oslash;, &copy without
 * `;`, …): unknown names were kept as text.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeAttributeReferences, decodeTextReferences } from './character-references.js';
import { scanHtml } from './html-scripts.js';
import { parseScriptText, toPlain } from './lenient-json.js';

/** 20 references seen on product pages, with what a browser makes of them in text. */
const COMMON: Array<[string, string]> = [
  ['&amp;', '&'],
  ['&lt;', '<'],
  ['&gt;', '>'],
  ['&quot;', '"'],
  ['&apos;', "'"],
  ['&nbsp;', '\u00a0'],
  ['&copy;', '\u00a9'],
  ['&copy', '\u00a9'], // legacy name without ';'
  ['&reg;', '\u00ae'],
  ['&raquo;', '\u00bb'],
  ['&euro;', '\u20ac'],
  ['&mdash;', '\u2014'],
  ['&frac12;', '\u00bd'],
  ['&Oslash;', '\u00d8'],
  ['&middot;', '\u00b7'],
  ['&laquo;', '\u00ab'],
  ['&eacute', '\u00e9'], // legacy, no ';'
  ['&#8482;', '\u2122'],
  ['&#x20AC;', '\u20ac'],
  ['&#150;', '\u2013'], // C1 range maps through Windows-1252
];

describe('HTML character references', () => {
  for (const [ref, want] of COMMON) {
    it(`decodes ${ref} in text`, () => assert.equal(decodeTextReferences(`a${ref} b`), `a${want} b`));
  }

  it('keeps what is not a reference, and decodes only once', () => {
    assert.equal(decodeTextReferences('&unknown; &amp;amp; & ;'), '&unknown; &amp; & ;');
    assert.equal(decodeTextReferences('&#0;&#xD800;&#x110000;'), '\ufffd\ufffd\ufffd');
    assert.equal(decodeTextReferences('no references'), 'no references');
  });

  it('applies the attribute-value rule for legacy names: not before "=" or an alphanumeric', () => {
    assert.equal(decodeTextReferences('?a=1&copy=2'), '?a=1\u00a9=2');
    assert.equal(decodeAttributeReferences('?a=1&copy=2'), '?a=1&copy=2');
    assert.equal(decodeAttributeReferences('x&notit'), 'x&notit');
    assert.equal(decodeTextReferences('x&notit'), 'x\u00acit');
    assert.equal(decodeAttributeReferences('&copy &frac12; &Oslash;'), '\u00a9 \u00bd \u00d8');
  });

  it('the scanner decodes attribute values with the attribute rules', () => {
    const page = '<script type="application&sol;ld&plus;json" data-x="&copy=1">{"a":1}</script>';
    const found = scanHtml(page).scripts;
    assert.equal(found.length, 1);
    assert.equal(found[0]!.typeAttribute, 'application/ld+json');
  });

  it('an entity-encoded script is recovered with the full table', () => {
    const r = parseScriptText('{&quot;name&quot;:&quot;&frac12; litre &Oslash;l&quot;,&quot;c&quot;:&quot;&copy 2024&quot;}');
    assert.equal(r.mode, 'lenient');
    assert.deepEqual(r.recoveries, ['entity_decoded']);
    assert.deepEqual(toPlain(r.value!), { name: '\u00bd litre \u00d8l', c: '\u00a9 2024' });
  });

  it('stays linear on many references', () => {
    const s = '&amp;'.repeat(400_000);
    assert.equal(decodeTextReferences(s).length, 400_000);
  });
});
