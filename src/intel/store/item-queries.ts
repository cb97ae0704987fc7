/**
 * Item reads: one item and its history, slugs and corrections, the newswire
 * query and the change log. Every list is bounded by the watermark read first
 * (clock.ts), so it never shows a change that commits later with an earlier stamp.
 */
import type { SqlDriver } from '../../store/sql-driver.js';
import { formatMicros } from '../time.js';
import type { ChangeKind, NewsroomState, StoredItem } from '../types.js';
import type { ContentClock } from './clock.js';
import type { ChangePage, ItemPage, ItemQuery, ItemVersion } from './contract.js';
import { TAG_FILTER, type TagKind } from './tags.js';

export class ItemQueries {
  constructor(
    private readonly db: SqlDriver,
    private readonly clock: ContentClock,
  ) {}

  async getItem(eventId: string): Promise<{ state: NewsroomState; stored: StoredItem } | undefined> {
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
    // Read the watermark first, then bound the query by it (clock.ts).
    const watermarkUs = await this.clock.watermark();
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
    const watermarkUs = await this.clock.watermark();
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
}
