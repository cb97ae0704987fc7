/**
 * The content model of the machine-economy intelligence: newswire items, the
 * entity graph, census snapshots and presence listings, as stored and served.
 */
import type { EvidenceTier, SourceType } from './tiers.js';

export const NEWSWIRE_SCHEMA_VERSION = 'newswire/1.0';
export const NEWSWIRE_PRODUCT = 'machine-economy-newswire';
export const PUBLISHER = 'agent-pay-service newsroom';
export const GRAPH_PROTOCOL = 'machine-economy-graph/v0';

export const USAGE_RIGHTS =
  'You may use the returned JSON in your own systems. One call does not grant a right to redistribute the full corpus as a competing archive. HTML pages are views of this API, not the canonical bulk database.';

/** Item types. `daily_digest` is the newsroom's own daily summary. */
export const ITEM_TYPES = [
  'daily_digest',
  'official_announcement',
  'first_party_product',
  'standards',
  'unmet_need',
  'analysis_seed',
  'company_move',
  'protocol_release',
  'version_update',
  'new_product',
  'new_directory',
  'market_snapshot',
  'community_signal',
  'repository_release',
  'directory_listing',
  'discovery_observation',
] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/**
 * Types that report a concrete change in the ecosystem (a release, launch,
 * listing, standard or company move). `material_only=true` keeps only these;
 * signals, analysis seeds, digests and snapshots are left out.
 */
export const MATERIAL_ITEM_TYPES: ReadonlySet<ItemType> = new Set<ItemType>([
  'official_announcement',
  'first_party_product',
  'standards',
  'company_move',
  'protocol_release',
  'version_update',
  'new_product',
  'new_directory',
  'repository_release',
]);

/** Types that are the newsroom's analysis rather than a report of a sourced event (default `publicAnalysis`). */
export const ANALYSIS_ITEM_TYPES: ReadonlySet<ItemType> = new Set<ItemType>(['analysis_seed', 'unmet_need', 'market_snapshot', 'daily_digest']);

export const DATE_PRECISIONS = ['day', 'month', 'year'] as const;
export type DatePrecision = (typeof DATE_PRECISIONS)[number];

/**
 * PUBLISHED: in the feed. RETRACTED: withdrawn with a reason; shown only with
 * `include_retracted=true` and never changed again. HELD: a TIER_D item,
 * stored but never published.
 */
export const NEWSROOM_STATES = ['PUBLISHED', 'RETRACTED', 'HELD'] as const;
export type NewsroomState = (typeof NEWSROOM_STATES)[number];

/** What a material change did, as changes-since reports it. */
export const CHANGE_KINDS = ['NEW', 'UPDATED', 'CORRECTED', 'RETRACTED'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const ENTITY_TYPES = [
  'PROTOCOL',
  'MARKETPLACE',
  'WALLET_PRODUCT',
  'ORGANIZATION',
  'NETWORK',
  'PAYMENT_RAIL',
  'DIRECTORY',
  'EVENT',
  'MCP_TOOL',
  'MCP_SERVER',
  'X402_RESOURCE',
  'ASSET',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const RELATIONSHIP_TYPES = [
  'INDEXES',
  'CAN_PAY',
  'BUILDS',
  'SUPPORTS',
  'FACILITATES',
  'ISSUES',
  'INTEGRATED',
  'OPERATES',
  'DISCUSSES',
  'PUBLISHES',
  'HOSTS',
  'MAPS_TO',
  'CAN_USE',
  'LISTED_ON',
  'OFFERS',
  'IMPLEMENTS',
  'ACCEPTS_PAYMENT_VIA',
  'PRICED_IN',
  'RUNS_ON',
  'MAINTAINED_BY',
] as const;
export type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];

export const LISTING_KINDS = ['directory', 'mcp_registry', 'facilitator_catalog', 'ecosystem_page', 'search_index', 'agent_registry'] as const;
export type ListingKind = (typeof LISTING_KINDS)[number];
export const LISTING_STATUSES = ['listed', 'pending', 'rejected', 'delisted'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export interface MarketMovements {
  resourcesDelta: number;
  distinctPayersDelta: number;
  callsDelta: number;
  newEntrants: number;
  removedResources: number;
  topFamilyChanged: boolean;
  whatChanged: string[];
  /** The two snapshots compared; null when fewer than two are imported. */
  basis: { previous: SnapshotRef; latest: SnapshotRef } | null;
}

export interface SnapshotRef {
  snapshotId: string;
  observedAt: string;
}

export interface NewswireItem {
  eventId: string;
  eventDate: string;
  datePrecision: DatePrecision;
  publishedAt: string;
  observedAt: string;
  lastUpdatedAt: string;
  version: number;
  headline: string;
  summary: string;
  whyItMatters: string;
  entities: string[];
  protocols: string[];
  topics: string[];
  sourceURLs: string[];
  sourceTypes: SourceType[];
  evidenceTier: EvidenceTier;
  confidence: number;
  corroborationCount: number;
  /** Why confidence is lowered (e.g. the date comes from press coverage); null when nothing is caveated. */
  evidenceNote: string | null;
  marketData: Record<string, unknown> | null;
  changeVsPrevious: MarketMovements;
  freshness: 'live';
  publicAnalysis: boolean;
  usageRights: string;
  schemaVersion: string;
  firstPartyInterest: boolean;
  retrospective: boolean;
  slug: string;
  type: ItemType;
  newsroomState: NewsroomState;
  publisher: string;
  correctionOf: string | null;
  retracted: boolean;
  retractionReason: string | null;
}

/** One source behind an item, with what in it supports the item (high-resolution evidence). */
export interface EvidenceDetail {
  url: string;
  sourceType: SourceType;
  supports: string | null;
  publishedAt: string | null;
}

/**
 * How a collector obtained one source of an item (src/intel/collectors):
 * when, by which method, and a SHA-256 of the exact bytes it read. Items
 * imported by hand carry none. Not material: re-reading a source changes
 * nothing but this.
 */
export interface SourceProvenance {
  url: string;
  retrievedAt: string;
  /** e.g. `http_get`, `eth_getLogs`. */
  method: string;
  /** SHA-256 (hex) of the response bytes the item was read from. */
  excerptHash: string;
  /** The collector that read it, e.g. `collector:npm-releases`. */
  collector: string;
}

/** What the store keeps per item version. */
export interface StoredItem {
  item: NewswireItem;
  evidence: EvidenceDetail[];
  /** Present on collected items: one entry per collected source. */
  provenance?: SourceProvenance[];
}

export interface Entity {
  id: string;
  type: EntityType;
  name: string;
  firstParty: boolean;
  sourceUrl: string;
  updatedAt: string;
}

export interface Relationship {
  id: string;
  type: RelationshipType;
  from: string;
  to: string;
  sourceUrl: string;
  updatedAt: string;
}

export interface GraphEventEvidence {
  sourceUrl: string;
  sourceType: SourceType;
  observedAt: string | null;
  sourcePublishedAt: string | null;
  retrievedAt: string | null;
  excerptHash: string | null;
  confidence: number | null;
  classification: 'OBSERVED' | 'VERIFIED';
  provenance: string | null;
  method: string;
  independentlyCorroborated: boolean;
}

export interface GraphEvent {
  id: string;
  type: string;
  at: string;
  headline: string;
  summary: string;
  entityIds: string[];
  sourceUrl: string;
  firstParty: boolean;
  evidence: GraphEventEvidence;
  lastUpdatedAt: string;
}

export interface Listing {
  id: string;
  kind: ListingKind;
  name: string;
  directoryId: string | null;
  url: string;
  status: ListingStatus;
  lastVerifiedAt: string;
  evidenceUrl: string | null;
  updatedAt: string;
}

// ---- import records (the NDJSON lines and admin bodies) ----

export interface ItemSourceRecord {
  url: string;
  sourceType: SourceType;
  supports?: string;
  publishedAt?: string;
}

export interface ItemRecord {
  kind: 'item';
  eventId: string;
  slug?: string;
  eventDate: string;
  datePrecision?: DatePrecision;
  type: ItemType;
  headline: string;
  summary: string;
  whyItMatters: string;
  entities: string[];
  protocols: string[];
  topics: string[];
  sources: ItemSourceRecord[];
  evidenceTier: EvidenceTier;
  caveat?: string;
  firstPartyInterest?: boolean;
  publicAnalysis?: boolean;
  correctionOf?: string | null;
  observedAt?: string;
  marketData?: Record<string, unknown> | null;
  /** Collected items: how each source was read (not material). */
  provenance?: SourceProvenance[];
}

export interface EntityRecord {
  kind: 'entity';
  id: string;
  type: EntityType;
  name: string;
  sourceUrl: string;
  firstParty?: boolean;
}

export interface RelationshipRecord {
  kind: 'relationship';
  id?: string;
  from: string;
  to: string;
  type: RelationshipType;
  sourceUrl: string;
}

export interface RetractionRecord {
  kind: 'retraction';
  eventId: string;
  reason: string;
}

export interface CensusResource {
  id: string;
  family: string;
  calls: number;
}

/**
 * What a census left out of its payer and call counts, and the rule it
 * applied (on-chain census: self-payments, circular flows, dust). The rule is
 * repeated in the market movements' `whatChanged`.
 */
export interface CensusExclusions {
  rule: string;
  selfPayments: number;
  circularTransfers: number;
  dustTransfers: number;
  excludedPayers: number;
}

export interface CensusRecord {
  kind: 'census';
  snapshotId: string;
  observedAt: string;
  source: string;
  distinctPayers: number;
  resources: CensusResource[];
  exclusions?: CensusExclusions;
}

export interface ListingRecord {
  kind: 'listing';
  id: string;
  listingKind: ListingKind;
  name: string;
  directoryId?: string | null;
  url: string;
  status: ListingStatus;
  lastVerifiedAt: string;
  evidenceUrl?: string | null;
}

export type ContentRecord = ItemRecord | EntityRecord | RelationshipRecord | RetractionRecord | CensusRecord | ListingRecord;
