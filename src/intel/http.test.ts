import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePageCursor, encodePageCursor, ifNoneMatchHits, parseQuery, strongEtag } from './http.js';
import { QUERY_PARAMETERS } from './api/query-parameters.js';

const q = (s: string) => parseQuery(QUERY_PARAMETERS.newswire, new URL('http://x/v1/newswire?' + s));

describe('query parameters from their declarations', () => {
  test('typed values and defaults', () => {
    const r = q('limit=7&include_retracted=true&type=standards&since=2026-01-01');
    assert.equal(r.ok, true);
    if (r.ok) {
      assert.equal(r.values.limit, 7);
      assert.equal(r.values.include_retracted, true);
      assert.equal(r.values.material_only, false, 'default');
      assert.equal(r.values.type, 'standards');
    }
    const d = q('');
    assert.equal(d.ok && d.values.limit, 50);
  });

  test('bad values, unknown and repeated parameters are invalid_parameter with a detail each', () => {
    for (const [qs, rule] of [
      ['limit=0', 'minimum'],
      ['limit=201', 'maximum'],
      ['limit=ten', 'type'],
      ['since=last-tuesday', 'format'],
      ['type=rumour', 'enum'],
      ['min_tier=TIER_E', 'enum'],
      ['entity=Coinbase%20Inc', 'pattern'],
      ['include_retracted=yes', 'type'],
      ['entitiy=x402', 'unknown'],
      ['limit=1&limit=2', 'repeated'],
    ] as const) {
      const r = q(qs);
      assert.equal(r.ok, false, qs);
      if (!r.ok) {
        assert.equal(r.code, 'invalid_parameter');
        assert.equal(r.details[0]!.rule, rule, qs);
      }
    }
  });
});

describe('ETags and page cursors', () => {
  test('strong ETag: quoted, not weak, changes with the bytes', () => {
    const e = strongEtag('{"a":1}');
    assert.match(e, /^"[A-Za-z0-9_-]+"$/);
    assert.notEqual(e, strongEtag('{"a":2}'));
  });

  test('If-None-Match: lists, weak forms and * match; others do not', () => {
    const e = strongEtag('x');
    assert.equal(ifNoneMatchHits(e, e), true);
    assert.equal(ifNoneMatchHits(`"other", ${e}`, e), true);
    assert.equal(ifNoneMatchHits(`W/${e}`, e), true);
    assert.equal(ifNoneMatchHits('*', e), true);
    assert.equal(ifNoneMatchHits('"other"', e), false);
    assert.equal(ifNoneMatchHits(undefined, e), false);
  });

  test('page cursors round-trip and garbage is refused', () => {
    assert.deepEqual(decodePageCursor(encodePageCursor(['2026-01-01', 'evt']), 2), ['2026-01-01', 'evt']);
    assert.equal(decodePageCursor('not-a-cursor', 1), undefined);
    assert.equal(decodePageCursor(encodePageCursor(['a']), 2), undefined);
  });
});
