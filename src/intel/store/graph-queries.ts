/**
 * Graph reads: entity and relationship collections by id, events (the
 * published items seen as dated events, newest first) and the counts of the
 * graph summary. Lists are bounded by the watermark read first (clock.ts).
 */
import type { SqlDriver } from '../../store/sql-driver.js';
import { eventOf } from '../item-document.js';
import { formatMicros } from '../time.js';
import type { Entity, EntityType, GraphEvent, Relationship, RelationshipType, StoredItem } from '../types.js';
import type { ContentClock } from './clock.js';
import type { EntityQuery, EventQuery, GraphCounts, Page, RelationshipQuery } from './contract.js';
import { TAG_FILTER } from './tags.js';

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

/** Below this many tag rows, graph events for a tag are read through the tag and sorted; above, by date with a probe. */
const RARE_TAG_ROWS = 2000;

/** A WHERE condition and its parameters, or nothing when the query does not ask for it. */
type Filter = readonly [string, readonly unknown[]] | undefined | false | '' | 0;

export class GraphQueries {
  constructor(
    private readonly db: SqlDriver,
    private readonly clock: ContentClock,
  ) {}

  async entities(q: EntityQuery): Promise<Page<Entity>> {
    return this.page<EntityRow, Entity>('graph_entities', [q.type && ['entity_type = ?', [q.type]]], q, entityOf);
  }

  async entity(id: string): Promise<Entity | undefined> {
    const row = (await this.db.all<EntityRow>('SELECT * FROM graph_entities WHERE id = ?', [id]))[0];
    return row ? entityOf(row) : undefined;
  }

  async relationships(q: RelationshipQuery): Promise<Page<Relationship>> {
    const filters: Filter[] = [
      q.type && ['relationship_type = ?', [q.type]],
      q.entity && ['(from_id = ? OR to_id = ?)', [q.entity, q.entity]],
      q.from && ['from_id = ?', [q.from]],
      q.to && ['to_id = ?', [q.to]],
    ];
    return this.page<RelationshipRow, Relationship>('graph_relationships', filters, q, relationshipOf);
  }

  /**
   * One page of a graph table, bounded by the watermark (so pages never see a
   * half-applied write), after `filters`, then `sinceUs` and the keyset cursor.
   */
  private async page<R, T>(table: string, filters: Filter[], q: { sinceUs?: number; afterId?: string; limit: number }, map: (row: R) => T): Promise<Page<T>> {
    const watermarkUs = await this.clock.watermark();
    const where = ['updated_us <= ?'];
    const params: unknown[] = [watermarkUs];
    const all: Filter[] = [...filters, q.sinceUs !== undefined && ['updated_us > ?', [q.sinceUs]], q.afterId !== undefined && ['id > ?', [q.afterId]]];
    for (const f of all) {
      if (!f) continue;
      where.push(f[0]);
      params.push(...f[1]);
    }
    params.push(q.limit + 1);
    const rows = await this.db.all<R>(`SELECT * FROM ${table} WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`, params);
    return { watermarkUs, items: rows.slice(0, q.limit).map(map), more: rows.length > q.limit };
  }

  async events(q: EventQuery): Promise<Page<GraphEvent>> {
    const watermarkUs = await this.clock.watermark();
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
    const watermarkUs = await this.clock.watermark();
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
}
