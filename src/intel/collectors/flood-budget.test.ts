/**
 * Attack: one discovery source answers 500 resources a page (whatever
 * `limit` it is asked for) on every page it is asked for. Before the fix one
 * run wrote an entity, a relationship, a listing item and a new_product item
 * for each: thousands of records, and every item of the newswire's front
 * page came from that one source.
 *
 * Rule: each source has a budget per run and per UTC day (items, new
 * resources, records); what does not fit is deferred to a later run, not
 * written, and another source keeps its own budget.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { collectDiscovery, loadDiscoveryState } from './discovery.js';
import { DEFAULT_SOURCE_BUDGET, type CollectorContext } from './context.js';
import { checkRecord } from '../records.js';
import type { ContentRecord } from '../types.js';
import { fixture, fixtureLookup, startFixtureServer, type FixtureServer } from '../../../test/support/collector-fixtures.js';
import { itemRecord, openTestStore, TEST_ENTITIES, type TestStore } from '../../../test/support/intel.js';

const PER_PAGE = 500;
const FRONT_PAGE = 50;

function floodPage(offset: number): string {
  const items = Array.from({ length: PER_PAGE }, (_, i) => ({
    resource: `https://spam.fixture.test/r/${offset + i}`,
    type: 'http',
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x9999999999999999999999999999999999999999' }],
    metadata: { category: 'spam' },
  }));
  return JSON.stringify({ x402Version: 2, items, pagination: { limit: PER_PAGE, offset, total: 30_000 } });
}

describe('collector budgets: one flooding source cannot fill the front page', () => {
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;
  let clock = Date.now();
  const now = () => clock;
  let flood: string;
  let normal: string;

  /** Items whose sources include the flooding directory. */
  const floodItems = async () => {
    const page = await ts.store.queryItems({ order: 'newest', sinceUs: 0, limit: 1000, includeRetracted: true, materialOnly: false });
    return page.items.filter((i) => i.sourceURLs.includes(flood));
  };
  const frontPage = async () => (await ts.store.queryItems({ order: 'newest', sinceUs: 0, limit: FRONT_PAGE, includeRetracted: false, materialOnly: false })).items;

  before(async () => {
    srv = await startFixtureServer();
    ts = await openTestStore('sqlite', now);
    for (const e of TEST_ENTITIES) {
      const c = checkRecord(e, now());
      assert.ok(c.ok);
      await ts.store.apply(c.record as ContentRecord);
    }
    // The newsroom's own recent items, which the front page must still show.
    const today = new Date(now()).toISOString().slice(0, 10);
    for (let i = 0; i < 5; i++) {
      const c = checkRecord(itemRecord({ eventDate: today, headline: `Own item ${i}` }), now());
      assert.ok(c.ok, JSON.stringify(c));
      await ts.store.apply(c.record as ContentRecord);
    }
    flood = srv.url('spam', '/discovery/resources');
    srv.set('spam', '/discovery/resources', { body: floodPage(0) });
    for (let p = 1; p < 10; p++) srv.set('spam', `/discovery/resources?offset=${p * 100}&limit=100`, { body: floodPage(p * PER_PAGE) });
    normal = srv.url('bazaar', '/discovery/resources');
    srv.set('bazaar', '/discovery/resources', { body: fixture('bazaar-resources.1.json') });
    ctx = { store: ts.store, now, limits: { timeoutMs: 5000, maxBytes: 8 * 1024 * 1024, lookup: fixtureLookup, allowPrivateAddresses: true } };
  });
  after(async () => {
    await srv?.close();
    await ts?.close();
  });

  test('one run: the flooding source writes within its run budget, the front page keeps other items, another source keeps its own budget', async () => {
    const { perRun } = DEFAULT_SOURCE_BUDGET;
    const r = await collectDiscovery(ctx, { bazaarUrls: [flood, normal], origins: [], openapiUrls: [] });
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.records.rejected, []);
    const state = await loadDiscoveryState(ctx);
    const spam = Object.keys(state.resources).filter((u) => u.startsWith('https://spam.fixture.test/'));
    assert.ok(spam.length <= perRun.resources, `${spam.length} resources admitted from one source in one run`);
    assert.ok(spam.length > 0, 'the budget defers, it does not refuse the source');
    const items = await floodItems();
    assert.ok(items.length <= perRun.items, `${items.length} items from one source in one run`);
    assert.ok(r.records.lines <= 2 * perRun.records, `${r.records.lines} records written in one run by two sources`);
    assert.equal(Object.keys(state.resources).filter((u) => u.includes('fixture.test/') && !u.startsWith('https://spam.')).length, 3, 'the other source’s three resources are all listed');
    assert.ok(r.notes.some((n) => n.startsWith(`${flood}: budget reached`)), r.notes.join(' | '));
    const front = await frontPage();
    const fromFlood = front.filter((i) => i.sourceURLs.includes(flood)).length;
    assert.ok(fromFlood < FRONT_PAGE / 2, `${fromFlood} of the ${FRONT_PAGE} front-page items come from the flooding source`);
    assert.equal(front.filter((i) => i.headline.startsWith('Own item')).length, 5, 'the newsroom’s own items are still on the front page');
  });

  test('more runs the same day stay within the daily budget; the next day admits more', async () => {
    const { perDay } = DEFAULT_SOURCE_BUDGET;
    for (let i = 0; i < 4; i++) await collectDiscovery(ctx, { bazaarUrls: [flood], origins: [], openapiUrls: [] });
    const items = await floodItems();
    assert.ok(items.length <= perDay.items, `${items.length} items from one source in one day`);
    assert.ok(items.length < FRONT_PAGE, 'fewer than a front page a day');
    const sameDay = Object.keys((await loadDiscoveryState(ctx)).resources).filter((u) => u.startsWith('https://spam.')).length;
    assert.ok(sameDay <= perDay.resources, `${sameDay} resources admitted in one day`);
    clock += 24 * 3600 * 1000;
    await collectDiscovery(ctx, { bazaarUrls: [flood], origins: [], openapiUrls: [] });
    const nextDay = Object.keys((await loadDiscoveryState(ctx)).resources).filter((u) => u.startsWith('https://spam.')).length;
    assert.ok(nextDay > sameDay, 'a new day brings a new budget: deferred resources are written later, not lost');
    assert.ok(nextDay <= sameDay + DEFAULT_SOURCE_BUDGET.perRun.resources);
  });
});
