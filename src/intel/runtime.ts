/**
 * What the module keeps for its service: the content store, market movements
 * and the ledger facts it reads over that service's database. Built by the
 * module instance the service runs, so several services in one process
 * (tests) never share a store.
 */
import type { SqlDriver } from '../store/sql-driver.js';
import { FeedCache } from './api/feed-cache.js';
import { LedgerPaidRevenue, type IntelLedger, type PaidRevenueSource } from './ledger-facts.js';
import { MarketMovementsSource } from './newswire.js';
import { SqlContentStore } from './store.js';
import type { ContentStore } from './store/contract.js';

export interface IntelRuntime {
  store: ContentStore;
  movements: MarketMovementsSource;
  revenue: PaidRevenueSource;
  /** Encoded bytes of the free feeds by (route, query, content generation). */
  feedCache: FeedCache;
}

export function createIntelRuntime(init: { db: SqlDriver; ledger: IntelLedger; now: () => number }): IntelRuntime {
  const store = new SqlContentStore(init.db, init.now);
  // `db` is the database the ledger lives in (ModuleInit): its commit version covers the ledger's commits too.
  const revenue = new LedgerPaidRevenue(init.ledger, init.now, () => init.db.commitVersion?.());
  return { store, movements: new MarketMovementsSource(store), revenue, feedCache: new FeedCache() };
}
