/**
 * Census snapshots: immutable by id (the insert is the claim; the same id
 * with other content is a conflict). They do not tick the store clock: they
 * feed market movements, never the newswire's cursors. They do advance the
 * content generation (the clock row's lock), since the feeds show movements.
 */
import { canonicalJson, sha256Hex } from '../../foundation/canonical-json.js';
import type { SqlDriver } from '../../store/sql-driver.js';
import { reject } from '../records.js';
import { parseTimestamp } from '../time.js';
import type { CensusRecord } from '../types.js';
import type { ContentClock } from './clock.js';
import type { WriteResult } from './contract.js';

export class CensusStore {
  constructor(
    private readonly db: SqlDriver,
    private readonly clock: ContentClock,
    private readonly now: () => number,
  ) {}

  async putCensus(r: CensusRecord): Promise<WriteResult> {
    const { kind: _kind, ...rest } = r;
    const doc: CensusRecord = { kind: 'census', ...rest };
    const hash = sha256Hex(canonicalJson(doc));
    const observedUs = parseTimestamp(r.observedAt)!;
    const importedAt = Math.floor(this.now());
    // Census snapshots are immutable by id: the insert itself is the claim.
    const changed = await this.db.transaction(async (tx) => {
      await this.clock.lock(tx);
      return tx.run('INSERT INTO census_snapshots (snapshot_id, observed_us, imported_at, content_hash, doc) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING', [
        r.snapshotId,
        observedUs,
        importedAt,
        hash,
        JSON.stringify(doc),
      ]);
    });
    if (changed === 1) return { ok: true, result: 'created', kind: 'census', id: r.snapshotId };
    const cur = (await this.db.all<{ content_hash: string }>('SELECT content_hash FROM census_snapshots WHERE snapshot_id = ?', [r.snapshotId]))[0];
    if (cur?.content_hash === hash) return { ok: true, result: 'unchanged', kind: 'census', id: r.snapshotId };
    return reject('content_conflict', `Census snapshot ${r.snapshotId} is already imported with different content; snapshots are immutable. Use a new snapshotId.`, [
      { path: '/snapshotId', rule: 'immutable', message: 'already imported with different content' },
    ]);
  }

  async latestCensus(n: number): Promise<CensusRecord[]> {
    const rows = await this.db.all<{ doc: string }>('SELECT doc FROM census_snapshots ORDER BY observed_us DESC, snapshot_id DESC LIMIT ?', [n]);
    return rows.map((r) => JSON.parse(r.doc) as CensusRecord);
  }

  async latestCensusIds(n: number): Promise<string[]> {
    const rows = await this.db.all<{ snapshot_id: string }>('SELECT snapshot_id FROM census_snapshots ORDER BY observed_us DESC, snapshot_id DESC LIMIT ?', [n]);
    return rows.map((r) => r.snapshot_id);
  }
}
