/**
 * The starter corpus: entities, relationships and newswire items written
 * from the verified facts the project started with. It ships in
 * `starter/*.ndjson` (the import format) and is loaded once, into an empty
 * store, on first start.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRejections, importNdjson, type ImportReport } from './importer.js';
import type { ContentStore } from './store/contract.js';

export const STARTER_DIR = join(dirname(fileURLToPath(import.meta.url)), 'starter');
/** Load order matters: items and relationships name entities by id. */
const STARTER_FILES = ['entities.ndjson', 'relationships.ndjson', 'items.ndjson'] as const;
export const STARTER_META_KEY = 'starter_corpus';
const STARTER_VERSION = '2026-11-22';

export type StarterOutcome = { loaded: true; report: ImportReport } | { loaded: false; reason: 'already_loaded' | 'store_not_empty' };

export function readStarterFile(name: (typeof STARTER_FILES)[number]): string {
  return readFileSync(join(STARTER_DIR, name), 'utf8');
}

/**
 * Load the starter corpus if the store is empty and it was never loaded.
 * Runs under the database's cross-process lock, so two instances starting at
 * once on one PostgreSQL load it exactly once. A rejected starter line is a
 * bug in this repository: it fails start-up rather than serving a partial corpus.
 */
export async function loadStarterCorpus(store: ContentStore, now: () => number): Promise<StarterOutcome> {
  return store.withLock(async () => {
    if (await store.getMeta(STARTER_META_KEY)) return { loaded: false, reason: 'already_loaded' };
    const counts = await store.graphCounts();
    if ((await store.itemCount()) > 0 || counts.entities > 0 || counts.relationships > 0) return { loaded: false, reason: 'store_not_empty' };
    let report: ImportReport | undefined;
    for (const file of STARTER_FILES) {
      report = await importNdjson(store, readStarterFile(file), now, report);
      if (report.rejected.length) throw new Error(`starter corpus ${file} has rejected lines:\n${formatRejections(report, file).join('\n')}`);
    }
    await store.setMeta(STARTER_META_KEY, JSON.stringify({ version: STARTER_VERSION, loadedAt: new Date(now()).toISOString(), created: report!.created }));
    return { loaded: true, report: report! };
  });
}
