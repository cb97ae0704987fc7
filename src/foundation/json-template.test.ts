import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, requestFingerprint, sha256Hex } from './canonical-json.js';
import { canonicalDigest, filledTemplate, pointerToken, templateDigests } from './json-template.js';

test('filledTemplate puts each source at its pointer and leaves the template as it was', () => {
  const template = { a: { 'x/y': null, 'm~n': null, keep: 1 }, list: [0, null], top: null };
  const frozen = structuredClone(template);
  const placements = [
    { at: `/a/${pointerToken('x/y')}`, source: 0 },
    { at: `/a/${pointerToken('m~n')}`, source: 1 },
    { at: '/list/1', source: 0 },
    { at: '/top', source: 1 },
  ];
  const filled = filledTemplate({ template, placements }, ['page', { big: true }]);
  assert.deepEqual(filled, { a: { 'x/y': 'page', 'm~n': { big: true }, keep: 1 }, list: [0, 'page'], top: { big: true } });
  assert.deepEqual(template, frozen);
});

test('a member named "__proto__" (as JSON.parse makes it) is written as a member, never through the prototype', () => {
  const template = JSON.parse('{"__proto__":{"x":null}}') as Record<string, unknown>;
  const filled = filledTemplate({ template, placements: [{ at: '/__proto__/x', source: 0 }] }, [7]);
  assert.equal(Object.getPrototypeOf(filled), Object.prototype);
  assert.equal(canonicalJson(filled), '{"__proto__":{"x":7}}');
});

test('templateDigests: the canonical size and hash of each source and filled template, and the fingerprint of one', () => {
  const page = '<p>"é"</p>'.repeat(100);
  const body = { html: page, base_url: 'https://shop.example/' };
  const req = { objective: 'offers', inputs: body };
  const out = templateDigests({
    sources: [page],
    templates: [
      { template: { html: null, base_url: body.base_url }, placements: [{ at: '/html', source: 0 }] },
      { template: { objective: 'offers', inputs: { html: null, base_url: body.base_url } }, placements: [{ at: '/inputs/html', source: 0 }] },
    ],
    fingerprint: { resource: 'outcome-router', template: 1 },
  });
  const digest = (v: unknown) => ({ bytes: Buffer.byteLength(canonicalJson(v)), sha256: sha256Hex(canonicalJson(v)) });
  assert.deepEqual(out, { sources: [digest(page)], templates: [digest(body), digest(req)], fingerprint: requestFingerprint('outcome-router', req) });
  assert.deepEqual(canonicalDigest(page), digest(page));
});

test('a placement outside the template is an error, not a silent miss', () => {
  assert.throws(() => filledTemplate({ template: { a: 1 }, placements: [{ at: '/a/b', source: 0 }] }, [1]), /not inside the template/);
  assert.throws(() => filledTemplate({ template: { a: 1 }, placements: [{ at: 'a', source: 0 }] }, [1]), /not a JSON pointer/);
});
