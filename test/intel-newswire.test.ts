/**
 * The free intelligence routes on the real service (devnet rail, starter
 * corpus loaded on start): newswire shape, filters, truncation and cursor
 * chains, strong ETag / 304, parameter errors, the changes-since sample.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createIntelModule } from '../src/intel/module.js';
import { CHANGES_SINCE_SAMPLE_SCHEMA, NEWSWIRE_FEED_SCHEMA } from '../src/intel/schemas.js';
import { startRig, type Rig } from './support/harness.js';
import { schemaErrors } from './support/intel.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('GET /v1/newswire on the real service', () => {
  let rig: Rig;
  let base: string;
  const get = async (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });
  const feed = async (qs = ''): Promise<Json> => {
    const res = await get('/v1/newswire' + (qs ? '?' + qs : ''));
    assert.equal(res.status, 200, await res.clone().text());
    return res.json();
  };

  before(async () => {
    rig = await startRig({ service: { modules: [createIntelModule()] } });
    base = rig.service.url;
  });
  after(async () => rig?.close());

  test('the starter corpus is served in the feed shape, newest eventDate first', async () => {
    const f = await feed('limit=200');
    assert.equal(schemaErrors(NEWSWIRE_FEED_SCHEMA, f), undefined);
    assert.equal(f.count, 60);
    assert.equal(f.truncated, false);
    assert.equal(f.nextCursor, f.generatedAt, 'full response: nextCursor = generatedAt');
    assert.equal(f.since, '1970-01-01T00:00:00.000000Z');
    const dates = f.items.map((i: Json) => i.eventDate);
    assert.deepEqual(dates, [...dates].sort().reverse());
    assert.equal(f.independentRevenueUsd, 0);
    assert.equal(f.marketMovements.basis, null);
    for (const i of f.items) {
      assert.ok(i.sourceURLs.length >= 1);
      assert.equal(i.newsroomState, 'PUBLISHED');
      assert.equal(i.schemaVersion, f.schemaVersion);
    }
  });

  test('default: the 50 newest items (issue 13), nextCursor = generatedAt to poll from, olderCursor pages back exactly', async () => {
    const all = (await feed('limit=200')).items as Json[];
    const first = await feed();
    assert.equal(schemaErrors(NEWSWIRE_FEED_SCHEMA, first), undefined);
    assert.equal(first.count, 50);
    assert.equal(first.truncated, true);
    assert.deepEqual(first.items.map((i: Json) => i.eventId), all.slice(0, 50).map((i) => i.eventId), 'the 50 newest, newest eventDate first');
    assert.equal(first.nextCursor, first.generatedAt);
    const older = await feed('cursor=' + encodeURIComponent(first.olderCursor));
    assert.deepEqual(older.items.map((i: Json) => i.eventId), all.slice(50).map((i) => i.eventId), 'the next page continues exactly after the last shown');
    assert.equal(older.truncated, false);
    assert.equal(older.olderCursor, null);
    assert.equal((await get('/v1/newswire?cursor=bm90LWEtY3Vyc29y')).status, 400);
    assert.equal((await get('/v1/newswire?since=2025-01-01&cursor=' + encodeURIComponent(first.olderCursor))).status, 400);
  });

  test('polling with since: truncation keeps the oldest-updated and the next poll continues exactly there', async () => {
    const all = (await feed('limit=200')).items as Json[];
    const byUpdate = [...all].sort((a, b) => (a.lastUpdatedAt < b.lastUpdatedAt ? -1 : 1));
    const first = await feed('since=1970-01-01T00:00:00Z');
    assert.equal(first.count, 50);
    assert.equal(first.truncated, true);
    assert.equal(first.olderCursor, null);
    const kept = new Set(first.items.map((i: Json) => i.eventId));
    assert.deepEqual(new Set(byUpdate.slice(0, 50).map((i) => i.eventId)), kept, 'the 50 oldest-updated are kept');
    assert.equal(first.nextCursor, byUpdate[49]!.lastUpdatedAt, 'nextCursor = lastUpdatedAt of the last kept item');
    const second = await feed('since=' + encodeURIComponent(first.nextCursor));
    assert.equal(second.truncated, false);
    assert.deepEqual(second.items.map((i: Json) => i.eventId).sort(), byUpdate.slice(50).map((i) => i.eventId).sort());
    assert.equal(second.nextCursor, second.generatedAt);
    const third = await feed('since=' + encodeURIComponent(second.nextCursor));
    assert.equal(third.count, 0, 'caught up');
  });

  test('a chain of small polls sees every item exactly once', async () => {
    const seen: string[] = [];
    let since = '1970-01-01T00:00:00Z';
    for (let i = 0; i < 100; i++) {
      const f = await feed(`limit=7&since=${encodeURIComponent(since)}`);
      seen.push(...f.items.map((x: Json) => x.eventId));
      since = f.nextCursor;
      if (!f.truncated) break;
    }
    assert.equal(seen.length, 60);
    assert.equal(new Set(seen).size, 60);
  });

  test('filters: type, topic, entity, protocol, min_tier, first_party, material_only, until', async () => {
    const all = (await feed('limit=200')).items as Json[];
    const check = async (qs: string, pred: (i: Json) => boolean) => {
      const got = (await feed('limit=200&' + qs)).items.map((i: Json) => i.eventId).sort();
      const want = all.filter(pred).map((i) => i.eventId).sort();
      assert.ok(want.length > 0 || qs.startsWith('first_party=true'), `${qs} should match something`);
      assert.deepEqual(got, want, qs);
    };
    await check('type=standards', (i) => i.type === 'standards');
    await check('topic=governance', (i) => i.topics.includes('governance'));
    await check('entity=cloudflare', (i) => i.entities.includes('cloudflare'));
    await check('protocol=mpp', (i) => i.protocols.includes('mpp'));
    await check('min_tier=TIER_B', (i) => i.evidenceTier === 'TIER_A' || i.evidenceTier === 'TIER_B');
    await check('first_party=true', (i) => i.firstPartyInterest);
    await check('first_party=false', (i) => !i.firstPartyInterest);
    await check('material_only=true', (i) => !['unmet_need', 'analysis_seed', 'community_signal', 'market_snapshot', 'daily_digest'].includes(i.type));
    const mid = [...all].sort((a, b) => (a.lastUpdatedAt < b.lastUpdatedAt ? -1 : 1))[9]!.lastUpdatedAt;
    const until = await feed('limit=200&until=' + encodeURIComponent(mid));
    assert.equal(until.count, 10);
    assert.equal(until.generatedAt, mid, 'the response is complete up to until');
    assert.equal(until.nextCursor, mid);
    const m = await feed('material_only=true&limit=1');
    assert.equal(m.materialOnly, true);
  });

  test('medium-confidence facts are published lower, with the reason', async () => {
    const all = (await feed('limit=200')).items as Json[];
    const caveated = all.filter((i) => i.evidenceNote !== null);
    assert.equal(caveated.length, 9);
    for (const i of caveated) {
      assert.ok(i.confidence < 0.95);
      assert.notEqual(i.evidenceTier, 'TIER_A');
    }
  });

  test('strong ETag; If-None-Match answers 304 with no body; unchanged content gives the same ETag', async () => {
    const a = await get('/v1/newswire?limit=5');
    const etag = a.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/, 'strong (not W/)');
    const b = await get('/v1/newswire?limit=5');
    assert.equal(b.headers.get('etag'), etag, 'byte-identical when nothing changed');
    const c = await get('/v1/newswire?limit=5', { 'If-None-Match': etag });
    assert.equal(c.status, 304);
    assert.equal(await c.text(), '');
    assert.equal(c.headers.get('etag'), etag);
    const d = await get('/v1/newswire?limit=6', { 'If-None-Match': etag });
    assert.equal(d.status, 200, 'another query is another representation');
    const e = await get('/v1/newswire?limit=5', { 'If-None-Match': '"stale", ' + etag });
    assert.equal(e.status, 304);
  });

  test('bad parameters are 400 invalid_parameter with the offending parameter', async () => {
    for (const [qs, path] of [
      ['limit=0', 'query:limit'],
      ['limit=201', 'query:limit'],
      ['limit=abc', 'query:limit'],
      ['since=not-a-time', 'query:since'],
      ['until=2026-02-30', 'query:until'],
      ['type=gossip', 'query:type'],
      ['min_tier=TIER_Z', 'query:min_tier'],
      ['include_retracted=1', 'query:include_retracted'],
      ['material_only=yes', 'query:material_only'],
      ['first_party=maybe', 'query:first_party'],
      ['entity=Not%20An%20Id', 'query:entity'],
      ['colour=red', 'query:colour'],
      ['limit=5&limit=6', 'query:limit'],
    ]) {
      const res = await get('/v1/newswire?' + qs);
      assert.equal(res.status, 400, qs);
      const body = (await res.json()) as Json;
      assert.equal(body.error.code, 'invalid_parameter', qs);
      assert.equal(body.error.details[0].path, path, qs);
    }
  });

  test('GET /v1/intelligence/changes-since: at most 3 compact deltas, the paid schema, price and how to pay', async () => {
    const res = await get('/v1/intelligence/changes-since');
    assert.equal(res.status, 200);
    const s = (await res.json()) as Json;
    assert.equal(schemaErrors(CHANGES_SINCE_SAMPLE_SCHEMA, s), undefined);
    assert.equal(s.sample.length, 3);
    assert.equal(s.moreAvailable, true);
    assert.equal(s.sample[0].change, 'NEW');
    assert.equal(s.sample[0].evidence, undefined, 'the sample is compact');
    assert.equal(s.paid.priceAtomic, '10000');
    assert.equal(s.paid.method, 'POST');
    assert.equal(s.paid.network, 'eip155:31337');
    assert.equal(s.paid.payTo, rig.devnet.payTo);
    assert.equal(s.paid.responseSchema.type, 'object');
    assert.ok(s.paid.responseSchema.properties.items);
    assert.equal(s.paid.exampleRequest.maxItems, 100);
    assert.match(s.howToPay, /PAYMENT-SIGNATURE/);
    const later = (await (await get('/v1/intelligence/changes-since?cursor=' + encodeURIComponent(s.generatedAt))).json()) as Json;
    assert.deepEqual(later.sample, []);
    assert.equal(later.moreAvailable, false);
    const bad = await get('/v1/intelligence/changes-since?cursor=soon');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as Json).error.code, 'invalid_parameter');
  });
});
