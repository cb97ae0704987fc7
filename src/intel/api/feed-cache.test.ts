/**
 * The free feeds' cached bytes (issue 15) and the newswire's reading modes
 * (issue 13), on SQLite and PostgreSQL, through the real route handlers:
 * - every write path (new, update, cosmetic, correction, retraction, entity,
 *   relationship, listing, census) and a settlement change the bytes at once,
 *   and the old ETag then answers 200, the new one 304;
 * - two instances on one PostgreSQL: a write through one is seen by the
 *   other's next request (it reads the content generation per request);
 * - the default newswire is the newest items, pages back exactly with
 *   olderCursor across items of the same eventDate (property), and
 *   event_since filters by when the event happened.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Hono } from 'hono';
import { FeedCache } from './feed-cache.js';
import { changesSinceSampleRoute, newswireRoute } from './feed-routes.js';
import { graphRoutes } from './graph-routes.js';
import { LedgerPaidRevenue } from '../ledger-facts.js';
import { MarketMovementsSource } from '../newswire.js';
import { checkRecord } from '../records.js';
import { SqlContentStore } from '../store.js';
import type { ContentStore, WriteOk } from '../store.js';
import type { ContentRecord } from '../types.js';
import { KNOWN_NETWORKS } from '../../config.js';
import { openPostgres } from '../../store/postgres/driver.js';
import { insertAttempt, itemRecord, openTestStore, TEST_ENTITIES, type TestStore } from '../../../test/support/intel.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from '../../../test/support/pg.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function put(store: ContentStore, value: Record<string, unknown>): Promise<WriteOk> {
  const c = checkRecord(structuredClone(value), Date.now());
  if (!c.ok) throw new Error(`test record invalid: ${JSON.stringify(c.rejection)}`);
  const r = await store.apply(c.record as ContentRecord);
  assert.equal(r.ok, true, r.ok ? '' : JSON.stringify(r.rejection));
  return r as WriteOk;
}

/** One "instance": the module's feed routes over a store, with its own cache, mounted on a Hono app. */
function instance(t: Pick<TestStore, 'store' | 'ledger'>) {
  const feedCache = new FeedCache();
  const deps = { store: t.store, movements: new MarketMovementsSource(t.store), revenue: new LedgerPaidRevenue(t.ledger), operatorWallets: [], feedCache };
  const payment = { network: 'eip155:84532', payTo: '0x000000000000000000000000000000000000dEaD', asset: KNOWN_NETWORKS['eip155:84532']!.asset } as never;
  const routes = [newswireRoute(deps), changesSinceSampleRoute({ ...deps, catalog: [], payment }), ...graphRoutes(t.store, feedCache)];
  const app = new Hono();
  for (const r of routes) app.get(r.path.replace(/\{(\w+)\}/g, ':$1'), (c) => r.handle(c, app));
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await app.request(path, { headers });
    return { status: res.status, etag: res.headers.get('etag') ?? '', text: await res.text() };
  };
  return { get, feedCache };
}

describe('FeedCache on its own', () => {
  /** A feed answering `key` through `cache`, counting how often each key's body is built (what the cache saves). */
  function feed(cache: FeedCache) {
    const builds = new Map<string, number>();
    const app = new Hono().get('/:key', (c) => {
      const key = c.req.param('key');
      return cache.serve(c, key, 'v1', async () => {
        builds.set(key, (builds.get(key) ?? 0) + 1);
        return { key, pad: 'x'.repeat(1000) };
      });
    });
    return { get: (key: string) => app.request(`/${key}`), builds: (key: string) => builds.get(key) ?? 0 };
  }

  test('the least recently used answer is the one rebuilt after the bound is reached; a recent one is served as it was', async () => {
    const f = feed(new FeedCache(2_100)); // room for two ~1 KB answers
    const a1 = await (await f.get('a')).text();
    await f.get('b');
    await f.get('a'); // a is now more recent than b
    await f.get('c'); // over the bound: b goes, a stays
    const a2 = await f.get('a');
    assert.equal(await a2.text(), a1);
    assert.equal(f.builds('a'), 1, 'a was kept: served without building it again');
    await f.get('b');
    assert.equal(f.builds('b'), 2, 'b was the least recently used: built again');
  });

  test('an answer larger than the whole bound is served but never kept', async () => {
    const f = feed(new FeedCache(500));
    assert.equal((await f.get('big')).status, 200);
    assert.equal((await f.get('big')).status, 200);
    assert.equal(f.builds('big'), 2);
  });
});

const suites: Array<[string, 'sqlite' | 'postgres', string | undefined]> = [
  ['sqlite', 'sqlite', undefined],
  ['postgres', 'postgres', pgConfigured() ? undefined : PG_SKIP_REASON],
];

for (const [name, kind, skip] of suites) {
  describe(`free feeds: cached bytes and newswire modes (${name})`, { skip }, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(kind);
      for (const e of TEST_ENTITIES) await put(t.store, e);
    });
    after(async () => t?.close());

    test('every write path and a settlement change the bytes at once; the old ETag is then 200, the new one 304', async () => {
      const a = instance(t);
      const paths = ['/v1/newswire', '/v1/newswire?since=1970-01-01T00:00:00Z&include_retracted=true', '/v1/graph', '/v1/graph/entities', '/v1/graph/relationships', '/v1/graph/events', '/v1/intelligence/changes-since'];
      const snapshot = async () => Promise.all(paths.map((p) => a.get(p)));
      const orig = itemRecord({ eventDate: '2026-05-01' });
      let prev = await snapshot();
      const step = async (what: string, write: () => Promise<unknown>, changes: string[]) => {
        // Cached: the same bytes twice, and 304 for the current ETag.
        for (const [i, p] of paths.entries()) {
          const again = await a.get(p);
          assert.equal(again.text, prev[i]!.text, `${what}: ${p} is stable before the write`);
          assert.equal((await a.get(p, { 'If-None-Match': prev[i]!.etag })).status, 304);
        }
        await write();
        const now = await snapshot();
        for (const p of changes) {
          const i = paths.indexOf(p);
          assert.notEqual(now[i]!.text, prev[i]!.text, `${what}: ${p} shows the write`);
          assert.notEqual(now[i]!.etag, prev[i]!.etag);
          assert.equal((await a.get(p, { 'If-None-Match': prev[i]!.etag })).status, 200, `${what}: ${p} old ETag is not current`);
          assert.equal((await a.get(p, { 'If-None-Match': now[i]!.etag })).status, 304);
        }
        prev = now;
      };
      await step('new item', () => put(t.store, orig), ['/v1/newswire', '/v1/graph', '/v1/graph/events', '/v1/intelligence/changes-since']);
      await step('update', () => put(t.store, { ...orig, headline: 'A changed headline' }), ['/v1/newswire', '/v1/graph/events']);
      await step('cosmetic (observedAt only: no clock tick)', () => put(t.store, { ...orig, headline: 'A changed headline', observedAt: '2026-11-02T00:00:00Z' }), ['/v1/newswire']);
      await step('correction', () => put(t.store, itemRecord({ correctionOf: orig.eventId })), ['/v1/newswire', '/v1/graph/events']);
      await step('retraction', () => t.store.retract(orig.eventId as string, 'test retraction'), ['/v1/newswire', '/v1/newswire?since=1970-01-01T00:00:00Z&include_retracted=true']);
      await step('entity', () => put(t.store, { kind: 'entity', id: 'cache-test-org', type: 'ORGANIZATION', name: 'Cache Test Org', sourceUrl: 'https://example.org/' }), ['/v1/graph', '/v1/graph/entities']);
      await step('relationship', () => put(t.store, { kind: 'relationship', from: 'cache-test-org', to: 'x402', type: 'BUILDS', sourceUrl: 'https://example.org/r' }), ['/v1/graph/relationships']);
      await step('census (no clock tick)', () => put(t.store, { kind: 'census', snapshotId: `cache-${name}-1`, observedAt: '2026-11-01T00:00:00Z', source: 'https://402index.io/', distinctPayers: 5, resources: [{ id: 'https://a.example/x', family: 'data', calls: 9 }] }), ['/v1/graph']);
      await step('second census (market movements)', () => put(t.store, { kind: 'census', snapshotId: `cache-${name}-2`, observedAt: '2026-11-02T00:00:00Z', source: 'https://402index.io/', distinctPayers: 7, resources: [{ id: 'https://a.example/x', family: 'data', calls: 19 }] }), ['/v1/newswire']);
      await step('a settled, delivered payment (revenue)', () => insertAttempt(t.db, { id: `cache-${name}-paid`, payer: '0x00000000000000000000000000000000000000c1', amount: '10000', state: 'settled', delivered: true }), ['/v1/newswire']);
      assert.ok(a.feedCache.count > 0 && a.feedCache.size > 0);
    });

    test('the cache is bounded by bytes (which answer goes first: FeedCache on its own)', async () => {
      const a = instance(t);
      const small = new FeedCache(4096);
      assert.equal(small.maxBytes, 4096);
      for (let limit = 1; limit <= 30; limit++) await a.get(`/v1/newswire?limit=${limit}`);
      assert.ok(a.feedCache.size > 0);
      const before = a.feedCache.count;
      assert.ok(before >= 30);
      // A tight instance keeps under its bound.
      const tight = instance(t);
      (tight.feedCache as unknown as { maxBytes: number }).maxBytes = 20_000;
      for (let limit = 1; limit <= 30; limit++) await tight.get(`/v1/newswire?limit=${limit}`);
      assert.ok(tight.feedCache.size <= 20_000, `${tight.feedCache.size} bytes held`);
      assert.ok(tight.feedCache.count < 30);
    });

    test('default: the newest items; olderCursor pages back exactly across items of one eventDate (property); since polls oldest-first', async () => {
      const s = await openTestStore(kind);
      try {
        for (const e of TEST_ENTITIES) await put(s.store, e);
        // Few distinct dates, so many items share an eventDate.
        const dates = ['2026-01-01', '2026-02-01', '2026-03-01'];
        for (let i = 0; i < 24; i++) await put(s.store, itemRecord({ eventDate: dates[i % 3], type: i % 5 === 0 ? 'community_signal' : 'protocol_release' }));
        const a = instance(s);
        const all = JSON.parse((await a.get('/v1/newswire?limit=200')).text) as Json;
        assert.equal(all.count, 24);
        const order = all.items.map((i: Json) => i.eventId);
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 1, max: 9 }), async (limit) => {
            const seen: string[] = [];
            let cursor: string | null = null;
            for (let n = 0; n < 30; n++) {
              const f = JSON.parse((await a.get(`/v1/newswire?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)).text) as Json;
              seen.push(...f.items.map((i: Json) => i.eventId));
              assert.equal(f.nextCursor, f.generatedAt, 'poll on from the watermark');
              cursor = f.olderCursor;
              if (!f.truncated) break;
            }
            assert.deepEqual(seen, order, 'every item once, newest first');
          }),
          { numRuns: 15 },
        );
        const poll = JSON.parse((await a.get('/v1/newswire?limit=5&since=1970-01-01')).text) as Json;
        const byUpdate = [...all.items].sort((x: Json, y: Json) => (x.lastUpdatedAt < y.lastUpdatedAt ? -1 : 1));
        assert.deepEqual(new Set(poll.items.map((i: Json) => i.eventId)), new Set(byUpdate.slice(0, 5).map((i: Json) => i.eventId)), 'since keeps the oldest-updated');
        const ev = JSON.parse((await a.get('/v1/newswire?limit=200&event_since=2026-02-01T12:00:00Z')).text) as Json;
        assert.equal(ev.count, 16, 'event_since: events on or after that calendar date');
        assert.ok(ev.items.every((i: Json) => i.eventDate >= '2026-02-01'));
        const sample = JSON.parse((await a.get('/v1/intelligence/changes-since?event_since=2026-03-01')).text) as Json;
        assert.ok(sample.sample.length > 0 && sample.sample.every((d: Json) => d.eventDate >= '2026-03-01' && d.type !== 'community_signal'));
        assert.equal((await a.get('/v1/intelligence/changes-since?cursor=c1.garbage')).status, 400);
      } finally {
        await s.close();
      }
    });
  });
}

describe('two instances on one PostgreSQL', { skip: pgConfigured() ? undefined : PG_SKIP_REASON }, () => {
  test("another instance's write changes this instance's next answer (the generation is read per request)", async () => {
    const url = await freshPgUrl();
    const a = await openTestStore('postgres', Date.now, url);
    const dbB = await openPostgres(url);
    const storeB = new SqlContentStore(dbB, Date.now);
    try {
      for (const e of TEST_ENTITIES) await put(a.store, e);
      await put(a.store, itemRecord());
      const ia = instance(a);
      const ib = instance({ store: storeB, ledger: a.ledger });
      const b0 = await ib.get('/v1/newswire');
      assert.equal((await ib.get('/v1/newswire')).text, b0.text, 'cached on B');
      const rec = itemRecord({ eventDate: '2026-10-10' });
      await put(a.store, rec);
      const b1 = await ib.get('/v1/newswire');
      assert.notEqual(b1.etag, b0.etag);
      assert.ok((JSON.parse(b1.text) as Json).items.some((i: Json) => i.eventId === rec.eventId), "B shows A's write");
      assert.equal((await ib.get('/v1/newswire', { 'If-None-Match': b0.etag })).status, 200);
      await a.store.retract(rec.eventId as string, 'gone');
      assert.ok(!(JSON.parse((await ib.get('/v1/newswire')).text) as Json).items.some((i: Json) => i.eventId === rec.eventId), "B shows A's retraction");
      assert.equal((await ia.get('/v1/newswire')).text, (await ib.get('/v1/newswire')).text, 'both instances serve the same bytes');
    } finally {
      await dbB.close();
      await a.close();
    }
  });
});
