/**
 * Validation of content records (import lines and admin bodies): the JSON
 * Schema first, then the rules a schema cannot say — real dates not in the
 * future, public http(s) source URLs, a tier the sources can support.
 * References to other records (entities, corrected items) are checked by the
 * store, inside the write transaction.
 */
import { compileValidator, type Validator } from '../catalog/validation.js';
import type { ErrorCode, ErrorDetail } from '../errors.js';
import { CONTENT_RECORD_SCHEMAS } from './record-schemas.js';
import { isCalendarDate, parseTimestamp, utcDate } from './time.js';
import { EVIDENCE_TIERS, tierAllowed, tierCeiling } from './tiers.js';
import type { CensusRecord, ContentRecord, EntityRecord, ItemRecord, ListingRecord, RelationshipRecord } from './types.js';

export interface Rejection {
  code: ErrorCode;
  reason: string;
  details: ErrorDetail[];
}

export type Checked<T> = { ok: true; record: T } | { ok: false; rejection: Rejection };

export type RecordKind = keyof typeof CONTENT_RECORD_SCHEMAS;
const RECORD_KINDS = Object.keys(CONTENT_RECORD_SCHEMAS) as RecordKind[];

const validators = new Map<RecordKind, Validator>();
function validatorFor(kind: RecordKind): Validator {
  let v = validators.get(kind);
  if (!v) {
    v = compileValidator(CONTENT_RECORD_SCHEMAS[kind]);
    validators.set(kind, v);
  }
  return v;
}

export function reject(code: ErrorCode, reason: string, details: ErrorDetail[] = []): { ok: false; rejection: Rejection } {
  return { ok: false, rejection: { code, reason, details } };
}

/** A timestamp may run ahead of the operator's clock by this much (clock skew), no more. */
const FUTURE_SKEW_MS = 5 * 60_000;

/**
 * Source URLs must be public web addresses a reader can open: http(s), no
 * credentials, a dotted host name that is not a loopback or private literal.
 */
export function checkPublicUrl(url: string, path: string): ErrorDetail | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { path, rule: 'url', message: 'is not a URL' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { path, rule: 'url', message: 'must be an http or https URL' };
  if (u.username || u.password) return { path, rule: 'url', message: 'must not carry credentials' };
  const host = u.hostname.toLowerCase();
  if (!host.includes('.') || host.endsWith('.local') || host.endsWith('.localhost') || host.endsWith('.internal')) {
    return { path, rule: 'url', message: 'must name a public host' };
  }
  if (/^[0-9.]+$/.test(host) || host.startsWith('[')) return { path, rule: 'url', message: 'must name a host, not an IP address' };
  return undefined;
}

function notInFuture(text: string, path: string, nowMs: number): ErrorDetail | undefined {
  const us = parseTimestamp(text);
  if (us === undefined) return { path, rule: 'format', message: 'is not an ISO 8601 timestamp' };
  if (us / 1000 > nowMs + FUTURE_SKEW_MS) return { path, rule: 'not-in-future', message: 'is in the future' };
  return undefined;
}

function checkItem(r: ItemRecord, nowMs: number): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  if (!isCalendarDate(r.eventDate)) out.push({ path: '/eventDate', rule: 'format', message: 'is not a calendar date (YYYY-MM-DD)' });
  // An event cannot be dated after the day it is imported (one day of slack for time zones ahead of UTC).
  else if (r.eventDate > utcDate(nowMs + 86_400_000)) out.push({ path: '/eventDate', rule: 'not-in-future', message: 'is after today; an event is dated by its source' });
  r.sources.forEach((s, i) => {
    const d = checkPublicUrl(s.url, `/sources/${i}/url`);
    if (d) out.push(d);
    if (s.publishedAt !== undefined) {
      const f = notInFuture(s.publishedAt, `/sources/${i}/publishedAt`, nowMs);
      if (f) out.push(f);
    }
  });
  const types = r.sources.map((s) => s.sourceType);
  if (!tierAllowed(r.evidenceTier, types)) {
    const ceiling = tierCeiling(types);
    out.push({
      path: '/evidenceTier',
      rule: 'tier-ceiling',
      message: `${r.evidenceTier} (${EVIDENCE_TIERS[r.evidenceTier].label}) is stronger than these source types support; the best is ${ceiling}`,
    });
  }
  const sourceUrls = new Set(r.sources.map((s) => s.url));
  r.provenance?.forEach((p, i) => {
    if (!sourceUrls.has(p.url)) out.push({ path: `/provenance/${i}/url`, rule: 'known-source', message: 'must be the url of one of the sources' });
    const f = notInFuture(p.retrievedAt, `/provenance/${i}/retrievedAt`, nowMs);
    if (f) out.push(f);
  });
  if (r.correctionOf && r.correctionOf === r.eventId) out.push({ path: '/correctionOf', rule: 'self-reference', message: 'an item cannot correct itself' });
  if (r.observedAt !== undefined) {
    const f = notInFuture(r.observedAt, '/observedAt', nowMs);
    if (f) out.push(f);
  }
  return out;
}

function checkEntity(r: EntityRecord): ErrorDetail[] {
  const d = checkPublicUrl(r.sourceUrl, '/sourceUrl');
  return d ? [d] : [];
}

function checkRelationship(r: RelationshipRecord): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const d = checkPublicUrl(r.sourceUrl, '/sourceUrl');
  if (d) out.push(d);
  if (r.from === r.to) out.push({ path: '/to', rule: 'self-reference', message: 'a relationship joins two different entities' });
  return out;
}

function checkCensus(r: CensusRecord, nowMs: number): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const d = checkPublicUrl(r.source, '/source');
  if (d) out.push(d);
  const f = notInFuture(r.observedAt, '/observedAt', nowMs);
  if (f) out.push(f);
  const seen = new Set<string>();
  r.resources.forEach((res, i) => {
    if (seen.has(res.id)) out.push({ path: `/resources/${i}/id`, rule: 'unique', message: 'appears twice in the snapshot' });
    seen.add(res.id);
  });
  return out;
}

function checkListing(r: ListingRecord, nowMs: number): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const d = checkPublicUrl(r.url, '/url');
  if (d) out.push(d);
  if (r.evidenceUrl) {
    const e = checkPublicUrl(r.evidenceUrl, '/evidenceUrl');
    if (e) out.push(e);
  }
  const f = notInFuture(r.lastVerifiedAt, '/lastVerifiedAt', nowMs);
  if (f) out.push(f);
  return out;
}

/**
 * Check one record. Defaults from the schema are filled in place (e.g.
 * `datePrecision: "day"`), so the returned record is the canonical form.
 */
export function checkRecord(value: unknown, nowMs: number): Checked<ContentRecord> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return reject('invalid_request', 'A record is a JSON object.', [{ path: '', rule: 'type', message: 'must be an object' }]);
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !(RECORD_KINDS as string[]).includes(kind)) {
    return reject('invalid_request', `A record needs "kind": one of ${RECORD_KINDS.join(', ')}.`, [{ path: '/kind', rule: 'enum', message: `must be one of ${RECORD_KINDS.join(', ')}` }]);
  }
  const k = kind as RecordKind;
  const schemaProblems = validatorFor(k)(value);
  if (schemaProblems) return reject('invalid_request', `The ${k} record does not match its schema.`, schemaProblems);
  const rec = value as ContentRecord;
  let problems: ErrorDetail[] = [];
  switch (rec.kind) {
    case 'item':
      problems = checkItem(rec, nowMs);
      break;
    case 'entity':
      problems = checkEntity(rec);
      break;
    case 'relationship':
      problems = checkRelationship(rec);
      break;
    case 'census':
      problems = checkCensus(rec, nowMs);
      break;
    case 'listing':
      problems = checkListing(rec, nowMs);
      break;
    case 'retraction':
      break;
  }
  if (problems.length) return reject('invalid_request', `The ${k} record breaks a content rule: ${problems[0]!.path} ${problems[0]!.message}.`, problems);
  return { ok: true, record: rec };
}
