/**
 * Item reads: one item and its history, slugs and corrections, the newswire
 * query and the change log. Every list is bounded by the watermark read first
 * (clock.ts), so it never shows a change that commits later with an earlier stamp.
 */
import type { SqlDriver } from '../../store/sql-driver.js';
import { formatMicros } from '../time.js';
import { MATERIAL_ITEM_TYPES, type ChangeKind, type NewsroomState, type StoredItem } from '../types.js';
import type { ContentClock } from './clock.js';
import type { ChangeKey, ChangePage, ChangeQuery, ChangeRow, ItemPage, ItemQuery, ItemVersion } from './contract.js';
import { TAG_FILTER, type TagKind } from './tags.js';

/** Tag rows counted at most, per tag, to pick the most selective filter. */
const SELECTIVITY_PROBE = 256;

export class ItemQueries {
  private readonly tagProbes = new Map<string, { n: number; lastUs: number }>();

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
    if (q.eventSinceDate !== undefined) {
      where.push('i.event_date >= ?');
      params.push(q.eventSinceDate);
    }
    const plan = q.order === 'newest' ? await this.newestPlan(q, upperUs, tags, where, params) : await this.sincePlan(q, upperUs, tags, where, params);
    plan.params.push(q.limit + 1);
    const rows = await this.db.all<{ doc: string }>(plan.sql, plan.params);
    const truncated = rows.length > q.limit;
    const items = rows.slice(0, q.limit).map((r) => (JSON.parse(r.doc) as StoredItem).item);
    return { watermarkUs, upperUs, items, truncated };
  }

  /**
   * The polling window (since, upper], oldest-updated first. With tag
   * filters, the walk is driven by the tag with the fewest rows in the window
   * (a bounded count per tag, so the estimate costs at most SELECTIVITY_PROBE
   * index steps each) and the other tags are EXISTS probes: a common entity
   * combined with a rare topic walks the rare topic, not the common entity.
   */
  private async sincePlan(q: ItemQuery, upperUs: number, tags: Array<[TagKind, string]>, where: string[], params: unknown[]): Promise<{ sql: string; params: unknown[] }> {
    if (!tags.length) {
      return {
        sql: `SELECT i.doc FROM newswire_items i WHERE i.updated_us > ? AND i.updated_us <= ? AND ${where.join(' AND ')} ORDER BY i.updated_us LIMIT ?`,
        params: [q.sinceUs, upperUs, ...params],
      };
    }
    const driver = await this.mostSelective(tags, q.sinceUs, upperUs);
    const others = tags.filter((t) => t !== driver);
    // Walk the driving tag's rows in store-time order; only rows of an item's
    // current version join. (CROSS JOIN keeps that order in SQLite;
    // PostgreSQL plans it as an inner join from its statistics.)
    const filters = [...where, ...others.map((_, n) => TAG_FILTER(`t${n}`))];
    return {
      sql:
        'SELECT i.doc FROM newswire_item_tags d CROSS JOIN newswire_items i ' +
        `WHERE d.tag_kind = ? AND d.tag_value = ? AND d.updated_us > ? AND d.updated_us <= ? AND i.event_id = d.event_id AND i.version = d.version AND ${filters.join(' AND ')} ` +
        'ORDER BY d.updated_us LIMIT ?',
      params: [driver[0], driver[1], q.sinceUs, upperUs, ...params, ...others.flat()],
    };
  }

  /**
   * Newest eventDate first, then newest lastUpdatedAt (unique, so the order
   * is total and (eventDate, lastUpdatedAt) is an exact keyset for the next
   * page). Without tags, or when every tag is common, the walk is the
   * (event_date, updated_us) index in reverse with tag probes; when a tag is
   * rare (fewer than SELECTIVITY_PROBE rows), its rows are read and sorted.
   */
  private async newestPlan(q: ItemQuery, upperUs: number, tags: Array<[TagKind, string]>, where: string[], params: unknown[]): Promise<{ sql: string; params: unknown[] }> {
    const conds = ['i.updated_us <= ?', ...where];
    const condParams: unknown[] = [upperUs, ...params];
    if (q.before) {
      // Written as a range on event_date (plus a residue) so the index walk starts at the keyset.
      conds.push('i.event_date <= ? AND (i.event_date < ? OR i.updated_us < ?)');
      condParams.push(q.before.date, q.before.date, q.before.us);
    }
    const order = 'ORDER BY i.event_date DESC, i.updated_us DESC LIMIT ?';
    if (tags.length) {
      const driver = await this.mostSelective(tags, 0, upperUs);
      if ((await this.tagProbe(driver, 0, upperUs)).n < SELECTIVITY_PROBE) {
        const others = tags.filter((t) => t !== driver);
        return {
          sql:
            'SELECT i.doc FROM newswire_item_tags d CROSS JOIN newswire_items i ' +
            `WHERE d.tag_kind = ? AND d.tag_value = ? AND i.event_id = d.event_id AND i.version = d.version AND ${[...conds, ...others.map((_, n) => TAG_FILTER(`t${n}`))].join(' AND ')} ${order}`,
          params: [driver[0], driver[1], ...condParams, ...others.flat()],
        };
      }
    }
    // SQLite (no statistics) would otherwise pick the (state, updated_us) index and sort every match.
    const items = this.db.kind === 'sqlite' ? 'newswire_items i INDEXED BY newswire_items_event_date_updated' : 'newswire_items i';
    return {
      sql: `SELECT i.doc FROM ${items} WHERE ${[...conds, ...tags.map((_, n) => TAG_FILTER(`t${n}`))].join(' AND ')} ${order}`,
      params: [...condParams, ...tags.flat()],
    };
  }

  /**
   * The tag with the fewest rows per unit of store time in (lo, hi]. Each tag
   * costs at most SELECTIVITY_PROBE steps of its (kind, value, updated_us)
   * index: either the window holds fewer rows than that (their count is
   * exact) or the probe's last row tells how much store time that many rows
   * span, and a rare tag spans far more than a common one.
   */
  private async mostSelective(tags: Array<[TagKind, string]>, lo: number, hi: number): Promise<[TagKind, string]> {
    if (tags.length === 1) return tags[0]!;
    let best = tags[0]!;
    let bestDensity = Infinity;
    for (const t of tags) {
      const p = await this.tagProbe(t, lo, hi);
      const density = p.n < SELECTIVITY_PROBE ? p.n / Math.max(1, hi - lo) : p.n / Math.max(1, p.lastUs - lo);
      if (density < bestDensity) [best, bestDensity] = [t, density];
    }
    return best;
  }

  /** Rows of a tag in (lo, hi], counted up to SELECTIVITY_PROBE, and the store time of the last one counted. */
  private async tagProbe([kind, value]: [TagKind, string], lo: number, hi: number): Promise<{ n: number; lastUs: number }> {
    const key = `${kind}\u0000${value}\u0000${lo}\u0000${hi}`;
    const memo = this.tagProbes.get(key);
    if (memo !== undefined) return memo;
    const rows = await this.db.all<{ n: number | string; last_us: number | string | null }>(
      'SELECT COUNT(*) AS n, MAX(updated_us) AS last_us FROM (SELECT updated_us FROM newswire_item_tags WHERE tag_kind = ? AND tag_value = ? AND updated_us > ? AND updated_us <= ? ORDER BY updated_us LIMIT ?) t',
      [kind, value, lo, hi, SELECTIVITY_PROBE],
    );
    const p = { n: Number(rows[0]?.n ?? 0), lastUs: Number(rows[0]?.last_us ?? lo) };
    // Tag rows are never deleted and new ones carry times above the watermark:
    // for hi at or below it the answer never changes. Keep a few.
    if (this.tagProbes.size >= 256) this.tagProbes.clear();
    this.tagProbes.set(key, p);
    return p;
  }

  /**
   * Changes after the key up to the watermark, oldest first, of material
   * items only (by the type of the changed version): the log is read in
   * batches and filtered until maxItems + 1 are found or the log ends.
   */
  async changesSince(q: ChangeQuery): Promise<ChangePage> {
    const watermarkUs = await this.clock.watermark();
    // Most changes are material: a batch a quarter larger than needed usually suffices (each row costs a JSON.parse).
    const batch = Math.min(q.maxItems + 1 + Math.ceil(q.maxItems / 4) + 8, 1000);
    const out: ChangeRow[] = [];
    let after = q.after;
    for (;;) {
      // `>=` when the key names a row: rows at the same time up to and
      // including it are skipped below, so a tie resumes exactly after it.
      // (changed_us is the log's primary key, so today no two rows tie and
      // ORDER BY changed_us is total; the key stays exact if that changes.)
      const exact = after.eventId !== undefined;
      const rows = await this.db.all<{ changed_us: number | string; event_id: string; version: number | string; change_kind: ChangeKind; changed_fields: string; doc: string }>(
        `SELECT c.changed_us, c.event_id, c.version, c.change_kind, v.changed_fields, v.doc FROM newswire_changes c
         JOIN newswire_item_versions v ON v.event_id = c.event_id AND v.version = c.version
         WHERE c.changed_us ${exact ? '>=' : '>'} ? AND c.changed_us <= ? ORDER BY c.changed_us LIMIT ?`,
        [after.us, watermarkUs, batch],
      );
      for (const r of rows) {
        const key = { us: Number(r.changed_us), eventId: r.event_id, version: Number(r.version) };
        if (!isAfter(key, after)) continue;
        const stored = JSON.parse(r.doc) as StoredItem;
        if (!MATERIAL_ITEM_TYPES.has(stored.item.type)) continue;
        if (q.eventSinceDate !== undefined && stored.item.eventDate < q.eventSinceDate) continue;
        out.push({ change: r.change_kind, changedUs: key.us, key, changedFields: JSON.parse(r.changed_fields) as string[], stored });
        if (out.length > q.maxItems) break;
      }
      if (out.length > q.maxItems || rows.length < batch) break;
      const last = rows[rows.length - 1]!;
      after = { us: Number(last.changed_us), eventId: last.event_id, version: Number(last.version) };
    }
    const truncated = out.length > q.maxItems;
    return { watermarkUs, changes: out.slice(0, q.maxItems), truncated };
  }
}

/** Whether a log position comes strictly after a key ((us, eventId, version) order; a key without eventId is "after every row at us"). */
function isAfter(k: Required<ChangeKey>, after: ChangeKey): boolean {
  if (k.us !== after.us) return k.us > after.us;
  if (after.eventId === undefined) return false;
  if (k.eventId !== after.eventId) return k.eventId > after.eventId;
  return k.version > (after.version ?? 0);
}
