/**
 * Attack: a lister attributes a resource to someone else's host. A Bazaar
 * page lists `https://api.coinbase.com/…` with the attacker's payee, a
 * second attacker-run directory repeats it, and an OpenAPI document whose
 * `servers[0]` names another company's host lists that company's "paid
 * operations" with the attacker's payee. Before the fix these became
 * `new_product` items stating, as fact, that those hosts offer those
 * resources paying the attacker (two listers even removed the caveat), and
 * a lister read after the host's own manifest replaced the host's payee
 * with its own.
 *
 * Rule: a resource is attributed to a host only when the source proves it —
 * the resource is on the listing document's own origin, or the host's own
 * `/.well-known/x402` lists it. Otherwise it is the lister's claim:
 * unverified, worded so, never above TIER_C, and its terms never replace
 * terms the host states.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { collectDiscovery, loadDiscoveryState, provesAttribution, resourceEntityId } from './discovery.js';
import type { CollectorContext } from './context.js';
import { tierRank } from '../tiers.js';
import { fixtureLookup, startFixtureServer, type FixtureServer } from '../../../test/support/collector-fixtures.js';
import { openTestStore, type TestStore } from '../../../test/support/intel.js';

const VICTIM = 'https://api.coinbase.fixture.test/v1/quotes';
const ATTACKER_PAYEE = '0xbad0000000000000000000000000000000000bad';
const VENDOR_PAYEE = '0x7777777777777777777777777777777777777777';
const terms = (payTo: string) => [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo }];
const page = (resource: string, payTo: string) => JSON.stringify({ x402Version: 2, items: [{ resource, type: 'http', accepts: terms(payTo), metadata: { category: 'finance' } }] });
const paidOp = (payTo: string) => ({ 'x-payment-info': { protocols: [{ x402: { payTo, amount: '2000', network: 'eip155:8453' } }] }, summary: 'Quotes', tags: ['finance'] });

describe('collector attribution: a lister cannot speak for another host', () => {
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;
  const product = async (url: string) => (await ts.store.getItem(resourceEntityId(url)))?.stored.item;

  before(async () => {
    srv = await startFixtureServer();
    ts = await openTestStore('sqlite');
    ctx = { store: ts.store, now: Date.now, limits: { timeoutMs: 2000, maxBytes: 1024 * 1024, lookup: fixtureLookup, allowPrivateAddresses: true } };
  });
  after(async () => {
    await srv?.close();
    await ts?.close();
  });

  test('two attacker directories naming another company’s host: unverified, the listers’ claim, caveated TIER_C', async () => {
    srv.set('evil-dir-one', '/discovery/resources', { body: page(VICTIM, ATTACKER_PAYEE) });
    srv.set('evil-dir-two', '/discovery/resources', { body: page(VICTIM, ATTACKER_PAYEE) });
    const r = await collectDiscovery(ctx, { bazaarUrls: [srv.url('evil-dir-one', '/discovery/resources'), srv.url('evil-dir-two', '/discovery/resources')], origins: [], openapiUrls: [] });
    assert.deepEqual(r.records.rejected, []);
    const item = await product(VICTIM);
    assert.ok(item);
    assert.equal(item.corroborationCount, 2);
    assert.ok(tierRank(item.evidenceTier) >= tierRank('TIER_C'), `never above TIER_C, got ${item.evidenceTier}`);
    assert.equal(item.confidence, 0.6, 'caveated: repetition by a second lister is not proof');
    assert.match(item.evidenceNote ?? '', /Unverified: listed only by evil-dir-one\.fixture\.test, evil-dir-two\.fixture\.test, not by api\.coinbase\.fixture\.test itself/);
    assert.doesNotMatch(item.headline, /^New x402 resource/, 'the headline does not state it as fact');
    assert.match(item.headline, /claimed by .* \(unverified\)/);
    assert.match(item.summary, /api\.coinbase\.fixture\.test has not confirmed it/);
    assert.equal((item.marketData as Record<string, unknown>).attribution, 'unverified');
    const listings = (await ts.store.events({ limit: 20, type: 'directory_listing' })).items;
    assert.equal(listings.length, 2);
    for (const l of listings) {
      const it = (await ts.store.getItem(l.id))!.stored.item;
      assert.equal(it.evidenceTier, 'TIER_C');
      assert.match(it.headline, /\(unverified\)$/);
      assert.match(it.evidenceNote ?? '', /not confirmed by the resource's own host/);
    }
  });

  test('an OpenAPI document whose servers[0] names another host: unverified; the same document on the host’s own origin: attributed (TIER_B)', async () => {
    const foreign = 'https://payments.othercorp.fixture.test';
    srv.set('evil-spec', '/openapi.json', { body: JSON.stringify({ openapi: '3.1.0', servers: [{ url: foreign }], paths: { '/v1/charge': { post: paidOp(ATTACKER_PAYEE) } } }) });
    const own = srv.url('vendor', '');
    srv.set('vendor', '/openapi.json', { body: JSON.stringify({ openapi: '3.1.0', servers: [{ url: own }], paths: { '/v1/own': { post: paidOp(VENDOR_PAYEE) } } }) });
    srv.set('relative', '/api/openapi.json', { body: JSON.stringify({ openapi: '3.1.0', servers: [{ url: '/api' }], paths: { '/v1/rel': { post: paidOp(VENDOR_PAYEE) } } }) });
    const r = await collectDiscovery(ctx, { bazaarUrls: [], origins: [], openapiUrls: [srv.url('evil-spec', '/openapi.json'), srv.url('vendor', '/openapi.json'), srv.url('relative', '/api/openapi.json')] });
    assert.deepEqual(r.records.rejected, []);
    const spoofed = await product(`${foreign}/v1/charge`);
    assert.ok(spoofed);
    assert.equal(spoofed.evidenceTier, 'TIER_C');
    assert.equal((spoofed.marketData as Record<string, unknown>).attribution, 'unverified');
    assert.match(spoofed.evidenceNote ?? '', /not by payments\.othercorp\.fixture\.test itself/);
    const obs = (await ts.store.events({ limit: 20, type: 'discovery_observation' })).items;
    const evil = obs.find((e) => e.entityIds[0] === resourceEntityId(`${foreign}/v1/charge`))!;
    assert.equal((await ts.store.getItem(evil.id))!.stored.item.evidenceTier, 'TIER_C');
    for (const url of [`${own}/v1/own`, `${srv.url('relative', '/api')}/v1/rel`]) {
      const ownObs = obs.find((e) => e.entityIds[0] === resourceEntityId(url));
      assert.ok(ownObs, `${url} is listed (a relative server URL resolves against the document)`);
      assert.equal((await ts.store.getItem(ownObs.id))!.stored.item.evidenceTier, 'TIER_B', 'a document on the resource’s own origin documents it');
      assert.equal(((await product(url))!.marketData as Record<string, unknown>).attribution, 'verified');
    }
  });

  test('a lister read after the host’s own manifest cannot replace the host’s payee', async () => {
    const resource = 'https://shop.fixture.test/v1/buy';
    srv.set('shop', '/.well-known/x402', { body: JSON.stringify({ version: 1, resources: [{ resource, accepts: terms(VENDOR_PAYEE) }] }) });
    // Read after the manifest (OpenAPI sources come last in a run), claiming the shop's path with its own payee.
    srv.set('squatter', '/openapi.json', { body: JSON.stringify({ openapi: '3.1.0', servers: [{ url: 'https://shop.fixture.test' }], paths: { '/v1/buy': { get: paidOp(ATTACKER_PAYEE) } } }) });
    const opts = { bazaarUrls: [], origins: [srv.url('shop', '')], openapiUrls: [srv.url('squatter', '/openapi.json')] };
    for (let i = 0; i < 2; i++) {
      const r = await collectDiscovery(ctx, opts);
      assert.deepEqual(r.records.rejected, []);
      const state = await loadDiscoveryState(ctx);
      assert.equal(state.resources[resource]!.payTo, VENDOR_PAYEE, `run ${i + 1}: the census watches the host's payee`);
      const item = await product(resource);
      assert.equal((item!.marketData as Record<string, unknown>).payTo, VENDOR_PAYEE);
      assert.equal((item!.marketData as Record<string, unknown>).attribution, 'verified');
    }
  });

  test('the proof rule: same origin, or the host’s /.well-known/x402; nothing else', () => {
    assert.equal(provesAttribution('openapi', 'https://api.example.com/openapi.json', 'https://api.example.com/v1/x'), true);
    assert.equal(provesAttribution('openapi', 'https://api.example.com/openapi.json', 'https://api.example.com:8443/v1/x'), false, 'another port is another origin');
    assert.equal(provesAttribution('openapi', 'http://api.example.com/openapi.json', 'https://api.example.com/v1/x'), false, 'another scheme is another origin');
    assert.equal(provesAttribution('openapi', 'https://docs.example.com/openapi.json', 'https://api.example.com/v1/x'), false);
    assert.equal(provesAttribution('bazaar', 'https://x402.example.com/discovery/resources', 'https://api.coinbase.com/v1/x'), false);
    assert.equal(provesAttribution('well_known', 'https://api.example.com/.well-known/x402', 'https://API.example.com./v1/x'), true);
    assert.equal(provesAttribution('well_known', 'https://evil.example.net/.well-known/x402', 'https://api.example.com/v1/x'), false);
    assert.equal(provesAttribution('well_known', 'https://example.com.evil.net/.well-known/x402', 'https://example.com/v1/x'), false);
  });
});
