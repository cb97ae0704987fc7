/**
 * The content store's public surface: what the routes, the importer, the CLI
 * and the paid feed may ask of it, and the shapes of its answers. The SQL
 * implementation (store.ts and store/*) is one of possibly several.
 */
import type { Rejection } from '../records.js';
import type {
  CensusRecord,
  ChangeKind,
  ContentRecord,
  Entity,
  EntityRecord,
  EntityType,
  GraphEvent,
  ItemRecord,
  ItemType,
  Listing,
  ListingRecord,
  NewsroomState,
  NewswireItem,
  Relationship,
  RelationshipRecord,
  RelationshipType,
  StoredItem,
} from '../types.js';

export type WriteResultKind = 'created' | 'updated' | 'cosmetic' | 'unchanged';

export interface WriteOk {
  ok: true;
  result: WriteResultKind;
  kind: ContentRecord['kind'];
  id: string;
  version?: number;
  /** Store time of the change (material changes only). */
  updatedUs?: number;
  state?: NewsroomState;
  item?: NewswireItem;
}

export type WriteResult = WriteOk | { ok: false; rejection: Rejection };

export interface ItemQuery {
  /**
   * `since`: items whose lastUpdatedAt is in (sinceUs, upper], the
   * oldest-updated kept (a polling window). `newest`: items up to the upper
   * bound, newest eventDate first (then newest lastUpdatedAt), optionally
   * after a keyset `before` (the last item of the previous page). Default `since`.
   */
  order?: 'since' | 'newest';
  sinceUs: number;
  untilUs?: number;
  /** Newest mode: continue after this (eventDate, lastUpdatedAt µs). */
  before?: { date: string; us: number };
  /** Only items whose eventDate is on or after this calendar date (YYYY-MM-DD). */
  eventSinceDate?: string;
  limit: number;
  type?: ItemType;
  topic?: string;
  entity?: string;
  protocol?: string;
  /** Keep tiers with rank ≤ this (1 = TIER_A). */
  maxTierRank?: number;
  firstParty?: boolean;
  includeRetracted: boolean;
  materialOnly: boolean;
}

export interface ItemPage {
  /** The clock value the query was bounded by. */
  watermarkUs: number;
  /** The upper bound used: min(until, watermark). */
  upperUs: number;
  /** Kept items: oldest lastUpdatedAt first (since), newest eventDate first (newest). */
  items: NewswireItem[];
  truncated: boolean;
}

export interface ChangeRow {
  change: ChangeKind;
  changedUs: number;
  /** The row's full position in the log (for a cursor that resumes exactly after it). */
  key: Required<ChangeKey>;
  changedFields: string[];
  stored: StoredItem;
}

/** A position in the change log: after the change at `us` (and, on a tie, after this item version). */
export interface ChangeKey {
  us: number;
  eventId?: string;
  version?: number;
}

export interface ChangeQuery {
  after: ChangeKey;
  maxItems: number;
  /** Only changes of items whose eventDate is on or after this calendar date. */
  eventSinceDate?: string;
}

export interface ChangePage {
  watermarkUs: number;
  changes: ChangeRow[];
  truncated: boolean;
}

export interface ItemVersion {
  version: number;
  changeKind: ChangeKind | 'COSMETIC' | 'HELD';
  material: boolean;
  updatedAt: string;
  recordedAt: string;
  changedFields: string[];
  item: NewswireItem;
}

export interface Page<T> {
  watermarkUs: number;
  items: T[];
  more: boolean;
}

export interface GraphCounts {
  entities: number;
  relationships: number;
  events: number;
  observations: number;
  byEntityType: Record<string, number>;
  byRelationshipType: Record<string, number>;
}

export interface EntityQuery {
  type?: EntityType;
  sinceUs?: number;
  afterId?: string;
  limit: number;
}

export interface RelationshipQuery {
  type?: RelationshipType;
  /** Either end. */
  entity?: string;
  from?: string;
  to?: string;
  sinceUs?: number;
  afterId?: string;
  limit: number;
}

export interface EventQuery {
  type?: ItemType;
  entity?: string;
  sinceUs?: number;
  /** Keyset of the last event of the previous page (newest first). */
  after?: { date: string; id: string };
  limit: number;
}

/** The store's public surface; the HTTP routes, the importer and the CLI see only this. */
export interface ContentStore {
  readonly kind: 'sqlite' | 'postgres';
  /** The store clock: the time of the last material change, in µs. */
  watermark(): Promise<number>;
  /** Apply one validated record (dispatch by kind). */
  apply(record: ContentRecord): Promise<WriteResult>;
  putItem(record: ItemRecord): Promise<WriteResult>;
  retract(eventId: string, reason: string): Promise<WriteResult>;
  putEntity(record: EntityRecord): Promise<WriteResult>;
  putRelationship(record: RelationshipRecord): Promise<WriteResult>;
  putListing(record: ListingRecord): Promise<WriteResult>;
  putCensus(record: CensusRecord): Promise<WriteResult>;
  getItem(eventId: string): Promise<{ state: NewsroomState; stored: StoredItem } | undefined>;
  /** The eventId of the item with this slug (slugs are unique). */
  eventIdBySlug(slug: string): Promise<string | undefined>;
  /** EventIds of the published or retracted items that correct this one. */
  correctionsOf(eventId: string): Promise<string[]>;
  itemVersions(eventId: string): Promise<ItemVersion[]>;
  itemCount(): Promise<number>;
  queryItems(q: ItemQuery): Promise<ItemPage>;
  /**
   * Published changes of material items (MATERIAL_ITEM_TYPES) after the key,
   * up to the watermark, oldest first.
   */
  changesSince(q: ChangeQuery): Promise<ChangePage>;
  /** The content generation: advances with every content write transaction (cache key of the free feeds). */
  generation(): Promise<string>;
  entities(q: EntityQuery): Promise<Page<Entity>>;
  entity(id: string): Promise<Entity | undefined>;
  relationships(q: RelationshipQuery): Promise<Page<Relationship>>;
  events(q: EventQuery): Promise<Page<GraphEvent>>;
  graphCounts(): Promise<GraphCounts>;
  /** The newest census snapshots, newest first. */
  latestCensus(n: number): Promise<CensusRecord[]>;
  /** Ids of the newest census snapshots, newest first (cheap: answers from the index). */
  latestCensusIds(n: number): Promise<string[]>;
  listings(): Promise<Listing[]>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /** Run fn holding the database's cross-process lock (used for the one-time starter load). */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}
