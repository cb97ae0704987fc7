/**
 * Releases collector against a local registry serving recorded npm package
 * documents; plus an opt-in live run against the real registry (INTEL_LIVE=1).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { collectNpmReleases, DEFAULT_NPM_REGISTRY } from './npm-releases.js';
import type { CollectorContext } from './context.js';
import { checkRecord } from '../records.js';
import type { ContentRecord } from '../types.js';
import { fixture, fixtureLookup, startFixtureServer, type FixtureServer } from '../../../test/support/collector-fixtures.js';
import { openTestStore, TEST_ENTITIES, type TestStore } from '../../../test/support/intel.js';

const CORE = '/@x402%2fcore';
const LOOKALIKE = '/x402-core';

describe('npm releases collector (recorded registry documents)', () => {
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;
  const registry = () => srv.url('registry', '');
  const run = (packages: string[]) => collectNpmReleases(ctx, { registry: registry(), packages });

  before(async () => {
    srv = await startFixtureServer();
    ts = await openTestStore('sqlite');
    for (const e of TEST_ENTITIES) {
      const c = checkRecord(e, Date.now());
      assert.ok(c.ok);
      await ts.store.apply(c.record as ContentRecord);
    }
    ctx = { store: ts.store, now: Date.now, limits: { timeoutMs: 2000, maxBytes: 256 * 1024, lookup: fixtureLookup, allowPrivateAddresses: true } };
  });
  after(async () => {
    await srv?.close();
    await ts?.close();
  });

  test('first sight reports only the current latest, dated by the registry, TIER_A, with provenance', async () => {
    srv.set('registry', CORE, { body: fixture('npm-x402-core.1.json') });
    srv.set('registry', LOOKALIKE, { body: fixture('npm-x402-core-lookalike.json') });
    const r = await run(['@x402/core', 'x402-core']);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.records.rejected, []);
    assert.equal(r.records.created, 2);
    const core = await ts.store.getItem('npm-x402-core-' + (await idOf('@x402/core')) + '-2-1-0');
    assert.ok(core, 'the @x402/core 2.1.0 item exists');
    const it = core.stored.item;
    assert.equal(it.type, 'version_update');
    assert.equal(it.eventDate, '2025-11-04', 'dated by time["2.1.0"], not by when it was collected');
    assert.equal(it.evidenceTier, 'TIER_A');
    assert.deepEqual(it.sourceURLs, [registry() + CORE]);
    assert.deepEqual(it.protocols, ['x402']);
    assert.equal(core.stored.evidence[0]!.publishedAt, '2025-11-04T09:15:40.000Z');
    const p = core.stored.provenance?.[0];
    assert.ok(p);
    assert.equal(p.url, registry() + CORE);
    assert.equal(p.method, 'http_get');
    assert.equal(p.collector, 'collector:npm-releases');
    assert.match(p.excerptHash, /^[0-9a-f]{64}$/);
    assert.ok(Date.parse(p.retrievedAt) <= Date.now());
    // 2.0.0 was published before the collector first looked: it is not reported (no history flood).
    const versions = (await ts.store.events({ limit: 50 })).items.map((i) => i.headline);
    assert.ok(!versions.some((h) => h.includes('2.0.0')), versions.join(' | '));
    // The look-alike package is its own item: similar names never merge.
    assert.ok(versions.includes('x402-core 2.1.0 published on npm'));
    assert.ok(versions.includes('@x402/core 2.1.0 published on npm'));
  });

  test('the graph event of a collected item carries retrievedAt, excerptHash, method and provenance', async () => {
    const events = await ts.store.events({ limit: 10, type: 'version_update' });
    const ev = events.items.find((e) => e.headline === '@x402/core 2.1.0 published on npm');
    assert.ok(ev);
    assert.equal(ev.evidence.method, 'http_get');
    assert.equal(ev.evidence.provenance, 'collector:npm-releases');
    assert.match(ev.evidence.excerptHash ?? '', /^[0-9a-f]{64}$/);
    assert.ok(ev.evidence.retrievedAt);
  });

  test('an unchanged registry document changes nothing', async () => {
    const before = await ts.store.watermark();
    const r = await run(['@x402/core', 'x402-core']);
    assert.equal(r.records.created + r.records.updated, 0);
    assert.equal(await ts.store.watermark(), before);
  });

  test('newer versions of one family in one run make one item naming each; a deprecation becomes a caveated TIER_B correction quoting the maintainers', async () => {
    srv.set('registry', CORE, { body: fixture('npm-x402-core.2.json') });
    const r = await run(['@x402/core']);
    assert.deepEqual(r.records.rejected, []);
    assert.equal(r.records.created, 2, r.notes.join(' '));
    const id = await idOf('@x402/core');
    const family = (await ts.store.events({ limit: 50, type: 'version_update' })).items.filter((e) => e.id.startsWith('npm-family-'));
    assert.equal(family.length, 1);
    const item = (await ts.store.getItem(family[0]!.id))!.stored.item;
    assert.match(item.headline, /@x402\/core 2\.2\.0/);
    assert.match(item.headline, /@x402\/core 3\.0\.0-beta\.1/);
    assert.equal(item.eventDate, '2025-11-20', 'dated by the newest release’s registry time');
    assert.equal(item.evidenceTier, 'TIER_A', 'versions and times are the registry’s structured record');
    const corr = await ts.store.getItem(`npm-x402-core-${id}-2-1-0-deprecated`);
    assert.ok(corr, r.notes.join(' '));
    assert.equal(corr.stored.item.correctionOf, `npm-x402-core-${id}-2-1-0`);
    assert.equal(corr.stored.item.evidenceTier, 'TIER_B');
    assert.match(corr.stored.item.summary, /maintainers' deprecation message, quoted as published and not verified/);
    assert.deepEqual(await ts.store.correctionsOf(`npm-x402-core-${id}-2-1-0`), [`npm-x402-core-${id}-2-1-0-deprecated`]);
  });

  test('a version the registry stops listing: the item naming it is corrected while its other releases stand, retracted when none does', async () => {
    srv.set('registry', CORE, { body: fixture('npm-x402-core.3.json') });
    const r = await run(['@x402/core']);
    assert.deepEqual(r.records.rejected, []);
    const familyId = (await ts.store.events({ limit: 50, type: 'version_update' })).items.find((e) => e.id.startsWith('npm-family-') && !e.id.includes('-unpublished-'))!.id;
    const corrections = await ts.store.correctionsOf(familyId);
    assert.equal(corrections.length, 1, r.notes.join(' '));
    const corr = (await ts.store.getItem(corrections[0]!))!.stored.item;
    assert.match(corr.summary, /no longer lists @x402\/core 3\.0\.0-beta\.1/);
    assert.match(corr.summary, /@x402\/core 2\.2\.0 is still listed/);
    assert.equal((await ts.store.getItem(familyId))?.state, 'PUBLISHED');
    const doc = JSON.parse(fixture('npm-x402-core.3.json'));
    delete doc.versions['2.2.0'];
    delete doc.time['2.2.0'];
    doc['dist-tags'].latest = '2.1.0';
    srv.set('registry', CORE, { body: JSON.stringify(doc) });
    const again = await run(['@x402/core']);
    assert.deepEqual(again.records.rejected, []);
    const family = await ts.store.getItem(familyId);
    assert.equal(family?.state, 'RETRACTED', again.notes.join(' '));
    assert.match(family.stored.item.retractionReason ?? '', /no longer lists @x402\/core 2\.2\.0/);
  });

  test('first sight counts every listed version as seen: a prerelease published before it is not reported later', async () => {
    srv.set('registry', '/@x402%2fevm', { body: fixture('npm-x402-evm.json') });
    const first = await run(['@x402/evm']);
    assert.equal(first.records.created, 1);
    assert.match(first.notes.join(' '), /@x402\/evm 2\.0\.0: reported/);
    const second = await run(['@x402/evm']);
    assert.equal(second.records.created, 0, second.notes.join(' '));
  });

  test('wrong types, HTML and a missing package are failures; nothing is written from them', async () => {
    srv.set('registry', '/x402-fetch', { body: fixture('npm-wrong-types.json') });
    srv.set('registry', '/x402-axios', { body: '<!doctype html><title>Cloudflare</title>', contentType: 'text/html' });
    const before = await ts.store.watermark();
    const r = await run(['x402-fetch', 'x402-axios', 'x402-express']);
    assert.deepEqual(r.failures.map((f) => f.failure), ['malformed', 'not_json', 'http_status']);
    assert.equal(r.records.lines, 0);
    assert.equal(await ts.store.watermark(), before);
  });
});

describe('npm releases collector: one family, one window, one item across runs', () => {
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;
  const PACKAGES = ['@scope/a', '@scope/b', '@scope/c'];
  const path = (name: string) => '/' + name.replace('/', '%2f');
  /** A registry document listing `versions` (version → registry time), latest being the newest. */
  const publish = (name: string, versions: Record<string, string>) => {
    const latest = Object.entries(versions).sort((x, y) => Date.parse(x[1]) - Date.parse(y[1])).at(-1)![0];
    const doc = { name, 'dist-tags': { latest }, versions: Object.fromEntries(Object.keys(versions).map((v) => [v, { name, version: v }])), time: { created: '2025-01-01T00:00:00.000Z', ...versions } };
    srv.set('registry', path(name), { body: JSON.stringify(doc) });
  };
  const run = () => collectNpmReleases(ctx, { registry: srv.url('registry', ''), packages: PACKAGES });
  const releaseItems = async () => (await ts.store.events({ limit: 50, type: 'version_update' })).items;

  before(async () => {
    srv = await startFixtureServer();
    ts = await openTestStore('sqlite');
    ctx = { store: ts.store, now: Date.now, limits: { timeoutMs: 2000, maxBytes: 256 * 1024, lookup: fixtureLookup, allowPrivateAddresses: true } };
    for (const name of PACKAGES) publish(name, { '1.0.0': '2026-01-05T10:00:00.000Z' });
  });
  after(async () => {
    await srv?.close();
    await ts?.close();
  });

  test('first sight: the three latest versions of one scope, published the same day, are one item', async () => {
    const r = await run();
    assert.equal(r.records.created, 1, r.notes.join(' '));
    const items = await releaseItems();
    assert.equal(items.length, 1);
    assert.match(items[0]!.headline, /^@scope: 3 releases published on npm \(@scope\/a 1\.0\.0, @scope\/b 1\.0\.0, @scope\/c 1\.0\.0\)$/);
  });

  test('a coordinated release that later runs find one package at a time joins one item, naming each package and version', async () => {
    publish('@scope/a', { '1.0.0': '2026-01-05T10:00:00.000Z', '2.0.0': '2026-03-01T20:00:00.000Z' });
    const first = await run();
    assert.equal(first.records.created, 1, first.notes.join(' '));
    const id = (await releaseItems()).find((e) => e.headline.includes('@scope/a 2.0.0'))!.id;
    publish('@scope/b', { '1.0.0': '2026-01-05T10:00:00.000Z', '2.0.0': '2026-03-02T03:00:00.000Z' });
    const second = await run();
    assert.equal(second.records.created, 0, second.notes.join(' '));
    assert.equal(second.records.updated, 1, 'the family’s item of this window is revised, not repeated');
    publish('@scope/c', { '1.0.0': '2026-01-05T10:00:00.000Z', '2.0.0': '2026-03-02T06:00:00.000Z' });
    assert.equal((await run()).records.updated, 1);
    const items = (await releaseItems()).filter((e) => / 2\.0\.0/.test(e.headline));
    assert.deepEqual(items.map((e) => e.id), [id], 'one item for the whole release');
    const item = (await ts.store.getItem(id))!.stored.item;
    assert.equal(item.headline, '@scope: 3 releases published on npm (@scope/a 2.0.0, @scope/b 2.0.0, @scope/c 2.0.0)');
    assert.equal(item.eventDate, '2026-03-02', 'dated by the newest release');
    assert.equal(item.sourceURLs.length, 3, 'each package document is a source');
  });

  test('a release outside the window, or of another family, is news of its own', async () => {
    publish('@scope/a', { '1.0.0': '2026-01-05T10:00:00.000Z', '2.0.0': '2026-03-01T20:00:00.000Z', '2.0.1': '2026-03-04T09:00:00.000Z' });
    const r = await run();
    assert.equal(r.records.created, 1, r.notes.join(' '));
    assert.equal(r.records.updated, 0);
    assert.ok((await releaseItems()).some((e) => e.headline === '@scope/a 2.0.1 published on npm'));
  });
});

async function idOf(pkg: string): Promise<string> {
  const { idFragment } = await import('./context.js');
  return idFragment(pkg, 6);
}

describe('npm releases collector against the real registry (INTEL_LIVE=1)', () => {
  const live = process.env.INTEL_LIVE === '1';
  test('reads @x402/core from registry.npmjs.org and reports its latest version', { skip: live ? false : 'INTEL_LIVE is not 1: live npm registry test skipped (set INTEL_LIVE=1 to run it)' }, async () => {
    const ts = await openTestStore('sqlite');
    try {
      const r = await collectNpmReleases({ store: ts.store, now: Date.now, limits: { timeoutMs: 20_000, maxBytes: 32 * 1024 * 1024 } }, { registry: DEFAULT_NPM_REGISTRY, packages: ['@x402/core'] });
      assert.deepEqual(r.failures, []);
      assert.deepEqual(r.records.rejected, []);
      assert.equal(r.records.created, 1);
      const events = (await ts.store.events({ limit: 5 })).items;
      assert.equal(events[0]!.sourceUrl, 'https://registry.npmjs.org/@x402%2fcore');
      assert.match(events[0]!.at, /^\d{4}-\d{2}-\d{2}T/);
    } finally {
      await ts.close();
    }
  });
});
