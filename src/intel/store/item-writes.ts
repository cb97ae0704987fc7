/**
 * Item writes: publish, update, hold (TIER_D) and retract newswire items.
 * History is append-only: every change adds a `newswire_item_versions` row
 * (and its tag rows); `newswire_items` is only the projection of the latest
 * version, and every published material change enters the change log
 * (`newswire_changes`) with its own clock tick.
 */
import type { SqlDriver } from '../../store/sql-driver.js';
import { buildItem, changedFields, materialHash } from '../item-document.js';
import { reject } from '../records.js';
import { formatMicros, parseTimestamp } from '../time.js';
import { isPublishable, tierRank } from '../tiers.js';
import { MATERIAL_ITEM_TYPES, type ChangeKind, type ItemRecord, type NewsroomState, type StoredItem } from '../types.js';
import type { ContentClock, Tx } from './clock.js';
import type { WriteResult } from './contract.js';
import { tagsOf } from './tags.js';

interface ItemRow {
  event_id: string;
  version: number;
  newsroom_state: NewsroomState;
  content_hash: string;
  published_us: number | null;
  updated_us: number;
  doc: string;
}

/** One putItem call, once its record is known to be writable. */
interface ItemWrite {
  r: ItemRecord;
  hash: string;
  slug: string;
  recordedAt: number;
  publishable: boolean;
  /** The record's observedAt in store form, when it gives one. */
  observedAt: string | undefined;
}

type VersionKind = ChangeKind | 'COSMETIC' | 'HELD';

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

async function currentRow(tx: Tx, eventId: string): Promise<ItemRow | undefined> {
  return (await tx.all<ItemRow>('SELECT event_id, version, newsroom_state, content_hash, published_us, updated_us, doc FROM newswire_items WHERE event_id = ?', [eventId]))[0];
}

/** Entities, protocols, the corrected item and the slug, checked inside the write transaction. */
async function checkReferences(tx: Tx, r: ItemRecord, slug: string): Promise<WriteResult | undefined> {
  // References are checked by id only: an unknown id is an error, never matched by name.
  const ids = [...new Set([...r.entities, ...r.protocols])];
  if (ids.length) {
    const found = await tx.all<{ id: string; entity_type: string }>(`SELECT id, entity_type FROM graph_entities WHERE id IN (${placeholders(ids.length)})`, ids);
    const byId = new Map(found.map((f) => [f.id, f.entity_type]));
    const details = [
      ...r.entities.map((e, i) => (byId.has(e) ? undefined : { path: `/entities/${i}`, rule: 'known-entity', message: `no entity with id "${e}"` })),
      ...r.protocols.map((p, i) =>
        byId.get(p) === 'PROTOCOL' ? undefined : { path: `/protocols/${i}`, rule: 'known-protocol', message: byId.has(p) ? `"${p}" is not a PROTOCOL entity` : `no entity with id "${p}"` },
      ),
    ].filter((d): d is { path: string; rule: string; message: string } => d !== undefined);
    if (details.length) return reject('unknown_reference', 'The item names entities or protocols the graph does not have; import them first.', details);
  }
  if (r.correctionOf) {
    const target = (await tx.all<{ newsroom_state: NewsroomState }>('SELECT newsroom_state FROM newswire_items WHERE event_id = ?', [r.correctionOf]))[0];
    if (!target || target.newsroom_state === 'HELD') {
      return reject('unknown_reference', `correctionOf names "${r.correctionOf}", which is not a published item.`, [{ path: '/correctionOf', rule: 'known-item', message: 'must name a published item' }]);
    }
  }
  const slugOwner = (await tx.all<{ event_id: string }>('SELECT event_id FROM newswire_items WHERE slug = ?', [slug]))[0];
  if (slugOwner && slugOwner.event_id !== r.eventId) {
    return reject('content_conflict', `The slug "${slug}" belongs to item ${slugOwner.event_id}.`, [{ path: '/slug', rule: 'unique', message: 'is taken' }]);
  }
  return undefined;
}

async function writeItemVersion(
  tx: Tx,
  stored: StoredItem,
  v: { kind: VersionKind; material: boolean; hash: string; updatedUs: number; recordedAt: number; changed: string[] },
): Promise<void> {
  const it = stored.item;
  await tx.run(
    `INSERT INTO newswire_item_versions (event_id, version, change_kind, material, updated_us, recorded_at, content_hash, changed_fields, doc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [it.eventId, it.version, v.kind, v.material ? 1 : 0, v.updatedUs, Math.floor(v.recordedAt), v.hash, JSON.stringify(v.changed), JSON.stringify(stored)],
  );
  for (const [kind, value] of tagsOf(it)) {
    await tx.run('INSERT INTO newswire_item_tags (event_id, version, tag_kind, tag_value, updated_us) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING', [
      it.eventId, it.version, kind, value, v.updatedUs,
    ]);
  }
}

export class ItemWrites {
  constructor(
    private readonly db: SqlDriver,
    private readonly clock: ContentClock,
    private readonly now: () => number,
  ) {}

  async putItem(r: ItemRecord): Promise<WriteResult> {
    const hash = materialHash(r);
    const slug = r.slug ?? r.eventId;
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.clock.lock(tx);
      const cur = await currentRow(tx, r.eventId);
      const refused = await checkReferences(tx, r, slug);
      if (refused) return refused;
      const observedAt = r.observedAt !== undefined ? formatMicros(parseTimestamp(r.observedAt)!) : undefined;
      const w: ItemWrite = { r, hash, slug, recordedAt, publishable: isPublishable(r.evidenceTier), observedAt };
      return cur ? this.revise(tx, w, cur) : this.create(tx, w);
    });
  }

  /** A new version of a stored item: unchanged, refused, cosmetic or material. */
  private async revise(tx: Tx, w: ItemWrite, cur: ItemRow): Promise<WriteResult> {
    const { r, hash, slug, recordedAt, publishable } = w;
    const prev = JSON.parse(cur.doc) as StoredItem;
    const sameObservation = w.observedAt === undefined || w.observedAt === prev.item.observedAt;
    if (cur.content_hash === hash && sameObservation) {
      // Idempotent by eventId: importing what is already stored changes nothing, whatever the item's state.
      return { ok: true, result: 'unchanged', kind: 'item', id: r.eventId, version: Number(cur.version), state: cur.newsroom_state, item: prev.item };
    }
    if (cur.newsroom_state === 'RETRACTED') {
      return reject('content_conflict', `Item ${r.eventId} is retracted; a retracted item never changes. Publish a new item instead.`, [{ path: '/eventId', rule: 'retracted', message: 'is retracted' }]);
    }
    if (!publishable && cur.published_us !== null) {
      return reject('content_conflict', `Item ${r.eventId} is published; it cannot be moved to TIER_D. Retract it instead.`, [{ path: '/evidenceTier', rule: 'published-item', message: 'cannot become TIER_D' }]);
    }
    if (cur.content_hash === hash && w.observedAt !== undefined) {
      // Cosmetic: a new version, same lastUpdatedAt, no entry in the change log.
      const version = Number(cur.version) + 1;
      const provenance = r.provenance ?? prev.provenance;
      const stored: StoredItem = { item: { ...prev.item, observedAt: w.observedAt, version }, evidence: prev.evidence, ...(provenance ? { provenance } : {}) };
      await writeItemVersion(tx, stored, { kind: 'COSMETIC', material: false, hash, updatedUs: Number(cur.updated_us), recordedAt, changed: ['observedAt'] });
      await tx.run('UPDATE newswire_items SET version = ?, doc = ? WHERE event_id = ?', [version, JSON.stringify(stored), r.eventId]);
      return { ok: true, result: 'cosmetic', kind: 'item', id: r.eventId, version, updatedUs: Number(cur.updated_us), state: cur.newsroom_state, item: stored.item };
    }
    const updatedUs = await this.clock.tick(tx);
    const firstPublication = publishable && cur.published_us === null;
    const publishedUs = cur.published_us !== null ? Number(cur.published_us) : updatedUs;
    const state: NewsroomState = publishable ? 'PUBLISHED' : 'HELD';
    const version = Number(cur.version) + 1;
    const stored = buildItem(r, { updatedUs, publishedUs, observedAt: w.observedAt ?? formatMicros(updatedUs), version, state, retractionReason: null });
    const kind: VersionKind = !publishable ? 'HELD' : firstPublication ? (r.correctionOf ? 'CORRECTED' : 'NEW') : 'UPDATED';
    const changed = firstPublication ? [] : changedFields(prev, stored);
    await writeItemVersion(tx, stored, { kind, material: true, hash, updatedUs, recordedAt, changed });
    await tx.run(
      `UPDATE newswire_items SET slug = ?, version = ?, event_date = ?, item_type = ?, tier_rank = ?, newsroom_state = ?, first_party = ?, material_type = ?,
         correction_of = ?, content_hash = ?, published_us = ?, updated_us = ?, doc = ? WHERE event_id = ?`,
      [slug, version, r.eventDate, r.type, tierRank(r.evidenceTier), state, stored.item.firstPartyInterest ? 1 : 0, MATERIAL_ITEM_TYPES.has(r.type) ? 1 : 0,
        r.correctionOf ?? null, hash, publishable ? publishedUs : null, updatedUs, JSON.stringify(stored), r.eventId],
    );
    if (kind !== 'HELD') await tx.run('INSERT INTO newswire_changes (changed_us, event_id, version, change_kind) VALUES (?, ?, ?, ?)', [updatedUs, r.eventId, version, kind]);
    return { ok: true, result: 'updated', kind: 'item', id: r.eventId, version, updatedUs, state, item: stored.item };
  }

  private async create(tx: Tx, w: ItemWrite): Promise<WriteResult> {
    const { r, hash, slug, recordedAt, publishable } = w;
    const updatedUs = await this.clock.tick(tx);
    const state: NewsroomState = publishable ? 'PUBLISHED' : 'HELD';
    const stored = buildItem(r, { updatedUs, publishedUs: updatedUs, observedAt: w.observedAt ?? formatMicros(updatedUs), version: 1, state, retractionReason: null });
    const kind: VersionKind = !publishable ? 'HELD' : r.correctionOf ? 'CORRECTED' : 'NEW';
    await writeItemVersion(tx, stored, { kind, material: true, hash, updatedUs, recordedAt, changed: [] });
    await tx.run(
      `INSERT INTO newswire_items (event_id, slug, version, event_date, item_type, tier_rank, newsroom_state, first_party, material_type, correction_of,
         content_hash, published_us, updated_us, doc) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [r.eventId, slug, r.eventDate, r.type, tierRank(r.evidenceTier), state, stored.item.firstPartyInterest ? 1 : 0, MATERIAL_ITEM_TYPES.has(r.type) ? 1 : 0,
        r.correctionOf ?? null, hash, publishable ? updatedUs : null, updatedUs, JSON.stringify(stored)],
    );
    if (kind !== 'HELD') await tx.run('INSERT INTO newswire_changes (changed_us, event_id, version, change_kind) VALUES (?, ?, 1, ?)', [updatedUs, r.eventId, kind]);
    return { ok: true, result: 'created', kind: 'item', id: r.eventId, version: 1, updatedUs, state, item: stored.item };
  }

  async retract(eventId: string, reason: string): Promise<WriteResult> {
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.clock.lock(tx);
      const cur = await currentRow(tx, eventId);
      if (!cur) return reject('not_found', `No item ${eventId}.`, [{ path: '/eventId', rule: 'known-item', message: 'no such item' }]);
      const prev = JSON.parse(cur.doc) as StoredItem;
      if (cur.newsroom_state === 'HELD') {
        return reject('content_conflict', `Item ${eventId} was never published (TIER_D); there is nothing to retract.`, [{ path: '/eventId', rule: 'published-item', message: 'is not published' }]);
      }
      if (cur.newsroom_state === 'RETRACTED') {
        return { ok: true, result: 'unchanged', kind: 'retraction', id: eventId, version: Number(cur.version), state: 'RETRACTED', item: prev.item };
      }
      const updatedUs = await this.clock.tick(tx);
      const version = Number(cur.version) + 1;
      const stored: StoredItem = {
        item: { ...prev.item, version, lastUpdatedAt: formatMicros(updatedUs), newsroomState: 'RETRACTED', retracted: true, retractionReason: reason },
        evidence: prev.evidence,
        ...(prev.provenance ? { provenance: prev.provenance } : {}),
      };
      await writeItemVersion(tx, stored, { kind: 'RETRACTED', material: true, hash: cur.content_hash, updatedUs, recordedAt, changed: ['newsroomState', 'retracted', 'retractionReason'] });
      await tx.run("UPDATE newswire_items SET version = ?, newsroom_state = 'RETRACTED', updated_us = ?, doc = ? WHERE event_id = ?", [version, updatedUs, JSON.stringify(stored), eventId]);
      await tx.run("INSERT INTO newswire_changes (changed_us, event_id, version, change_kind) VALUES (?, ?, ?, 'RETRACTED')", [updatedUs, eventId, version]);
      return { ok: true, result: 'updated', kind: 'retraction', id: eventId, version, updatedUs, state: 'RETRACTED', item: stored.item };
    });
  }
}
