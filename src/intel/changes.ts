/**
 * Changes-since: the material deltas of the newswire after a cursor, read
 * from the append-only change log. Every published material change (NEW,
 * UPDATED, CORRECTED, RETRACTED) has its own unique store time, so a chain of
 * calls that passes nextCursor along sees each change exactly once, including
 * several changes to one item between two calls.
 */
import type { InputProblem } from '../catalog/capability.js';
import type { MarketMovementsSource } from './newswire.js';
import { cursorMicros } from './newswire.js';
import type { ChangeRow, ContentStore } from './store/contract.js';
import { formatMicros, parseTimestamp } from './time.js';
import { NEWSWIRE_SCHEMA_VERSION, USAGE_RIGHTS, type ChangeKind, type EvidenceDetail, type MarketMovements } from './types.js';

export const CHANGES_SINCE_PATH = '/v1/intelligence/changes-since';
export const CHANGES_SINCE_PRICE_ATOMIC = '10000';

export interface ChangesSinceInput {
  cursor?: string;
  since?: string;
  include_high_resolution?: boolean;
  max_items?: number;
}

export interface CompactDelta {
  change: ChangeKind;
  changedAt: string;
  eventId: string;
  version: number;
  slug: string;
  eventDate: string;
  type: string;
  headline: string;
  summary: string;
  evidenceTier: string;
  confidence: number;
  entities: string[];
  protocols: string[];
  topics: string[];
  sourceUrl: string;
  correctionOf: string | null;
  retracted: boolean;
  retractionReason: string | null;
  newsroomState: 'PUBLISHED' | 'RETRACTED';
}

export interface HighResolutionDelta extends CompactDelta {
  whyItMatters: string;
  datePrecision: string;
  publishedAt: string;
  observedAt: string;
  sourceURLs: string[];
  sourceTypes: string[];
  corroborationCount: number;
  evidenceNote: string | null;
  evidence: EvidenceDetail[];
  changedFields: string[];
  firstPartyInterest: boolean;
  publicAnalysis: boolean;
  marketData: Record<string, unknown> | null;
}

export interface ChangesSinceResponse {
  schemaVersion: string;
  cursor: string;
  nextCursor: string;
  count: number;
  truncated: boolean;
  generatedAt: string;
  highResolution: boolean;
  priceAtomic: string;
  deltas: Array<CompactDelta | HighResolutionDelta>;
  marketMovements: MarketMovements;
  usageRights: string;
}

export function compactDelta(row: ChangeRow): CompactDelta {
  const it = row.stored.item;
  return {
    change: row.change,
    changedAt: formatMicros(row.changedUs),
    eventId: it.eventId,
    version: it.version,
    slug: it.slug,
    eventDate: it.eventDate,
    type: it.type,
    headline: it.headline,
    summary: it.summary,
    evidenceTier: it.evidenceTier,
    confidence: it.confidence,
    entities: it.entities,
    protocols: it.protocols,
    topics: it.topics,
    sourceUrl: it.sourceURLs[0]!,
    correctionOf: it.correctionOf,
    retracted: it.retracted,
    retractionReason: it.retractionReason,
    newsroomState: it.newsroomState === 'RETRACTED' ? 'RETRACTED' : 'PUBLISHED',
  };
}

export function highResolutionDelta(row: ChangeRow): HighResolutionDelta {
  const it = row.stored.item;
  return {
    ...compactDelta(row),
    whyItMatters: it.whyItMatters,
    datePrecision: it.datePrecision,
    publishedAt: it.publishedAt,
    observedAt: it.observedAt,
    sourceURLs: it.sourceURLs,
    sourceTypes: it.sourceTypes,
    corroborationCount: it.corroborationCount,
    evidenceNote: it.evidenceNote,
    evidence: row.stored.evidence,
    changedFields: row.changedFields,
    firstPartyInterest: it.firstPartyInterest,
    publicAnalysis: it.publicAnalysis,
    marketData: it.marketData,
  };
}

/** `cursor` and its alias `since` must agree when both are sent. */
export function checkChangesSinceInput(input: ChangesSinceInput): InputProblem | undefined {
  const details = [];
  for (const key of ['cursor', 'since'] as const) {
    const v = input[key];
    if (v !== undefined && parseTimestamp(v) === undefined) details.push({ path: `/${key}`, rule: 'format', message: 'must be an ISO 8601 timestamp' });
  }
  if (details.length) return { code: 'invalid_request', message: 'The cursor is not a timestamp.', details };
  if (input.cursor !== undefined && input.since !== undefined && parseTimestamp(input.cursor) !== parseTimestamp(input.since)) {
    return { code: 'invalid_request', message: 'cursor and since are aliases; send one, or the same instant in both.', details: [{ path: '/since', rule: 'alias-conflict', message: 'differs from cursor' }] };
  }
  return undefined;
}

export interface ChangesDeps {
  store: ContentStore;
  movements: MarketMovementsSource;
}

export async function runChangesSince(deps: ChangesDeps, input: ChangesSinceInput): Promise<ChangesSinceResponse> {
  const cursorUs = cursorMicros(input.cursor ?? input.since);
  const highResolution = input.include_high_resolution === true;
  const maxItems = input.max_items ?? 100;
  const page = await deps.store.changesSince(cursorUs, maxItems);
  const generatedAt = formatMicros(page.watermarkUs);
  const last = page.changes[page.changes.length - 1];
  return {
    schemaVersion: NEWSWIRE_SCHEMA_VERSION,
    cursor: formatMicros(cursorUs),
    nextCursor: page.truncated && last ? formatMicros(last.changedUs) : generatedAt,
    count: page.changes.length,
    truncated: page.truncated,
    generatedAt,
    highResolution,
    priceAtomic: CHANGES_SINCE_PRICE_ATOMIC,
    deltas: page.changes.map(highResolution ? highResolutionDelta : compactDelta),
    marketMovements: await deps.movements.current(),
    usageRights: USAGE_RIGHTS,
  };
}
