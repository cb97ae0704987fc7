/**
 * The content store: newswire items, the entity graph, census snapshots and
 * presence listings, in the same database as the ledger (SQLite or
 * PostgreSQL, one SQL dialect).
 *
 * Invariants this file keeps:
 * - History is append-only. Every write that changes an item adds a version
 *   row; the `newswire_items` row is only a projection of the latest version.
 * - `lastUpdatedAt` comes from the store clock (`content_clock`): each
 *   material change takes max(previous + 1 µs, now), so it is unique and
 *   strictly increasing across all items, even for writes in the same
 *   millisecond. Cosmetic changes (only `observedAt`) add a version but do not
 *   take a tick.
 * - Every write transaction starts by locking the clock row. Writers are
 *   therefore serialized and commit in timestamp order; a reader that first
 *   reads the clock (the watermark) and then bounds its query by it sees
 *   exactly the changes up to the watermark, none later, and a later commit can
 *   never carry a timestamp at or below a watermark already handed out.
 */
import { canonicalJson, sha256Hex } from '../payments/canonical-json.js';
import type { SqlDriver } from '../store/sql-driver.js';
import { zeroMovements } from './census.js';
import { reject, type Rejection } from './records.js';
import { daysBetween, formatMicros, parseTimestamp, utcDate } from './time.js';
import { confidenceFor, corroborationCount, isPublishable, tierRank, type SourceType } from './tiers.js';
import {
  ANALYSIS_ITEM_TYPES,
  MATERIAL_ITEM_TYPES,
  NEWSWIRE_SCHEMA_VERSION,
  PUBLISHER,
  USAGE_RIGHTS,
  type CensusRecord,
  type ChangeKind,
  type ContentRecord,
  type Entity,
  type EntityRecord,
  type EntityType,
  type EvidenceDetail,
  type GraphEvent,
  type ItemRecord,
  type ItemType,
  type Listing,
  type ListingRecord,
  type NewsroomState,
  type NewswireItem,
  type Relationship,
  type RelationshipRecord,
  type RelationshipType,
  type StoredItem,
} from './types.js';

type Tx = Pick<SqlDriver, 'run' | 'all' | 'kind'>;

export type WriteResultKind = 'created' | 'updated' | 'cosmetic' | 'unchanged';

export interface WriteOk {
  ok: true;
  result: WriteResultKind;
  kind: ContentRecord['kind'];
  id: string;
  version?: number;
  /** Store time of the change (material changes only). */
  updatedUs?: number;
  state?: NewsroomState;
  item?: NewswireItem;
}

export type WriteResult = WriteOk | { ok: false; rejection: Rejection };

export interface ItemQuery {
  sinceUs: number;
  untilUs?: number;
  limit: number;
  type?: ItemType;
  topic?: string;
  entity?: string;
  protocol?: string;
  /** Keep tiers with rank ≤ this (1 = TIER_A). */
  maxTierRank?: number;
  firstParty?: boolean;
  includeRetracted: boolean;
  materialOnly: boolean;
}

export interface ItemPage {
  /** The clock value the query was bounded by. */
  watermarkUs: number;
  /** The upper bound used: min(until, watermark). */
  upperUs: number;
  /** Kept items, oldest lastUpdatedAt first. */
  items: NewswireItem[];
  truncated: boolean;
}

export interface ChangeRow {
  change: ChangeKind;
  changedUs: number;
  changedFields: string[];
  stored: StoredItem;
}

export interface ChangePage {
  watermarkUs: number;
  changes: ChangeRow[];
  truncated: boolean;
}

export interface ItemVersion {
  version: number;
  changeKind: ChangeKind | 'COSMETIC' | 'HELD';
  material: boolean;
  updatedAt: string;
  recordedAt: string;
  changedFields: string[];
  item: NewswireItem;
}

export interface Page<T> {
  watermarkUs: number;
  items: T[];
  more: boolean;
}

export interface GraphCounts {
  entities: number;
  relationships: number;
  events: number;
  observations: number;
  byEntityType: Record<string, number>;
  byRelationshipType: Record<string, number>;
}

/** The store's public surface; the HTTP routes, the importer and the CLI see only this. */
export interface ContentStore {
  readonly kind: 'sqlite' | 'postgres';
  /** The store clock: the time of the last material change, in µs. */
  watermark(): Promise<number>;
  /** Apply one validated record (dispatch by kind). */
  apply(record: ContentRecord): Promise<WriteResult>;
  putItem(record: ItemRecord): Promise<WriteResult>;
  retract(eventId: string, reason: string): Promise<WriteResult>;
  putEntity(record: EntityRecord): Promise<WriteResult>;
  putRelationship(record: RelationshipRecord): Promise<WriteResult>;
  putListing(record: ListingRecord): Promise<WriteResult>;
  putCensus(record: CensusRecord): Promise<WriteResult>;
  getItem(eventId: string): Promise<{ state: NewsroomState; stored: StoredItem } | undefined>;
  /** The eventId of the item with this slug (slugs are unique). */
  eventIdBySlug(slug: string): Promise<string | undefined>;
  /** EventIds of the published or retracted items that correct this one. */
  correctionsOf(eventId: string): Promise<string[]>;
  itemVersions(eventId: string): Promise<ItemVersion[]>;
  itemCount(): Promise<number>;
  queryItems(q: ItemQuery): Promise<ItemPage>;
  /** Published material changes with store time in (cursorUs, watermark], oldest first. */
  changesSince(cursorUs: number, maxItems: number): Promise<ChangePage>;
  entities(q: { type?: EntityType; sinceUs?: number; afterId?: string; limit: number }): Promise<Page<Entity>>;
  entity(id: string): Promise<Entity | undefined>;
  relationships(q: { type?: RelationshipType; entity?: string; from?: string; to?: string; sinceUs?: number; afterId?: string; limit: number }): Promise<Page<Relationship>>;
  events(q: { type?: ItemType; entity?: string; sinceUs?: number; after?: { date: string; id: string }; limit: number }): Promise<Page<GraphEvent>>;
  graphCounts(): Promise<GraphCounts>;
  /** The newest census snapshots, newest first. */
  latestCensus(n: number): Promise<CensusRecord[]>;
  /** Ids of the newest census snapshots, newest first (cheap: answers from the index). */
  latestCensusIds(n: number): Promise<string[]>;
  listings(): Promise<Listing[]>;
  /**
   * Sum, in atomic units, of settled payments with a stored response (a
   * delivery) from payers not in `operatorWallets`. A 402 challenge, a failed
   * or unresolved attempt is never counted.
   */
  independentRevenueAtomic(operatorWallets: readonly string[]): Promise<bigint>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /** Run fn holding the database's cross-process lock (used for the one-time starter load). */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}

// ---- item documents ----

const STORE_FIELDS = new Set(['lastUpdatedAt', 'version', 'observedAt', 'publishedAt', 'retrospective']);

/** What makes two versions of an item materially the same: everything but observedAt. */
function materialView(r: ItemRecord) {
  return {
    slug: r.slug ?? r.eventId,
    eventDate: r.eventDate,
    datePrecision: r.datePrecision ?? 'day',
    type: r.type,
    headline: r.headline,
    summary: r.summary,
    whyItMatters: r.whyItMatters,
    entities: r.entities,
    protocols: r.protocols,
    topics: r.topics,
    sources: r.sources.map((s) => ({ url: s.url, sourceType: s.sourceType, supports: s.supports ?? null, publishedAt: s.publishedAt ?? null })),
    evidenceTier: r.evidenceTier,
    caveat: r.caveat ?? null,
    firstPartyInterest: r.firstPartyInterest ?? false,
    publicAnalysis: r.publicAnalysis ?? ANALYSIS_ITEM_TYPES.has(r.type),
    correctionOf: r.correctionOf ?? null,
    marketData: r.marketData ?? null,
  };
}

function materialHash(r: ItemRecord): string {
  return sha256Hex(canonicalJson(materialView(r)));
}

interface BuildContext {
  updatedUs: number;
  publishedUs: number;
  observedAt: string;
  version: number;
  state: NewsroomState;
  retractionReason: string | null;
}

function buildItem(r: ItemRecord, b: BuildContext): StoredItem {
  const v = materialView(r);
  const sourceTypes: SourceType[] = [];
  for (const s of v.sources) if (!sourceTypes.includes(s.sourceType)) sourceTypes.push(s.sourceType);
  const evidence: EvidenceDetail[] = v.sources.map((s) => ({ url: s.url, sourceType: s.sourceType, supports: s.supports, publishedAt: s.publishedAt }));
  const publishedAt = formatMicros(b.publishedUs);
  const item: NewswireItem = {
    eventId: r.eventId,
    eventDate: v.eventDate,
    datePrecision: v.datePrecision,
    publishedAt,
    observedAt: b.observedAt,
    lastUpdatedAt: formatMicros(b.updatedUs),
    version: b.version,
    headline: v.headline,
    summary: v.summary,
    whyItMatters: v.whyItMatters,
    entities: [...v.entities],
    protocols: [...v.protocols],
    topics: [...v.topics],
    sourceURLs: v.sources.map((s) => s.url),
    sourceTypes,
    evidenceTier: v.evidenceTier,
    confidence: confidenceFor(v.evidenceTier, v.caveat !== null),
    corroborationCount: corroborationCount(v.sources.map((s) => s.url)),
    evidenceNote: v.caveat,
    marketData: v.marketData,
    changeVsPrevious: zeroMovements(),
    freshness: 'live',
    publicAnalysis: v.publicAnalysis,
    usageRights: USAGE_RIGHTS,
    schemaVersion: NEWSWIRE_SCHEMA_VERSION,
    firstPartyInterest: v.firstPartyInterest,
    retrospective: daysBetween(v.eventDate, utcDate(Math.floor(b.publishedUs / 1000))) > 7,
    slug: v.slug,
    type: v.type,
    newsroomState: b.state,
    publisher: PUBLISHER,
    correctionOf: v.correctionOf,
    retracted: b.state === 'RETRACTED',
    retractionReason: b.retractionReason,
  };
  return { item, evidence };
}

/** Public item fields (and evidence) whose value differs between two versions. */
function changedFields(before: StoredItem | undefined, after: StoredItem): string[] {
  if (!before) return [];
  const out: string[] = [];
  const a = before.item as unknown as Record<string, unknown>;
  const b = after.item as unknown as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (STORE_FIELDS.has(k)) continue;
    if (canonicalJson(a[k]) !== canonicalJson(b[k])) out.push(k);
  }
  if (canonicalJson(before.evidence) !== canonicalJson(after.evidence)) out.push('evidence');
  return out;
}

interface ItemRow {
  event_id: string;
  version: number;
  newsroom_state: NewsroomState;
  content_hash: string;
  published_us: number | null;
  updated_us: number;
  doc: string;
}

interface EntityRow {
  id: string;
  entity_type: EntityType;
  name: string;
  first_party: number;
  source_url: string;
  version: number;
  content_hash: string;
  updated_us: number;
}

interface RelationshipRow {
  id: string;
  relationship_type: RelationshipType;
  from_id: string;
  to_id: string;
  source_url: string;
  version: number;
  content_hash: string;
  updated_us: number;
}

function entityOf(r: EntityRow): Entity {
  return { id: r.id, type: r.entity_type, name: r.name, firstParty: Number(r.first_party) === 1, sourceUrl: r.source_url, updatedAt: formatMicros(Number(r.updated_us)) };
}

function relationshipOf(r: RelationshipRow): Relationship {
  return { id: r.id, type: r.relationship_type, from: r.from_id, to: r.to_id, sourceUrl: r.source_url, updatedAt: formatMicros(Number(r.updated_us)) };
}

/** A graph event is the public view of a published newswire item: dated, sourced, never synthesized. */
export function eventOf(stored: StoredItem): GraphEvent {
  const it = stored.item;
  const first = stored.evidence[0]!;
  return {
    id: it.eventId,
    type: it.type,
    at: `${it.eventDate}T00:00:00.000000Z`,
    headline: it.headline,
    summary: it.summary,
    entityIds: [...it.entities],
    sourceUrl: first.url,
    firstParty: it.firstPartyInterest,
    lastUpdatedAt: it.lastUpdatedAt,
    evidence: {
      sourceUrl: first.url,
      sourceType: first.sourceType,
      observedAt: it.observedAt,
      sourcePublishedAt: first.publishedAt,
      retrievedAt: null,
      excerptHash: null,
      confidence: it.confidence,
      classification: it.evidenceTier === 'TIER_A' || it.evidenceTier === 'TIER_B' ? 'VERIFIED' : 'OBSERVED',
      provenance: null,
      method: 'operator_import',
      independentlyCorroborated: it.corroborationCount >= 2,
    },
  };
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * Filterable values of each item version, one row each, carrying the
 * version's store time: (tag_kind, tag_value, updated_us) is indexed, so a
 * filtered query walks one value's rows in lastUpdatedAt order.
 */
type TagKind = 'entity' | 'protocol' | 'topic' | 'type' | 'first_party';

const TAG_FILTER = (alias: string) =>
  `EXISTS (SELECT 1 FROM newswire_item_tags ${alias} WHERE ${alias}.event_id = i.event_id AND ${alias}.version = i.version AND ${alias}.tag_kind = ? AND ${alias}.tag_value = ?)`;

/** Below this many tag rows, graph events for a tag are read through the tag and sorted; above, by date with a probe. */
const RARE_TAG_ROWS = 2000;

export class SqlContentStore implements ContentStore {
  readonly kind: 'sqlite' | 'postgres';

  constructor(
    private readonly db: SqlDriver,
    private readonly now: () => number,
  ) {
    this.kind = db.kind;
  }

  // ---- clock ----

  async watermark(): Promise<number> {
    const rows = await this.db.all<{ last_us: number }>('SELECT last_us FROM content_clock WHERE id = 1');
    return Number(rows[0]?.last_us ?? 0);
  }

  /** Take the clock row's lock for the rest of the transaction (serializes content writers). */
  private async lock(tx: Tx): Promise<void> {
    await tx.run('UPDATE content_clock SET last_us = last_us WHERE id = 1');
  }

  /** Advance the clock: max(previous + 1 µs, now). */
  private async tick(tx: Tx): Promise<number> {
    const nowUs = Math.floor(this.now()) * 1000;
    const rows = await tx.all<{ last_us: number }>(
      'UPDATE content_clock SET last_us = CASE WHEN last_us + 1 > ? THEN last_us + 1 ELSE ? END WHERE id = 1 RETURNING last_us',
      [nowUs, nowUs],
    );
    return Number(rows[0]!.last_us);
  }

  // ---- writes ----

  async apply(record: ContentRecord): Promise<WriteResult> {
    switch (record.kind) {
      case 'item':
        return this.putItem(record);
      case 'retraction':
        return this.retract(record.eventId, record.reason);
      case 'entity':
        return this.putEntity(record);
      case 'relationship':
        return this.putRelationship(record);
      case 'listing':
        return this.putListing(record);
      case 'census':
        return this.putCensus(record);
    }
  }

  async putItem(r: ItemRecord): Promise<WriteResult> {
    const hash = materialHash(r);
    const slug = r.slug ?? r.eventId;
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.lock(tx);
      const cur = (await tx.all<ItemRow>('SELECT event_id, version, newsroom_state, content_hash, published_us, updated_us, doc FROM newswire_items WHERE event_id = ?', [r.eventId]))[0];

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

      const publishable = isPublishable(r.evidenceTier);
      const observedFromRecord = r.observedAt !== undefined ? formatMicros(parseTimestamp(r.observedAt)!) : undefined;

      if (cur) {
        const prev = JSON.parse(cur.doc) as StoredItem;
        const sameObservation = observedFromRecord === undefined || observedFromRecord === prev.item.observedAt;
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
        if (cur.content_hash === hash && observedFromRecord !== undefined) {
          // Cosmetic: a new version, same lastUpdatedAt, no entry in the change log.
          const version = Number(cur.version) + 1;
          const stored: StoredItem = { item: { ...prev.item, observedAt: observedFromRecord, version }, evidence: prev.evidence };
          await this.writeItemVersion(tx, stored, { kind: 'COSMETIC', material: false, hash, updatedUs: Number(cur.updated_us), recordedAt, changed: ['observedAt'] });
          await tx.run('UPDATE newswire_items SET version = ?, doc = ? WHERE event_id = ?', [version, JSON.stringify(stored), r.eventId]);
          return { ok: true, result: 'cosmetic', kind: 'item', id: r.eventId, version, updatedUs: Number(cur.updated_us), state: cur.newsroom_state, item: stored.item };
        }
        const updatedUs = await this.tick(tx);
        const firstPublication = publishable && cur.published_us === null;
        const publishedUs = cur.published_us !== null ? Number(cur.published_us) : updatedUs;
        const state: NewsroomState = publishable ? 'PUBLISHED' : 'HELD';
        const version = Number(cur.version) + 1;
        const stored = buildItem(r, { updatedUs, publishedUs, observedAt: observedFromRecord ?? formatMicros(updatedUs), version, state, retractionReason: null });
        const kind: ChangeKind | 'HELD' = !publishable ? 'HELD' : firstPublication ? (r.correctionOf ? 'CORRECTED' : 'NEW') : 'UPDATED';
        const changed = firstPublication ? [] : changedFields(prev, stored);
        await this.writeItemVersion(tx, stored, { kind, material: true, hash, updatedUs, recordedAt, changed });
        await tx.run(
          `UPDATE newswire_items SET slug = ?, version = ?, event_date = ?, item_type = ?, tier_rank = ?, newsroom_state = ?, first_party = ?, material_type = ?,
             correction_of = ?, content_hash = ?, published_us = ?, updated_us = ?, doc = ? WHERE event_id = ?`,
          [slug, version, r.eventDate, r.type, tierRank(r.evidenceTier), state, stored.item.firstPartyInterest ? 1 : 0, MATERIAL_ITEM_TYPES.has(r.type) ? 1 : 0,
            r.correctionOf ?? null, hash, publishable ? publishedUs : null, updatedUs, JSON.stringify(stored), r.eventId],
        );
        if (kind !== 'HELD') await tx.run('INSERT INTO newswire_changes (changed_us, event_id, version, change_kind) VALUES (?, ?, ?, ?)', [updatedUs, r.eventId, version, kind]);
        return { ok: true, result: 'updated', kind: 'item', id: r.eventId, version, updatedUs, state, item: stored.item };
      }

      const updatedUs = await this.tick(tx);
      const state: NewsroomState = publishable ? 'PUBLISHED' : 'HELD';
      const stored = buildItem(r, { updatedUs, publishedUs: updatedUs, observedAt: observedFromRecord ?? formatMicros(updatedUs), version: 1, state, retractionReason: null });
      const kind: ChangeKind | 'HELD' = !publishable ? 'HELD' : r.correctionOf ? 'CORRECTED' : 'NEW';
      await this.writeItemVersion(tx, stored, { kind, material: true, hash, updatedUs, recordedAt, changed: [] });
      await tx.run(
        `INSERT INTO newswire_items (event_id, slug, version, event_date, item_type, tier_rank, newsroom_state, first_party, material_type, correction_of,
           content_hash, published_us, updated_us, doc) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [r.eventId, slug, r.eventDate, r.type, tierRank(r.evidenceTier), state, stored.item.firstPartyInterest ? 1 : 0, MATERIAL_ITEM_TYPES.has(r.type) ? 1 : 0,
          r.correctionOf ?? null, hash, publishable ? updatedUs : null, updatedUs, JSON.stringify(stored)],
      );
      if (kind !== 'HELD') await tx.run('INSERT INTO newswire_changes (changed_us, event_id, version, change_kind) VALUES (?, ?, 1, ?)', [updatedUs, r.eventId, kind]);
      return { ok: true, result: 'created', kind: 'item', id: r.eventId, version: 1, updatedUs, state, item: stored.item };
    });
  }

  private async writeItemVersion(
    tx: Tx,
    stored: StoredItem,
    v: { kind: ChangeKind | 'COSMETIC' | 'HELD'; material: boolean; hash: string; updatedUs: number; recordedAt: number; changed: string[] },
  ): Promise<void> {
    const it = stored.item;
    await tx.run(
      `INSERT INTO newswire_item_versions (event_id, version, change_kind, material, updated_us, recorded_at, content_hash, changed_fields, doc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [it.eventId, it.version, v.kind, v.material ? 1 : 0, v.updatedUs, Math.floor(v.recordedAt), v.hash, JSON.stringify(v.changed), JSON.stringify(stored)],
    );
    const tags: Array<[TagKind, string]> = [
      ...it.entities.map((e): [TagKind, string] => ['entity', e]),
      ...it.protocols.map((p): [TagKind, string] => ['protocol', p]),
      ...it.topics.map((t): [TagKind, string] => ['topic', t]),
      ['type', it.type],
      ['first_party', it.firstPartyInterest ? 'true' : 'false'],
    ];
    for (const [kind, value] of tags) {
      await tx.run('INSERT INTO newswire_item_tags (event_id, version, tag_kind, tag_value, updated_us) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING', [
        it.eventId, it.version, kind, value, v.updatedUs,
      ]);
    }
  }

  async retract(eventId: string, reason: string): Promise<WriteResult> {
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.lock(tx);
      const cur = (await tx.all<ItemRow>('SELECT event_id, version, newsroom_state, content_hash, published_us, updated_us, doc FROM newswire_items WHERE event_id = ?', [eventId]))[0];
      if (!cur) return reject('not_found', `No item ${eventId}.`, [{ path: '/eventId', rule: 'known-item', message: 'no such item' }]);
      const prev = JSON.parse(cur.doc) as StoredItem;
      if (cur.newsroom_state === 'HELD') {
        return reject('content_conflict', `Item ${eventId} was never published (TIER_D); there is nothing to retract.`, [{ path: '/eventId', rule: 'published-item', message: 'is not published' }]);
      }
      if (cur.newsroom_state === 'RETRACTED') {
        return { ok: true, result: 'unchanged', kind: 'retraction', id: eventId, version: Number(cur.version), state: 'RETRACTED', item: prev.item };
      }
      const updatedUs = await this.tick(tx);
      const version = Number(cur.version) + 1;
      const stored: StoredItem = {
        item: { ...prev.item, version, lastUpdatedAt: formatMicros(updatedUs), newsroomState: 'RETRACTED', retracted: true, retractionReason: reason },
        evidence: prev.evidence,
      };
      await this.writeItemVersion(tx, stored, { kind: 'RETRACTED', material: true, hash: cur.content_hash, updatedUs, recordedAt, changed: ['newsroomState', 'retracted', 'retractionReason'] });
      await tx.run("UPDATE newswire_items SET version = ?, newsroom_state = 'RETRACTED', updated_us = ?, doc = ? WHERE event_id = ?", [version, updatedUs, JSON.stringify(stored), eventId]);
      await tx.run("INSERT INTO newswire_changes (changed_us, event_id, version, change_kind) VALUES (?, ?, ?, 'RETRACTED')", [updatedUs, eventId, version]);
      return { ok: true, result: 'updated', kind: 'retraction', id: eventId, version, updatedUs, state: 'RETRACTED', item: stored.item };
    });
  }

  async putEntity(r: EntityRecord): Promise<WriteResult> {
    const doc = { id: r.id, type: r.type, name: r.name, firstParty: r.firstParty ?? false, sourceUrl: r.sourceUrl };
    const hash = sha256Hex(canonicalJson(doc));
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.lock(tx);
      const cur = (await tx.all<EntityRow>('SELECT * FROM graph_entities WHERE id = ?', [r.id]))[0];
      if (cur && cur.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'entity', id: r.id, version: Number(cur.version) };
      const updatedUs = await this.tick(tx);
      const version = cur ? Number(cur.version) + 1 : 1;
      if (cur) {
        await tx.run('UPDATE graph_entities SET entity_type = ?, name = ?, first_party = ?, source_url = ?, version = ?, content_hash = ?, updated_us = ? WHERE id = ?', [
          doc.type, doc.name, doc.firstParty ? 1 : 0, doc.sourceUrl, version, hash, updatedUs, r.id,
        ]);
      } else {
        await tx.run('INSERT INTO graph_entities (id, entity_type, name, first_party, source_url, version, content_hash, updated_us) VALUES (?, ?, ?, ?, ?, 1, ?, ?)', [
          r.id, doc.type, doc.name, doc.firstParty ? 1 : 0, doc.sourceUrl, hash, updatedUs,
        ]);
      }
      await this.recordVersion(tx, 'entity', r.id, version, updatedUs, recordedAt, doc);
      return { ok: true, result: cur ? 'updated' : 'created', kind: 'entity', id: r.id, version, updatedUs };
    });
  }

  async putRelationship(r: RelationshipRecord): Promise<WriteResult> {
    const id = r.id ?? `${r.from}--${r.type.toLowerCase()}--${r.to}`;
    const doc = { id, type: r.type, from: r.from, to: r.to, sourceUrl: r.sourceUrl };
    const hash = sha256Hex(canonicalJson(doc));
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.lock(tx);
      const found = await tx.all<{ id: string }>('SELECT id FROM graph_entities WHERE id IN (?, ?)', [r.from, r.to]);
      const have = new Set(found.map((f) => f.id));
      const missing = [r.from, r.to].map((e, i) => (have.has(e) ? undefined : { path: i === 0 ? '/from' : '/to', rule: 'known-entity', message: `no entity with id "${e}"` })).filter((d) => d !== undefined);
      if (missing.length) return reject('unknown_reference', 'The relationship names entities the graph does not have; import them first.', missing);
      const cur = (await tx.all<RelationshipRow>('SELECT * FROM graph_relationships WHERE id = ?', [id]))[0];
      if (cur && cur.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'relationship', id, version: Number(cur.version) };
      const updatedUs = await this.tick(tx);
      const version = cur ? Number(cur.version) + 1 : 1;
      if (cur) {
        await tx.run('UPDATE graph_relationships SET relationship_type = ?, from_id = ?, to_id = ?, source_url = ?, version = ?, content_hash = ?, updated_us = ? WHERE id = ?', [
          r.type, r.from, r.to, r.sourceUrl, version, hash, updatedUs, id,
        ]);
      } else {
        await tx.run(
          'INSERT INTO graph_relationships (id, relationship_type, from_id, to_id, source_url, version, content_hash, updated_us) VALUES (?, ?, ?, ?, ?, 1, ?, ?)',
          [id, r.type, r.from, r.to, r.sourceUrl, hash, updatedUs],
        );
      }
      await this.recordVersion(tx, 'relationship', id, version, updatedUs, recordedAt, doc);
      return { ok: true, result: cur ? 'updated' : 'created', kind: 'relationship', id, version, updatedUs };
    });
  }

  async putListing(r: ListingRecord): Promise<WriteResult> {
    const doc = {
      id: r.id,
      kind: r.listingKind,
      name: r.name,
      directoryId: r.directoryId ?? null,
      url: r.url,
      status: r.status,
      lastVerifiedAt: formatMicros(parseTimestamp(r.lastVerifiedAt)!),
      evidenceUrl: r.evidenceUrl ?? null,
    };
    const hash = sha256Hex(canonicalJson(doc));
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.lock(tx);
      if (doc.directoryId) {
        const found = await tx.all('SELECT id FROM graph_entities WHERE id = ?', [doc.directoryId]);
        if (!found.length) return reject('unknown_reference', `No entity with id "${doc.directoryId}".`, [{ path: '/directoryId', rule: 'known-entity', message: 'no such entity' }]);
      }
      const cur = (await tx.all<{ version: number; content_hash: string }>('SELECT version, content_hash FROM distribution_listings WHERE id = ?', [r.id]))[0];
      if (cur && cur.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'listing', id: r.id, version: Number(cur.version) };
      const updatedUs = await this.tick(tx);
      const version = cur ? Number(cur.version) + 1 : 1;
      const full: Listing = { ...doc, updatedAt: formatMicros(updatedUs) };
      if (cur) {
        await tx.run('UPDATE distribution_listings SET version = ?, content_hash = ?, updated_us = ?, doc = ? WHERE id = ?', [version, hash, updatedUs, JSON.stringify(full), r.id]);
      } else {
        await tx.run('INSERT INTO distribution_listings (id, version, content_hash, updated_us, doc) VALUES (?, 1, ?, ?, ?)', [r.id, hash, updatedUs, JSON.stringify(full)]);
      }
      await this.recordVersion(tx, 'listing', r.id, version, updatedUs, recordedAt, full);
      return { ok: true, result: cur ? 'updated' : 'created', kind: 'listing', id: r.id, version, updatedUs };
    });
  }

  async putCensus(r: CensusRecord): Promise<WriteResult> {
    const { kind: _kind, ...rest } = r;
    const doc: CensusRecord = { kind: 'census', ...rest };
    const hash = sha256Hex(canonicalJson(doc));
    const observedUs = parseTimestamp(r.observedAt)!;
    const importedAt = Math.floor(this.now());
    // Census snapshots are immutable by id: the insert itself is the claim.
    const changed = await this.db.run(
      'INSERT INTO census_snapshots (snapshot_id, observed_us, imported_at, content_hash, doc) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [r.snapshotId, observedUs, importedAt, hash, JSON.stringify(doc)],
    );
    if (changed === 1) return { ok: true, result: 'created', kind: 'census', id: r.snapshotId };
    const cur = (await this.db.all<{ content_hash: string }>('SELECT content_hash FROM census_snapshots WHERE snapshot_id = ?', [r.snapshotId]))[0];
    if (cur?.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'census', id: r.snapshotId };
    return reject('content_conflict', `Census snapshot ${r.snapshotId} is already imported with different content; snapshots are immutable. Use a new snapshotId.`, [
      { path: '/snapshotId', rule: 'immutable', message: 'already imported with different content' },
    ]);
  }

  private async recordVersion(tx: Tx, kind: string, id: string, version: number, updatedUs: number, recordedAt: number, doc: unknown): Promise<void> {
    await tx.run('INSERT INTO content_record_versions (record_kind, record_id, version, updated_us, recorded_at, doc) VALUES (?, ?, ?, ?, ?, ?)', [
      kind, id, version, updatedUs, Math.floor(recordedAt), JSON.stringify(doc),
    ]);
  }

  // ---- reads ----

  async getItem(eventId: string) {
    const row = (await this.db.all<{ newsroom_state: NewsroomState; doc: string }>('SELECT newsroom_state, doc FROM newswire_items WHERE event_id = ?', [eventId]))[0];
    return row ? { state: row.newsroom_state, stored: JSON.parse(row.doc) as StoredItem } : undefined;
  }

  async eventIdBySlug(slug: string): Promise<string | undefined> {
    const row = (await this.db.all<{ event_id: string }>('SELECT event_id FROM newswire_items WHERE slug = ?', [slug]))[0];
    return row?.event_id;
  }

  async correctionsOf(eventId: string): Promise<string[]> {
    const rows = await this.db.all<{ event_id: string }>(
      "SELECT event_id FROM newswire_items WHERE correction_of = ? AND newsroom_state IN ('PUBLISHED', 'RETRACTED') ORDER BY event_id",
      [eventId],
    );
    return rows.map((r) => r.event_id);
  }

  async itemVersions(eventId: string): Promise<ItemVersion[]> {
    const rows = await this.db.all<{ version: number; change_kind: ItemVersion['changeKind']; material: number; updated_us: number; recorded_at: number; changed_fields: string; doc: string }>(
      'SELECT version, change_kind, material, updated_us, recorded_at, changed_fields, doc FROM newswire_item_versions WHERE event_id = ? ORDER BY version',
      [eventId],
    );
    return rows.map((r) => ({
      version: Number(r.version),
      changeKind: r.change_kind,
      material: Number(r.material) === 1,
      updatedAt: formatMicros(Number(r.updated_us)),
      recordedAt: new Date(Number(r.recorded_at)).toISOString(),
      changedFields: JSON.parse(r.changed_fields) as string[],
      item: (JSON.parse(r.doc) as StoredItem).item,
    }));
  }

  async itemCount(): Promise<number> {
    const rows = await this.db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM newswire_items');
    return Number(rows[0]?.n ?? 0);
  }

  async queryItems(q: ItemQuery): Promise<ItemPage> {
    // Read the watermark first, then bound the query by it (see the file comment).
    const watermarkUs = await this.watermark();
    const upperUs = q.untilUs === undefined ? watermarkUs : Math.min(q.untilUs, watermarkUs);
    const tags: Array<[TagKind, string]> = [];
    if (q.entity !== undefined) tags.push(['entity', q.entity]);
    if (q.protocol !== undefined) tags.push(['protocol', q.protocol]);
    if (q.topic !== undefined) tags.push(['topic', q.topic]);
    if (q.type !== undefined) tags.push(['type', q.type]);
    if (q.firstParty !== undefined) tags.push(['first_party', q.firstParty ? 'true' : 'false']);
    const where = [q.includeRetracted ? "i.newsroom_state IN ('PUBLISHED', 'RETRACTED')" : "i.newsroom_state = 'PUBLISHED'"];
    const params: unknown[] = [];
    if (q.maxTierRank !== undefined) {
      where.push('i.tier_rank <= ?');
      params.push(q.maxTierRank);
    }
    if (q.materialOnly) where.push('i.material_type = 1');
    let sql: string;
    const driver = tags.shift();
    if (driver) {
      // Walk the first filter's tag rows in store-time order; only rows of an
      // item's current version join. (CROSS JOIN keeps that order in SQLite;
      // PostgreSQL plans it as an inner join from its statistics.)
      tags.forEach((_, n) => where.push(TAG_FILTER(`t${n}`)));
      sql =
        'SELECT i.doc FROM newswire_item_tags d CROSS JOIN newswire_items i ' +
        `WHERE d.tag_kind = ? AND d.tag_value = ? AND d.updated_us > ? AND d.updated_us <= ? AND i.event_id = d.event_id AND i.version = d.version AND ${where.join(' AND ')} ` +
        'ORDER BY d.updated_us LIMIT ?';
      params.unshift(driver[0], driver[1], q.sinceUs, upperUs);
      for (const [kind, value] of tags) params.push(kind, value);
    } else {
      sql = `SELECT i.doc FROM newswire_items i WHERE i.updated_us > ? AND i.updated_us <= ? AND ${where.join(' AND ')} ORDER BY i.updated_us LIMIT ?`;
      params.unshift(q.sinceUs, upperUs);
    }
    params.push(q.limit + 1);
    const rows = await this.db.all<{ doc: string }>(sql, params);
    const truncated = rows.length > q.limit;
    const items = rows.slice(0, q.limit).map((r) => (JSON.parse(r.doc) as StoredItem).item);
    return { watermarkUs, upperUs, items, truncated };
  }

  async changesSince(cursorUs: number, maxItems: number): Promise<ChangePage> {
    const watermarkUs = await this.watermark();
    const rows = await this.db.all<{ changed_us: number; change_kind: ChangeKind; changed_fields: string; doc: string }>(
      `SELECT c.changed_us, c.change_kind, v.changed_fields, v.doc FROM newswire_changes c
       JOIN newswire_item_versions v ON v.event_id = c.event_id AND v.version = c.version
       WHERE c.changed_us > ? AND c.changed_us <= ? ORDER BY c.changed_us LIMIT ?`,
      [cursorUs, watermarkUs, maxItems + 1],
    );
    const truncated = rows.length > maxItems;
    const changes = rows.slice(0, maxItems).map((r) => ({
      change: r.change_kind,
      changedUs: Number(r.changed_us),
      changedFields: JSON.parse(r.changed_fields) as string[],
      stored: JSON.parse(r.doc) as StoredItem,
    }));
    return { watermarkUs, changes, truncated };
  }

  async entities(q: { type?: EntityType; sinceUs?: number; afterId?: string; limit: number }): Promise<Page<Entity>> {
    const watermarkUs = await this.watermark();
    const where = ['updated_us <= ?'];
    const params: unknown[] = [watermarkUs];
    if (q.type) {
      where.push('entity_type = ?');
      params.push(q.type);
    }
    if (q.sinceUs !== undefined) {
      where.push('updated_us > ?');
      params.push(q.sinceUs);
    }
    if (q.afterId !== undefined) {
      where.push('id > ?');
      params.push(q.afterId);
    }
    params.push(q.limit + 1);
    const rows = await this.db.all<EntityRow>(`SELECT * FROM graph_entities WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`, params);
    return { watermarkUs, items: rows.slice(0, q.limit).map(entityOf), more: rows.length > q.limit };
  }

  async entity(id: string): Promise<Entity | undefined> {
    const row = (await this.db.all<EntityRow>('SELECT * FROM graph_entities WHERE id = ?', [id]))[0];
    return row ? entityOf(row) : undefined;
  }

  async relationships(q: { type?: RelationshipType; entity?: string; from?: string; to?: string; sinceUs?: number; afterId?: string; limit: number }): Promise<Page<Relationship>> {
    const watermarkUs = await this.watermark();
    const where = ['updated_us <= ?'];
    const params: unknown[] = [watermarkUs];
    if (q.type) {
      where.push('relationship_type = ?');
      params.push(q.type);
    }
    if (q.entity) {
      where.push('(from_id = ? OR to_id = ?)');
      params.push(q.entity, q.entity);
    }
    if (q.from) {
      where.push('from_id = ?');
      params.push(q.from);
    }
    if (q.to) {
      where.push('to_id = ?');
      params.push(q.to);
    }
    if (q.sinceUs !== undefined) {
      where.push('updated_us > ?');
      params.push(q.sinceUs);
    }
    if (q.afterId !== undefined) {
      where.push('id > ?');
      params.push(q.afterId);
    }
    params.push(q.limit + 1);
    const rows = await this.db.all<RelationshipRow>(`SELECT * FROM graph_relationships WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`, params);
    return { watermarkUs, items: rows.slice(0, q.limit).map(relationshipOf), more: rows.length > q.limit };
  }

  async events(q: { type?: ItemType; entity?: string; sinceUs?: number; after?: { date: string; id: string }; limit: number }): Promise<Page<GraphEvent>> {
    const watermarkUs = await this.watermark();
    // Events are published items only: a retracted or held item is not an event.
    // `+i.updated_us` (valid in both dialects) keeps the watermark bound from
    // steering SQLite onto the updated_us index, which would sort every row;
    // the (newsroom_state, event_date, event_id) index gives the order directly.
    const where = ["i.newsroom_state = 'PUBLISHED'", '+i.updated_us <= ?'];
    const params: unknown[] = [watermarkUs];
    if (q.type) {
      where.push('i.item_type = ?');
      params.push(q.type);
    }
    let from = 'newswire_items i';
    if (q.entity) {
      // A rare entity is read through its tag rows (and the few matches
      // sorted); a common one by date, probing its tag, which fills a page fast.
      const sample = await this.db.all<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM (SELECT 1 FROM newswire_item_tags WHERE tag_kind = ? AND tag_value = ? LIMIT ?) s',
        ['entity', q.entity, RARE_TAG_ROWS],
      );
      if (Number(sample[0]?.n ?? 0) < RARE_TAG_ROWS) {
        from = 'newswire_item_tags d CROSS JOIN newswire_items i';
        where.push("d.tag_kind = 'entity'", 'd.tag_value = ?', 'i.event_id = d.event_id', 'i.version = d.version');
      } else {
        where.push(TAG_FILTER('t'));
        params.push('entity');
      }
      params.push(q.entity);
    }
    if (q.sinceUs !== undefined) {
      where.push('i.updated_us > ?');
      params.push(q.sinceUs);
    }
    if (q.after) {
      where.push('(i.event_date < ? OR (i.event_date = ? AND i.event_id < ?))');
      params.push(q.after.date, q.after.date, q.after.id);
    }
    params.push(q.limit + 1);
    const rows = await this.db.all<{ doc: string }>(`SELECT i.doc FROM ${from} WHERE ${where.join(' AND ')} ORDER BY i.event_date DESC, i.event_id DESC LIMIT ?`, params);
    return { watermarkUs, items: rows.slice(0, q.limit).map((r) => eventOf(JSON.parse(r.doc) as StoredItem)), more: rows.length > q.limit };
  }

  /**
   * Item, entity and relationship counts change only with a clock tick, so
   * they are memoized by the watermark (counting 100,000 items is the one
   * part of the graph summary an index cannot answer in constant time).
   * Census snapshots do not tick the clock: observations are counted live.
   */
  private countsMemo: { watermarkUs: number; value: Omit<GraphCounts, 'observations'> } | undefined;

  async graphCounts(): Promise<GraphCounts> {
    const watermarkUs = await this.watermark();
    let base = this.countsMemo?.watermarkUs === watermarkUs ? this.countsMemo.value : undefined;
    if (!base) {
      base = await this.countContent();
      this.countsMemo = { watermarkUs, value: base };
    }
    const observations = Number((await this.db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM census_snapshots'))[0]?.n ?? 0);
    return { ...base, observations };
  }

  private async countContent(): Promise<Omit<GraphCounts, 'observations'>> {
    const byEntityType: Record<string, number> = {};
    let entities = 0;
    for (const r of await this.db.all<{ t: string; n: number | string }>('SELECT entity_type AS t, COUNT(*) AS n FROM graph_entities GROUP BY entity_type ORDER BY entity_type')) {
      byEntityType[r.t] = Number(r.n);
      entities += Number(r.n);
    }
    const byRelationshipType: Record<string, number> = {};
    let relationships = 0;
    for (const r of await this.db.all<{ t: string; n: number | string }>('SELECT relationship_type AS t, COUNT(*) AS n FROM graph_relationships GROUP BY relationship_type ORDER BY relationship_type')) {
      byRelationshipType[r.t] = Number(r.n);
      relationships += Number(r.n);
    }
    const events = Number((await this.db.all<{ n: number | string }>("SELECT COUNT(*) AS n FROM newswire_items WHERE newsroom_state = 'PUBLISHED'"))[0]?.n ?? 0);
    return { entities, relationships, events, byEntityType, byRelationshipType };
  }

  async latestCensus(n: number): Promise<CensusRecord[]> {
    const rows = await this.db.all<{ doc: string }>('SELECT doc FROM census_snapshots ORDER BY observed_us DESC, snapshot_id DESC LIMIT ?', [n]);
    return rows.map((r) => JSON.parse(r.doc) as CensusRecord);
  }

  async latestCensusIds(n: number): Promise<string[]> {
    const rows = await this.db.all<{ snapshot_id: string }>('SELECT snapshot_id FROM census_snapshots ORDER BY observed_us DESC, snapshot_id DESC LIMIT ?', [n]);
    return rows.map((r) => r.snapshot_id);
  }

  async listings(): Promise<Listing[]> {
    const rows = await this.db.all<{ doc: string }>('SELECT doc FROM distribution_listings ORDER BY id');
    return rows.map((r) => JSON.parse(r.doc) as Listing);
  }

  private revenueMemo: { probe: string; wallets: string; at: number; total: bigint } | undefined;

  async independentRevenueAtomic(operatorWallets: readonly string[]): Promise<bigint> {
    // Summing the ledger costs O(payments); the newest settlement (an index
    // lookup) tells whether anything changed since the last sum. A bounded age
    // covers a settlement recorded with an older clock by another instance.
    const probeRow = (
      await this.db.all<{ m: number | string | null; n: number | string }>(
        "SELECT MAX(updated_at) AS m, COUNT(*) AS n FROM payment_attempts WHERE state = 'settled' AND updated_at >= (SELECT COALESCE(MAX(updated_at), 0) FROM payment_attempts WHERE state = 'settled')",
      )
    )[0];
    const probe = `${probeRow?.m ?? 0}:${probeRow?.n ?? 0}`;
    const wallets = [...operatorWallets].map((w) => w.toLowerCase()).sort().join(',');
    const memo = this.revenueMemo;
    if (memo && memo.probe === probe && memo.wallets === wallets && Date.now() - memo.at < 60_000) return memo.total;
    const cast = this.db.kind === 'postgres' ? 'NUMERIC' : 'INTEGER';
    // Only settled attempts with a stored response are deliveries; reserved,
    // failed and unknown attempts (and every 402, which never reaches the
    // ledger as a payment) are not revenue.
    const rows = await this.db.all<{ payer: string; total: string | null }>(
      `SELECT lower(payer) AS payer, CAST(SUM(CAST(amount AS ${cast})) AS TEXT) AS total FROM payment_attempts
       WHERE state = 'settled' AND response_body IS NOT NULL GROUP BY lower(payer)`,
    );
    const own = new Set(operatorWallets.map((w) => w.toLowerCase()));
    let total = 0n;
    for (const r of rows) if (!own.has(r.payer) && r.total !== null) total += BigInt(r.total);
    this.revenueMemo = { probe, wallets, at: Date.now(), total };
    return total;
  }


  async getMeta(key: string): Promise<string | undefined> {
    return (await this.db.all<{ meta_value: string }>('SELECT meta_value FROM content_meta WHERE meta_key = ?', [key]))[0]?.meta_value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    const now = Math.floor(this.now());
    const changed = await this.db.run('UPDATE content_meta SET meta_value = ?, updated_at = ? WHERE meta_key = ?', [value, now, key]);
    if (changed === 0) await this.db.run('INSERT INTO content_meta (meta_key, meta_value, updated_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [key, value, now]);
  }

  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.withMigrationLock(fn);
  }
}
