/**
 * Graph writes: entities and relationships, idempotent by id (an unchanged
 * record is `unchanged`), each change versioned in `content_record_versions`
 * and stamped by the store clock. Entities merge only by id, never by name.
 */
import { canonicalJson, sha256Hex } from '../../foundation/canonical-json.js';
import type { SqlDriver } from '../../store/sql-driver.js';
import { reject } from '../records.js';
import type { EntityRecord, RelationshipRecord } from '../types.js';
import type { ContentClock } from './clock.js';
import type { WriteResult } from './contract.js';
import { recordVersion } from './record-versions.js';

interface VersionRow {
  version: number;
  content_hash: string;
}

export class GraphWrites {
  constructor(
    private readonly db: SqlDriver,
    private readonly clock: ContentClock,
    private readonly now: () => number,
  ) {}

  async putEntity(r: EntityRecord): Promise<WriteResult> {
    const doc = { id: r.id, type: r.type, name: r.name, firstParty: r.firstParty ?? false, sourceUrl: r.sourceUrl };
    const hash = sha256Hex(canonicalJson(doc));
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.clock.lock(tx);
      const cur = (await tx.all<VersionRow>('SELECT version, content_hash FROM graph_entities WHERE id = ?', [r.id]))[0];
      if (cur && cur.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'entity', id: r.id, version: Number(cur.version) };
      const updatedUs = await this.clock.tick(tx);
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
      await recordVersion(tx, 'entity', r.id, version, updatedUs, recordedAt, doc);
      return { ok: true, result: cur ? 'updated' : 'created', kind: 'entity', id: r.id, version, updatedUs };
    });
  }

  async putRelationship(r: RelationshipRecord): Promise<WriteResult> {
    const id = r.id ?? `${r.from}--${r.type.toLowerCase()}--${r.to}`;
    const doc = { id, type: r.type, from: r.from, to: r.to, sourceUrl: r.sourceUrl };
    const hash = sha256Hex(canonicalJson(doc));
    const recordedAt = this.now();
    return this.db.transaction(async (tx): Promise<WriteResult> => {
      await this.clock.lock(tx);
      const found = await tx.all<{ id: string }>('SELECT id FROM graph_entities WHERE id IN (?, ?)', [r.from, r.to]);
      const have = new Set(found.map((f) => f.id));
      const missing = [r.from, r.to].map((e, i) => (have.has(e) ? undefined : { path: i === 0 ? '/from' : '/to', rule: 'known-entity', message: `no entity with id "${e}"` })).filter((d) => d !== undefined);
      if (missing.length) return reject('unknown_reference', 'The relationship names entities the graph does not have; import them first.', missing);
      const cur = (await tx.all<VersionRow>('SELECT version, content_hash FROM graph_relationships WHERE id = ?', [id]))[0];
      if (cur && cur.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'relationship', id, version: Number(cur.version) };
      const updatedUs = await this.clock.tick(tx);
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
      await recordVersion(tx, 'relationship', id, version, updatedUs, recordedAt, doc);
      return { ok: true, result: cur ? 'updated' : 'created', kind: 'relationship', id, version, updatedUs };
    });
  }
}
