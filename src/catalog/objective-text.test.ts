import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTerms, foldText, parseColour, readColours, readLargeText, readTimestamp, readUris, toTimestamp, withoutNegations, withoutNegationsFolded } from './objective-text.js';
import { CSS_NAMED_COLOURS } from './css-colours.js';

test('colours: "A on B" is one pair, foreground first, lower-cased', () => {
  assert.deepEqual(readColours('Is #777777 on #FFFFFF readable?').pairs, [{ foreground: '#777777', background: '#ffffff' }]);
});

test('colours: consecutive pairs, and several foregrounds on one background', () => {
  assert.deepEqual(readColours('#000000/#ffffff, #777777 vs #ffffff').pairs, [
    { foreground: '#000000', background: '#ffffff' },
    { foreground: '#777777', background: '#ffffff' },
  ]);
  assert.deepEqual(readColours('#111111, #222222 and #333333 on #ffffff').pairs.map((p) => p.foreground), ['#111111', '#222222', '#333333']);
  assert.deepEqual(readColours('#000000 on #ffffff and #777777 on #ffffff').pairs.length, 2);
});

test('colours: labels swap a pair written background first', () => {
  assert.deepEqual(readColours('background #0078d7 with text #ffffff').pairs, [{ foreground: '#ffffff', background: '#0078d7' }]);
});

test('colours: an odd count that is not "A, B on C" is unpaired; #RRGGBBAA and entities are not colours, #RGB is (issue 11)', () => {
  const r = readColours('#111111 #222222 #333333');
  assert.equal(r.pairs.length, 0);
  assert.equal(r.unpaired, '#333333');
  assert.deepEqual(readColours('#fff on #000, #11223344, &#123456;').colours, ['#ffffff', '#000000']);
});

test('colours as people write them: #rgb, CSS names (also spaced), rgb()/rgba() opaque, full-width', () => {
  const pair = (t: string) => readColours(t).pairs;
  assert.deepEqual(pair('#333 on #fff'), [{ foreground: '#333333', background: '#ffffff' }]);
  assert.deepEqual(pair('white text on navy'), [{ foreground: '#ffffff', background: '#000080' }]);
  assert.deepEqual(pair('navy background with white text'), [{ foreground: '#ffffff', background: '#000080' }]);
  assert.deepEqual(pair('light grey on dark slate blue'), [{ foreground: '#d3d3d3', background: '#483d8b' }]);
  assert.deepEqual(pair('rgb(51, 51, 51) over rgba(255 255 255 / 100%)'), [{ foreground: '#333333', background: '#ffffff' }]);
  assert.deepEqual(pair('＃３３３ on ＃ＦＦＦ'), [{ foreground: '#333333', background: '#ffffff' }]);
  // A translucent colour has no single contrast: not read as a colour.
  assert.deepEqual(readColours('rgba(0,0,0,0.5) on #fff').colours, ['#ffffff']);
  // Named colours are ordinary words unless the text pairs them.
  assert.deepEqual(readColours('the gold ring and the red and blue offers').colours, []);
});

test('colours: connectors and labels in other languages, background-first orders', () => {
  const pair = (t: string) => readColours(t).pairs[0];
  const fg333 = { foreground: '#333333', background: '#ffffff' };
  for (const t of ['#333 auf #fff', '#333 sobre #fff', '#333 sur #fff', '#333 su #fff', '#333 op #fff', '#333 在 #fff 上', '#fff の上の #333', '#fff 위의 #333', '背景 #fff 文字 #333', 'fondo #fff, texto #333', 'Hintergrund #fff mit Text #333']) {
    assert.deepEqual(pair(t), fg333, t);
  }
  assert.deepEqual(pair('texto negro sobre fondo blanco'), { foreground: '#000000', background: '#ffffff' });
  assert.deepEqual(pair('白い背景に黒い文字'), { foreground: '#000000', background: '#ffffff' });
});

test('parseColour: every CSS Color 4 name (148), #rgb, rgb() percentages; rejects the rest', () => {
  assert.equal(CSS_NAMED_COLOURS.size, 148);
  assert.equal(CSS_NAMED_COLOURS.get('rebeccapurple'), '#663399');
  assert.equal(parseColour('Navy'), '#000080');
  assert.equal(parseColour('#ABC'), '#aabbcc');
  assert.equal(parseColour('rgb(10%, 20%, 30%)'), '#1a334d');
  assert.equal(parseColour('rgba(0, 0, 0, 0.5)'), undefined);
  assert.equal(parseColour('notacolour'), undefined);
});

test('terms: diacritics and case ignored in Latin scripts (whole words, * continues), substrings in CJK', () => {
  const re = compileTerms({ de: ['kontrast*', 'ruf * ab'], es: ['captura de pantalla'], ja: ['コントラスト'] })!;
  assert.ok(re.test(foldText('Kontrastverhältnis PRÜFEN')));
  assert.ok(re.test(foldText('Tomá una CAPTURA DE PANTALLA')));
  assert.ok(re.test(foldText('このコントラストを確認')));
  assert.ok(re.test(foldText('ruf sie ab')));
  assert.ok(!re.test(foldText('capturas')));
  assert.equal(foldText('Änderungen seit Straße'), 'anderungen seit strasse');
});

test('negations in other languages are blanked before refusals are read', () => {
  assert.doesNotMatch(withoutNegationsFolded(foldText('Extrae las ofertas sin descargar la página')), /descargar/);
  assert.doesNotMatch(withoutNegationsFolded(foldText('Angebote extrahieren, ohne herunterzuladen')), /herunterzuladen/);
  assert.doesNotMatch(withoutNegationsFolded(foldText('提取报价，不要下载网页')), /下载/);
});

test('large text from words', () => {
  assert.equal(readLargeText('for large text'), true);
  assert.equal(readLargeText('body text'), false);
  assert.equal(readLargeText('contrast please'), undefined);
});

test('URIs and URLs in text, trailing punctuation removed, ERC-1155 {id} kept', () => {
  assert.deepEqual(readUris('see ipfs://ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB, and https://ex.com/a.'), [
    { value: 'ipfs://ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB', kind: 'nft' },
    { value: 'https://ex.com/a', kind: 'url' },
  ]);
  assert.equal(readUris('ipfs://bafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q/{id}.json')[0]!.value.endsWith('{id}.json'), true);
  assert.deepEqual(readUris('bare QmYjtig7VJQ6XsnUjqqJvj7QaMcCAwtrgNdahSiFofrE7o here'), [{ value: 'QmYjtig7VJQ6XsnUjqqJvj7QaMcCAwtrgNdahSiFofrE7o', kind: 'nft' }]);
});

test('timestamps: a date is midnight UTC; a real calendar date is required', () => {
  assert.deepEqual(toTimestamp('2025-06-01'), { value: '2025-06-01T00:00:00Z', filled: ['midnight', 'UTC'] });
  assert.deepEqual(toTimestamp('2025-06-01T12:30:00+0200'), { value: '2025-06-01T12:30:00+02:00', filled: [] });
  assert.equal(toTimestamp('2025-02-30'), undefined);
  assert.equal(readTimestamp('news since 2025-01-15T08:00 please')?.value, '2025-01-15T08:00:00Z');
});

test('negated phrases are blanked before refused categories are looked for', () => {
  assert.doesNotMatch(withoutNegations('normalize it without fetching it'), /fetch/);
  assert.doesNotMatch(withoutNegations('do not need to browse'), /browse/);
  assert.match(withoutNegations('not only contrast but a screenshot'), /screenshot/);
});
