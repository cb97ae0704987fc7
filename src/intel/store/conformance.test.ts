/**
 * One conformance suite for the content store, run against the embedded
 * SQLite and a real PostgreSQL server: the store clock, append-only history,
 * material vs cosmetic changes, corrections, retractions, TIER_D, filters,
 * census snapshots, concurrent writers against a poller (every change seen
 * exactly once), and the ledger facts intel reads (paid revenue).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerPaidRevenue } from '../ledger-facts.js';
import { checkRecord } from '../records.js';
import type { ChangeKey, ContentStore, WriteOk, WriteResult } from '../store.js';
import { parseTimestamp } from '../time.js';
import type { ContentRecord } from '../types.js';
import { pgConfigured, PG_SKIP_REASON } from '../../../test/support/pg.js';
import { insertAttempt, itemRecord, openTestStore, SRC, TEST_ENTITIES, type TestStore } from '../../../test/support/intel.js';

/** Validate (as the importer does) and apply. */
async function put(store: ContentStore, value: Record<string, unknown>): Promise<WriteResult> {
  const c = checkRecord(structuredClone(value), Date.now());
  if (!c.ok) throw new Error(`test record invalid: ${JSON.stringify(c.rejection)}`);
  return store.apply(c.record as ContentRecord);
}

function ok(r: WriteResult): WriteOk {
  assert.equal(r.ok, true, r.ok ? '' : JSON.stringify(r.rejection));
  return r as WriteOk;
}

const suites: Array<[string, 'sqlite' | 'postgres', string | undefined]> = [
  ['sqlite', 'sqlite', undefined],
  ['postgres', 'postgres', pgConfigured() ? undefined : PG_SKIP_REASON],
];

for (const [name, kind, skip] of suites) {
  describe(`content store conformance: ${name}`, { skip }, () => {
    let t: TestStore;
    let frozen: TestStore;
    before(async () => {
      t = await openTestStore(kind);
      for (const e of TEST_ENTITIES) ok(await put(t.store, e));
      // A store whose clock never moves: every write lands in the same millisecond.
      frozen = await openTestStore(kind, () => 1_800_000_000_000);
      for (const e of TEST_ENTITIES) ok(await put(frozen.store, e));
    });
    after(async () => {
      await t?.close();
      await frozen?.close();
    });

    test('lastUpdatedAt is unique and strictly increasing even when every write lands in the same millisecond', async () => {
      const stamps: number[] = [];
      for (let i = 0; i < 40; i++) stamps.push(ok(await put(frozen.store, itemRecord())).updatedUs!);
      for (let i = 1; i < stamps.length; i++) assert.ok(stamps[i]! > stamps[i - 1]!, `${stamps[i]} > ${stamps[i - 1]}`);
      assert.equal(stamps[0]! >= 1_800_000_000_000_000, true);
      const items = (await frozen.store.queryItems({ sinceUs: 0, limit: 200, includeRetracted: false, materialOnly: false })).items;
      assert.equal(new Set(items.map((i) => i.lastUpdatedAt)).size, items.length);
      for (const i of items) assert.match(i.lastUpdatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    });

    test('import is idempotent: the same record twice is unchanged and takes no clock tick', async () => {
      const rec = itemRecord();
      const first = ok(await put(t.store, rec));
      const wm = await t.store.watermark();
      const again = ok(await put(t.store, rec));
      assert.equal(first.result, 'created');
      assert.equal(again.result, 'unchanged');
      assert.equal(await t.store.watermark(), wm);
      assert.equal((await t.store.itemVersions(rec.eventId as string)).length, 1);
    });

    test('a cosmetic change (observedAt) adds a version but does not move lastUpdatedAt; a material one does', async () => {
      const rec = itemRecord({ observedAt: '2026-11-01T00:00:00Z' });
      const created = ok(await put(t.store, rec));
      const cosmetic = ok(await put(t.store, { ...rec, observedAt: '2026-11-02T00:00:00Z' }));
      assert.equal(cosmetic.result, 'cosmetic');
      assert.equal(cosmetic.version, 2);
      assert.equal(cosmetic.item!.lastUpdatedAt, created.item!.lastUpdatedAt);
      assert.equal(cosmetic.item!.observedAt, '2026-11-02T00:00:00.000000Z');
      const material = ok(await put(t.store, { ...rec, observedAt: '2026-11-02T00:00:00Z', headline: 'A changed headline' }));
      assert.equal(material.result, 'updated');
      assert.ok(material.item!.lastUpdatedAt > created.item!.lastUpdatedAt);
      const versions = await t.store.itemVersions(rec.eventId as string);
      assert.deepEqual(versions.map((v) => [v.version, v.changeKind, v.material]), [[1, 'NEW', true], [2, 'COSMETIC', false], [3, 'UPDATED', true]]);
      assert.deepEqual(versions[2]!.changedFields, ['headline']);
      assert.equal(versions[0]!.item.headline, rec.headline, 'history keeps the first version as it was');
      const changes = (await t.store.changesSince({ after: { us: parseTimestamp(created.item!.lastUpdatedAt)! - 1 }, maxItems: 100 })).changes.filter((c) => c.stored.item.eventId === rec.eventId);
      assert.deepEqual(changes.map((c) => c.change), ['NEW', 'UPDATED'], 'the cosmetic version is not a change');
    });

    test('tier, confidence and sources are material; confidence follows the tier and a caveat lowers it', async () => {
      const rec = itemRecord();
      ok(await put(t.store, rec));
      const b = ok(await put(t.store, { ...rec, evidenceTier: 'TIER_B' }));
      assert.equal(b.result, 'updated');
      assert.equal(b.item!.confidence, 0.85);
      const caveated = ok(await put(t.store, { ...rec, evidenceTier: 'TIER_B', caveat: 'The date comes from press coverage.' }));
      assert.equal(caveated.item!.confidence, 0.8);
      assert.equal(caveated.item!.evidenceNote, 'The date comes from press coverage.');
      const two = ok(await put(t.store, { ...rec, evidenceTier: 'TIER_B', caveat: 'The date comes from press coverage.', sources: [{ url: SRC, sourceType: 'github_maintainer' }, { url: 'https://blog.cloudflare.com/x402/', sourceType: 'official_announcement' }, { url: SRC + '#L1', sourceType: 'github_maintainer' }] }));
      assert.equal(two.item!.corroborationCount, 2, 'distinct sources, not links');
      assert.deepEqual(two.item!.sourceTypes, ['github_maintainer', 'official_announcement']);
    });

    test('references are by id only: unknown entities and non-protocol protocols are rejected', async () => {
      const r1 = await put(t.store, itemRecord({ entities: ['Coinbase'.toLowerCase() + '-inc'] }));
      assert.equal(r1.ok, false);
      if (!r1.ok) assert.equal(r1.rejection.code, 'unknown_reference');
      const r2 = await put(t.store, itemRecord({ protocols: ['coinbase'] }));
      assert.equal(r2.ok, false);
      if (!r2.ok) assert.match(r2.rejection.details[0]!.message!, /not a PROTOCOL/);
    });

    test('TIER_D is kept but never published; raising its tier publishes it as NEW; a published item cannot drop to TIER_D', async () => {
      const rec = itemRecord({ evidenceTier: 'TIER_D', sources: [{ url: 'https://example.org/forum/1', sourceType: 'public_forum' }] });
      const held = ok(await put(t.store, rec));
      assert.equal(held.state, 'HELD');
      const before = held.updatedUs! - 1;
      const q = await t.store.queryItems({ sinceUs: before, limit: 200, includeRetracted: true, materialOnly: false });
      assert.equal(q.items.some((i) => i.eventId === rec.eventId), false);
      assert.equal((await t.store.changesSince({ after: { us: before }, maxItems: 100 })).changes.some((c) => c.stored.item.eventId === rec.eventId), false);
      const published = ok(await put(t.store, { ...rec, evidenceTier: 'TIER_C', sources: [...(rec.sources as object[]), { url: 'https://example.org/forum/2', sourceType: 'public_forum' }] }));
      assert.equal(published.state, 'PUBLISHED');
      const ch = (await t.store.changesSince({ after: { us: before }, maxItems: 100 })).changes.filter((c) => c.stored.item.eventId === rec.eventId);
      assert.deepEqual(ch.map((c) => c.change), ['NEW']);
      const down = await put(t.store, { ...rec, evidenceTier: 'TIER_D' });
      assert.equal(down.ok, false);
      if (!down.ok) assert.equal(down.rejection.code, 'content_conflict');
    });

    test('a retraction is a material change, keeps the item with its reason, and is final', async () => {
      const rec = itemRecord();
      const created = ok(await put(t.store, rec));
      const r = ok(await t.store.retract(rec.eventId as string, 'The source was misread.'));
      assert.equal(r.state, 'RETRACTED');
      assert.ok(r.updatedUs! > created.updatedUs!);
      assert.equal(r.item!.retracted, true);
      assert.equal(r.item!.retractionReason, 'The source was misread.');
      const visible = await t.store.queryItems({ sinceUs: created.updatedUs!, limit: 200, includeRetracted: false, materialOnly: false });
      assert.equal(visible.items.some((i) => i.eventId === rec.eventId), false);
      const all = await t.store.queryItems({ sinceUs: created.updatedUs!, limit: 200, includeRetracted: true, materialOnly: false });
      assert.equal(all.items.find((i) => i.eventId === rec.eventId)?.newsroomState, 'RETRACTED');
      assert.equal(ok(await t.store.retract(rec.eventId as string, 'again')).result, 'unchanged');
      const edit = await put(t.store, { ...rec, headline: 'Edited after retraction' });
      assert.equal(edit.ok, false);
      if (!edit.ok) assert.equal(edit.rejection.code, 'content_conflict');
      assert.deepEqual((await t.store.itemVersions(rec.eventId as string)).map((v) => v.changeKind), ['NEW', 'RETRACTED'], 'nothing deleted');
      const missing = await t.store.retract('no-such-item', 'x');
      assert.equal(missing.ok, false);
    });

    test('a correction is a new item naming the original; it must name a published item', async () => {
      const orig = itemRecord();
      ok(await put(t.store, orig));
      const bad = await put(t.store, itemRecord({ correctionOf: 'never-published' }));
      assert.equal(bad.ok, false);
      if (!bad.ok) assert.equal(bad.rejection.code, 'unknown_reference');
      const corr = ok(await put(t.store, itemRecord({ correctionOf: orig.eventId })));
      assert.equal(corr.item!.correctionOf, orig.eventId);
      const ch = (await t.store.changesSince({ after: { us: corr.updatedUs! - 1 }, maxItems: 10 })).changes;
      assert.equal(ch[0]!.change, 'CORRECTED');
      assert.equal((await t.store.getItem(orig.eventId as string))!.stored.item.version, 1, 'the original is untouched');
    });

    test('filters: type, entity, protocol, topic, tier, first party, material only', async () => {
      const wm = await t.store.watermark();
      const a = itemRecord({ type: 'unmet_need', entities: ['coinbase'], protocols: ['mcp'], topics: ['idempotency'], evidenceTier: 'TIER_C', sources: [{ url: 'https://example.org/issue/1', sourceType: 'public_forum' }] });
      const b = itemRecord({ type: 'standards', firstPartyInterest: true, topics: ['receipts'] });
      ok(await put(t.store, a));
      ok(await put(t.store, b));
      const ids = async (q: Partial<Parameters<ContentStore['queryItems']>[0]>) =>
        (await t.store.queryItems({ sinceUs: wm, limit: 200, includeRetracted: false, materialOnly: false, ...q })).items.map((i) => i.eventId).sort();
      assert.deepEqual(await ids({}), [a.eventId, b.eventId].sort());
      assert.deepEqual(await ids({ type: 'unmet_need' }), [a.eventId]);
      assert.deepEqual(await ids({ entity: 'coinbase' }), [a.eventId]);
      assert.deepEqual(await ids({ protocol: 'mcp' }), [a.eventId]);
      assert.deepEqual(await ids({ topic: 'receipts' }), [b.eventId]);
      assert.deepEqual(await ids({ maxTierRank: 2 }), [b.eventId]);
      assert.deepEqual(await ids({ firstParty: true }), [b.eventId]);
      assert.deepEqual(await ids({ firstParty: false }), [a.eventId]);
      assert.deepEqual(await ids({ materialOnly: true }), [b.eventId]);
      assert.deepEqual(await ids({ untilUs: wm }), []);
    });

    test('truncation keeps the oldest-updated items after since', async () => {
      const wm = await t.store.watermark();
      const made: number[] = [];
      for (let i = 0; i < 5; i++) made.push(ok(await put(t.store, itemRecord())).updatedUs!);
      const p = await t.store.queryItems({ sinceUs: wm, limit: 3, includeRetracted: false, materialOnly: false });
      assert.equal(p.truncated, true);
      assert.deepEqual(p.items.map((i) => parseTimestamp(i.lastUpdatedAt)), made.slice(0, 3));
      const rest = await t.store.queryItems({ sinceUs: made[2]!, limit: 3, includeRetracted: false, materialOnly: false });
      assert.equal(rest.truncated, false);
      assert.deepEqual(rest.items.map((i) => parseTimestamp(i.lastUpdatedAt)), made.slice(3));
    });

    test('entities merge by id only; relationships need both ends; history is kept', async () => {
      const alias = ok(await put(t.store, { kind: 'entity', id: 'coinbase-inc', type: 'ORGANIZATION', name: 'Coinbase', sourceUrl: 'https://www.coinbase.com/' }));
      assert.equal(alias.result, 'created');
      assert.equal((await t.store.entity('coinbase'))!.name, 'Coinbase');
      assert.equal((await t.store.entity('coinbase-inc'))!.name, 'Coinbase');
      const rel = await put(t.store, { kind: 'relationship', from: 'coinbase', to: 'nobody', type: 'BUILDS', sourceUrl: 'https://example.org/' });
      assert.equal(rel.ok, false);
      const good = ok(await put(t.store, { kind: 'relationship', from: 'coinbase', to: 'x402', type: 'BUILDS', sourceUrl: 'https://blog.cloudflare.com/x402/' }));
      assert.equal(good.id, 'coinbase--builds--x402');
      const renamed = ok(await put(t.store, { kind: 'entity', id: 'coinbase-inc', type: 'ORGANIZATION', name: 'Coinbase, Inc.', sourceUrl: 'https://www.coinbase.com/' }));
      assert.equal(renamed.version, 2);
      const versions = await t.db.all<{ n: number | string }>("SELECT COUNT(*) AS n FROM content_record_versions WHERE record_kind = 'entity' AND record_id = 'coinbase-inc'");
      assert.equal(Number(versions[0]!.n), 2);
      const page1 = await t.store.entities({ limit: 2 });
      const page2 = await t.store.entities({ limit: 2, afterId: page1.items[1]!.id });
      assert.equal(page1.more, true);
      assert.ok(page2.items[0]!.id > page1.items[1]!.id);
    });

    test('census snapshots are immutable by id and read newest first', async () => {
      const snap = (id: string, at: string, calls: number) => ({ kind: 'census', snapshotId: id, observedAt: at, source: 'https://402index.io/', distinctPayers: 3, resources: [{ id: 'https://a.example/r', family: 'data', calls }] });
      assert.equal(ok(await put(t.store, snap('c-old', '2026-10-01T00:00:00Z', 1))).result, 'created');
      assert.equal(ok(await put(t.store, snap('c-new', '2026-10-08T00:00:00Z', 5))).result, 'created');
      assert.equal(ok(await put(t.store, snap('c-new', '2026-10-08T00:00:00Z', 5))).result, 'unchanged');
      const clash = await put(t.store, snap('c-new', '2026-10-08T00:00:00Z', 6));
      assert.equal(clash.ok, false);
      if (!clash.ok) assert.equal(clash.rejection.code, 'content_conflict');
      assert.deepEqual((await t.store.latestCensus(2)).map((s) => s.snapshotId), ['c-new', 'c-old']);
      assert.deepEqual(await t.store.latestCensusIds(2), ['c-new', 'c-old']);
    });

    test('paid revenue from the ledger: settled and delivered only, operator wallets excluded, exact in atomic units', async () => {
      const fresh = await openTestStore(kind);
      try {
        await insertAttempt(fresh.db, { id: 'a1', payer: '0xAbC0000000000000000000000000000000000001', amount: '10000', state: 'settled', delivered: true });
        await insertAttempt(fresh.db, { id: 'a2', payer: '0xabc0000000000000000000000000000000000001', amount: '1000', state: 'settled', delivered: true });
        await insertAttempt(fresh.db, { id: 'a3', payer: '0x0000000000000000000000000000000000000002', amount: '5000', state: 'settled', delivered: true });
        await insertAttempt(fresh.db, { id: 'a4', payer: '0x0000000000000000000000000000000000000003', amount: '7000', state: 'settled', delivered: false });
        for (const [i, state] of ['reserved', 'verified', 'executed', 'settling', 'failed', 'unknown'].entries()) {
          await insertAttempt(fresh.db, { id: `b${i}`, payer: '0x0000000000000000000000000000000000000004', amount: '99999', state, delivered: state === 'executed' || state === 'settling' || state === 'unknown' });
        }
        const revenue = new LedgerPaidRevenue(fresh.ledger);
        assert.deepEqual(await revenue.paidRevenue([]), { atomic: 16000n, deliveries: 3, lastSettledAt: 1 });
        assert.deepEqual(await revenue.paidRevenue(['0x0000000000000000000000000000000000000002']), { atomic: 11000n, deliveries: 2, lastSettledAt: 1 });
        assert.deepEqual(await revenue.paidRevenue(['0xabc0000000000000000000000000000000000001']), { atomic: 5000n, deliveries: 1, lastSettledAt: 1 }, 'operator wallets match case-insensitively');
        assert.deepEqual(await revenue.paidRevenue(['0xABC0000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002']), { atomic: 0n, deliveries: 0, lastSettledAt: null });
      } finally {
        await fresh.close();
      }
    });

    test('concurrent writers and a poller: every material change is seen exactly once, in store-time order', async () => {
      const c = await openTestStore(kind);
      try {
        for (const e of TEST_ENTITIES) ok(await put(c.store, e));
        const base = itemRecord();
        const ids = Array.from({ length: 6 }, (_, i) => `${base.eventId}-w${i}`);
        const expected: number[] = [];
        let writing = true;
        const writers = ids.map(async (id, w) => {
          for (let v = 0; v < 6; v++) {
            const r = ok(await put(c.store, { ...base, eventId: id, slug: id, headline: `writer ${w} version ${v}` }));
            expected.push(r.updatedUs!);
          }
          if (w === 0) expected.push(ok(await c.store.retract(id, 'test retraction')).updatedUs!);
        });
        const seen: number[] = [];
        let cursor: ChangeKey = { us: 0 };
        const poller = (async () => {
          for (;;) {
            const stillWriting = writing;
            const page = await c.store.changesSince({ after: cursor, maxItems: 4 });
            for (const ch of page.changes) seen.push(ch.changedUs);
            cursor = page.truncated ? page.changes[page.changes.length - 1]!.key : { us: page.watermarkUs };
            if (!stillWriting && !page.truncated) return;
          }
        })();
        await Promise.all(writers);
        writing = false;
        await poller;
        assert.equal(new Set(seen).size, seen.length, 'no change seen twice');
        assert.deepEqual(seen, [...seen].sort((x, y) => x - y), 'in store-time order');
        assert.deepEqual([...seen].sort((x, y) => x - y), [...expected].sort((x, y) => x - y), 'every change seen');
        assert.equal(seen.length, 6 * 6 + 1);
      } finally {
        await c.close();
      }
    });
  });
}
