/**
 * Append-only history of entities, relationships and listings
 * (`content_record_versions`): every change adds a row, nothing is updated
 * in place. Items keep theirs in `newswire_item_versions` (item-writes.ts).
 */
import type { Tx } from './clock.js';

export async function recordVersion(tx: Tx, kind: 'entity' | 'relationship' | 'listing', id: string, version: number, updatedUs: number, recordedAt: number, doc: unknown): Promise<void> {
  await tx.run('INSERT INTO content_record_versions (record_kind, record_id, version, updated_us, recorded_at, doc) VALUES (?, ?, ?, ?, ?, ?)', [
    kind, id, version, updatedUs, Math.floor(recordedAt), JSON.stringify(doc),
  ]);
}
