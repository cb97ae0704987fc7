/**
 * Attack: a discovery source lists internal addresses as x402 "resources" —
 * the cloud metadata service (169.254.169.254), loopback in every spelling
 * the URL parser accepts (decimal, hex, octal, IPv4-mapped IPv6), private,
 * CGNAT, unique-local and link-local ranges, multicast, `localhost` names,
 * `.internal` / `.local` names and public DNS names that spell a loopback
 * address. Before the fix each became an X402_RESOURCE entity, a listing
 * item and a new_product item. Now none is published; the public resource
 * next to them is.
 *
 * The sources themselves are real HTTP servers on loopback (the operator's
 * choice of source URL is theirs): the rule is about what a source lists.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { collectDiscovery, loadDiscoveryState } from './discovery.js';
import { isPublicHost, isPublishableUrl, redactInternalAddresses } from './addresses.js';
import type { CollectorContext } from './context.js';
import { fixtureLookup, startFixtureServer, type FixtureServer } from '../../../test/support/collector-fixtures.js';
import { openTestStore, type TestStore } from '../../../test/support/intel.js';

const INTERNAL = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://127.0.0.1:8402/x402/v1/anything',
  'http://2130706433/decimal-loopback',
  'http://0x7f.0.0.1/hex-loopback',
  'http://0177.0.0.1/octal-loopback',
  'http://127.1/short-loopback',
  'http://0.0.0.0/unspecified',
  'http://10.0.0.5/private',
  'http://172.16.3.4/private',
  'http://192.168.1.1/router',
  'http://100.64.0.1/cgnat',
  'http://224.0.0.251/multicast',
  'http://255.255.255.255/broadcast',
  'http://[::1]/v6-loopback',
  'http://[::]/v6-unspecified',
  'http://[::ffff:127.0.0.1]/v4-mapped',
  'http://[::ffff:a9fe:a9fe]/v4-mapped-metadata',
  'http://[64:ff9b::a00:1]/nat64-private',
  'http://[fe80::1]/link-local',
  'http://[fd12:3456::1]/unique-local',
  'http://[ff02::1]/v6-multicast',
  'http://localhost:3000/pay',
  'http://LOCALHOST./pay',
  'http://api.localhost/pay',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://printer.local/pay',
  'http://nas.home.arpa/pay',
  'http://intranet/pay',
  'http://127.0.0.1.nip.io/pay',
  'http://app-10-1-2-3.sslip.io/pay',
];
const PUBLIC = 'https://weather.fixture.test/v1/forecast';
const PAYEE = '0x1111111111111111111111111111111111111111';
const accepts = [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: PAYEE }];

describe('collectors never publish internal addresses a source lists', () => {
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;

  before(async () => {
    srv = await startFixtureServer();
    ts = await openTestStore('sqlite');
    ctx = { store: ts.store, now: Date.now, limits: { timeoutMs: 2000, maxBytes: 1024 * 1024, lookup: fixtureLookup, allowPrivateAddresses: true } };
  });
  after(async () => {
    await srv?.close();
    await ts?.close();
  });

  test('a Bazaar page, a /.well-known/x402 and an OpenAPI document listing internal addresses publish only the public resource', async () => {
    const items = [...INTERNAL, PUBLIC].map((resource) => ({
      resource,
      type: 'http',
      accepts,
      metadata: { category: 'weather' },
      description: 'Also try http://169.254.169.254/latest/meta-data and 10.0.0.7 for the admin panel; docs at https://weather.fixture.test/docs',
    }));
    srv.set('bazaar', '/discovery/resources', { body: JSON.stringify({ x402Version: 2, items, pagination: { limit: 100, offset: 0, total: items.length } }) });
    srv.set('lister', '/.well-known/x402', { body: JSON.stringify({ version: 1, resources: INTERNAL }) });
    const paid = { 'x-payment-info': { protocols: [{ x402: { payTo: PAYEE, amount: '1000', network: 'eip155:8453' } }] } };
    srv.set('spec', '/openapi.json', { body: JSON.stringify({ openapi: '3.1.0', servers: [{ url: 'http://169.254.169.254' }], paths: { '/latest/meta-data': { get: paid } } }) });

    const r = await collectDiscovery(ctx, {
      bazaarUrls: [srv.url('bazaar', '/discovery/resources')],
      origins: [srv.url('lister', '')],
      openapiUrls: [srv.url('spec', '/openapi.json')],
    });
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.records.rejected, []);

    const state = await loadDiscoveryState(ctx);
    assert.deepEqual(Object.keys(state.resources), [PUBLIC], 'only the public resource is recorded');
    const entities = (await ts.store.entities({ type: 'X402_RESOURCE', limit: 200 })).items;
    assert.deepEqual(entities.map((e) => e.name), [PUBLIC]);
    const events = (await ts.store.events({ limit: 200 })).items;
    for (const e of events) {
      const text = JSON.stringify(await ts.store.getItem(e.id));
      for (const bad of ['169.254.169.254', '127.0.0.1', '10.0.0.7', 'localhost', '.internal', 'nip.io', '[::1]', 'fe80']) {
        assert.ok(!text.includes(bad), `${e.id} mentions ${bad}: ${text.slice(0, 400)}`);
      }
    }
    assert.ok(r.notes.some((n) => /30 listed resources at a private, loopback, link-local or otherwise internal address refused/.test(n)), r.notes.join(' | '));
    const listing = events.find((e) => e.type === 'directory_listing')!;
    assert.match((await ts.store.getItem(listing.id))!.stored.item.summary, /\[internal address removed\]/, 'the lister’s free text keeps its public parts, not its internal ones');
  });

  test('the host rule, spelling by spelling', () => {
    for (const u of INTERNAL) assert.equal(isPublishableUrl(u), false, u);
    for (const u of [PUBLIC, 'https://api.coinbase.com/x', 'http://8.8.8.8/x', 'http://[2606:4700::1111]/x', 'http://[::ffff:8.8.8.8]/x', 'https://1.2.3.4.example.com/']) assert.equal(isPublishableUrl(u), true, u);
    for (const h of ['[::ffff:10.0.0.1]', '[2002:c0a8:101::1]', '[2001:db8::1]', '[2001::1]', '[::127.0.0.1]', '198.18.0.1', '192.0.2.1', 'svc.cluster.local', 'db.corp', 'box.lan']) assert.equal(isPublicHost(h), false, h);
    assert.equal(redactInternalAddresses('see http://[::1]:8080/a and 192.168.0.1, not https://example.com/b'), 'see [internal address removed] and [internal address removed], not https://example.com/b');
    assert.equal(isPublishableUrl('ftp://example.com/'), false);
    assert.equal(isPublishableUrl('not a url'), false);
  });
});
