/**
 * Attack: a package maintainer writes what they like into the registry's
 * free-text fields. An npm `deprecated` message "all versions leak keys,
 * move funds to 0x…" became, on first sight, a TIER_A item stating it as
 * the newswire's fact; a coordinated release of a family of packages
 * became one item per package, crowding the feed.
 *
 * Rules: a registry's free text is quoted as the maintainer's claim, never
 * stated as fact, never in a headline, and never creates a TIER_A item on
 * first sight; versions and dist-tags are reported only in their formal
 * shape; releases of one package family (an npm scope) in one collection
 * window make one item naming each package and version.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { collectNpmReleases } from './npm-releases.js';
import type { CollectorContext } from './context.js';
import { checkRecord } from '../records.js';
import type { ContentRecord } from '../types.js';
import { fixtureLookup, startFixtureServer, type FixtureServer } from '../../../test/support/collector-fixtures.js';
import { openTestStore, TEST_ENTITIES, type TestStore } from '../../../test/support/intel.js';

const SCARE = 'all versions leak keys, move funds to 0xbad0000000000000000000000000000000000bad now';

function doc(name: string, versions: Record<string, { time: string; deprecated?: string }>, latest: string, extraTags: Record<string, string> = {}) {
  return JSON.stringify({
    name,
    description: 'URGENT: this package is compromised, send funds to 0xbad0000000000000000000000000000000000bad',
    'dist-tags': { latest, ...extraTags },
    versions: Object.fromEntries(Object.entries(versions).map(([v, x]) => [v, { name, version: v, ...(x.deprecated ? { deprecated: x.deprecated } : {}) }])),
    time: { created: '2025-01-01T00:00:00.000Z', ...Object.fromEntries(Object.entries(versions).map(([v, x]) => [v, x.time])) },
  });
}

describe('registry free text is the maintainers’ claim; a family’s releases are one item', () => {
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;
  const run = (packages: string[]) => collectNpmReleases(ctx, { registry: srv.url('registry', ''), packages });
  const allItems = async () => (await ts.store.queryItems({ order: 'newest', sinceUs: 0, limit: 500, includeRetracted: true, materialOnly: false })).items;

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

  test('a deprecation message seen on first sight is quoted as the maintainers’ claim in a caveated TIER_B item, never TIER_A, never in a headline', async () => {
    srv.set('registry', '/x402-scare', { body: doc('x402-scare', { '1.0.0': { time: '2025-10-01T00:00:00.000Z', deprecated: SCARE } }, '1.0.0', { 'move-funds': '1.0.0' }) });
    const r = await run(['x402-scare']);
    assert.deepEqual(r.records.rejected, []);
    const items = await allItems();
    assert.ok(items.length >= 1);
    for (const it of items) {
      const text = `${it.headline} ${it.summary} ${it.whyItMatters}`;
      if (it.evidenceTier === 'TIER_A') assert.ok(!text.includes('leak keys') && !text.includes('0xbad0'), `a TIER_A item carries the maintainers' text: ${text}`);
      assert.ok(!it.headline.includes('leak keys') && !it.headline.includes('0xbad0'), `headline: ${it.headline}`);
      assert.ok(!text.includes('URGENT'), 'the package description is not published');
    }
    const dep = items.find((i) => i.summary.includes('leak keys'));
    assert.ok(dep, 'the message is reported');
    assert.equal(dep.evidenceTier, 'TIER_B');
    assert.equal(dep.confidence, 0.8, 'caveated');
    assert.match(dep.evidenceNote ?? '', /maintainers’ own claim/);
    assert.match(dep.summary, /The maintainers' deprecation message, quoted as published and not verified by this newsroom: x402-scare 1\.0\.0: “all versions leak keys/);
    assert.match(dep.headline, /^x402-scare 1\.0\.0 marked deprecated on npm$/);
  });

  test('version strings and dist-tags that are not in their formal shape are never reported', async () => {
    srv.set('registry', '/x402-odd', {
      body: doc('x402-odd', { 'send-funds-to-0xbad': { time: '2025-10-02T00:00:00.000Z' }, '2.0.0': { time: '2025-10-01T00:00:00.000Z' } }, 'send-funds-to-0xbad', { 'all versions leak keys': '2.0.0' }),
    });
    const r = await run(['x402-odd']);
    assert.deepEqual(r.records.rejected, []);
    const items = (await allItems()).filter((i) => i.headline.includes('x402-odd'));
    assert.equal(items.length, 0, 'the latest tag names no real version: nothing to report on first sight');
  });

  test('a coordinated release of one scope’s packages is one item naming each package and version', async () => {
    const pkgs = ['@x402/core', '@x402/evm', '@x402/fetch', '@x402/hono'];
    const v1 = { '1.0.0': { time: '2025-10-01T00:00:00.000Z' } };
    for (const p of pkgs) srv.set('registry', `/${p.replace('/', '%2f')}`, { body: doc(p, v1, '1.0.0') });
    srv.set('registry', '/x402-fetch', { body: doc('x402-fetch', v1, '1.0.0') });
    const first = await run([...pkgs, 'x402-fetch']);
    assert.deepEqual(first.records.rejected, []);
    assert.equal(first.records.created, 2, `first sight: one item for the @x402 family, one for the unscoped package; ${first.notes.join(' ')}`);
    // Later the family releases 1.1.0 of every package (and a 1.1.1 of one) in one window.
    const v2 = { ...v1, '1.1.0': { time: '2025-11-01T10:00:00.000Z' } };
    for (const p of pkgs) srv.set('registry', `/${p.replace('/', '%2f')}`, { body: doc(p, p === '@x402/core' ? { ...v2, '1.1.1': { time: '2025-11-01T12:00:00.000Z' } } : v2, '1.1.0') });
    const second = await run([...pkgs, 'x402-fetch']);
    assert.deepEqual(second.records.rejected, []);
    assert.equal(second.records.created, 1, second.notes.join(' '));
    const family = (await allItems()).filter((i) => i.eventId.startsWith('npm-family-'));
    const latest = family.find((i) => i.headline.includes('1.1.0'))!;
    assert.ok(latest);
    for (const name of ['@x402/core 1.1.0', '@x402/core 1.1.1', '@x402/evm 1.1.0', '@x402/fetch 1.1.0', '@x402/hono 1.1.0']) assert.ok(latest.summary.includes(name), `${name} in ${latest.summary}`);
    assert.equal(latest.corroborationCount, 4, 'each package document is a source');
    assert.equal(latest.eventDate, '2025-11-01');
    assert.equal(latest.evidenceTier, 'TIER_A', 'versions and times are the registry’s structured record');
    const third = await run([...pkgs, 'x402-fetch']);
    assert.equal(third.records.created + third.records.updated, 0, 'reported once');
  });
});
