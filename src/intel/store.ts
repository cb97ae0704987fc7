/**
 * The content store: newswire items, the entity graph, census snapshots and
 * presence listings, in the same database as the ledger (SQLite or
 * PostgreSQL, one SQL dialect). `SqlContentStore` is a facade over one part
 * per responsibility (store/*); the parts share the store clock, whose write
 * discipline (store/clock.ts) is what keeps cursor chains exact.
 */
import type { SqlDriver } from '../store/sql-driver.js';
import { CensusStore } from './store/census.js';
import { ContentClock } from './store/clock.js';
import { FreshRead } from './fresh-read.js';
import type { ChangeQuery, ContentStore, EntityQuery, EventQuery, ItemQuery, RelationshipQuery, WriteResult } from './store/contract.js';
import { GraphQueries } from './store/graph-queries.js';
import { GraphWrites } from './store/graph-writes.js';
import { ItemQueries } from './store/item-queries.js';
import { ItemWrites } from './store/item-writes.js';
import { ListingStore } from './store/listings.js';
import { MetaStore } from './store/meta.js';
import type { CensusRecord, ContentRecord, EntityRecord, ItemRecord, ListingRecord, RelationshipRecord } from './types.js';

export type * from './store/contract.js';

export class SqlContentStore implements ContentStore {
  readonly kind: 'sqlite' | 'postgres';
  private readonly clock: ContentClock;
  /** Read by every free-feed request: concurrent requests share one fresh read (fresh-read.ts). */
  private readonly currentGeneration: FreshRead<string>;
  private readonly itemWrites: ItemWrites;
  private readonly items: ItemQueries;
  private readonly graphWrites: GraphWrites;
  private readonly graph: GraphQueries;
  private readonly census: CensusStore;
  private readonly listingStore: ListingStore;
  private readonly meta: MetaStore;

  constructor(db: SqlDriver, now: () => number) {
    this.kind = db.kind;
    this.clock = new ContentClock(db, now);
    this.currentGeneration = new FreshRead(() => this.clock.generation());
    this.itemWrites = new ItemWrites(db, this.clock, now);
    this.items = new ItemQueries(db, this.clock);
    this.graphWrites = new GraphWrites(db, this.clock, now);
    this.graph = new GraphQueries(db, this.clock);
    this.census = new CensusStore(db, this.clock, now);
    this.listingStore = new ListingStore(db, this.clock, now);
    this.meta = new MetaStore(db, now);
  }

  watermark() {
    return this.clock.watermark();
  }

  generation() {
    return this.currentGeneration.get();
  }

  apply(record: ContentRecord): Promise<WriteResult> {
    switch (record.kind) {
      case 'item':
        return this.putItem(record);
      case 'retraction':
        return this.retract(record.eventId, record.reason);
      case 'entity':
        return this.putEntity(record);
      case 'relationship':
        return this.putRelationship(record);
      case 'listing':
        return this.putListing(record);
      case 'census':
        return this.putCensus(record);
    }
  }

  // ---- writes ----

  putItem(r: ItemRecord) {
    return this.itemWrites.putItem(r);
  }
  retract(eventId: string, reason: string) {
    return this.itemWrites.retract(eventId, reason);
  }
  putEntity(r: EntityRecord) {
    return this.graphWrites.putEntity(r);
  }
  putRelationship(r: RelationshipRecord) {
    return this.graphWrites.putRelationship(r);
  }
  putListing(r: ListingRecord) {
    return this.listingStore.putListing(r);
  }
  putCensus(r: CensusRecord) {
    return this.census.putCensus(r);
  }

  // ---- items ----

  getItem(eventId: string) {
    return this.items.getItem(eventId);
  }
  eventIdBySlug(slug: string) {
    return this.items.eventIdBySlug(slug);
  }
  correctionsOf(eventId: string) {
    return this.items.correctionsOf(eventId);
  }
  itemVersions(eventId: string) {
    return this.items.itemVersions(eventId);
  }
  itemCount() {
    return this.items.itemCount();
  }
  queryItems(q: ItemQuery) {
    return this.items.queryItems(q);
  }
  changesSince(q: ChangeQuery) {
    return this.items.changesSince(q);
  }

  // ---- graph ----

  entities(q: EntityQuery) {
    return this.graph.entities(q);
  }
  entity(id: string) {
    return this.graph.entity(id);
  }
  relationships(q: RelationshipQuery) {
    return this.graph.relationships(q);
  }
  events(q: EventQuery) {
    return this.graph.events(q);
  }
  graphCounts() {
    return this.graph.graphCounts();
  }

  // ---- census, listings, metadata ----

  latestCensus(n: number) {
    return this.census.latestCensus(n);
  }
  latestCensusIds(n: number) {
    return this.census.latestCensusIds(n);
  }
  listings() {
    return this.listingStore.listings();
  }
  getMeta(key: string) {
    return this.meta.getMeta(key);
  }
  setMeta(key: string, value: string) {
    return this.meta.setMeta(key, value);
  }
  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.meta.withLock(fn);
  }
}
