import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlDriver } from './sql-driver.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Apply every migration in `migrations/` not yet recorded, in name order, under a lock. */
export async function migrate(db: SqlDriver): Promise<string[]> {
  return db.withMigrationLock(async () => {
    await db.execScript('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const done = new Set((await db.all<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
    const applied: string[] = [];
    for (const name of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()) {
      if (done.has(name)) continue;
      await db.execScript(readFileSync(join(MIGRATIONS_DIR, name), 'utf8'));
      await db.run('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)', [name, Date.now()]);
      applied.push(name);
    }
    return applied;
  });
}
