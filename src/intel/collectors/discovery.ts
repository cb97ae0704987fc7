/**
 * Discovery census: which x402 resources exist, at what price, paying whom —
 * read from Bazaar-style discovery APIs, origins' `/.well-known/x402` and
 * OpenAPI documents with `x-payment-info`.
 *
 * Rules (src/intel/README.md, "Collectors"):
 * - A source that cannot be read completely (timeout, over the size limit,
 *   not JSON, wrong shape, any page failing) writes nothing and counts no
 *   misses: a failure is not a disappearance.
 * - Resources are identified by their exact URL; entity ids are a hash of it.
 * - First sight of a resource at a source: a `directory_listing` item
 *   (Bazaar) or `discovery_observation` item (origin documents), and the
 *   resource's `new_product` item the first time any source lists it.
 * - First successful read of a Bazaar source: a `new_directory` item.
 * - The `new_product` item's sources are every source currently listing the
 *   resource; tier per tiers.ts `defaultTier`: one independent host → one
 *   step below the best source's ceiling (never below TIER_C) with a caveat;
 *   two or more independent hosts → the ceiling, no caveat.
 * - Removal: missing from MISS_LIMIT consecutive complete reads of a source
 *   → a removal item of the listing's type; the resource leaves the census
 *   when no source lists it.
 * - A source that changes a listed resource's payee → a correction item
 *   (`correctionOf` the listing item): the earlier payee is no longer right.
 * - Items are dated the day of observation (discovery sources do not state
 *   when a resource appeared).
 * - Attribution: a listing proves who offers a resource only when the
 *   resource is on the listing document's own origin, or is listed by the
 *   `/.well-known/x402` of its own host. Anything else (a directory naming
 *   `https://api.coinbase.com/…` with its own payee, an OpenAPI document
 *   whose `servers[0]` names another company) is the lister's claim:
 *   unverified, worded as the lister's, never above TIER_C however many
 *   listers repeat it, and its terms never replace terms the resource's own
 *   host states.
 * - A listed URL whose host is not public (private, loopback, link-local,
 *   unique-local, CGNAT, multicast, `localhost`, `.internal`, …;
 *   addresses.ts) is refused and counted, never published.
 * - Each source spends a budget per run and per UTC day (context.ts
 *   `SourceBudgets`); what does not fit is deferred, not written.
 */
import { defaultTier, tierAtMost, type SourceType } from '../tiers.js';
import type { ItemRecord, ItemType } from '../types.js';
import { isPublishableUrl } from './addresses.js';
import {
  clip,
  DEFAULT_SOURCE_BUDGET,
  idFragment,
  loadState,
  newReport,
  provenanceOf,
  quoteClaim,
  saveState,
  SourceBudgets,
  utcDay,
  write,
  type BudgetUse,
  type CollectorContext,
  type CollectorReport,
  type DayUse,
} from './context.js';
import { readBazaarPage, readOpenApi, readWellKnown, type ReadResult, type ResourceObservation } from './discovery-formats.js';
import { fetchJson } from './fetch.js';

export const DISCOVERY_COLLECTOR = 'discovery';
/** Consecutive complete reads of a source without a resource before it counts as removed there. */
export const MISS_LIMIT = 3;
const MAX_PAGES = 10;
const PAGE_LIMIT = 100;

export interface DiscoveryOptions {
  /** Bazaar discovery endpoints (`…/discovery/resources`). */
  bazaarUrls: string[];
  /** Origins whose `/.well-known/x402` is read. */
  origins: string[];
  /** OpenAPI documents read for `x-payment-info`. */
  openapiUrls: string[];
}

type SourceKind = 'bazaar' | 'well_known' | 'openapi';

interface ListingState {
  eventId: string;
  firstSeen: string;
  lastSeen: string;
  misses: number;
  removed: boolean;
  payTo: string | null;
}

export interface ResourceState {
  firstSeen: string;
  lastSeen: string;
  payTo: string | null;
  network: string | null;
  asset: string | null;
  amount: string | null;
  family: string;
  productEventId: string | null;
  listings: Record<string, ListingState>;
  /** Whether the terms above come from a source that proves it speaks for the resource's host. */
  termsVerified?: boolean;
}

export interface DiscoveryState {
  sources: Record<string, { kind: SourceKind; firstSeen: string; lastSeen: string }>;
  resources: Record<string, ResourceState>;
  /** Each source's use of today's budget. */
  budgets?: Record<string, DayUse>;
}

interface SourceRead {
  url: string;
  kind: SourceKind;
  excerptHash: string;
  resources: ResourceObservation[];
}

const emptyState = (): DiscoveryState => ({ sources: {}, resources: {} });

export function resourceEntityId(url: string): string {
  return `x402-resource-${idFragment(url, 16)}`;
}

function directoryEntityId(url: string): string {
  return `directory-${idFragment(url, 16)}`;
}

/** A resource is listed while at least one source lists it. */
export function isListed(r: ResourceState): boolean {
  return Object.values(r.listings).some((l) => !l.removed);
}

export async function loadDiscoveryState(ctx: CollectorContext): Promise<DiscoveryState> {
  return loadState(ctx, DISCOVERY_COLLECTOR, emptyState);
}

/** Read one source completely (every Bazaar page), or report why not. */
async function readSource(ctx: CollectorContext, report: CollectorReport, url: string, kind: SourceKind): Promise<SourceRead | undefined> {
  const parse = (json: unknown): ReadResult | string => (kind === 'bazaar' ? readBazaarPage(json) : kind === 'well_known' ? readWellKnown(json) : readOpenApi(json, url));
  const resources: ResourceObservation[] = [];
  let excerptHash = '';
  let skipped = 0;
  let refused = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const pageUrl = kind === 'bazaar' && page > 0 ? withOffset(url, page * PAGE_LIMIT) : url;
    const got = await fetchJson(pageUrl, ctx.limits);
    if (!got.ok) {
      report.failures.push({ url: pageUrl, failure: got.failure, detail: got.detail });
      return undefined;
    }
    const read = parse(got.json);
    if (typeof read === 'string') {
      report.failures.push({ url: pageUrl, failure: 'malformed', detail: read });
      return undefined;
    }
    if (page === 0) excerptHash = got.excerptHash;
    // Internal addresses are never published, whoever lists them.
    const publishable = read.resources.filter((o) => isPublishableUrl(o.url));
    refused += read.resources.length - publishable.length;
    resources.push(...publishable);
    skipped += read.skipped;
    const seen = resources.length + skipped + refused;
    if (kind !== 'bazaar' || read.total === undefined || seen >= read.total || read.resources.length + read.skipped === 0) break;
  }
  if (skipped) report.notes.push(`${url}: ${skipped} malformed entr${skipped === 1 ? 'y' : 'ies'} skipped.`);
  if (refused) report.notes.push(`${url}: ${refused} listed resource${refused === 1 ? '' : 's'} at a private, loopback, link-local or otherwise internal address refused (never published).`);
  return { url, kind, excerptHash, resources };
}

function withOffset(url: string, offset: number): string {
  const u = new URL(url);
  u.searchParams.set('offset', String(offset));
  u.searchParams.set('limit', String(PAGE_LIMIT));
  return u.toString();
}

function hostOf(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/\.+$/, '');
}

function originOf(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${hostOf(url)}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
}

/**
 * Whether a source proves it speaks for a resource's host: the resource is
 * on the listing document's own origin (scheme, host and port), or the
 * source is the `/.well-known/x402` of the resource's host. Only then is
 * the listing attributed to that host; otherwise it is the lister's claim.
 */
export function provesAttribution(kind: SourceKind, sourceUrl: string, resource: string): boolean {
  if (originOf(sourceUrl) === originOf(resource)) return true;
  return kind === 'well_known' && hostOf(sourceUrl) === hostOf(resource);
}

/** What kind of evidence a source is for a resource: the host's own documents document it; anyone else observes it. */
function sourceTypeFor(kind: SourceKind, sourceUrl: string, resource: string): SourceType {
  return provesAttribution(kind, sourceUrl, resource) ? 'vendor_documentation' : 'market_observation';
}

/** The listing's tier: vendor documentation of its own resource → B; anyone else's claim → C. */
function listingTier(kind: SourceKind, sourceUrl: string, resource: string): 'TIER_B' | 'TIER_C' {
  return provesAttribution(kind, sourceUrl, resource) ? 'TIER_B' : 'TIER_C';
}

const UNVERIFIED_NOTE = (lister: string, resource: string) => `${lister} is not ${hostOf(resource)}: the listing is its claim, not confirmed by the resource's own host.`;

/** The machine-readable terms an item carries (`marketData`). */
function termsData(url: string, o: Pick<ResourceObservation, 'amount' | 'asset' | 'network' | 'payTo' | 'family'>) {
  return { resource: url, payTo: o.payTo, network: o.network, asset: o.asset, amountAtomic: o.amount, family: o.family };
}

function priceText(o: Pick<ResourceObservation, 'amount' | 'asset' | 'network' | 'payTo'>): string {
  return `price ${o.amount ?? 'not stated'} atomic units of ${o.asset ?? 'an unstated asset'} on ${o.network ?? 'an unstated network'}, payee ${o.payTo ?? 'not stated'}`;
}

class DiscoveryRun {
  readonly touched = new Set<string>();
  readonly nowMs: number;
  readonly day: string;
  readonly iso: string;
  readonly budget: SourceBudgets;

  constructor(
    readonly ctx: CollectorContext,
    readonly report: CollectorReport,
    readonly state: DiscoveryState,
  ) {
    this.nowMs = ctx.now();
    this.day = utcDay(this.nowMs);
    this.iso = new Date(this.nowMs).toISOString();
    this.budget = new SourceBudgets(ctx.budget ?? DEFAULT_SOURCE_BUDGET, (state.budgets ??= {}), this.day);
  }

  /** Reserve a write's cost from the source's budget (every write below also revises the resource's new_product item). */
  private afford(src: SourceRead, cost: Partial<BudgetUse>): boolean {
    return this.budget.spend(src.url, cost);
  }

  private base(src: SourceRead, type: ItemType, eventId: string): Pick<ItemRecord, 'kind' | 'eventId' | 'eventDate' | 'type' | 'topics' | 'protocols' | 'observedAt' | 'provenance'> {
    return {
      kind: 'item',
      eventId,
      eventDate: this.day,
      type,
      topics: ['discovery'],
      protocols: [],
      observedAt: this.iso,
      provenance: [provenanceOf(DISCOVERY_COLLECTOR, src.url, src.excerptHash, this.nowMs)],
    };
  }

  async apply(src: SourceRead): Promise<void> {
    const known = this.state.sources[src.url];
    if (!known && src.kind === 'bazaar' && this.afford(src, { items: 1, records: 2 })) await this.announceDirectory(src);
    this.state.sources[src.url] = { kind: src.kind, firstSeen: known?.firstSeen ?? this.iso, lastSeen: this.iso };
    const listed = new Set<string>();
    for (const o of src.resources) {
      if (listed.has(o.url)) continue;
      listed.add(o.url);
      await this.observe(src, o);
    }
    for (const [url, r] of Object.entries(this.state.resources)) {
      const l = r.listings[src.url];
      if (!l || l.removed || listed.has(url)) continue;
      l.misses++;
      if (l.misses >= MISS_LIMIT && this.afford(src, { items: 2, records: 2 })) await this.remove(src, url, l);
    }
  }

  private async announceDirectory(src: SourceRead): Promise<void> {
    const id = directoryEntityId(src.url);
    const ok = await write(this.ctx, this.report, { kind: 'entity', id, type: 'DIRECTORY', name: clip(`x402 discovery directory at ${hostOf(src.url)}`, 200), sourceUrl: src.url });
    if (!ok) return;
    await write(this.ctx, this.report, {
      ...this.base(src, 'new_directory', `new-directory-${idFragment(src.url, 16)}`),
      headline: clip(`x402 discovery directory answering at ${hostOf(src.url)}`, 200),
      summary: clip(`The discovery API at ${src.url} answered with ${src.resources.length} x402 resource${src.resources.length === 1 ? '' : 's'}.`, 2000),
      whyItMatters: 'Discovery directories are how agents find paid resources; a new one widens what agents can buy without prior integration.',
      entities: [id],
      sources: [{ url: src.url, sourceType: 'vendor_documentation', supports: 'The directory’s own discovery API answered with a resource list.' }],
      evidenceTier: 'TIER_B',
    });
  }

  private async observe(src: SourceRead, o: ResourceObservation): Promise<void> {
    let r = this.state.resources[o.url];
    const entity = resourceEntityId(o.url);
    const existing = r?.listings[src.url];
    const newListing = !existing || existing.removed;
    const payeeChanged = !newListing && !!o.payTo && !!existing.payTo && o.payTo !== existing.payTo;
    // A new listing writes the listing item and revises the product item (plus, first time anywhere, the entity; on a Bazaar, LISTED_ON).
    if (newListing && !this.afford(src, { resources: r ? 0 : 1, items: 2, records: 2 + (r ? 0 : 1) + (src.kind === 'bazaar' ? 1 : 0) })) return;
    // A payee change writes the correction and revises the product item; deferred, it is seen again next run.
    if (payeeChanged && !this.afford(src, { items: 2, records: 2 })) return;
    const verified = provesAttribution(src.kind, src.url, o.url);
    if (!r) {
      const ok = await write(this.ctx, this.report, { kind: 'entity', id: entity, type: 'X402_RESOURCE', name: clip(o.url, 200), sourceUrl: src.url });
      if (!ok) return;
      r = { firstSeen: this.iso, lastSeen: this.iso, payTo: o.payTo, network: o.network, asset: o.asset, amount: o.amount, family: o.family, productEventId: null, listings: {}, termsVerified: verified };
      this.state.resources[o.url] = r;
    }
    r.lastSeen = this.iso;
    // Terms come from a source that states them; a lister's claim never replaces terms the resource's own host states.
    if (o.payTo && (verified || !r.termsVerified || !this.hostStillStatesTerms(o.url, r))) {
      Object.assign(r, { payTo: o.payTo, network: o.network, asset: o.asset, amount: o.amount, termsVerified: verified });
    }
    if (o.family !== 'uncategorized') r.family = o.family;
    const l = r.listings[src.url];
    if (!l || l.removed) {
      await this.list(src, o, r, entity);
      return;
    }
    l.lastSeen = this.iso;
    l.misses = 0;
    if (payeeChanged) await this.correctPayee(src, o, l, entity);
  }

  /** Whether a source that proves attribution still lists the resource with terms. */
  private hostStillStatesTerms(url: string, r: ResourceState): boolean {
    return Object.entries(r.listings).some(([s, l]) => !l.removed && l.payTo !== null && provesAttribution(this.state.sources[s]?.kind ?? 'bazaar', s, url));
  }

  private listingType(src: SourceRead): ItemType {
    return src.kind === 'bazaar' ? 'directory_listing' : 'discovery_observation';
  }

  private async list(src: SourceRead, o: ResourceObservation, r: ResourceState, entity: string): Promise<void> {
    if (src.kind === 'bazaar') {
      await write(this.ctx, this.report, { kind: 'relationship', from: entity, to: directoryEntityId(src.url), type: 'LISTED_ON', sourceUrl: src.url });
    }
    const eventId = `listing-${idFragment(src.url, 10)}-${idFragment(o.url, 12)}-${this.day.replaceAll('-', '')}`;
    const where = src.kind === 'bazaar' ? `the discovery directory ${src.url}` : src.kind === 'well_known' ? `the x402 manifest ${src.url}` : `the OpenAPI document ${src.url}`;
    const sourceType = sourceTypeFor(src.kind, src.url, o.url);
    const verified = sourceType === 'vendor_documentation';
    const described = o.description ? ` The listing describes it, in the lister's words: ${quoteClaim(o.description, 500)}.` : '';
    const ok = await write(this.ctx, this.report, {
      ...this.base(src, this.listingType(src), eventId),
      headline: clip(`x402 resource ${o.url} listed at ${hostOf(src.url)}${verified ? '' : ' (unverified)'}`, 200),
      summary: clip(`${where} lists ${o.url}: ${priceText(o)}.${verified ? '' : ` ${UNVERIFIED_NOTE(hostOf(src.url), o.url)}`}${described}`, 2000),
      whyItMatters: 'Each listing is one observation of what agents can buy with x402, at what price and paying whom.',
      entities: [entity],
      sources: [{ url: src.url, sourceType, supports: clip(`Lists ${o.url}${o.payTo ? ` with payTo ${o.payTo}` : ''}.`, 2000) }],
      evidenceTier: listingTier(src.kind, src.url, o.url),
      ...(verified ? {} : { caveat: clip(UNVERIFIED_NOTE(hostOf(src.url), o.url), 500) }),
      marketData: { ...termsData(o.url, o), source: src.url, sourceKind: src.kind, attribution: verified ? 'verified' : 'unverified' },
    });
    if (!ok) return;
    r.listings[src.url] = { eventId, firstSeen: this.iso, lastSeen: this.iso, misses: 0, removed: false, payTo: o.payTo };
    this.touched.add(o.url);
  }

  private async correctPayee(src: SourceRead, o: ResourceObservation, l: ListingState, entity: string): Promise<void> {
    const ok = await write(this.ctx, this.report, {
      ...this.base(src, this.listingType(src), `${l.eventId}-payee-${idFragment(o.payTo!, 8)}`.slice(0, 128)),
      headline: clip(`Payee of ${o.url} corrected at ${hostOf(src.url)}`, 200),
      summary: clip(`${src.url} now lists payee ${o.payTo} for ${o.url}; it listed ${l.payTo} before. ${priceText(o)}.`, 2000),
      whyItMatters: 'Payments go to the listed payee; an agent or census using the earlier address would pay or count the wrong wallet.',
      entities: [entity],
      sources: [{ url: src.url, sourceType: sourceTypeFor(src.kind, src.url, o.url), supports: clip(`Lists ${o.url} with payTo ${o.payTo}.`, 2000) }],
      evidenceTier: listingTier(src.kind, src.url, o.url),
      ...(provesAttribution(src.kind, src.url, o.url) ? {} : { caveat: clip(UNVERIFIED_NOTE(hostOf(src.url), o.url), 500) }),
      correctionOf: l.eventId,
      marketData: { ...termsData(o.url, o), previousPayTo: l.payTo, source: src.url, sourceKind: src.kind },
    });
    if (!ok) return;
    l.payTo = o.payTo;
    // The resource's new_product item states the payee too: it is revised with the corrected terms.
    this.touched.add(o.url);
  }

  private async remove(src: SourceRead, url: string, l: ListingState): Promise<void> {
    const ok = await write(this.ctx, this.report, {
      ...this.base(src, this.listingType(src), `${l.eventId}-removed-${this.day.replaceAll('-', '')}`.slice(0, 128)),
      headline: clip(`x402 resource ${url} no longer listed at ${hostOf(src.url)}`, 200),
      summary: clip(`${src.url} has not listed ${url} in ${MISS_LIMIT} consecutive complete reads (first listed ${l.firstSeen}, last seen ${l.lastSeen}).`, 2000),
      whyItMatters: 'A resource that leaves discovery sources can no longer be found by agents; the census stops counting it once no source lists it.',
      entities: [resourceEntityId(url)],
      sources: [{ url: src.url, sourceType: sourceTypeFor(src.kind, src.url, url), supports: `The listing no longer contains ${clip(url, 1800)}.` }],
      evidenceTier: listingTier(src.kind, src.url, url),
    });
    if (!ok) return;
    l.removed = true;
    this.touched.add(url);
    this.report.notes.push(`${url}: no longer listed at ${src.url}.`);
  }

  /** The resource's new_product item, its sources being every source that lists it now. */
  async product(url: string, reads: Map<string, SourceRead>): Promise<void> {
    const r = this.state.resources[url]!;
    const active = Object.entries(r.listings).filter(([, l]) => !l.removed).map(([s]) => s).sort();
    if (active.length === 0) return;
    const kinds = active.map((s) => this.state.sources[s]?.kind ?? 'bazaar');
    const types = active.map((s, i) => sourceTypeFor(kinds[i]!, s, url));
    const independent = new Set(active.map(hostOf)).size;
    // Attributed to the resource's host only when one of its listers proves it speaks for that host.
    const verified = types.includes('vendor_documentation');
    const listers = [...new Set(active.map(hostOf))].join(', ');
    const caveats = [
      ...(independent < 2 ? ['Seen at one source host only; not yet independently corroborated.'] : []),
      ...(verified ? [] : [`Unverified: listed only by ${listers}, not by ${hostOf(url)} itself; the terms are the listers' claim.`]),
    ];
    // Repetition by more listers is not proof: an unverified resource is never above TIER_C.
    const tier = verified ? defaultTier(types, caveats.length > 0) : tierAtMost(defaultTier(types, true), 'TIER_C');
    const eventId = r.productEventId ?? `x402-resource-${idFragment(url, 16)}`;
    const provenance = active.filter((s) => reads.has(s)).map((s) => provenanceOf(DISCOVERY_COLLECTOR, s, reads.get(s)!.excerptHash, this.nowMs));
    const listedBy = `Listed by ${active.length} source${active.length === 1 ? '' : 's'} (${independent} independent host${independent === 1 ? '' : 's'}).`;
    const ok = await write(this.ctx, this.report, {
      kind: 'item',
      eventId,
      // Dated the day it was first seen, never earlier.
      eventDate: r.firstSeen.slice(0, 10),
      type: 'new_product',
      headline: clip(verified ? `New x402 resource: ${url}` : `x402 resource claimed by ${listers} (unverified): ${url}`, 200),
      summary: clip(
        verified
          ? `${url} is offered for x402 payment: ${priceText(r)}. ${listedBy}`
          : `${listers} list${independent === 1 ? 's' : ''} ${url} as offered for x402 payment (${priceText(r)}). ${hostOf(url)} has not confirmed it: neither a document on its own origin nor its /.well-known/x402 lists it. ${listedBy}`,
        2000,
      ),
      whyItMatters: 'A new paid resource is new supply in the machine economy; its payee is what the on-chain census watches.',
      entities: [resourceEntityId(url)],
      protocols: [],
      topics: ['discovery'],
      sources: active.map((s, i) => ({ url: s, sourceType: types[i]!, supports: clip(`Lists ${url}.`, 2000) })),
      evidenceTier: tier,
      ...(caveats.length ? { caveat: clip(caveats.join(' '), 500) } : {}),
      marketData: { ...termsData(url, r), firstSeen: r.firstSeen, sources: active.length, independentHosts: independent, attribution: verified ? 'verified' : 'unverified' },
      observedAt: this.iso,
      ...(provenance.length ? { provenance } : {}),
    });
    if (ok) r.productEventId = eventId;
  }
}

export async function collectDiscovery(ctx: CollectorContext, opts: DiscoveryOptions): Promise<CollectorReport> {
  const report = newReport(DISCOVERY_COLLECTOR);
  const state = await loadDiscoveryState(ctx);
  const sources: Array<[string, SourceKind]> = [
    ...opts.bazaarUrls.map((u): [string, SourceKind] => [u, 'bazaar']),
    ...opts.origins.map((o): [string, SourceKind] => [`${o.replace(/\/+$/, '')}/.well-known/x402`, 'well_known']),
    ...opts.openapiUrls.map((u): [string, SourceKind] => [u, 'openapi']),
  ];
  const run = new DiscoveryRun(ctx, report, state);
  const reads = new Map<string, SourceRead>();
  for (const [url, kind] of sources) {
    const read = await readSource(ctx, report, url, kind);
    if (!read) continue;
    reads.set(url, read);
    await run.apply(read);
  }
  for (const url of run.touched) await run.product(url, reads);
  report.notes.push(...run.budget.notes());
  await saveState(ctx, DISCOVERY_COLLECTOR, state);
  const listed = Object.values(state.resources).filter(isListed).length;
  report.notes.push(`${reads.size} of ${sources.length} sources read; ${listed} resources listed.`);
  return report;
}
