import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPublicUrl, checkRecord } from './records.js';

const NOW = Date.parse('2026-11-22T08:00:00Z');

function itemRecord(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'item',
    eventId: 'test-item',
    eventDate: '2026-03-04',
    type: 'protocol_release',
    headline: 'h',
    summary: 's',
    whyItMatters: 'w',
    entities: ['x402'],
    protocols: ['x402'],
    topics: ['payments'],
    sources: [{ url: 'https://github.com/coinbase/x402/commit/bb6174a213b1abb3031862d530b374871cabe4a2', sourceType: 'github_maintainer' }],
    evidenceTier: 'TIER_A',
    ...over,
  };
}

function rejected(v: unknown) {
  const r = checkRecord(v, NOW);
  assert.equal(r.ok, false, 'expected a rejection');
  return (r as Extract<typeof r, { ok: false }>).rejection;
}

describe('content record validation', () => {
  test('a well-formed item passes and gets its defaults', () => {
    const r = checkRecord(itemRecord(), NOW);
    assert.equal(r.ok, true);
    if (r.ok && r.record.kind === 'item') {
      assert.equal(r.record.datePrecision, 'day');
      assert.equal(r.record.firstPartyInterest, false);
    }
  });

  test('schema: missing fields, extra properties, bad enums', () => {
    assert.equal(rejected({ ...itemRecord(), headline: undefined }).details[0]!.path, '/headline');
    assert.equal(rejected(itemRecord({ colour: 'red' })).details[0]!.rule, 'additionalProperties');
    assert.equal(rejected(itemRecord({ evidenceTier: 'TIER_Z' })).details[0]!.path, '/evidenceTier');
    assert.equal(rejected(itemRecord({ kind: 'gossip' })).details[0]!.path, '/kind');
    assert.equal(rejected('not an object').details[0]!.rule, 'type');
  });

  test('an item without a source is rejected: nothing is published unsourced', () => {
    assert.equal(rejected(itemRecord({ sources: [] })).details[0]!.path, '/sources');
  });

  test('dates: impossible dates and events after today are rejected', () => {
    assert.equal(rejected(itemRecord({ eventDate: '2026-02-30' })).details[0]!.path, '/eventDate');
    assert.equal(rejected(itemRecord({ eventDate: '2026-11-24' })).details[0]!.rule, 'not-in-future');
    assert.equal(checkRecord(itemRecord({ eventDate: '2026-11-23' }), NOW).ok, true, 'one day of slack for time zones ahead of UTC');
    assert.equal(rejected(itemRecord({ observedAt: '2027-01-01T00:00:00Z' })).details[0]!.path, '/observedAt');
  });

  test('URLs must be public http(s) addresses', () => {
    for (const url of ['ftp://example.org/x', 'https://user:pw@example.org/', 'http://localhost/x', 'http://127.0.0.1/x', 'https://intranet/x']) {
      assert.ok(rejected(itemRecord({ sources: [{ url, sourceType: 'github_maintainer' }] })).details.some((d) => d.path === '/sources/0/url'), url);
    }
    assert.equal(checkPublicUrl('https://datatracker.ietf.org/doc/draft-ryan-httpauth-payment/01/', '/u'), undefined);
  });

  test('tiers: an item cannot claim more than its sources support', () => {
    const r = rejected(itemRecord({ sources: [{ url: 'https://example.org/thread', sourceType: 'public_forum' }], evidenceTier: 'TIER_A' }));
    assert.equal(r.details[0]!.rule, 'tier-ceiling');
    assert.equal(checkRecord(itemRecord({ sources: [{ url: 'https://example.org/thread', sourceType: 'public_forum' }], evidenceTier: 'TIER_C' }), NOW).ok, true);
  });

  test('an item cannot correct itself', () => {
    assert.equal(rejected(itemRecord({ correctionOf: 'test-item' })).details[0]!.rule, 'self-reference');
  });

  test('census: resource ids are unique within a snapshot', () => {
    const census = { kind: 'census', snapshotId: 's1', observedAt: '2026-11-01T00:00:00Z', source: 'https://402index.io/', distinctPayers: 1, resources: [{ id: 'a', family: 'f', calls: 1 }, { id: 'a', family: 'f', calls: 2 }] };
    assert.equal(rejected(census).details[0]!.path, '/resources/1/id');
  });

  test('relationships join two different entities', () => {
    assert.equal(rejected({ kind: 'relationship', from: 'x402', to: 'x402', type: 'SUPPORTS', sourceUrl: 'https://example.org/' }).details[0]!.rule, 'self-reference');
  });
});
