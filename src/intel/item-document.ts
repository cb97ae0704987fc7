/**
 * What a stored item version is: the record's material content (what makes
 * two versions the same), the public item built from it at a store time, the
 * fields that changed between versions, and its view as a graph event.
 * Pure functions; the store decides when to call them.
 */
import { canonicalJson, sha256Hex } from '../foundation/canonical-json.js';
import { zeroMovements } from './census.js';
import { daysBetween, formatMicros, utcDate } from './time.js';
import { confidenceFor, corroborationCount, type SourceType } from './tiers.js';
import {
  ANALYSIS_ITEM_TYPES,
  NEWSWIRE_SCHEMA_VERSION,
  PUBLISHER,
  USAGE_RIGHTS,
  type EvidenceDetail,
  type GraphEvent,
  type ItemRecord,
  type NewsroomState,
  type NewswireItem,
  type StoredItem,
} from './types.js';

const STORE_FIELDS = new Set(['lastUpdatedAt', 'version', 'observedAt', 'publishedAt', 'retrospective']);

/** What makes two versions of an item materially the same: everything but observedAt. */
function materialView(r: ItemRecord) {
  return {
    slug: r.slug ?? r.eventId,
    eventDate: r.eventDate,
    datePrecision: r.datePrecision ?? 'day',
    type: r.type,
    headline: r.headline,
    summary: r.summary,
    whyItMatters: r.whyItMatters,
    entities: r.entities,
    protocols: r.protocols,
    topics: r.topics,
    sources: r.sources.map((s) => ({ url: s.url, sourceType: s.sourceType, supports: s.supports ?? null, publishedAt: s.publishedAt ?? null })),
    evidenceTier: r.evidenceTier,
    caveat: r.caveat ?? null,
    firstPartyInterest: r.firstPartyInterest ?? false,
    publicAnalysis: r.publicAnalysis ?? ANALYSIS_ITEM_TYPES.has(r.type),
    correctionOf: r.correctionOf ?? null,
    marketData: r.marketData ?? null,
  };
}

export function materialHash(r: ItemRecord): string {
  return sha256Hex(canonicalJson(materialView(r)));
}

export interface BuildContext {
  updatedUs: number;
  publishedUs: number;
  observedAt: string;
  version: number;
  state: NewsroomState;
  retractionReason: string | null;
}

export function buildItem(r: ItemRecord, b: BuildContext): StoredItem {
  const v = materialView(r);
  const sourceTypes: SourceType[] = [];
  for (const s of v.sources) if (!sourceTypes.includes(s.sourceType)) sourceTypes.push(s.sourceType);
  const evidence: EvidenceDetail[] = v.sources.map((s) => ({ url: s.url, sourceType: s.sourceType, supports: s.supports, publishedAt: s.publishedAt }));
  const publishedAt = formatMicros(b.publishedUs);
  const item: NewswireItem = {
    eventId: r.eventId,
    eventDate: v.eventDate,
    datePrecision: v.datePrecision,
    publishedAt,
    observedAt: b.observedAt,
    lastUpdatedAt: formatMicros(b.updatedUs),
    version: b.version,
    headline: v.headline,
    summary: v.summary,
    whyItMatters: v.whyItMatters,
    entities: [...v.entities],
    protocols: [...v.protocols],
    topics: [...v.topics],
    sourceURLs: v.sources.map((s) => s.url),
    sourceTypes,
    evidenceTier: v.evidenceTier,
    confidence: confidenceFor(v.evidenceTier, v.caveat !== null),
    corroborationCount: corroborationCount(v.sources.map((s) => s.url)),
    evidenceNote: v.caveat,
    marketData: v.marketData,
    changeVsPrevious: zeroMovements(),
    freshness: 'live',
    publicAnalysis: v.publicAnalysis,
    usageRights: USAGE_RIGHTS,
    schemaVersion: NEWSWIRE_SCHEMA_VERSION,
    firstPartyInterest: v.firstPartyInterest,
    retrospective: daysBetween(v.eventDate, utcDate(Math.floor(b.publishedUs / 1000))) > 7,
    slug: v.slug,
    type: v.type,
    newsroomState: b.state,
    publisher: PUBLISHER,
    correctionOf: v.correctionOf,
    retracted: b.state === 'RETRACTED',
    retractionReason: b.retractionReason,
  };
  return r.provenance?.length ? { item, evidence, provenance: r.provenance.map((p) => ({ ...p })) } : { item, evidence };
}

/** Public item fields (and evidence) whose value differs between two versions. */
export function changedFields(before: StoredItem | undefined, after: StoredItem): string[] {
  if (!before) return [];
  const out: string[] = [];
  const a = before.item as unknown as Record<string, unknown>;
  const b = after.item as unknown as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (STORE_FIELDS.has(k)) continue;
    if (canonicalJson(a[k]) !== canonicalJson(b[k])) out.push(k);
  }
  if (canonicalJson(before.evidence) !== canonicalJson(after.evidence)) out.push('evidence');
  return out;
}

/** A graph event is the public view of a published newswire item: dated, sourced, never synthesized. */
export function eventOf(stored: StoredItem): GraphEvent {
  const it = stored.item;
  const first = stored.evidence[0]!;
  // A collected item says how its first source was read; an imported one was not fetched by the service.
  const read = stored.provenance?.find((p) => p.url === first.url);
  return {
    id: it.eventId,
    type: it.type,
    at: `${it.eventDate}T00:00:00.000000Z`,
    headline: it.headline,
    summary: it.summary,
    entityIds: [...it.entities],
    sourceUrl: first.url,
    firstParty: it.firstPartyInterest,
    lastUpdatedAt: it.lastUpdatedAt,
    evidence: {
      sourceUrl: first.url,
      sourceType: first.sourceType,
      observedAt: it.observedAt,
      sourcePublishedAt: first.publishedAt,
      retrievedAt: read?.retrievedAt ?? null,
      excerptHash: read?.excerptHash ?? null,
      confidence: it.confidence,
      classification: it.evidenceTier === 'TIER_A' || it.evidenceTier === 'TIER_B' ? 'VERIFIED' : 'OBSERVED',
      provenance: read?.collector ?? null,
      method: read?.method ?? 'operator_import',
      independentlyCorroborated: it.corroborationCount >= 2,
    },
  };
}
