/**
 * Discovery census against local servers serving recorded responses: a
 * Bazaar discovery API, an origin's /.well-known/x402 and an OpenAPI document
 * with x-payment-info; and hostile ones (huge, slow, wrong types, HTML).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { collectDiscovery, loadDiscoveryState, MISS_LIMIT, resourceEntityId, type DiscoveryOptions } from './discovery.js';
import type { CollectorContext } from './context.js';
import { fixture, fixtureLookup, startFixtureServer, type FixtureServer } from '../../../test/support/collector-fixtures.js';
import { openTestStore, type TestStore } from '../../../test/support/intel.js';
import { pgConfigured, PG_SKIP_REASON } from '../../../test/support/pg.js';

const FORECAST = 'https://weather.fixture.test/v1/forecast';
const FORECAST_SLASH = 'https://weather.fixture.test/v1/forecast/';
const PRICES = 'https://data.fixture.test/prices';
const LIMIT = 64 * 1024;

const suites: Array<['sqlite' | 'postgres', string | undefined]> = [
  ['sqlite', undefined],
  ['postgres', pgConfigured() ? undefined : PG_SKIP_REASON],
];

for (const [kind, skip] of suites) describe(`discovery collector (recorded discovery documents, ${kind})`, { skip }, () => {
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;
  let opts: DiscoveryOptions;
  const productOf = async (url: string) => (await ts.store.getItem(`x402-resource-${resourceEntityId(url).slice('x402-resource-'.length)}`))?.stored.item;

  before(async () => {
    srv = await startFixtureServer();
    ts = await openTestStore(kind);
    ctx = { store: ts.store, now: Date.now, limits: { timeoutMs: 1500, maxBytes: LIMIT, lookup: fixtureLookup, allowPrivateAddresses: true } };
    opts = { bazaarUrls: [srv.url('bazaar', '/discovery/resources')], origins: [], openapiUrls: [] };
  });
  after(async () => {
    await srv?.close();
    await ts?.close();
  });

  test('a Bazaar page: resources with prices and payees, listing events, new_product and new_directory items; malformed entries skipped', async () => {
    srv.set('bazaar', '/discovery/resources', { body: fixture('bazaar-resources.1.json') });
    const r = await collectDiscovery(ctx, opts);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.records.rejected, [], JSON.stringify(r.records.rejected));
    assert.ok(r.notes.some((n) => /2 malformed entries skipped/.test(n)), r.notes.join(' | '));
    const state = await loadDiscoveryState(ctx);
    assert.deepEqual(Object.keys(state.resources).sort(), [PRICES, FORECAST, FORECAST_SLASH].sort(), 'the trailing-slash URL is its own resource: similar names never merge');
    assert.equal(state.resources[PRICES]!.amount, '5000', 'x402 v1 maxAmountRequired is read as the price');
    assert.equal(state.resources[FORECAST]!.payTo, '0x1111111111111111111111111111111111111111');
    assert.equal(state.resources[FORECAST]!.family, 'weather');
    assert.notEqual(resourceEntityId(FORECAST), resourceEntityId(FORECAST_SLASH));
    const events = (await ts.store.events({ limit: 50 })).items;
    assert.equal(events.filter((e) => e.type === 'directory_listing').length, 3);
    assert.equal(events.filter((e) => e.type === 'new_product').length, 3);
    assert.equal(events.filter((e) => e.type === 'new_directory').length, 1);
    const product = await productOf(FORECAST);
    assert.ok(product);
    assert.equal(product.corroborationCount, 1);
    assert.equal(product.evidenceTier, 'TIER_C');
    assert.equal(product.confidence, 0.6, 'one source only: caveated');
    assert.match(product.evidenceNote ?? '', /not yet independently corroborated/);
    assert.deepEqual(product.marketData, {
      resource: FORECAST,
      payTo: '0x1111111111111111111111111111111111111111',
      network: 'eip155:8453',
      asset: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      amountAtomic: '1000',
      family: 'weather',
      firstSeen: (await loadDiscoveryState(ctx)).resources[FORECAST]!.firstSeen,
      sources: 1,
      independentHosts: 1,
      attribution: 'unverified',
    });
    const listing = events.find((e) => e.type === 'directory_listing' && e.entityIds[0] === resourceEntityId(FORECAST))!;
    assert.equal(listing.evidence.method, 'http_get');
    assert.equal(listing.evidence.provenance, 'collector:discovery');
    assert.match(listing.evidence.excerptHash ?? '', /^[0-9a-f]{64}$/);
    assert.equal(listing.at.slice(0, 10), new Date().toISOString().slice(0, 10), 'dated the day it was observed, never earlier');
    const ent = await ts.store.entity(resourceEntityId(FORECAST));
    assert.equal(ent?.type, 'X402_RESOURCE');
  });

  test('a second independent source corroborates: corroborationCount 2, tier raised, caveat gone', async () => {
    srv.set('weather', '/.well-known/x402', { body: fixture('well-known-x402.json') });
    const r = await collectDiscovery(ctx, { ...opts, origins: [srv.url('weather', '')] });
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.records.rejected, []);
    const product = await productOf(FORECAST);
    assert.equal(product?.corroborationCount, 2);
    assert.equal(product?.evidenceTier, 'TIER_B', 'the origin documents its own resource (vendor documentation) and a directory lists it');
    assert.equal(product?.evidenceNote, null);
    const obs = (await ts.store.events({ limit: 50, type: 'discovery_observation' })).items;
    assert.equal(obs.length, 1);
    assert.equal((await productOf(PRICES))?.corroborationCount, 1, 'other resources are untouched');
  });

  test('an OpenAPI document with x-payment-info (this service’s own format) yields its paid operations only', async () => {
    srv.set('api', '/openapi.json', { body: fixture('openapi-x-payment-info.json') });
    const r = await collectDiscovery(ctx, { ...opts, openapiUrls: [srv.url('api', '/openapi.json')] });
    assert.deepEqual(r.failures, []);
    const state = await loadDiscoveryState(ctx);
    const api = Object.keys(state.resources).filter((u) => u.startsWith('https://api.fixture.test/'));
    assert.deepEqual(api.sort(), ['https://api.fixture.test/x402/v1/accessibility-contrast-calculator', 'https://api.fixture.test/x402/v1/data-compatibility-checker']);
    const one = state.resources['https://api.fixture.test/x402/v1/data-compatibility-checker']!;
    assert.equal(one.amount, '3000');
    assert.equal(one.payTo, '0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
  });

  test('a payee change is a correction of the listing; a resource missing from consecutive reads is removed after the miss limit', async () => {
    srv.set('bazaar', '/discovery/resources', { body: fixture('bazaar-resources.2.json') });
    for (let i = 1; i <= MISS_LIMIT; i++) {
      const r = await collectDiscovery(ctx, opts);
      assert.deepEqual(r.records.rejected, []);
      const state = await loadDiscoveryState(ctx);
      const l = Object.values(state.resources[PRICES]!.listings)[0]!;
      assert.equal(l.removed, i === MISS_LIMIT, `after ${i} misses`);
    }
    const state = await loadDiscoveryState(ctx);
    const listing = Object.values(state.resources[FORECAST]!.listings).find((l) => l.eventId.startsWith('listing-'))!;
    const corrections = await ts.store.correctionsOf(listing.eventId);
    assert.equal(corrections.length >= 1, true, 'the payee change is published as a correction');
    const corr = await ts.store.getItem(corrections[0]!);
    assert.match(corr!.stored.item.summary, /0x4444444444444444444444444444444444444444/);
    assert.equal(state.resources[FORECAST]!.payTo, '0x4444444444444444444444444444444444444444');
    assert.equal((await productOf(FORECAST))?.marketData?.payTo, '0x4444444444444444444444444444444444444444', 'the product item is revised with the corrected payee');
    const removed = (await ts.store.events({ limit: 100, type: 'directory_listing' })).items.filter((e) => /no longer listed/.test(e.headline));
    assert.equal(removed.length, 1);
    assert.deepEqual(removed[0]!.entityIds, [resourceEntityId(PRICES)]);
  });

  test('hostile sources: huge, slow, wrong types and HTML are refused whole; nothing is written and no misses are counted', async () => {
    srv.set('huge', '/discovery/resources', { hugeBytes: 4 * LIMIT, chunked: true });
    srv.set('huge2', '/discovery/resources', { hugeBytes: 4 * LIMIT });
    srv.set('slow', '/discovery/resources', { body: fixture('bazaar-resources.1.json'), delayMs: 5000 });
    srv.set('types', '/discovery/resources', { body: fixture('bazaar-wrong-types.json') });
    srv.set('html', '/discovery/resources', { body: fixture('directory-error.html'), contentType: 'text/html' });
    // The Bazaar itself now fails too (HTML): its listings must not count a miss.
    srv.set('bazaar', '/discovery/resources', { body: fixture('directory-error.html'), contentType: 'text/html; charset=utf-8' });
    const stateBefore = await loadDiscoveryState(ctx);
    const before = await ts.store.watermark();
    const hostile = ['huge', 'huge2', 'slow', 'types', 'html'].map((h) => srv.url(h, '/discovery/resources'));
    const r = await collectDiscovery(ctx, { ...opts, bazaarUrls: [...opts.bazaarUrls, ...hostile] });
    assert.deepEqual(
      r.failures.map((f) => f.failure),
      ['not_json', 'too_large', 'too_large', 'timeout', 'malformed', 'not_json'],
      JSON.stringify(r.failures),
    );
    assert.equal(r.records.lines, 0, 'nothing was written');
    assert.equal(await ts.store.watermark(), before);
    const stateAfter = await loadDiscoveryState(ctx);
    assert.deepEqual(
      Object.fromEntries(Object.entries(stateAfter.resources).map(([u, s]) => [u, Object.values(s.listings).map((l) => l.misses)])),
      Object.fromEntries(Object.entries(stateBefore.resources).map(([u, s]) => [u, Object.values(s.listings).map((l) => l.misses)])),
      'a failed read is not a disappearance',
    );
  });
});
