/**
 * The starter corpus: written from the sourced facts kept in test/fixtures/reference (read
 * here only to compare; the product reads its own copy in src/intel/starter),
 * loaded once into an empty store — also when two instances start at once on
 * one PostgreSQL database.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { KNOWN_NETWORKS, loadConfig } from '../config.js';
import { createIntelModule } from './module.js';
import { loadStarterCorpus, readStarterFile, STARTER_META_KEY } from './starter.js';
import type { ModuleInit } from '../module.js';
import { tempDir } from '../../test/support/harness.js';
import { openTestStore, type TestStore } from '../../test/support/intel.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from '../../test/support/pg.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

// The sourced facts the starter corpus was written from, copied into the repository so every clone checks them.
const REFERENCE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'reference');
const readJsonl = (path: string): Json[] => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

function initFor(t: TestStore): ModuleInit {
  const config = loadConfig({ DATA_DIR: tempDir() });
  const payment = { network: 'eip155:84532', payTo: ('0x' + '1'.repeat(40)) as `0x${string}`, asset: KNOWN_NETWORKS['eip155:84532']!.asset, facilitatorUrls: ['http://127.0.0.1:9'], facilitatorAuth: {}, rpcUrl: 'http://127.0.0.1:9', ...config.timings };
  return { config, db: t.db, ledger: t.ledger, log: pino({ level: 'silent' }), now: Date.now, payment, ownWallets: [], presence: [] };
}

async function counts(t: TestStore) {
  const n = async (sql: string) => Number((await t.db.all<{ n: number | string }>(sql))[0]!.n);
  return {
    items: await n('SELECT COUNT(*) AS n FROM newswire_items'),
    versions: await n('SELECT COUNT(*) AS n FROM newswire_item_versions'),
    changes: await n('SELECT COUNT(*) AS n FROM newswire_changes'),
    entities: await n('SELECT COUNT(*) AS n FROM graph_entities'),
    relationships: await n('SELECT COUNT(*) AS n FROM graph_relationships'),
  };
}

describe('starter corpus', () => {
  test('matches the reference facts: every item carries a fact’s real source URL and its date; every fact is covered', () => {
    const facts = readJsonl(join(REFERENCE, 'machine-economy-facts.jsonl'));
    const entities = readJsonl(join(REFERENCE, 'machine-economy-entities.jsonl'));
    const rels = readJsonl(join(REFERENCE, 'machine-economy-relationships.jsonl'));
    const items = readStarterFile('items.ndjson').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(items.length, facts.length);
    const factKey = (url: string, date: string) => `${url}|${date}`;
    const byKey = new Map(facts.map((f) => [factKey(f.source_url, f.date), f]));
    const used = new Set<string>();
    for (const it of items) {
      assert.ok(it.sources.length >= 1, it.eventId);
      for (const s of it.sources) {
        const f = byKey.get(factKey(s.url, it.eventDate));
        assert.ok(f, `${it.eventId}: ${s.url} on ${it.eventDate} is not a fact`);
        assert.equal(s.sourceType, f.source_type);
        assert.deepEqual([...it.entities].sort(), [...f.entities].sort(), it.eventId);
        assert.deepEqual(it.protocols, f.protocols);
        assert.equal(it.type, f.type);
        assert.equal(it.datePrecision, f.date_precision);
        // Our own words, not the research notes.
        assert.notEqual(it.headline, f.what);
        assert.notEqual(it.summary, f.what);
        if (f.confidence === 'medium') {
          assert.equal(it.caveat, f.note, `${it.eventId} says why confidence is lower`);
          assert.notEqual(it.evidenceTier, 'TIER_A');
        } else {
          assert.equal(it.caveat, undefined);
        }
        used.add(factKey(s.url, it.eventDate));
      }
    }
    assert.equal(used.size, facts.length, 'every fact is in the corpus');
    const ents = readStarterFile('entities.ndjson').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(ents.map((e) => [e.id, e.type, e.name, e.sourceUrl]), entities.map((e) => [e.id, e.type, e.name, e.source_url]));
    const rs = readStarterFile('relationships.ndjson').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(rs.map((r) => [r.from, r.type, r.to, r.sourceUrl]), rels.map((r) => [r.from, r.type, r.to, r.source_url]));
  });

  test('loads into an empty store on first start, and only once', async () => {
    const t = await openTestStore('sqlite');
    try {
      const mod = createIntelModule();
      const caps = await mod.capabilities!(initFor(t));
      assert.deepEqual(caps.map((c) => [c.id, c.method, c.path, c.priceAtomic]), [['intelligence-changes-since', 'POST', '/v1/intelligence/changes-since', '10000']]);
      const first = await counts(t);
      assert.deepEqual(first, { items: 60, versions: 60, changes: 60, entities: 40, relationships: 50 });
      const meta = await mod.runtime()!.store.getMeta(STARTER_META_KEY);
      const wm = await t.store.watermark();
      await mod.capabilities!(initFor(t));
      await createIntelModule().capabilities!(initFor(t));
      assert.deepEqual(await counts(t), first);
      assert.equal(await t.store.getMeta(STARTER_META_KEY), meta);
      assert.equal(await t.store.watermark(), wm, 'a second start writes nothing');
      const items = (await t.store.queryItems({ sinceUs: 0, limit: 200, includeRetracted: true, materialOnly: false })).items;
      assert.ok(items.every((i) => i.sourceURLs.length >= 1 && i.sourceURLs.every((u) => /^https:\/\//.test(u))));
    } finally {
      await t.close();
    }
  });

  test('is not loaded into a store that already has content', async () => {
    const t = await openTestStore('sqlite');
    try {
      const r = await t.store.putEntity({ kind: 'entity', id: 'x402', type: 'PROTOCOL', name: 'x402', sourceUrl: 'https://github.com/coinbase/x402' });
      assert.equal(r.ok, true);
      assert.deepEqual(await loadStarterCorpus(t.store, Date.now), { loaded: false, reason: 'store_not_empty' });
      assert.equal((await counts(t)).items, 0);
    } finally {
      await t.close();
    }
  });

  test('two instances starting at once on one PostgreSQL database load it exactly once', { skip: pgConfigured() ? undefined : PG_SKIP_REASON }, async () => {
    const url = await freshPgUrl();
    const [a, b] = await Promise.all([openTestStore('postgres', Date.now, url), openTestStore('postgres', Date.now, url)]);
    try {
      const outcomes = await Promise.all([loadStarterCorpus(a.store, Date.now), loadStarterCorpus(b.store, Date.now)]);
      assert.deepEqual(outcomes.map((o) => o.loaded).sort(), [false, true]);
      assert.deepEqual(await counts(a), { items: 60, versions: 60, changes: 60, entities: 40, relationships: 50 });
      // And through the module, as two services would.
      await Promise.all([createIntelModule().capabilities!(initFor(a)), createIntelModule().capabilities!(initFor(b))]);
      assert.deepEqual(await counts(b), { items: 60, versions: 60, changes: 60, entities: 40, relationships: 50 });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('the intelligence module serves one service', () => {
  test('its store is over that service database; a second database is refused, not shared', async () => {
    const [a, b] = await Promise.all([openTestStore('sqlite'), openTestStore('sqlite')]);
    try {
      const mod = createIntelModule();
      await mod.capabilities!(initFor(a));
      assert.notEqual(await mod.runtime()!.store.getMeta(STARTER_META_KEY), undefined, 'the starter corpus went into its own database');
      await assert.rejects(async () => mod.capabilities!(initFor(b)), /another database/);
      assert.equal((await counts(b)).items, 0, 'nothing was written to the other database');
      const other = createIntelModule();
      await other.capabilities!(initFor(b));
      assert.notEqual(other.runtime()!.store, mod.runtime()!.store);
      assert.equal((await counts(b)).items, 60);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
