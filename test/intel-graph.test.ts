/**
 * The graph, the presence catalog and the methodology flags on the real
 * service, run with the discovery and MCP modules so the generated OpenAPI
 * document is checked to describe every intelligence route.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { discoveryModule } from '../src/discovery/module.js';
import { mcpModule } from '../src/mcp/module.js';
import { createIntelModule } from '../src/intel/module.js';
import { checkRecord } from '../src/intel/records.js';
import { DISTRIBUTION_SCHEMA } from '../src/intel/api/distribution-schema.js';
import { ENTITY_DETAIL_SCHEMA, ENTITY_PAGE_SCHEMA, EVENT_PAGE_SCHEMA, GRAPH_SUMMARY_SCHEMA, RELATIONSHIP_PAGE_SCHEMA } from '../src/intel/api/graph-schemas.js';
import type { ContentRecord } from '../src/intel/types.js';
import { postJson, startRig, type Rig } from './support/harness.js';
import { insertAttempt, itemRecord, schemaErrors } from './support/intel.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('graph, distribution and methodology on the real service', () => {
  let rig: Rig;
  let base: string;
  const json = async (path: string): Promise<Json> => {
    const res = await fetch(base + path);
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
    return res.json();
  };
  const intel = createIntelModule();
  const store = () => intel.runtime()!.store;
  const apply = async (value: Record<string, unknown>) => {
    const c = checkRecord(value, Date.now());
    return c.ok ? store().apply(c.record as ContentRecord) : c;
  };

  before(async () => {
    rig = await startRig({ service: { modules: [discoveryModule, mcpModule, intel] } });
    base = rig.service.url;
  });
  after(async () => rig?.close());

  test('GET /v1/graph: the dataset summary with a /v0 protocol label, counts and machine paths', async () => {
    const g = await json('/v1/graph');
    assert.equal(schemaErrors(GRAPH_SUMMARY_SCHEMA, g), undefined);
    assert.match(g.protocol, /\/v0$/);
    assert.deepEqual([g.counts.entities, g.counts.relationships, g.counts.events, g.counts.observations], [40, 50, 60, 0]);
    assert.equal(Object.values(g.counts.byEntityType as Record<string, number>).reduce((a, b) => a + b, 0), 40);
    assert.equal(g.counts.byRelationshipType.LISTED_ON, 2);
    assert.equal(g.entities.length, 40);
    assert.equal(g.latestEvents.length, 10);
    assert.deepEqual(g.latestEvents.map((e: Json) => e.at), [...g.latestEvents.map((e: Json) => e.at)].sort().reverse());
    assert.deepEqual(g.machine, { entities: '/v1/graph/entities', events: '/v1/graph/events', relationships: '/v1/graph/relationships' });
    for (const flag of ['noFabricatedBackfill', 'similarNamesDoNotMerge', 'censusPublicationIndependent', 'http402IsNotRevenue', 'trafficIsNotABuyer']) assert.equal(g.methodology[flag], true, flag);
    const etag = (await fetch(base + '/v1/graph')).headers.get('etag')!;
    assert.equal((await fetch(base + '/v1/graph', { headers: { 'If-None-Match': etag } })).status, 304);
  });

  test('entities page by id with an opaque cursor; type filter; a foreign cursor is invalid_cursor', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const p: Json = await json('/v1/graph/entities?limit=15' + (cursor ? '&cursor=' + cursor : ''));
      assert.equal(schemaErrors(ENTITY_PAGE_SCHEMA, p), undefined);
      ids.push(...p.items.map((e: Json) => e.id));
      cursor = p.nextCursor;
    } while (cursor);
    assert.equal(ids.length, 40);
    assert.deepEqual(ids, [...ids].sort());
    const dirs = await json('/v1/graph/entities?type=DIRECTORY');
    assert.ok(dirs.items.length > 0 && dirs.items.every((e: Json) => e.type === 'DIRECTORY'));
    const bad = await fetch(base + '/v1/graph/entities?cursor=AAAA');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as Json).error.code, 'invalid_cursor');
    const unknownType = await fetch(base + '/v1/graph/entities?type=PERSON');
    assert.equal(((await unknownType.json()) as Json).error.code, 'invalid_parameter');
  });

  test('relationships filter by entity, direction and type', async () => {
    const r = await json('/v1/graph/relationships?entity=x402&limit=200');
    assert.equal(schemaErrors(RELATIONSHIP_PAGE_SCHEMA, r), undefined);
    assert.ok(r.items.length > 5);
    assert.ok(r.items.every((x: Json) => x.from === 'x402' || x.to === 'x402'));
    const from = await json('/v1/graph/relationships?from=coinbase&limit=200');
    assert.ok(from.items.every((x: Json) => x.from === 'coinbase'));
    const listed = await json('/v1/graph/relationships?type=LISTED_ON');
    assert.deepEqual(listed.items.map((x: Json) => x.from).sort(), ['x402list-fun', 'x402scan']);
  });

  test('events: newest first, paged without gaps, filtered by entity and type', async () => {
    const all: Json[] = [];
    let cursor: string | null = null;
    do {
      const p: Json = await json('/v1/graph/events?limit=25' + (cursor ? '&cursor=' + cursor : ''));
      assert.equal(schemaErrors(EVENT_PAGE_SCHEMA, p), undefined);
      all.push(...p.items);
      cursor = p.nextCursor;
    } while (cursor);
    assert.equal(all.length, 60);
    assert.equal(new Set(all.map((e) => e.id)).size, 60);
    assert.deepEqual(all.map((e) => e.at), [...all.map((e) => e.at)].sort().reverse());
    const cf = await json('/v1/graph/events?entity=cloudflare&limit=200');
    assert.ok(cf.items.length >= 3 && cf.items.every((e: Json) => e.entityIds.includes('cloudflare')));
    const std = await json('/v1/graph/events?type=standards&limit=200');
    assert.ok(std.items.every((e: Json) => e.type === 'standards'));
  });

  test('GET /v1/graph/entities/{id}: the entity with its relationships and events; 404 otherwise', async () => {
    const d = await json('/v1/graph/entities/coinbase');
    assert.equal(schemaErrors(ENTITY_DETAIL_SCHEMA, d), undefined);
    assert.equal(d.entity.name, 'Coinbase');
    assert.ok(d.relationships.some((r: Json) => r.id === 'coinbase--operates--cdp-facilitator'));
    assert.ok(d.events.every((e: Json) => e.entityIds.includes('coinbase')));
    assert.equal((await fetch(base + '/v1/graph/entities/no-such-entity')).status, 404);
    assert.equal((await fetch(base + '/v1/graph/entities/Bad%20Id')).status, 404);
  });

  test('GET /v1/distribution: own surfaces with live status, no invented listings, ecosystem directories from sourced relationships', async () => {
    const d = await json('/v1/distribution');
    assert.equal(schemaErrors(DISTRIBUTION_SCHEMA, d), undefined);
    const status = Object.fromEntries(d.service.surfaces.map((s: Json) => [s.kind, s.status]));
    assert.deepEqual(status, {
      openapi: 'live',
      well_known_manifest: 'live',
      agent_card: 'live',
      services: 'live',
      mcp: 'live',
      llms_txt: 'live',
      router: 'not_deployed', // this rig runs without the router module: status is read from the routes served
      newswire: 'live',
      newswire_pages: 'live',
      graph: 'live',
      changes_since: 'live',
      distribution: 'live',
    });
    assert.equal(d.service.surfaces[0].url, base + '/openapi.json');
    assert.deepEqual(d.listings, []);
    assert.ok(d.notes.some((n: string) => /No external listing/.test(n)));
    const page = d.ecosystem.directories.find((x: Json) => x.id === 'x402-ecosystem-page');
    assert.deepEqual(page.entries.map((e: Json) => [e.entityId, e.relationship]).sort(), [['x402list-fun', 'LISTED_ON'], ['x402scan', 'LISTED_ON']]);
    const index = d.ecosystem.directories.find((x: Json) => x.id === '402index');
    assert.deepEqual(index.entries.map((e: Json) => e.entityId), ['x402-bazaar']);
  });

  test('the newswire is described with its parameters and changes-since with its price (route coverage is test/route-coverage.test.ts)', async () => {
    const doc = await json('/openapi.json');
    const names = doc.paths['/v1/newswire'].get.parameters.map((p: Json) => p.name);
    assert.deepEqual(names, ['since', 'until', 'event_since', 'limit', 'cursor', 'type', 'topic', 'entity', 'protocol', 'min_tier', 'first_party', 'include_retracted', 'material_only']);
    assert.equal(doc.paths['/v1/intelligence/changes-since'].post['x-payment-info'].amount_atomic, '10000');
  });

  test('methodology: noFabricatedBackfill — every event is a sourced item dated by its source; unsourced or future-dated items are refused', async () => {
    const events = (await json('/v1/graph/events?limit=200')).items as Json[];
    const items = new Map(((await json('/v1/newswire?limit=200')).items as Json[]).map((i) => [i.eventId, i]));
    for (const e of events) {
      const it = items.get(e.id);
      assert.ok(it, `event ${e.id} has a newswire item`);
      assert.ok(it.sourceURLs.includes(e.sourceUrl));
      assert.equal(e.at, `${it.eventDate}T00:00:00.000000Z`);
    }
    const unsourced = checkRecord(itemRecord({ sources: [] }), Date.now());
    assert.equal(unsourced.ok, false);
    const future = checkRecord(itemRecord({ eventDate: '2099-01-01' }), Date.now());
    assert.equal(future.ok, false);
    const before = (await json('/v1/graph')).counts.events;
    await apply({ kind: 'census', snapshotId: 'backfill-check', observedAt: '2026-11-01T00:00:00Z', source: 'https://402index.io/', distinctPayers: 5, resources: [{ id: 'https://a.example/x', family: 'data', calls: 9 }] });
    const after = (await json('/v1/graph')).counts;
    assert.equal(after.events, before, 'a census import creates no events');
    assert.equal(after.observations, 1);
  });

  test('methodology: similarNamesDoNotMerge — a second "Coinbase" with another id stays separate, and names never resolve references', async () => {
    const r = await apply({ kind: 'entity', id: 'coinbase-developer-platform', type: 'ORGANIZATION', name: 'Coinbase', sourceUrl: 'https://docs.cdp.coinbase.com/get-started/changelog.md' });
    assert.equal(r.ok, true);
    const g = await json('/v1/graph');
    assert.equal(g.entities.filter((e: Json) => e.name === 'Coinbase').length, 2);
    assert.equal(g.counts.entities, 41);
    const byName = await apply(itemRecord({ entities: ['coinbase-inc'] }));
    assert.equal(byName.ok, false, 'an id that only resembles a known one is not resolved');
    if (!byName.ok) assert.equal(byName.rejection.code, 'unknown_reference');
    const schemaName = checkRecord(itemRecord({ entities: ['Coinbase'] }), Date.now());
    assert.equal(schemaName.ok, false, 'an entity name is not an id');
  });

  test('methodology: http402IsNotRevenue, trafficIsNotABuyer, censusPublicationIndependent', async () => {
    const revenue = async () => (await json('/v1/newswire?limit=1')).independentRevenueUsd;
    const movements = async () => (await json('/v1/newswire?limit=1')).marketMovements;
    const m0 = await movements();
    const g0 = (await json('/v1/graph')).counts;
    // 402 challenges and free traffic.
    for (let i = 0; i < 5; i++) assert.equal((await postJson(base + '/v1/intelligence/changes-since', { max_items: 1 })).status, 402);
    for (let i = 0; i < 20; i++) await fetch(base + '/v1/newswire?limit=1');
    assert.equal(await revenue(), 0, 'a 402 answer is not revenue');
    assert.deepEqual((await json('/v1/graph')).counts, g0, 'requests are not buyers or observations');
    // Attempts that were not delivered are not revenue.
    const db = rig.service.db;
    await insertAttempt(db, { id: 'm-failed', payer: '0x00000000000000000000000000000000000000f1', amount: '10000', state: 'failed', delivered: false });
    await insertAttempt(db, { id: 'm-unknown', payer: '0x00000000000000000000000000000000000000f2', amount: '10000', state: 'unknown', delivered: true });
    await insertAttempt(db, { id: 'm-nobody', payer: '0x00000000000000000000000000000000000000f3', amount: '10000', state: 'settled', delivered: false });
    assert.equal(await revenue(), 0);
    await insertAttempt(db, { id: 'm-paid', payer: '0x00000000000000000000000000000000000000f4', amount: '10000', state: 'settled', delivered: true });
    assert.equal(await revenue(), 0.01);
    assert.deepEqual(await movements(), m0, 'market movements never include this service’s own ledger');
  });
});
