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
import { redactInternalAddresses } from './addresses.js';
import type { FetchLimits, FetchOutcome } from './fetch.js';

export interface CollectorContext {
  store: ContentStore;
  now: () => number;
  limits: FetchLimits;
  /** What one source may write per run and per UTC day; DEFAULT_SOURCE_BUDGET when not given. */
  budget?: SourceBudget;
}

/** What a source's observations cost when written. */
export interface BudgetUse {
  /** Resources (or releases) first admitted from this source. */
  resources: number;
  /** Newswire items written (created or revised). */
  items: number;
  /** Records of any kind written: items, entities, relationships, retractions. */
  records: number;
}

export interface SourceBudget {
  perRun: BudgetUse;
  perDay: BudgetUse;
}

/**
 * Per source: at most 20 items a run and 40 a UTC day, fewer than the 50 the
 * newswire shows by default, so one source answering 500 resources a page
 * cannot fill the front page, however often the collectors run.
 */
export const DEFAULT_SOURCE_BUDGET: SourceBudget = {
  perRun: { resources: 10, items: 20, records: 60 },
  perDay: { resources: 20, items: 40, records: 120 },
};

/** A source's use of its daily budget, kept in the collector's state. */
export interface DayUse extends BudgetUse {
  day: string;
}

const BUDGET_KEYS = ['resources', 'items', 'records'] as const;

/**
 * The budgets of one run. `spend` is all-or-nothing: an observation whose
 * records do not all fit is not written at all, and the collector leaves its
 * state as if it had not been seen, so a later run (or day) writes it.
 */
export class SourceBudgets {
  private readonly run = new Map<string, BudgetUse>();
  private readonly deferred = new Map<string, number>();

  constructor(
    readonly limits: SourceBudget,
    /** The collector's persisted day counters (mutated in place; entries of other days are dropped). */
    private readonly days: Record<string, DayUse>,
    private readonly day: string,
  ) {
    for (const [k, v] of Object.entries(days)) if (v.day !== day) delete days[k];
  }

  spend(source: string, cost: Partial<BudgetUse>): boolean {
    const run = this.run.get(source) ?? { resources: 0, items: 0, records: 0 };
    const today = this.days[source] ?? { day: this.day, resources: 0, items: 0, records: 0 };
    for (const k of BUDGET_KEYS) {
      const c = cost[k] ?? 0;
      if (run[k] + c > this.limits.perRun[k] || today[k] + c > this.limits.perDay[k]) {
        this.deferred.set(source, (this.deferred.get(source) ?? 0) + 1);
        return false;
      }
    }
    for (const k of BUDGET_KEYS) {
      run[k] += cost[k] ?? 0;
      today[k] += cost[k] ?? 0;
    }
    this.run.set(source, run);
    this.days[source] = today;
    return true;
  }

  /** One sentence per source whose budget held observations back. */
  notes(): string[] {
    const { perRun: r, perDay: d } = this.limits;
    return [...this.deferred].map(
      ([source, n]) =>
        `${source}: budget reached, ${n} observation${n === 1 ? '' : 's'} deferred to a later run (per source: ${r.items} items, ${r.resources} new resources, ${r.records} records a run; ${d.items}, ${d.resources}, ${d.records} a day).`,
    );
  }
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

/**
 * Quote a third party's free text (a maintainer's deprecation message, a
 * lister's description) as their words: control characters stripped,
 * internal addresses removed, clipped, inside quotation marks — a sentence
 * around it must say whose claim it is.
 */
export function quoteClaim(text: string, max: number): string {
  return `“${clip(redactInternalAddresses(text).replace(/[“”]/g, '"'), max)}”`;
}

/** Shorten an untrusted string for a headline or summary (a hostile source cannot make items huge). */
export function clip(text: string, max: number): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
