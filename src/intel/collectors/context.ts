/**
 * What every collector shares: the store it writes to, the clock, the fetch
 * limits, its report, and the one write path — `importValue`, the same
 * validation and store calls as `npm run intel -- import` and the admin API.
 * A collector never writes a table directly.
 */
import { createHash } from 'node:crypto';
import { emptyReport, importValue, type ImportReport } from '../importer.js';
import type { ContentStore } from '../store/contract.js';
import type { ContentRecord, SourceProvenance } from '../types.js';
import type { FetchLimits, FetchOutcome } from './fetch.js';

export interface CollectorContext {
  store: ContentStore;
  now: () => number;
  limits: FetchLimits;
}

export interface SourceFailure {
  url: string;
  failure: string;
  detail: string;
}

export interface CollectorReport {
  collector: string;
  /** Records written, as the importer counts them (`rejected` lists what validation refused). */
  records: ImportReport;
  /** Sources that could not be read this run (nothing was written from them). */
  failures: SourceFailure[];
  /** What the collector observed, in sentences for the operator. */
  notes: string[];
}

export function newReport(collector: string): CollectorReport {
  return { collector, records: emptyReport(), failures: [], notes: [] };
}

/** Validate and store one record exactly as an import line would be. Returns whether it was accepted. */
export async function write(ctx: CollectorContext, report: CollectorReport, record: ContentRecord): Promise<boolean> {
  const before = report.records.rejected.length;
  await importValue(ctx.store, record, report.records.lines + 1, ctx.now(), report.records);
  return report.records.rejected.length === before;
}

export function recordFailure(report: CollectorReport, outcome: Extract<FetchOutcome, { ok: false }>): void {
  report.failures.push({ url: outcome.url, failure: outcome.failure, detail: outcome.detail });
}

/** How a source was read, for the item's `provenance`. */
export function provenanceOf(collector: string, url: string, excerptHash: string, retrievedAtMs: number, method = 'http_get'): SourceProvenance {
  return { url, retrievedAt: new Date(retrievedAtMs).toISOString(), method, excerptHash, collector: `collector:${collector}` };
}

/** A short, stable id fragment for a URL or address (ids must be lower-case [a-z0-9-]). */
export function idFragment(text: string, length = 12): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** A readable id fragment: lower-case, runs of other characters as one hyphen, bounded. */
export function slugFragment(text: string, max = 48): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, max).replace(/-+$/, '') || 'x';
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Collector state (checkpoints, first/last seen) lives in content_meta as JSON, one key per collector. */
export async function loadState<T>(ctx: CollectorContext, key: string, empty: () => T): Promise<T> {
  const raw = await ctx.store.getMeta(`collector:${key}`);
  if (raw === undefined) return empty();
  try {
    return JSON.parse(raw) as T;
  } catch {
    return empty();
  }
}

export function saveState(ctx: CollectorContext, key: string, state: unknown): Promise<void> {
  return ctx.store.setMeta(`collector:${key}`, JSON.stringify(state));
}

/** Shorten an untrusted string for a headline or summary (a hostile source cannot make items huge). */
export function clip(text: string, max: number): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
