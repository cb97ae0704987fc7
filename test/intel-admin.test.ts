/**
 * The content admin API on the real service: absent without ADMIN_TOKEN
 * (404), bearer token checked (401), and the publish → correct → retract
 * flows as readers of the newswire and changes-since see them; census
 * snapshots feeding marketMovements; NDJSON import with rejected lines.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createIntelModule } from '../src/intel/module.js';
import { ADMIN_WRITE_RESULT_SCHEMA, IMPORT_REPORT_SCHEMA } from '../src/intel/api/admin-schemas.js';
import { NEWSWIRE_FEED_SCHEMA } from '../src/intel/schemas.js';
import { startRig, type Rig } from './support/harness.js';
import { itemRecord, schemaErrors } from './support/intel.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOKEN = 'test-admin-token-0123456789abcdef';

function item(over: Record<string, unknown> = {}): Record<string, unknown> {
  const { kind: _kind, ...rest } = itemRecord({ entities: ['x402', 'coinbase'], ...over });
  return rest;
}

describe('admin API without ADMIN_TOKEN', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ service: { modules: [createIntelModule()] } });
  });
  after(async () => rig?.close());

  test('every admin route is 404, with or without a token', async () => {
    for (const [method, path] of [['POST', '/admin/v1/items'], ['POST', '/admin/v1/census'], ['POST', '/admin/v1/import'], ['GET', '/admin/v1/items/x'], ['POST', '/admin/v1/items/x/retraction']]) {
      for (const auth of [undefined, `Bearer ${TOKEN}`]) {
        const res = await fetch(rig.service.url + path, { method, headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body: method === 'POST' ? '{}' : undefined });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(((await res.json()) as Json).error.code, 'not_found');
      }
    }
  });
});

describe('admin API with ADMIN_TOKEN', () => {
  let rig: Rig;
  let base: string;
  const admin = (method: string, path: string, body?: unknown, auth: string | null = `Bearer ${TOKEN}`, contentType = 'application/json') =>
    fetch(base + path, {
      method,
      headers: { 'content-type': contentType, ...(auth ? { authorization: auth } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const feed = async (qs: string): Promise<Json> => (await fetch(`${base}/v1/newswire?${qs}`)).json();
  const cursorNow = async (): Promise<string> => (await feed('limit=1&since=2100-01-01')).generatedAt;
  const changes = async (cursor: string): Promise<Json> => (await fetch(`${base}/v1/intelligence/changes-since?cursor=${encodeURIComponent(cursor)}`)).json();

  before(async () => {
    rig = await startRig({ service: { modules: [createIntelModule()] }, env: { ADMIN_TOKEN: TOKEN } });
    base = rig.service.url;
  });
  after(async () => rig?.close());

  test('401 without the right bearer token, compared in constant time; the scheme is case-insensitive', async () => {
    const wrongSameLength = TOKEN.slice(0, -1) + (TOKEN.endsWith('f') ? 'e' : 'f');
    for (const auth of [null, `Bearer ${wrongSameLength}`, 'Bearer short', `Basic ${Buffer.from('admin:' + TOKEN).toString('base64')}`, 'Bearer', `Bearer ${TOKEN} extra`, TOKEN]) {
      const res = await admin('POST', '/admin/v1/items', item(), auth);
      assert.equal(res.status, 401, String(auth));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="admin"');
      assert.equal(((await res.json()) as Json).error.code, 'unauthorized');
    }
    const get = await admin('GET', '/admin/v1/items/anything', undefined, null);
    assert.equal(get.status, 401, 'reads need the token too');
    // The wrong method on an admin path tells a caller without the token nothing (not 405, not 404).
    for (const [method, path] of [['GET', '/admin/v1/items'], ['PUT', '/admin/v1/items'], ['GET', '/admin/v1/nothing-here']] as const) {
      assert.equal((await admin(method, path, undefined, null)).status, 401, `${method} ${path}`);
    }
    assert.equal((await admin('GET', '/admin/v1/items', undefined, `Bearer ${TOKEN}`)).status, 405, 'with the token: the method is wrong');
    const ok = await admin('POST', '/admin/v1/items', item(), `bearer ${TOKEN}`);
    assert.equal(ok.status, 201);
  });

  test('publish: 201, then visible in the newswire after the cursor and in changes-since as NEW; the ETag changes', async () => {
    const cursor = await cursorNow();
    const etagBefore = (await fetch(`${base}/v1/newswire?limit=200`)).headers.get('etag');
    const rec = item();
    const res = await admin('POST', '/admin/v1/items', rec);
    assert.equal(res.status, 201);
    const body = (await res.json()) as Json;
    assert.equal(schemaErrors(ADMIN_WRITE_RESULT_SCHEMA, body), undefined);
    assert.equal(body.result, 'created');
    assert.equal(body.newsroomState, 'PUBLISHED');
    const f = await feed('since=' + encodeURIComponent(cursor));
    assert.equal(schemaErrors(NEWSWIRE_FEED_SCHEMA, f), undefined);
    assert.deepEqual(f.items.map((i: Json) => i.eventId), [rec.eventId]);
    assert.equal(f.items[0].lastUpdatedAt, body.lastUpdatedAt);
    assert.deepEqual((await changes(cursor)).sample.map((d: Json) => [d.change, d.eventId]), [['NEW', rec.eventId]]);
    assert.notEqual((await fetch(`${base}/v1/newswire?limit=200`)).headers.get('etag'), etagBefore);
    const again = await admin('POST', '/admin/v1/items', rec);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as Json).result, 'unchanged');
  });

  test('update, correction and retraction flow through to readers', async () => {
    const rec = item();
    await admin('POST', '/admin/v1/items', rec);
    const c0 = await cursorNow();

    const upd = (await (await admin('POST', '/admin/v1/items', { ...rec, summary: 'A better summary.' })).json()) as Json;
    assert.equal(upd.result, 'updated');
    const c1 = await cursorNow();

    const corrRec = item({ headline: 'Correction: the date was wrong' });
    const corrRes = await admin('POST', `/admin/v1/items/${rec.eventId}/corrections`, corrRec);
    assert.equal(corrRes.status, 201);
    const corr = (await corrRes.json()) as Json;
    assert.equal(corr.item.correctionOf, rec.eventId);

    const retRes = await admin('POST', `/admin/v1/items/${rec.eventId}/retraction`, { reason: 'The source does not support the claim.' });
    assert.equal(retRes.status, 200);
    const ret = (await retRes.json()) as Json;
    assert.equal(ret.item.retracted, true);
    assert.equal(ret.newsroomState, 'RETRACTED');

    const deltas = (await changes(c0)).sample.map((d: Json) => [d.change, d.eventId]);
    assert.deepEqual(deltas, [['UPDATED', rec.eventId], ['CORRECTED', corrRec.eventId], ['RETRACTED', rec.eventId]]);

    const visible = await feed('since=' + encodeURIComponent(c1));
    assert.deepEqual(visible.items.map((i: Json) => i.eventId), [corrRec.eventId], 'a retracted item leaves the default feed');
    const withRetracted = await feed('include_retracted=true&since=' + encodeURIComponent(c1));
    const r = withRetracted.items.find((i: Json) => i.eventId === rec.eventId);
    assert.equal(r.retracted, true);
    assert.equal(r.retractionReason, 'The source does not support the claim.');
    assert.equal(r.newsroomState, 'RETRACTED');

    const edit = await admin('POST', '/admin/v1/items', { ...rec, summary: 'Edit after retraction' });
    assert.equal(edit.status, 409);
    assert.equal(((await edit.json()) as Json).error.code, 'content_conflict');
    const again = await admin('POST', `/admin/v1/items/${rec.eventId}/retraction`, { reason: 'again' });
    assert.equal(((await again.json()) as Json).result, 'unchanged');

    const hist = (await (await admin('GET', `/admin/v1/items/${rec.eventId}`)).json()) as Json;
    assert.deepEqual(hist.versions.map((v: Json) => v.changeKind), ['NEW', 'UPDATED', 'RETRACTED'], 'append-only history');
    assert.equal(hist.versions[0].item.summary, rec.summary);
  });

  test('correction and retraction errors: unknown items, mismatched correctionOf, reusing the original id', async () => {
    assert.equal((await admin('POST', '/admin/v1/items/nope-nope/retraction', { reason: 'x' })).status, 404);
    assert.equal((await admin('POST', '/admin/v1/items/nope-nope/corrections', item())).status, 404);
    const rec = item();
    await admin('POST', '/admin/v1/items', rec);
    const mismatch = await admin('POST', `/admin/v1/items/${rec.eventId}/corrections`, item({ correctionOf: 'someone-else' }));
    assert.equal(mismatch.status, 400);
    const same = await admin('POST', `/admin/v1/items/${rec.eventId}/corrections`, { ...rec });
    assert.equal(same.status, 400);
    const noReason = await admin('POST', `/admin/v1/items/${rec.eventId}/retraction`, {});
    assert.equal(noReason.status, 400);
    assert.equal(((await noReason.json()) as Json).error.details[0].path, '/reason');
  });

  test('validation: schema problems, unknown entities and bad JSON are 400 with stable codes', async () => {
    const schema = (await (await admin('POST', '/admin/v1/items', item({ headline: '' }))).json()) as Json;
    assert.equal(schema.error.code, 'invalid_request');
    assert.equal(schema.error.details[0].path, '/headline');
    const unknown = (await (await admin('POST', '/admin/v1/items', item({ entities: ['coinbase-inc'] }))).json()) as Json;
    assert.equal(unknown.error.code, 'unknown_reference');
    const notJson = await admin('POST', '/admin/v1/items', '{"eventId":');
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as Json).error.code, 'invalid_json');
    const wrongKind = await admin('POST', '/admin/v1/items', { ...item(), kind: 'census' });
    assert.equal(wrongKind.status, 400);
  });

  test('a TIER_D item is stored (HELD) but never reaches readers', async () => {
    const cursor = await cursorNow();
    const rec = item({ evidenceTier: 'TIER_D', sources: [{ url: 'https://example.org/rumour', sourceType: 'public_forum' }] });
    const res = (await (await admin('POST', '/admin/v1/items', rec)).json()) as Json;
    assert.equal(res.newsroomState, 'HELD');
    assert.equal((await feed('include_retracted=true&since=' + encodeURIComponent(cursor))).count, 0);
    assert.deepEqual((await changes(cursor)).sample, []);
    const held = (await (await admin('GET', `/admin/v1/items/${rec.eventId}`)).json()) as Json;
    assert.equal(held.newsroomState, 'HELD');
  });

  test('census snapshots drive marketMovements; snapshots are immutable', async () => {
    const snap = (id: string, at: string, payers: number, resources: Array<[string, string, number]>) => ({
      snapshotId: id,
      observedAt: at,
      source: 'https://402index.io/',
      distinctPayers: payers,
      resources: resources.map(([rid, family, calls]) => ({ id: rid, family, calls })),
    });
    const one = await admin('POST', '/admin/v1/census', snap('wk-40', '2026-10-01T00:00:00Z', 10, [['https://a.example/r1', 'data', 40], ['https://a.example/r2', 'search', 5]]));
    assert.equal(one.status, 201);
    assert.equal(((await one.json()) as Json).marketMovements.basis, null, 'one snapshot: nothing to compare');
    const two = await admin('POST', '/admin/v1/census', snap('wk-41', '2026-10-08T00:00:00Z', 13, [['https://a.example/r2', 'search', 60], ['https://a.example/r3', 'data', 2]]));
    assert.equal(two.status, 201);
    const f = await feed('limit=1');
    const m = f.marketMovements;
    assert.deepEqual(
      [m.resourcesDelta, m.distinctPayersDelta, m.callsDelta, m.newEntrants, m.removedResources, m.topFamilyChanged],
      [0, 3, 17, 1, 1, true],
    );
    assert.equal(m.basis.latest.snapshotId, 'wk-41');
    assert.ok(m.whatChanged.length > 1);
    const same = await admin('POST', '/admin/v1/census', snap('wk-41', '2026-10-08T00:00:00Z', 13, [['https://a.example/r2', 'search', 60], ['https://a.example/r3', 'data', 2]]));
    assert.equal(same.status, 200);
    const clash = await admin('POST', '/admin/v1/census', snap('wk-41', '2026-10-08T00:00:00Z', 14, []));
    assert.equal(clash.status, 409);
    const future = await admin('POST', '/admin/v1/census', snap('wk-99', '2099-01-01T00:00:00Z', 1, []));
    assert.equal(future.status, 400);
  });

  test('NDJSON import through the admin API reports each rejected line', async () => {
    const good = { kind: 'entity', id: 'test-directory', type: 'DIRECTORY', name: 'Test directory', sourceUrl: 'https://directory.example.org/' };
    const lines = [JSON.stringify(good), '', '{"kind":"entity"', JSON.stringify({ ...good, id: 'Bad Id' }), JSON.stringify({ kind: 'listing', id: 'test-listing', listingKind: 'directory', name: 'Test directory', directoryId: 'test-directory', url: 'https://directory.example.org/services/agent-pay', status: 'listed', lastVerifiedAt: '2026-11-20T10:00:00Z' })];
    const res = await admin('POST', '/admin/v1/import', lines.join('\n'), `Bearer ${TOKEN}`, 'application/x-ndjson');
    assert.equal(res.status, 200);
    const report = (await res.json()) as Json;
    assert.equal(schemaErrors(IMPORT_REPORT_SCHEMA, report), undefined);
    assert.equal(report.lines, 4);
    assert.equal(report.created, 2);
    assert.deepEqual(report.rejected.map((r: Json) => [r.line, r.code]), [[3, 'invalid_json'], [4, 'invalid_request']]);
    const dist = (await (await fetch(`${base}/v1/distribution`)).json()) as Json;
    assert.deepEqual(dist.listings.map((l: Json) => [l.id, l.status, l.lastVerifiedAt]), [['test-listing', 'listed', '2026-11-20T10:00:00.000000Z']]);
  });
});
