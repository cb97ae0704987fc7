/**
 * The store clock (`content_clock`, one row) and the write discipline every
 * part of the store follows:
 * - `lastUpdatedAt` comes from this clock: each material change takes
 *   max(previous + 1 µs, now), so it is unique and strictly increasing across
 *   all items, even for writes in the same millisecond. Cosmetic changes
 *   (only `observedAt`) add a version but do not take a tick.
 * - Every content write transaction starts by locking the clock row. Writers
 *   are therefore serialized and commit in timestamp order; a reader that
 *   first reads the clock (the watermark) and then bounds its query by it sees
 *   exactly the changes up to the watermark, none later, and a later commit
 *   can never carry a timestamp at or below a watermark already handed out.
 * - Taking that lock also advances the content generation (`gen`), in the
 *   same transaction: a reader that sees generation g sees every write that
 *   advanced it to g, so bytes cached under g are never stale (api/feed-cache.ts).
 */
import type { SqlDriver } from '../../store/sql-driver.js';

/** What a store part may do inside a write transaction. */
export type Tx = Pick<SqlDriver, 'run' | 'all' | 'kind'>;

export class ContentClock {
  constructor(
    private readonly db: SqlDriver,
    private readonly now: () => number,
  ) {}

  /** The time of the last material change, in µs: the bound every read uses. */
  async watermark(): Promise<number> {
    const rows = await this.db.all<{ last_us: number }>('SELECT last_us FROM content_clock WHERE id = 1');
    return Number(rows[0]?.last_us ?? 0);
  }

  /** The content generation: advances with every content write transaction, committed or not yet visible never. */
  async generation(): Promise<string> {
    const rows = await this.db.all<{ gen: number | string }>('SELECT gen FROM content_clock WHERE id = 1');
    return String(rows[0]?.gen ?? 0);
  }

  /** Take the clock row's lock for the rest of the transaction (serializes content writers) and advance the generation. */
  async lock(tx: Tx): Promise<void> {
    await tx.run('UPDATE content_clock SET gen = gen + 1 WHERE id = 1');
  }

  /** Advance the clock: max(previous + 1 µs, now). */
  async tick(tx: Tx): Promise<number> {
    const nowUs = Math.floor(this.now()) * 1000;
    const rows = await tx.all<{ last_us: number }>(
      'UPDATE content_clock SET last_us = CASE WHEN last_us + 1 > ? THEN last_us + 1 ELSE ? END WHERE id = 1 RETURNING last_us',
      [nowUs, nowUs],
    );
    return Number(rows[0]!.last_us);
  }
}
