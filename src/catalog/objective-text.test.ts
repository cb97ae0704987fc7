import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readColours, readLargeText, readTimestamp, readUris, toTimestamp, withoutNegations } from './objective-text.js';

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

test('colours: an odd count that is not "A, B on C" is unpaired; #RGB, #RRGGBBAA and entities are not colours', () => {
  const r = readColours('#111111 #222222 #333333');
  assert.equal(r.pairs.length, 0);
  assert.equal(r.unpaired, '#333333');
  assert.deepEqual(readColours('#fff on #000, #11223344, &#123456;').colours, []);
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
