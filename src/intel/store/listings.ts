/**
 * External listings of this service (the presence catalog's `listings`):
 * only what the operator verified and imported, versioned like graph records.
 */
import { canonicalJson, sha256Hex } from '../../foundation/canonical-json.js';
import type { SqlDriver } from '../../store/sql-driver.js';
import { reject } from '../records.js';
import { formatMicros, parseTimestamp } from '../time.js';
import type { Listing, ListingRecord } from '../types.js';
import type { ContentClock } from './clock.js';
import type { WriteResult } from './contract.js';
import { recordVersion } from './record-versions.js';

export class ListingStore {
  constructor(
    private readonly db: SqlDriver,
    private readonly clock: ContentClock,
    private readonly now: () => number,
  ) {}

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
      await this.clock.lock(tx);
      if (doc.directoryId) {
        const found = await tx.all('SELECT id FROM graph_entities WHERE id = ?', [doc.directoryId]);
        if (!found.length) return reject('unknown_reference', `No entity with id "${doc.directoryId}".`, [{ path: '/directoryId', rule: 'known-entity', message: 'no such entity' }]);
      }
      const cur = (await tx.all<{ version: number; content_hash: string }>('SELECT version, content_hash FROM distribution_listings WHERE id = ?', [r.id]))[0];
      if (cur && cur.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'listing', id: r.id, version: Number(cur.version) };
      const updatedUs = await this.clock.tick(tx);
      const version = cur ? Number(cur.version) + 1 : 1;
      const full: Listing = { ...doc, updatedAt: formatMicros(updatedUs) };
      if (cur) {
        await tx.run('UPDATE distribution_listings SET version = ?, content_hash = ?, updated_us = ?, doc = ? WHERE id = ?', [version, hash, updatedUs, JSON.stringify(full), r.id]);
      } else {
        await tx.run('INSERT INTO distribution_listings (id, version, content_hash, updated_us, doc) VALUES (?, 1, ?, ?, ?)', [r.id, hash, updatedUs, JSON.stringify(full)]);
      }
      await recordVersion(tx, 'listing', r.id, version, updatedUs, recordedAt, full);
      return { ok: true, result: cur ? 'updated' : 'created', kind: 'listing', id: r.id, version, updatedUs };
    });
  }

  async listings(): Promise<Listing[]> {
    const rows = await this.db.all<{ doc: string }>('SELECT doc FROM distribution_listings ORDER BY id');
    return rows.map((r) => JSON.parse(r.doc) as Listing);
  }
}
