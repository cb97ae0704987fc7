/** Content metadata (`content_meta`, e.g. the starter corpus marker) and the database's cross-process lock. */
import type { SqlDriver } from '../../store/sql-driver.js';

export class MetaStore {
  constructor(
    private readonly db: SqlDriver,
    private readonly now: () => number,
  ) {}

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
