/**
 * What the module keeps per database: the content store, market movements
 * and the ledger facts it reads. One runtime per database, so several
 * services in one process (tests) never share a store.
 */
import type { SqlDriver } from '../store/sql-driver.js';
import { FeedCache } from './api/feed-cache.js';
import { LedgerPaidRevenue, type PaidRevenueSource } from './ledger-facts.js';
import { MarketMovementsSource } from './newswire.js';
import { SqlContentStore } from './store.js';
import type { ContentStore } from './store/contract.js';
import type { Ledger } from '../store/ledger.js';

export interface IntelRuntime {
  store: ContentStore;
  movements: MarketMovementsSource;
  revenue: PaidRevenueSource;
  /** Encoded bytes of the free feeds by (route, query, content generation). */
  feedCache: FeedCache;
}

const runtimes = new WeakMap<SqlDriver, IntelRuntime>();

export function runtimeFor(init: { db: SqlDriver; ledger: Ledger; now: () => number }): IntelRuntime {
  let rt = runtimes.get(init.db);
  if (!rt) {
    const store = new SqlContentStore(init.db, init.now);
    rt = { store, movements: new MarketMovementsSource(store), revenue: new LedgerPaidRevenue(init.ledger), feedCache: new FeedCache() };
    runtimes.set(init.db, rt);
  }
  return rt;
}

/** The runtime the module built over a database (for tests and tools in the same process). */
export function intelRuntime(db: SqlDriver): IntelRuntime | undefined {
  return runtimes.get(db);
}
