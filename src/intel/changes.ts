/**
 * Changes-since: the material deltas of the newswire after a cursor, read
 * from the append-only change log. "Material" is the service's own
 * definition (MATERIAL_ITEM_TYPES): changes to signals, analysis seeds,
 * digests and snapshots are left out. Every published change has its own
 * unique store time, so a chain of calls that passes nextCursor along sees
 * each change exactly once, including several changes to one item between
 * two calls.
 *
 * Cursors: an ISO 8601 timestamp means "after every change stored at or
 * before this instant". A truncated answer's nextCursor is opaque (`c1.` +
 * base64url): it names the exact log position of the last delta delivered
 * (store time, eventId, version), so the next call resumes right after it
 * even if other changes shared that instant; a timestamp alone could not say
 * where inside a tie to resume. A complete answer's nextCursor is the
 * watermark (generatedAt), which no later change can be at or below.
 */
import type { InputProblem } from '../catalog/capability.js';
import { eventSinceDateOf, type MarketMovementsSource } from './newswire.js';
import type { ChangeKey, ChangeRow, ContentStore } from './store/contract.js';
import { formatMicros, parseTimestamp } from './time.js';
import { NEWSWIRE_SCHEMA_VERSION, USAGE_RIGHTS, type ChangeKind, type EvidenceDetail, type MarketMovements } from './types.js';

export const CHANGES_SINCE_PATH = '/v1/intelligence/changes-since';
export const CHANGES_SINCE_PRICE_ATOMIC = '10000';
export const CHANGES_SINCE_PRODUCT = 'machine-economy-changes-since';
/** Names the answer's shape (the output schema in OpenAPI); schemaVersion versions the deltas, as on the newswire. */
export const CHANGES_SINCE_SCHEMA = 'machine-economy-changes-since/v1';
const DEFAULT_MAX_ITEMS = 100;

export interface ChangesSinceInput {
  cursor?: string;
  since?: string;
  /** Only changes of items whose event happened on or after this date (eventDate). */
  event_since?: string;
  include_high_resolution?: boolean;
  maxItems?: number;
  /** Documented alias of maxItems (the name this service used first). */
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

/** The original service's field names. */
export interface ChangesSinceResponse {
  product: string;
  schema: string;
  schemaVersion: string;
  since: string;
  generatedAt: string;
  count: number;
  truncated: boolean;
  nextCursor: string;
  priceAtomic: string;
  highResolution: boolean;
  usageRights: string;
  marketMovements: MarketMovements;
  items: Array<CompactDelta | HighResolutionDelta>;
}

function compactDelta(row: ChangeRow): CompactDelta {
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

function highResolutionDelta(row: ChangeRow): HighResolutionDelta {
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

// ---- cursors ----

const OPAQUE_PREFIX = 'c1.';

/** The opaque cursor of a log position. */
function encodeChangeCursor(k: Required<ChangeKey>): string {
  return OPAQUE_PREFIX + Buffer.from(JSON.stringify([k.us, k.eventId, k.version]), 'utf8').toString('base64url');
}

/** A cursor (ISO 8601 or opaque) as a log position; undefined when it is neither. Instants before the epoch read as the epoch. */
function parseChangeCursor(text: string): ChangeKey | undefined {
  if (text.startsWith(OPAQUE_PREFIX)) {
    const raw = text.slice(OPAQUE_PREFIX.length);
    if (!/^[A-Za-z0-9_-]{1,600}$/.test(raw)) return undefined;
    try {
      const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
      if (!Array.isArray(v) || v.length !== 3) return undefined;
      const [us, eventId, version] = v as unknown[];
      if (!Number.isSafeInteger(us) || (us as number) < 0) return undefined;
      if (typeof eventId !== 'string' || eventId.length === 0 || eventId.length > 256) return undefined;
      if (!Number.isSafeInteger(version) || (version as number) < 1) return undefined;
      return { us: us as number, eventId, version: version as number };
    } catch {
      return undefined;
    }
  }
  const us = parseTimestamp(text);
  return us === undefined ? undefined : { us: Math.max(0, us) };
}

function sameKey(a: ChangeKey, b: ChangeKey): boolean {
  return a.us === b.us && a.eventId === b.eventId && a.version === b.version;
}

/**
 * `cursor` and its alias `since` must agree when both are sent, as must
 * `maxItems` and its alias `max_items`.
 */
export function checkChangesSinceInput(input: ChangesSinceInput): InputProblem | undefined {
  const details = [];
  for (const key of ['cursor', 'since'] as const) {
    const v = input[key];
    if (v !== undefined && parseChangeCursor(v) === undefined) {
      details.push({ path: `/${key}`, rule: 'format', message: 'must be an ISO 8601 timestamp or a nextCursor this service issued' });
    }
  }
  if (input.event_since !== undefined && parseTimestamp(input.event_since) === undefined) {
    details.push({ path: '/event_since', rule: 'format', message: 'must be an ISO 8601 timestamp or a date (YYYY-MM-DD)' });
  }
  if (details.length) return { code: 'invalid_request', message: 'The cursor is not a timestamp or a cursor this service issued.', details };
  if (input.cursor !== undefined && input.since !== undefined && !sameKey(parseChangeCursor(input.cursor)!, parseChangeCursor(input.since)!)) {
    return { code: 'invalid_request', message: 'cursor and since are aliases; send one, or the same position in both.', details: [{ path: '/since', rule: 'alias-conflict', message: 'differs from cursor' }] };
  }
  if (input.maxItems !== undefined && input.max_items !== undefined && input.maxItems !== input.max_items) {
    return { code: 'invalid_request', message: 'maxItems and max_items are aliases; send one, or the same number in both.', details: [{ path: '/max_items', rule: 'alias-conflict', message: 'differs from maxItems' }] };
  }
  return undefined;
}

export interface ChangesDeps {
  store: ContentStore;
  movements: MarketMovementsSource;
}

export async function runChangesSince(deps: ChangesDeps, input: ChangesSinceInput): Promise<ChangesSinceResponse> {
  const cursorText = input.cursor ?? input.since;
  const after: ChangeKey = cursorText === undefined ? { us: 0 } : (parseChangeCursor(cursorText) ?? { us: 0 });
  const highResolution = input.include_high_resolution === true;
  const maxItems = input.maxItems ?? input.max_items ?? DEFAULT_MAX_ITEMS;
  const page = await deps.store.changesSince({ after, maxItems, eventSinceDate: eventSinceDateOf(input.event_since) });
  const generatedAt = formatMicros(page.watermarkUs);
  const last = page.changes[page.changes.length - 1];
  return {
    product: CHANGES_SINCE_PRODUCT,
    schema: CHANGES_SINCE_SCHEMA,
    schemaVersion: NEWSWIRE_SCHEMA_VERSION,
    since: formatMicros(after.us),
    generatedAt,
    count: page.changes.length,
    truncated: page.truncated,
    nextCursor: page.truncated && last ? encodeChangeCursor(last.key) : generatedAt,
    priceAtomic: CHANGES_SINCE_PRICE_ATOMIC,
    highResolution,
    usageRights: USAGE_RIGHTS,
    marketMovements: await deps.movements.current(),
    items: page.changes.map(highResolution ? highResolutionDelta : compactDelta),
  };
}
